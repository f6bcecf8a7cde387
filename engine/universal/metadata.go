package universal

import (
	"html"
	"strings"
	"unicode"
)

// The <meta> keys read for each metadata field, in order of preference (lower-case name,
// property or itemprop).
var (
	titleMeta = []string{"og:title", "twitter:title", "dc.title", "dcterms.title", "parsely-title", "sailthru.title", "title"}
	descMeta  = []string{"og:description", "description", "twitter:description", "dc.description", "dcterms.description", "sailthru.description"}
	// "author" and friends; article:author and og:article:author are often a profile URL.
	authorMeta = []string{"author", "article:author", "og:article:author", "dc.creator", "dcterms.creator", "parsely-author",
		"sailthru.author", "byl", "cxenseparse:author", "citation_author", "book:author"}
	publishedMeta = []string{"article:published_time", "og:article:published_time", "og:published_time", "published_time",
		"article:published", "datepublished", "date_published", "publish_date", "publish-date", "publishdate", "pubdate",
		"parsely-pub-date", "sailthru.date", "dc.date.issued", "dcterms.issued", "dcterms.created", "dc.date.created",
		"dc.date", "dcterms.date", "date", "citation_publication_date", "article.published", "article_date_original",
		"cxenseparse:recs:publishtime", "originalpublicationdate", "og:updated_time"}
	siteMeta = []string{"og:site_name", "application-name", "apple-mobile-web-app-title", "al:android:app_name", "al:iphone:app_name", "twitter:app:name:iphone"}
)

// title is the page's title without a trailing site name: the JSON-LD article's name or headline,
// else og:title, twitter:title and the other title metas, else a microdata article's headline,
// else <title>, else the content extractor's guess, else the first <h1>.
func (p *page) title(a *article) string {
	t := ""
	if art := p.ldEntity(isArticleType); art != nil {
		t = p.headline(art)
	}
	if t == "" {
		for _, k := range titleMeta {
			if v := p.meta[k]; v != "" && !p.isSiteName(v) {
				t = v
				break
			}
		}
	}
	if t == "" {
		if art := p.entity(isArticleType); art != nil {
			t = p.headline(art)
		}
	}
	if t == "" {
		t = firstNonEmpty(p.docTitle, a.title, p.h1)
	}
	return p.stripSiteName(unescape(clean(t)))
}

// headline picks an article's name or headline. When they differ, the one that resembles the
// page's <title> wins (sites put their own name, or a tagline, in one of them); else the name.
func (p *page) headline(art map[string]any) string {
	name, head := clean(str(art["name"])), clean(str(art["headline"]))
	if p.isSiteName(name) {
		name = ""
	}
	if p.isSiteName(head) {
		head = ""
	}
	if name == "" || head == "" || name == head {
		return firstNonEmpty(name, head)
	}
	ref := firstNonEmpty(p.docTitle, p.meta["og:title"])
	if similarity(head, ref) > 0.75 && similarity(name, ref) <= 0.75 {
		return head
	}
	return name
}

// similarity is the share of b's words (by length) that also appear in a, as Readability measures
// titles.
func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	in := map[string]bool{}
	for _, w := range wa {
		in[w] = true
	}
	total, missing := 0, 0
	for _, w := range wb {
		total += len(w) + 1
		if !in[w] {
			missing += len(w) + 1
		}
	}
	return 1 - float64(missing)/float64(total)
}

// words splits s into lower-case runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// metadata fills description, author and published from JSON-LD, meta tags and OpenGraph,
// microdata and the page itself, in that order of trust for each field.
func (p *page) metadata(a *article) Metadata {
	var m Metadata
	ld := p.ldEntity(isArticleType)
	md := firstOf(p.objects()[len(p.ldObjects()):], isArticleType)

	for _, k := range descMeta {
		if m.Description = p.meta[k]; m.Description != "" {
			break
		}
	}
	for _, art := range []map[string]any{ld, md} {
		if m.Description == "" && art != nil {
			m.Description = clean(str(art["description"]))
		}
	}
	if m.Description == "" {
		m.Description = a.excerpt
	}
	m.Description = unescape(clean(m.Description))

	// schema.org's author, then the author meta tags, then the visible byline; creator last: sites
	// put the uploading account there (Fandom's "CC7567" for the byline's "James Akinaka").
	author := func(art map[string]any) string {
		if art == nil {
			return ""
		}
		return personNames(art["author"])
	}
	creator := func(art map[string]any) string {
		if art == nil {
			return ""
		}
		return personNames(art["creator"])
	}
	// The first that is a byline once cleaned: a candidate that is not (a paragraph, as when a page
	// marks a byline and an author's bio both itemprop=author) gives way to the next.
	metaAuthor := func() string {
		for _, k := range authorMeta {
			if v := p.meta[k]; v != "" && !looksURL(v) && !strings.HasPrefix(v, "@") {
				return v
			}
		}
		return ""
	}
	for _, c := range []func() string{
		func() string { return author(ld) }, metaAuthor, func() string { return author(md) },
		func() string { return a.byline }, func() string { return firstNonEmpty(creator(ld), creator(md)) },
	} {
		if m.Author = cleanByline(unescape(c())); m.Author != "" {
			break
		}
	}

	published := func(art map[string]any) string {
		if art == nil {
			return ""
		}
		return isoDate(firstNonEmpty(str(art["datePublished"]), str(art["dateCreated"])))
	}
	m.Published = published(ld)
	for _, k := range publishedMeta {
		if m.Published != "" {
			break
		}
		m.Published = isoDate(p.meta[k])
	}
	if m.Published == "" {
		m.Published = published(md)
	}
	if m.Published == "" {
		m.Published = isoDate(p.timePub)
	}
	if m.Published == "" {
		m.Published = isoDate(a.published)
	}
	return m
}

// siteNames are the names the page gives its site (og:site_name, application-name, the JSON-LD
// publisher and WebSite), and the registrable part of its host.
func (p *page) siteNames() []string {
	if p.sites != nil {
		return p.sites
	}
	names := []string{}
	defer func() { p.sites = names }()
	for _, k := range siteMeta {
		if v := p.meta[k]; v != "" {
			names = append(names, v)
		}
	}
	if v := p.meta["twitter:site"]; v != "" {
		names = append(names, strings.TrimPrefix(v, "@"))
	}
	for _, o := range p.ldObjects() {
		if hasType(o, "WebSite") || hasType(o, "NewsMediaOrganization") {
			names = append(names, str(o["name"]), str(o["alternateName"]))
		}
		if isArticleType(o) {
			if pub, ok := o["publisher"].(map[string]any); ok {
				names = append(names, str(pub["name"]))
			}
		}
	}
	if p.base != nil {
		h := strings.TrimPrefix(strings.ToLower(p.base.Hostname()), "www.")
		names = append(names, h)
		if i := strings.IndexByte(h, '.'); i > 0 {
			names = append(names, h[:i])
			if j := strings.LastIndexByte(h, '.'); j > i {
				names = append(names, h[strings.LastIndexByte(h[:j], '.')+1:j]) // en.wikipedia.org -> wikipedia
			}
		}
	}
	return names
}

// isSiteName reports whether s names the site (not an article): equal to a site name once case,
// spaces and punctuation are ignored, or the host's name.
func (p *page) isSiteName(s string) bool {
	k := fold(s)
	if k == "" {
		return false
	}
	for _, n := range p.siteNames() {
		if f := fold(n); f != "" && (f == k || strings.HasPrefix(k, f) && len(k)-len(f) <= 3 || strings.HasPrefix(f, k) && len(f)-len(k) <= 3) {
			return true
		}
	}
	return false
}

// titleSeparators end a title's last segment; the longest forms first.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " · ", " • ", " :: ", " » ", " / ", " ~ ", " : ", "｜", "_", " -- "}

// stripSiteName removes trailing segments that name the site ("Obama admits ... - BBC News",
// "Mozilla - Wikipedia", "... [LWN.net]"), at most two, never the whole title.
func (p *page) stripSiteName(t string) string {
	for range 2 {
		cut := -1
		rest := ""
		for _, sep := range titleSeparators {
			if i := strings.LastIndex(t, sep); i > 0 && i > cut {
				cut, rest = i, t[i+len(sep):]
			}
		}
		if strings.HasSuffix(t, "]") {
			if i := strings.LastIndex(t, " ["); i > 0 && i > cut {
				cut, rest = i, strings.TrimSuffix(t[i+2:], "]")
			}
		}
		if cut <= 0 || !p.isSiteName(rest) {
			break
		}
		t = strings.TrimSpace(t[:cut])
	}
	return t
}

// fold keeps the letters and digits of s, lower-cased.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// cleanByline drops a leading "By" and trailing separators from an author line.
func cleanByline(s string) string {
	s = clean(s)
	for _, p := range []string{"by ", "By ", "BY ", "by: ", "By: "} {
		if strings.HasPrefix(s, p) {
			s = strings.TrimSpace(s[len(p):])
			break
		}
	}
	s = strings.TrimRight(s, " ,|;-–—")
	if len(s) > 200 { // a paragraph, not a byline
		return ""
	}
	return s
}

// unescape decodes entities left in values that were escaped once or more ("&amp;", "&amp;amp;",
// "&amp;#39;"): up to three rounds, each only while an entity is left.
func unescape(s string) string {
	for range 3 {
		if !hasEntity(s) {
			return s
		}
		s = html.UnescapeString(s)
	}
	return s
}

// hasEntity reports an HTML entity in s: & followed by a name or a number and ;.
func hasEntity(s string) bool {
	for i := strings.IndexByte(s, '&'); i >= 0; {
		j := i + 1
		for j < len(s) && j-i <= 32 && (s[j] == '#' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j > i+1 && j < len(s) && s[j] == ';' {
			return true
		}
		k := strings.IndexByte(s[i+1:], '&')
		if k < 0 {
			return false
		}
		i += 1 + k
	}
	return false
}

func looksURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/")
}
