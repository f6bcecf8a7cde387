package universal

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// go-readability finds the article container well but keeps what sits inside it beside the
// article: section labels, bylines and date lines, captions and photo credits, related, newsletter
// and tip-line blocks, share bars, hover cards glued into sentences, the same caption under every
// gallery image, and player or gallery controls. And it drops embedded posts whose wrapper looks
// like a menu to it (a "social" class, or a tweet's links read as link density). The functions
// here run around it: protectEmbeds before (on the whole page), stripBoilerplate after (on the
// article it returns, read with its class names kept). Both were measured on the development set
// (cmd/evaluniversal, fixtures/evaluniversal).

// embedClass names the blockquote an embedded post is rewritten into; stripBoilerplate never
// removes it.
const embedClass = "asa-embed"

// embedClasses are the class names of embedded posts as their sites' widgets ask pages to write
// them (the blockquote that the widget script replaces).
var embedClasses = []string{"twitter-tweet", "twitter-video", "instagram-media", "tiktok-embed", "bluesky-embed", "threads-post", "mastodon-embed", "fb-xfbml-parse-ignore", "reddit-embed-bq"}

// protectEmbeds rewrites every embedded post of doc as a plain <blockquote class="asa-embed">: its
// links become their text (a post's hashtags and date link would otherwise read as a link list)
// and the wrappers that hold nothing but the post lose their class and id (a "social-embed" div is
// an unlikely candidate to the extractor). Elements hidden inside a paragraph (a hover card's
// body, display:none, hidden, aria-hidden) are removed: they are not part of the sentence.
func protectEmbeds(doc *html.Node) {
	var embeds, hidden []*html.Node
	walkElements(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Head:
			return false
		case atom.Blockquote:
			if hasAnyClass(n, embedClasses) {
				embeds = append(embeds, n)
				return false
			}
		}
		if isHidden(n) && hasAncestorAtom(n, atom.P, 4) {
			hidden = append(hidden, n)
			return false
		}
		return true
	})
	for _, n := range hidden {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	for _, bq := range embeds {
		unwrapLinks(bq)
		setAttr(bq, "class", embedClass)
		removeAttr(bq, "id")
		// The wrappers whose only text is the post's.
		want := clean(nodeText(bq))
		for p, depth := bq.Parent, 0; p != nil && depth < 4 && p.Type == html.ElementNode; p, depth = p.Parent, depth+1 {
			if p.DataAtom == atom.Body || p.DataAtom == atom.Article || p.DataAtom == atom.Main || clean(nodeText(p)) != want {
				break
			}
			removeAttr(p, "class")
			removeAttr(p, "id")
			removeAttr(p, "role")
		}
	}
}

// isHidden reports an element the page hides: hidden, aria-hidden="true", or an inline style of
// display:none or visibility:hidden.
func isHidden(n *html.Node) bool {
	if _, ok := attrOK(n, "hidden"); ok {
		return true
	}
	if strings.EqualFold(attr(n, "aria-hidden"), "true") {
		return true
	}
	st := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	return strings.Contains(st, "display:none") || strings.Contains(st, "visibility:hidden")
}

// unwrapLinks replaces every <a> under n by its children.
func unwrapLinks(n *html.Node) {
	var links []*html.Node
	walkElements(n, func(c *html.Node) bool {
		if c.DataAtom == atom.A {
			links = append(links, c)
		}
		return true
	})
	for _, a := range links {
		for c := a.FirstChild; c != nil; {
			next := c.NextSibling
			a.RemoveChild(c)
			a.Parent.InsertBefore(c, a)
			c = next
		}
		a.Parent.RemoveChild(a)
	}
}

// maxBoilerplateShare: a block removed by its class name must hold less than this share of the
// article's text, so that a page whose whole article sits in a "post-meta" or "related" box (it
// happens) keeps it.
const maxBoilerplateShare = 0.3

// stripBoilerplate removes from the article node what is beside the article (see the top of this
// file). title is the page's headline, removed when it opens the article.
func stripBoilerplate(root *html.Node, title string) {
	// Text lengths and the elements holding an embed, in one walk (the rules below ask for them at
	// every element: computing them there would be quadratic in the depth).
	size := map[*html.Node]int{}
	embedded := map[*html.Node]bool{}
	var measure func(n *html.Node) int
	measure = func(n *html.Node) int {
		if n.Type == html.TextNode {
			return len(strings.TrimSpace(n.Data))
		}
		t := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			t += measure(c)
		}
		if n.Type == html.ElementNode {
			size[n] = t
			if hasClass(n, embedClass) {
				for p := n; p != nil; p = p.Parent {
					embedded[p] = true
				}
			}
		}
		return t
	}
	total := measure(root)
	if total == 0 {
		return
	}
	wrapInlineRuns(root, size)
	// 1. Elements by what they are, or by their class and id. header marks those that hold a byline
	// or a date.
	drop := map[*html.Node]bool{}
	headerish := map[*html.Node]bool{}
	captionish := map[*html.Node]bool{}
	walkElements(root, func(n *html.Node) bool {
		if n == root {
			return true
		}
		if hasClass(n, embedClass) {
			return false
		}
		size := size[n]
		switch tagAtom(n) {
		case atom.Figcaption:
			// Slideshow articles write their text in the slides' captions: only a caption's length
			// tells them apart.
			if size <= maxCaption {
				drop[n] = true
				captionish[n] = true
				return false
			}
		case atom.Nav, atom.Footer, atom.Aside, atom.Form, atom.Button, atom.Select, atom.Input, atom.Dialog, atom.Menu:
			if !embedded[n] {
				drop[n] = true
				return false
			}
		}
		if isHoverCard(n) {
			drop[n] = true
			return false
		}
		if isBlockish(n) && !embedded[n] && float64(size) < maxBoilerplateShare*float64(total) {
			if kind := boilerplateName(n); kind != nameNone && (kind != nameCaption || size <= maxCaption) {
				drop[n] = true
				switch {
				case kind == nameHeader:
					headerish[n] = true
				case kind == nameCaption || tagAtom(n) == atom.Figcaption:
					captionish[n] = true
				}
				return false
			}
		}
		return true
	})

	// A photo essay tells its story in its captions: when they hold a large share of the text, they
	// are the article.
	captionText := 0
	for n := range captionish {
		captionText += size[n]
	}
	if float64(captionText) > maxCaptionShare*float64(total) {
		for n := range captionish {
			delete(drop, n)
		}
		clear(captionish)
	}

	// 2. Leaf blocks by their text.
	blocks := leafBlocks(root)
	texts := make([]string, len(blocks))
	inDrop := make([]bool, len(blocks))
	seen := map[string]int{}
	header := -1      // the last byline or date line among the first blocks
	heroCaption := -1 // a caption or credit among the very first (the lead image's)
	for i, b := range blocks {
		texts[i] = clean(nodeText(b))
		for p := b; p != nil && p != root; p = p.Parent {
			if drop[p] {
				inDrop[i] = true
				if headerish[p] && i < 8 {
					header = i
				} else if captionish[p] && i < 4 && header < 0 {
					heroCaption = i
				}
				break
			}
		}
		if texts[i] != "" && !blockInEmbed(b) && !inDrop[i] {
			seen[strings.ToLower(texts[i])]++
		}
	}
	remove := make([]bool, len(blocks))
	tailLinks := false
	for i, b := range blocks {
		t := texts[i]
		if t == "" || inDrop[i] {
			continue
		}
		short := len(t) <= 300
		if inTable(b, root) {
			continue // a table's cells are data: years, counts, repeated values
		}
		if blockInEmbed(b) {
			// An embed's text is kept, but not the placeholder of a deleted post.
			remove[i] = short && uiLine.MatchString(t)
			continue
		}
		switch {
		case short && seen[strings.ToLower(t)] > 1 && wordCount(t) >= 2 && (len(t) <= 80 || nearImage(b)):
			// The same caption under every gallery image, "Courtesy of ..." after each photo, a
			// reactions widget after each section.
			remove[i] = true
		case short && boilerplateLine(t):
			remove[i] = true
		case len(t) <= 300 && authorBio.MatchString(t):
			// "Jane Doe is a reporter who covers ...": the author box, and the name line above it.
			remove[i] = true
			if j := i - 1; j >= 0 && !remove[j] && nameLine(texts[j]) {
				remove[j] = true
			}
		case len(t) <= 80 && contactLine.MatchString(t):
			remove[i] = true
		case len(t) <= 200 && (bylineLine(t) || dateLine(t)):
			remove[i] = true
			if i < 8 {
				header = i
			}
		case i < 3 && title != "" && strings.EqualFold(t, clean(title)):
			remove[i] = true
		case len(t) <= 160 && leadInLine(t):
			// "Related:", "Read more from X:": the line and the links that follow it.
			remove[i] = true
			tailLinks = true
			continue
		case tailLinks && short && linkShare(b) > 0.8:
			remove[i] = true
			continue
		}
		tailLinks = false
	}
	// A menu left inside the container: a run of at least minMenuRun short lines that are links
	// and nothing else (a site's sections, a footer's pages).
	for i := 0; i < len(blocks); {
		j := i
		for j < len(blocks) && texts[j] != "" && len(texts[j]) <= 50 && !blockInEmbed(blocks[j]) && linkShare(blocks[j]) > 0.9 {
			j++
		}
		if j-i >= minMenuRun {
			for k := i; k < j; k++ {
				remove[k] = true
			}
		}
		i = max(j, i+1)
	}
	// Above a byline or date line near the top sit the headline, the standfirst and the section
	// label: the article starts after it, when what precedes it is short.
	// Above the lead image's caption, only short lines (a label, a headline, a standfirst).
	if header < 0 && heroCaption > 0 {
		header = heroCaption
		for i := 0; i < heroCaption; i++ {
			if len(texts[i]) > 120 {
				header = -1
			}
		}
	}
	if header >= 0 {
		n := 0
		ok := true
		for i := 0; i < header; i++ {
			n += len(texts[i])
			if len(texts[i]) > 300 {
				ok = false
			}
		}
		if ok && n <= 700 {
			for i := 0; i < header; i++ {
				if !blockInEmbed(blocks[i]) {
					remove[i] = true
				}
			}
		}
	}
	kept := 0
	for i := range blocks {
		if !remove[i] && !inDrop[i] {
			kept += len(texts[i])
		}
	}
	if kept == 0 {
		return // never empty an article: what was found is better than nothing
	}
	for n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	for i, b := range blocks {
		if remove[i] && b.Parent != nil {
			b.Parent.RemoveChild(b)
		}
	}
}

// minMenuRun is the shortest run of link-only lines taken for a menu.
const minMenuRun = 8

// maxCaptionShare is the share of the article's text in captions above which they are kept.
const maxCaptionShare = 0.25

// maxCaption is the longest text taken for a caption.
const maxCaption = 300

// wrapInlineRuns wraps the inline content of an element that also holds blocks (a section label
// link, then a heading, then paragraphs) into paragraphs of their own, so that every line of text
// is a leaf block.
func wrapInlineRuns(root *html.Node, size map[*html.Node]int) {
	var mixed []*html.Node
	walkElements(root, func(n *html.Node) bool {
		hasBlock, hasInline := false, false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.ElementNode && isBlockish(c):
				hasBlock = true
			case c.Type == html.TextNode && strings.TrimSpace(c.Data) != "", c.Type == html.ElementNode && tagAtom(c) != atom.Br && size[c] > 0:
				hasInline = true
			}
		}
		if hasBlock && hasInline && tagAtom(n) != atom.P {
			mixed = append(mixed, n)
		}
		return true
	})
	for _, n := range mixed {
		var run *html.Node
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			inline := c.Type == html.TextNode || (c.Type == html.ElementNode && !isBlockish(c))
			switch {
			case inline && c.Type == html.ElementNode && tagAtom(c) == atom.Br:
				run = nil
				n.RemoveChild(c)
			case inline:
				if run == nil {
					if c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
						c = next
						continue
					}
					run = &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
					n.InsertBefore(run, c)
				}
				n.RemoveChild(c)
				run.AppendChild(c)
			default:
				run = nil
			}
			c = next
		}
	}
}

// boilerplateParts are class or id words (split on - and _) that name what sits beside an article.
var boilerplateParts = map[string]bool{
	"byline": true, "bylines": true, "author": true, "authors": true, "dateline": true, "timestamp": true, "date": true,
	"caption": true, "captions": true, "credit": true, "credits": true, "share": true, "sharing": true, "shares": true,
	"social": true, "related": true, "relatedposts": true, "newsletter": true, "newsletters": true, "signup": true,
	"subscribe": true, "subscription": true, "tipline": true, "kicker": true, "eyebrow": true, "breadcrumb": true,
	"breadcrumbs": true, "promo": true, "sponsor": true, "sponsored": true, "recirc": true, "recirculation": true,
	"advert": true, "advertisement": true, "ad": true, "ads": true, "meta": true, "tags": true, "sharedaddy": true,
	"disclaimer": true, "bio": true, "outbrain": true, "taboola": true, "popular": true, "trending": true,
}

// boilerplateTokens are whole class or id names of the same kind that their words do not tell.
var boilerplateTokens = map[string]bool{"hidden": true, "is-hidden": true, "sr-only": true, "visually-hidden": true, "screen-reader-text": true, "section-label": true, "read-more": true, "readmore": true, "more-stories": true, "page-numbers": true, "tip-line": true, "sign-up": true}

// What a class or id name says an element is.
const (
	nameNone    = iota
	nameOther   // related, share, newsletter ...
	nameCaption // a caption or a credit
	nameHeader  // a byline, a date, the article's meta line
)

// boilerplateName says whether an element's class or id names boilerplate, and which kind.
func boilerplateName(n *html.Node) int {
	kind := nameNone
	for _, tok := range strings.Fields(strings.ToLower(attr(n, "class") + " " + attr(n, "id"))) {
		if hasAnyPrefix(tok, "no-", "no_", "has-", "has_", "with-", "with_", "without") {
			continue // "no_caption": a state, not a part
		}
		if boilerplateTokens[tok] {
			kind = max(kind, nameOther)
		}
		for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' }) {
			if !boilerplateParts[part] {
				continue
			}
			switch part {
			case "byline", "bylines", "author", "authors", "dateline", "timestamp", "date", "meta":
				kind = nameHeader
			case "caption", "captions", "credit", "credits":
				if kind == nameNone {
					kind = nameCaption
				}
			default:
				if kind != nameHeader {
					kind = nameOther
				}
			}
		}
	}
	return kind
}

// isHoverCard reports the body of a link's hover card ("rollover-people-block", "hovercard",
// "tooltip-content"): the name and a headline a page shows on hover, which would otherwise be glued
// into the sentence ("Maria SantosMaria SantosSantos wins ...").
func isHoverCard(n *html.Node) bool {
	for _, tok := range strings.Fields(strings.ToLower(attr(n, "class"))) {
		parts := strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' })
		hover, body := false, false
		for _, p := range parts {
			switch p {
			case "hovercard", "tooltip", "popover":
				return true
			case "rollover", "hover":
				hover = true
			case "block", "card", "content", "box", "popup", "body", "info":
				body = true
			}
		}
		if hover && body {
			return true
		}
	}
	return false
}

var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Ul: true, atom.Ol: true, atom.Li: true, atom.Dl: true, atom.Dd: true,
	atom.Dt: true, atom.Figure: true, atom.Header: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true,
	atom.H5: true, atom.H6: true, atom.Table: true, atom.Blockquote: true, atom.Pre: true, atom.Article: true,
	atom.Aside: true, atom.Nav: true, atom.Footer: true, atom.Figcaption: true, atom.Address: true, atom.Details: true,
	atom.Tr: true, atom.Td: true, atom.Th: true, atom.Tbody: true, atom.Thead: true, atom.Main: true, atom.Hr: true,
}

func isBlockish(n *html.Node) bool { return n.Type == html.ElementNode && blockAtoms[tagAtom(n)] }

// tagAtom is n's tag as an atom. go-readability renames elements (a div of phrasing content becomes
// a p) by their Data alone, leaving DataAtom as it was.
func tagAtom(n *html.Node) atom.Atom {
	if n.DataAtom != 0 && n.DataAtom.String() == n.Data {
		return n.DataAtom
	}
	return atom.Lookup([]byte(n.Data))
}

// leafBlocks lists the block elements of root that hold no other block element, in document order.
func leafBlocks(root *html.Node) []*html.Node {
	var out []*html.Node
	var visit func(n *html.Node) bool // reports whether n has a block descendant
	visit = func(n *html.Node) bool {
		hasBlock := false
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			sub := visit(c)
			if isBlockish(c) || sub {
				hasBlock = true
			}
		}
		if n != root && isBlockish(n) && !hasBlock {
			out = append(out, n)
		}
		return hasBlock
	}
	visit(root)
	return out
}

// nearImage reports a block beside an image: after one, or in a figure or a box that holds one.
func nearImage(n *html.Node) bool {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode {
			if a := tagAtom(p); a == atom.Img || a == atom.Picture || a == atom.Figure {
				return true
			}
			break
		}
	}
	for p, d := n.Parent, 0; p != nil && d < 2; p, d = p.Parent, d+1 {
		if tagAtom(p) == atom.Figure {
			return true
		}
		for c := p.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (tagAtom(c) == atom.Img || tagAtom(c) == atom.Picture) {
				return true
			}
		}
	}
	return false
}

func inTable(n, root *html.Node) bool {
	for p := n; p != nil && p != root; p = p.Parent {
		if p.Type == html.ElementNode && tagAtom(p) == atom.Table {
			return true
		}
	}
	return false
}

func blockInEmbed(n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && hasClass(p, embedClass) {
			return true
		}
	}
	return false
}

// linkShare is the share of n's text inside links.
func linkShare(n *html.Node) float64 {
	all := len(clean(nodeText(n)))
	if all == 0 {
		return 0
	}
	in := 0
	walkElements(n, func(c *html.Node) bool {
		if tagAtom(c) == atom.A {
			in += len(clean(nodeText(c)))
			return false
		}
		return true
	})
	return float64(in) / float64(all)
}

// The lines that are never article text, whole (case folded). RE2: linear in the line's length.
var (
	uiLine = regexp.MustCompile(`(?i)^(?:` +
		// gallery and player controls
		`(?:see|view|open) (?:the )?(?:full )?(?:gallery|slideshow|photos)|up next|see all|back to slide|` +
		`(?:show|hide) caption\s*[+–-]?|\d+ (?:photos|images|slides)|of|discover more like this|see photos from this story:?|` +
		`we apologi[sz]e, this video has expired\.?|this video has expired\.?|video unavailable|` +
		`tweet may have been deleted(?: \(opens in a new tab\))?|` +
		// reactions and comments
		`what[’']s your reaction\?|join the conversation|\d+\s*reactions?|\d+\s*comments?|comments|leave a comment|` +
		// ads
		`advertisement|advertising|ad|sponsored|skip ad|story continues below(?: advertisement)?|continue reading below|` +
		// share bars
		`share(?: this(?: article| story| post)?)?(?: on)?:?(?:\s*(?:facebook|twitter|x|email|e-mail|linkedin|whatsapp|pinterest|reddit|print|copy link|comments?|flipboard|messenger)\s*)*|` +
		// page navigation
		`(?:page:?\s*)?(?:\d+\s*)+(?:next\s*[→›»]?)?|(?:next|previous|prev) (?:page|article)\s*[→›»]?` +
		`)$`)
	creditLine = regexp.MustCompile(`(?i)^(?:\(?(?:photo|photos|photograph|image|images|picture|pictures|credit|credits|foto|fotos|bild|crédit|crédito|illustration|video)s?\b(?:\s+(?:by|credit|courtesy|shot|edited|de|von|par))?\s*[:：/]|courtesy(?: of)? |(?:video|photos?) (?:shot|edited|by) )`)
	// a caption that ends with its credit: "... (Dustin Franz/AFP/Getty Images)".
	creditTail = regexp.MustCompile(`(?i)\((?:[^()]*(?:getty|afp|reuters|ap photo|associated press|shutterstock|istock|epa|photo|foto|image|credit)[^()]*)\)\.?$`)
	// promotions, anchored at the start; promoWords anywhere in the line.
	promoLine = regexp.MustCompile(`(?i)^(?:(?:sign up|subscribe|get our|get the)\b.*(?:newsletter|inbox|email)|(?:got|have) a (?:news )?tip\b|send us (?:a|your) tips?\b|tips@|follow us\b|follow (?:@|on )|(?:would you like|want) to (?:be part of|join) (?:the|our)\b|click here to\b)`)
	leadIn    = regexp.MustCompile(`(?i)^(?:related(?: (?:stories|articles|coverage|content|posts|links|reading))?|read more(?: from [^:]{1,60})?|more from [^:]{1,60}|more on (?:this|[^:]{1,40})|see also|also read|read next|read also|recommended(?: for you| reading)?|you may also like|you might also like|more stories|most popular|trending(?: now)?|lire aussi|à lire aussi|mehr zum thema|lesen sie auch|leia também|lee también)\s*[:：]?(?:\s.*)?$`)
	// an author box: a name of two to four words, then what the author is.
	authorBio = regexp.MustCompile(`^(?:\p{Lu}[\p{L}'’.-]*\s+){1,3}\p{Lu}[\p{L}'’.-]*,?\s+(?:is|was|writes|covers|reports)\b[^.]{0,160}\b(?:writer|reporter|correspondent|contributor|editor|columnist|journalist|author|producer|critic|analyst|opinion|covers|reports)\b`)
	// a reporter's contact line: an e-mail address, a social handle.
	contactLine = regexp.MustCompile(`(?i)^(?:(?:e-?mail|twitter|x|instagram|facebook|mastodon|bluesky)\s*:\s*)?(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|@\w{2,30})\.?$`)
	bylineRe    = regexp.MustCompile(`^(?i:by|par|von|por|di|door|av|af|de|written by|words by|reporting by)\s+[\p{Lu}\p{Lt}]`)
	timeRe      = regexp.MustCompile(`\d{1,2}:\d{2}|\d{1,4}[/.-]\d{1,2}[/.-]\d{2,4}`)
)

// promoWords mark a promotion wherever they are in a short line.
var promoWords = []string{"newsletter", "associates program", "affiliate link", "affiliate commission", "we may earn a commission", "we may earn commission"}

// boilerplateLine reports a short block that is a control, a credit, a promotion or a share bar.
// The cheap tests come first: this runs on every short block of every page.
func boilerplateLine(t string) bool {
	if len(t) <= 120 && uiLine.MatchString(t) {
		return true
	}
	lower := strings.ToLower(t)
	for _, w := range promoWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	if promoLine.MatchString(t) {
		return true
	}
	if len(t) <= 160 && creditLine.MatchString(t) {
		return true
	}
	if !strings.HasSuffix(t, ")") && !strings.HasSuffix(t, ").") || strings.HasSuffix(t, "))") {
		return false
	}
	// Only the last parenthesis can be a credit.
	if i := strings.LastIndexByte(t, '('); i >= 0 {
		return creditTail.MatchString(t[i:])
	}
	return false
}

// leadInLine reports "Related:", "RELATED: headline", "Read more from X:": a line that announces
// links to other articles.
func leadInLine(t string) bool { return leadIn.MatchString(t) }

// bylineLine reports "By Jane Doe", "By Jane Doe and John Roe, CNN": a name line, not a sentence.
func bylineLine(t string) bool {
	if !bylineRe.MatchString(t) || wordCount(t) > 12 {
		return false
	}
	return !strings.ContainsAny(strings.TrimRight(t, ". "), "!?;") && !strings.Contains(t, ". ")
}

// nameLine reports a line that is a person's name alone: two to four capitalised words.
func nameLine(t string) bool {
	w := strings.Fields(t)
	if len(w) < 2 || len(w) > 4 {
		return false
	}
	for _, x := range w {
		r := []rune(x)
		if !unicode.IsUpper(r[0]) {
			return false
		}
	}
	return true
}

var dateWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`jan january feb february mar march apr april may jun june jul july aug august sep sept
		september oct october nov november dec december mon monday tue tues tuesday wed wednesday thu thur thurs thursday fri
		friday sat saturday sun sunday am pm a.m p.m utc gmt est edt cst cdt mst mdt pst pdt bst cet cest ist jst
		updated update published posted modified last on at by source de der die am um le la el du
		janvier février mars avril mai juin juillet août septembre octobre novembre décembre
		januar februar märz april juni juli oktober dezember enero febrero marzo abril mayo junio julio agosto septiembre
		octubre noviembre diciembre aktualisiert veröffentlicht publié mis à jour actualizado publicado`) {
		dateWords[w] = true
	}
}

// dateLine reports a block that is a date and time with at most a word or two around it:
// "Updated 3:15 PM EST, Tue March 4, 2025", "Dec. 22, 2016, 3:36 PM UTC / Source: Zillow",
// "12/19/16 12/19/16", "October 29, 2018". It needs a month or weekday name or a numeric date or
// time, so that "Actual: $28,500,000" is not one.
func dateLine(t string) bool {
	if len(t) > 120 {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.'
	})
	if len(words) == 0 {
		return false
	}
	named, dated := false, timeRe.MatchString(t)
	hits := 0
	for _, w := range words {
		w = strings.Trim(w, ".")
		switch {
		case w == "":
			hits++
		case isDigits(w):
			hits++
		case dateWords[w]:
			hits++
			if len(w) >= 3 && !isFiller(w) {
				named = true
			}
		}
	}
	if !named && !dated {
		return false
	}
	return float64(hits) >= 0.7*float64(len(words)) && len(words)-hits <= 3
}

func isFiller(w string) bool {
	switch w {
	case "updated", "update", "published", "posted", "modified", "last", "source", "der", "die", "aktualisiert", "veröffentlicht", "publié", "actualizado", "publicado":
		return true
	}
	return false
}

func wordCount(t string) int { return len(strings.Fields(t)) }

// walkElements calls f on n and the elements under it, in document order; f returning false skips
// the element's children.
func walkElements(n *html.Node, f func(*html.Node) bool) {
	if n.Type == html.ElementNode && !f(n) {
		return
	}
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling // f may not remove c, but the caller's removals happen after the walk
		walkElements(c, f)
		c = next
	}
}

func hasAncestorAtom(n *html.Node, a atom.Atom, maxDepth int) bool {
	for p, d := n.Parent, 0; p != nil && d < maxDepth; p, d = p.Parent, d+1 {
		if p.DataAtom == a {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, c string) bool {
	for _, f := range strings.Fields(attr(n, "class")) {
		if f == c {
			return true
		}
	}
	return false
}

func hasAnyClass(n *html.Node, cs []string) bool {
	for _, f := range strings.Fields(attr(n, "class")) {
		for _, c := range cs {
			if f == c {
				return true
			}
		}
	}
	return false
}

func setAttr(n *html.Node, key, val string) {
	for i := range n.Attr {
		if n.Attr[i].Namespace == "" && n.Attr[i].Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func removeAttr(n *html.Node, key string) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Namespace != "" || a.Key != key {
			out = append(out, a)
		}
	}
	n.Attr = out
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
