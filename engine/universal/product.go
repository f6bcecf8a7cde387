package universal

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"asa/engine/dom"
	"asa/engine/funcs"
)

// Where a product value was read (Product.Sources): markup first, then the page's own data, then
// its text, then its URL.
const (
	srcJSONLD     = "json-ld"
	srcMicrodata  = "microdata"
	srcOpenGraph  = "opengraph"  // product:* and og:* meta tags
	srcNextData   = "next-data"  // the __NEXT_DATA__ (or another application/json) state of the page
	srcDataLayer  = "data-layer" // a dataLayer or gtag ecommerce item
	srcAttributes = "attributes" // data-price, data-sku, itemprop outside an item
	srcPageText   = "page-text"  // the price block near the title, a "SKU:" label, a stock line
	srcURL        = "url"        // the product id in the page's URL
)

// mainProduct is the page's product in its schema.org markup: a Product (any case of the type's
// name) that is not in a list or a recommendation block, the one whose name is nearest the page's
// title when there are several. nil when the markup names no product of this page.
func (p *page) mainProduct() (map[string]any, string) {
	type cand struct {
		o   map[string]any
		src string
	}
	var cands []cand
	var collect func(v any, src string, depth int)
	collect = func(v any, src string, depth int) {
		if depth > 6 || len(cands) > 50 {
			return
		}
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				collect(e, src, depth+1)
			}
		case map[string]any:
			if isProductType(v) {
				cands = append(cands, cand{v, src})
				return // its variants and offers are its own
			}
			for _, k := range sortedKeys(v) {
				switch k {
				case "itemListElement", "isRelatedTo", "isSimilarTo", "isAccessoryOrSparePartFor", "isConsumableFor", "owns", "makesOffer", "hasOfferCatalog":
					continue // other products than the page's
				}
				collect(v[k], src, depth+1)
			}
		}
	}
	for _, o := range p.jsonld {
		collect(o, srcJSONLD, 0)
	}
	for i, o := range p.microdata {
		if i < len(p.microRecs) && p.microRecs[i] {
			continue
		}
		collect(o, srcMicrodata, 0)
	}
	switch len(cands) {
	case 0:
		return nil, ""
	case 1:
		return cands[0].o, cands[0].src
	}
	// One Product per variant, each with its url: the page's is the one at the page's URL.
	if pu := p.pageURL(); pu != "" {
		for _, c := range cands {
			if u := str(c.o["url"]); u != "" && (u == pu || absURL(p.base, u) == pu) {
				return c.o, c.src
			}
		}
	}
	best, bestSim := -1, -1.0
	for i, c := range cands {
		n := str(c.o["name"])
		sim := max(similarity(n, p.h1), similarity(n, p.meta["og:title"]), similarity(n, p.docTitle))
		if sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if bestSim < 0.3 && cands[0].src == srcMicrodata {
		return nil, "" // a grid of products, none of them the page's
	}
	if bestSim < 0.3 {
		return cands[0].o, cands[0].src
	}
	return cands[best].o, cands[best].src
}

// markupProduct is the product of the page's schema.org markup, else of its OpenGraph tags; nil
// when it has neither.
func (p *page) markupProduct() *Product {
	if p.prodSet {
		return p.prod
	}
	p.prodSet = true
	if o, src := p.mainProduct(); o != nil {
		p.prod = p.productOf(o, src)
	} else {
		p.prod = p.ogProduct()
	}
	return p.prod
}

// product is the page's product: its markup's, with what the markup lacks read from the page's own
// data, text and URL (pageProduct); or that alone on a shop page without markup.
func (p *page) product() *Product {
	m := p.markupProduct()
	f := p.fallback
	if m == nil {
		return f
	}
	if f == nil {
		return m
	}
	fill := func(dst **string, v *string, field string) {
		if *dst == nil && v != nil {
			*dst = v
			m.Sources[field] = f.Sources[field]
		}
	}
	fill(&m.SKU, f.SKU, "sku")
	fill(&m.Availability, f.Availability, "availability")
	fill(&m.Name, f.Name, "name")
	if m.Price == nil && f.Price != nil && (m.Availability == nil || *m.Availability != "OutOfStock") {
		m.Price = f.Price
		m.Sources["price"] = f.Sources["price"]
		if m.Currency == nil {
			m.Currency = f.Currency
			if f.Currency != nil {
				m.Sources["currency"] = f.Sources["currency"]
			}
		}
	}
	return m
}

// productOf normalises a schema.org Product (or ProductGroup: the variant the page's URL selects).
func (p *page) productOf(o map[string]any, src string) *Product {
	sel, selected := o, false
	if v := selectedVariant(o, p.pageURL()); v != nil {
		sel, selected = v, true
	}
	pr := &Product{
		Name:  opt(firstNonEmpty(txt(sel["name"]), txt(o["name"]))),
		SKU:   opt(firstNonEmpty(str(sel["sku"]), str(sel["productID"]), str(o["sku"]), str(o["productID"]))),
		GTIN:  opt(firstNonEmpty(gtin(sel), gtin(o))),
		MPN:   opt(firstNonEmpty(str(sel["mpn"]), str(o["mpn"]))),
		Brand: opt(firstNonEmpty(name(sel["brand"]), name(o["brand"]), name(o["manufacturer"]))),
		URL:   opt(firstNonEmpty(str(sel["url"]), str(o["url"]))),
		Image: opt(firstNonEmpty(imageURL(sel["image"]), imageURL(o["image"]))),
	}
	offers := allOffers(sel["offers"], nil, 0)
	if !selected {
		// No variant is selected: any variant's offer counts for availability.
		for _, v := range list(o["hasVariant"]) {
			if vm, ok := v.(map[string]any); ok {
				offers = allOffers(vm["offers"], offers, 0)
			}
		}
	} else if len(offers) == 0 {
		offers = allOffers(o["offers"], nil, 0)
	}
	var chosen map[string]any
	for _, off := range offers {
		if price, cur := offerPrice(off); price != nil {
			pr.Price, pr.Currency, chosen = price, opt(cur), off
			break
		}
	}
	if chosen == nil && len(offers) > 0 {
		chosen = offers[0]
		_, cur := offerPrice(chosen)
		pr.Currency = opt(cur)
	}
	// The availability of the product is that of any offer in stock (a size, a seller), else the
	// reported offer's, else the first one given.
	avail := ""
	for _, off := range offers {
		if a := availability(off["availability"]); inStock(a) {
			avail = a
			break
		}
	}
	if avail == "" && chosen != nil {
		avail = availability(chosen["availability"])
	}
	for _, off := range offers {
		if avail != "" {
			break
		}
		avail = availability(off["availability"])
	}
	if avail == "" {
		avail = availability(firstPresent(sel["availability"], o["availability"]))
	}
	pr.Availability = opt(avail)
	if chosen != nil {
		if pr.SKU == nil {
			pr.SKU = opt(str(chosen["sku"]))
		}
		if pr.GTIN == nil {
			pr.GTIN = opt(gtin(chosen))
		}
		if pr.URL == nil {
			pr.URL = opt(str(chosen["url"]))
		}
	}
	pr.Rating, pr.ReviewsCount = rating(firstPresent(o["aggregateRating"], sel["aggregateRating"]))
	pr.setSources(src)
	return pr
}

// setSources names src as the source of every value set that has none yet.
func (pr *Product) setSources(src string) {
	if pr.Sources == nil {
		pr.Sources = map[string]string{}
	}
	set := func(field string, present bool) {
		if _, ok := pr.Sources[field]; present && !ok {
			pr.Sources[field] = src
		}
	}
	set("name", pr.Name != nil)
	set("sku", pr.SKU != nil)
	set("gtin", pr.GTIN != nil)
	set("mpn", pr.MPN != nil)
	set("brand", pr.Brand != nil)
	set("price", pr.Price != nil)
	set("currency", pr.Currency != nil)
	set("availability", pr.Availability != nil)
	set("url", pr.URL != nil)
	set("image", pr.Image != nil)
	set("rating", pr.Rating != nil)
	set("reviews_count", pr.ReviewsCount != nil)
}

func (p *page) pageURL() string {
	if p.base != nil {
		return p.base.String()
	}
	return ""
}

// selectedVariant is the variant of a ProductGroup that the page's URL names: by its url, or by
// its sku or productID as a query value (?variant=123).
func selectedVariant(o map[string]any, pageURL string) map[string]any {
	vs := list(o["hasVariant"])
	if len(vs) == 0 || pageURL == "" {
		return nil
	}
	pu, err := url.Parse(pageURL)
	if err != nil {
		return nil
	}
	pu.Fragment = ""
	query := map[string]bool{}
	for _, vals := range pu.Query() {
		for _, v := range vals {
			query[v] = true
		}
	}
	for _, v := range vs {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		if u := str(m["url"]); u != "" {
			if vu, err := pu.Parse(u); err == nil {
				vu.Fragment = ""
				if vu.String() == pu.String() && (vu.RawQuery != "" || len(vs) == 1) {
					return m
				}
			}
		}
		for _, k := range []string{"sku", "productID", "gtin", "gtin13"} {
			if id := str(m[k]); id != "" && query[id] {
				return m
			}
		}
	}
	return nil
}

// allOffers flattens offers: AggregateOffers and offers wrapping offers give their inner offers
// (and themselves, since an AggregateOffer carries lowPrice).
func allOffers(v any, out []map[string]any, depth int) []map[string]any {
	if depth > 4 {
		return out
	}
	for _, e := range list(v) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if inner := m["offers"]; inner != nil {
			out = allOffers(inner, out, depth+1)
		}
		out = append(out, m)
	}
	return out
}

func inStock(a string) bool {
	switch a {
	case "InStock", "LimitedAvailability", "OnlineOnly", "InStoreOnly", "PreSale":
		return true
	}
	return false
}

// offerPrice reads price (else lowPrice, else a priceSpecification's price) and its currency. A
// price of 0 or less is no price: shops write 0 for "price on request" or an offer not for sale.
func offerPrice(off map[string]any) (*float64, string) {
	cur := str(off["priceCurrency"])
	pv := off["price"]
	if empty(pv) {
		pv = off["lowPrice"]
	}
	if empty(pv) {
		for _, e := range list(off["priceSpecification"]) {
			if m, ok := e.(map[string]any); ok && !empty(m["price"]) {
				pv = m["price"]
				if cur == "" {
					cur = str(m["priceCurrency"])
				}
				break
			}
		}
	}
	code := currency(cur, str(pv))
	price, ok := priceNumber(pv, code)
	if !ok || price <= 0 {
		return nil, code
	}
	return &price, code
}

// dotThousands is a price written with dots between groups of three digits: "24.990", "1.299.000".
var dotThousands = regexp.MustCompile(`^[1-9]\d{0,2}(?:\.\d{3})+$`)

// priceNumber reads a markup price. A string of dot-separated thousands is thousands, not
// decimals, unless the currency has three decimals (KWD 1.250): "24.990" CLP is 24990, as shops
// in Chile, Pakistan, Colombia, Indonesia ... write it, and no two-decimal price has three.
func priceNumber(v any, code string) (float64, bool) {
	if s, ok := v.(string); ok {
		s = strings.TrimSpace(s)
		if dotThousands.MatchString(s) && !threeDecimals(code) {
			f, err := strconv.ParseFloat(strings.ReplaceAll(s, ".", ""), 64)
			return f, err == nil
		}
	}
	return number(v)
}

func threeDecimals(code string) bool {
	switch code {
	case "KWD", "BHD", "OMR", "JOD", "TND", "LYD", "IQD":
		return true
	}
	return false
}

// availabilityPhrases map what shops write (in markup outside schema.org's names, in JSON states,
// on the page) to ItemAvailability names; the negative ones are tried first ("not available"
// holds "available").
var availabilityPhrases = []struct {
	phrase, name string
}{
	{"not sold", "OutOfStock"}, {"no longer sold", "OutOfStock"}, {"no longer available", "Discontinued"}, {"discontinued", "Discontinued"},
	{"out of stock", "OutOfStock"}, {"outofstock", "OutOfStock"}, {"out_of_stock", "OutOfStock"}, {"sold out", "SoldOut"},
	{"currently unavailable", "OutOfStock"}, {"unavailable", "OutOfStock"}, {"not available", "OutOfStock"}, {"not_available", "OutOfStock"},
	{"nicht verfügbar", "OutOfStock"}, {"nicht lieferbar", "OutOfStock"}, {"ausverkauft", "OutOfStock"}, {"vergriffen", "OutOfStock"},
	{"rupture de stock", "OutOfStock"}, {"épuisé", "OutOfStock"}, {"indisponible", "OutOfStock"}, {"agotado", "OutOfStock"},
	{"sin stock", "OutOfStock"}, {"no disponible", "OutOfStock"}, {"non disponibile", "OutOfStock"}, {"esaurito", "OutOfStock"},
	{"niet op voorraad", "OutOfStock"}, {"uitverkocht", "OutOfStock"}, {"esgotado", "OutOfStock"}, {"indisponível", "OutOfStock"},
	{"pre-order", "PreOrder"}, {"preorder", "PreOrder"}, {"pre_order", "PreOrder"}, {"back-order", "BackOrder"}, {"backorder", "BackOrder"},
	{"in stock", "InStock"}, {"instock", "InStock"}, {"in_stock", "InStock"}, {"left in stock", "InStock"}, {"available", "InStock"},
	{"auf lager", "InStock"}, {"vorrätig", "InStock"}, {"lieferbar", "InStock"}, {"en stock", "InStock"}, {"disponible", "InStock"},
	{"en existencia", "InStock"}, {"disponibile", "InStock"}, {"in magazzino", "InStock"}, {"op voorraad", "InStock"},
	{"em estoque", "InStock"}, {"na stanie", "InStock"}, {"i lager", "InStock"}, {"på lager", "InStock"}, {"limited", "LimitedAvailability"},
}

// availability maps "https://schema.org/InStock", "InStock", "in stock", "IN_STOCK", "NOT SOLD"
// to an ItemAvailability name; "" when it names none.
func availability(v any) string {
	var s string
	switch v := v.(type) {
	case bool:
		if v {
			return "InStock"
		}
		return "OutOfStock"
	default:
		s = str(v)
	}
	if s == "" {
		return ""
	}
	key := strings.ToLower(typeName(s))
	if a, ok := availabilities[strings.NewReplacer(" ", "", "_", "", "-", "").Replace(key)]; ok {
		return a
	}
	return availabilityText(key)
}

// availabilityText finds an availability phrase in a short text (a stock line, a JSON state).
func availabilityText(s string) string {
	if len(s) > 200 {
		return ""
	}
	s = strings.ToLower(s)
	for _, ph := range availabilityPhrases {
		if strings.Contains(s, ph.phrase) {
			return ph.name
		}
	}
	return ""
}

// inRecommendations reports an element inside a block of other products: a slider, "customers
// also bought", "related products", "recently viewed".
func inRecommendations(n *html.Node) bool {
	for p, d := n.Parent, 0; p != nil && d < 12; p, d = p.Parent, d+1 {
		if p.Type != html.ElementNode {
			continue
		}
		names := strings.ToLower(attr(p, "class") + " " + attr(p, "id"))
		for _, w := range []string{"recommend", "related", "slider", "carousel", "upsell", "cross-sell", "crosssell", "also-bought", "also-viewed", "recently", "similar", "swiper", "owl-"} {
			if strings.Contains(names, w) {
				return true
			}
		}
	}
	return false
}

// maxStockNamed bounds the elements named for the stock state whose text is read.
const maxStockNamed = 16

// maxScriptBytes bounds the inline script text kept for the product fallback.
const maxScriptBytes = 4 << 20

func scriptText(n *html.Node) string {
	if c := n.FirstChild; c != nil && c.Type == html.TextNode && c.NextSibling == nil {
		return c.Data
	}
	return ""
}

// productScript reports a script that may hold the page's product: an application/json state
// (__NEXT_DATA__ and the like) or an analytics ecommerce push.
func productScript(n *html.Node, t string) bool {
	typ := strings.ToLower(attr(n, "type"))
	if typ == "application/json" {
		return strings.Contains(t, "price") || strings.Contains(t, "Price")
	}
	if typ != "" && typ != "text/javascript" && typ != "application/javascript" && typ != "module" {
		return false
	}
	return strings.Contains(t, "dataLayer") && strings.Contains(t, "ecommerce") || strings.Contains(t, "view_item")
}

var (
	dataLayerPush = regexp.MustCompile(`dataLayer\.push\(|dataLayer\s*=\s*`)
	gtagViewItem  = regexp.MustCompile(`view_item['"]\s*,`)
)

// pageProduct reads the product of a shop page from the page itself: its JSON state and analytics
// data, its data-* and itemprop attributes, the price block near the title, a stock line, a SKU
// label, the id in its URL. On a page that shows no sign of selling something (no product data,
// no add-to-cart control, no product og:type) it is nil: an article's "$25 million" is no price.
//
// marked says the page has a product in its markup: then this only fills what the markup lacks.
func (p *page) pageProduct(doc *html.Node, h1 *html.Node, scripts []string, marked bool) *Product {
	pr := &Product{Sources: map[string]string{}}
	setS := func(dst **string, v, src, field string) {
		if *dst == nil && v != "" {
			*dst = &v
			pr.Sources[field] = src
		}
	}
	setPrice := func(f float64, cur, src string) {
		if pr.Price == nil && f > 0 && !math.IsInf(f, 0) {
			pr.Price = &f
			pr.Sources["price"] = src
			if cur != "" {
				setS(&pr.Currency, cur, src, "currency")
			}
		}
	}
	urlID, shopURL := productIDFromURL(p.pageURL())
	// What tells a shop page: the page's data naming a product, a product og:type, markup (then
	// only gaps are filled); an add-to-cart button with a price; a stock line beside a product id.
	evidence := marked || p.meta["og:type"] == "product" || strings.HasPrefix(p.meta["og:type"], "product.")
	cart := false

	// 1. The page's data: JSON state, then analytics ecommerce items.
	for _, t := range scripts {
		var v any
		src := srcNextData
		if s := strings.TrimSpace(t); strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") {
			v, _ = dom.DecodeJSON([]byte(s))
		} else if gtagViewItem.MatchString(t) {
			v, _ = dom.ScriptJSON([]byte(t), gtagViewItem)
			src = srcDataLayer
		} else {
			v, _ = dom.ScriptJSON([]byte(t), dataLayerPush)
			src = srcDataLayer
		}
		if v == nil {
			continue
		}
		if item := p.jsonProduct(v, urlID); item != nil {
			evidence = true
			setS(&pr.Name, txt(firstPresent(item["name"], item["item_name"], item["title"], item["productName"])), src, "name")
			setS(&pr.SKU, firstNonEmpty(str(item["_id"]), str(item["sku"]), str(item["item_id"]), str(item["usItemId"]), str(item["tcin"]), str(item["productId"]), str(item["id"])), src, "sku")
			if f, cur, ok := jsonPrice(item); ok {
				setPrice(f, firstNonEmpty(cur, str(item["_currency"])), src)
			}
			setS(&pr.Availability, jsonAvailability(item), src, "availability")
			setS(&pr.Brand, name(firstPresent(item["brand"], item["item_brand"])), src, "brand")
		}
	}

	// 2. The page's markup, in one walk: attributes, the add-to-cart control, stock lines, SKU
	// labels, and the price block after the title.
	locale := p.lang
	var afterTitle int   // elements seen since the title (0: not yet at it)
	var skuLabel bool    // the last text was a SKU label: the next is its value
	var stockText string // in an element named for the stock state
	var stockFree string // a stock phrase in a line near the title
	stockNamed := 0      // elements named for the stock state read (each read is a subtree's text)
	walkElements(doc, func(n *html.Node) bool {
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Svg, atom.Head:
			return false
		}
		if n == h1 {
			afterTitle = 1
		} else if afterTitle > 0 {
			afterTitle++
		}
		if inRecommendationName(n) {
			return false
		}
		// Attributes.
		if _, scope := attrOK(n, "itemscope"); !scope {
			if v := firstNonEmpty(attr(n, "data-price-amount"), attr(n, "data-product-price"), attr(n, "data-price")); v != "" {
				if f, ok := number(v); ok && pr.Price == nil && !struck(n) {
					setPrice(f, "", srcAttributes)
				}
			}
			if attr(n, "itemprop") == "price" && pr.Price == nil {
				if f, ok := number(firstNonEmpty(attr(n, "content"), clean(nodeText(n)))); ok {
					setPrice(f, "", srcAttributes)
				}
			}
			setS(&pr.SKU, firstNonEmpty(attr(n, "data-sku"), attr(n, "data-product-sku")), srcAttributes, "sku")
			if attr(n, "itemprop") == "sku" {
				setS(&pr.SKU, firstNonEmpty(attr(n, "content"), clean(nodeText(n))), srcAttributes, "sku")
			}
		}
		if !cart && addToCart(n) {
			cart = true
		}
		if stockText == "" && stockNamed < maxStockNamed && stockName(n) {
			stockNamed++
			if t := clean(nodeText(n)); availabilityText(t) != "" {
				stockText = t
			}
		}
		// Texts directly under n.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.TextNode {
				continue
			}
			t := clean(c.Data)
			if t == "" {
				continue
			}
			if skuLabel {
				skuLabel = false
				if id := skuValue(t); id != "" {
					setS(&pr.SKU, id, srcPageText, "sku")
					continue
				}
			}
			if label, rest := skuLabelText(t); label {
				if id := skuValue(rest); id != "" {
					setS(&pr.SKU, id, srcPageText, "sku")
				} else {
					skuLabel = true
				}
				continue
			}
			if afterTitle > 0 && afterTitle < 400 {
				if pr.Price == nil && len(t) <= 40 && !struck(n) && !perUnit(t) {
					if cur, ok := funcs.ParseCurrency(t, ""); ok {
						if f, ok := funcs.ParsePrice(t, locale); ok && f > 0 {
							setPrice(f, cur, srcPageText)
						}
					}
				}
				if stockFree == "" && len(t) <= 120 && stockWord(t) && availabilityText(t) != "" {
					stockFree = t
				}
			}
		}
		return true
	})
	// A stock line beside a product id (in the URL or under a label) tells a product page too: an
	// out-of-stock page has no add-to-cart control.
	labelled := pr.SKU != nil
	switch {
	case evidence:
	case cart && pr.Price != nil:
	case stockText != "" && (shopURL || labelled):
	default:
		return nil
	}
	if stockText == "" {
		stockText = stockFree
	}
	if pr.Availability == nil {
		if a := availabilityText(stockText); a != "" {
			setS(&pr.Availability, a, srcPageText, "availability")
		} else if cart {
			setS(&pr.Availability, "InStock", srcPageText, "availability")
		}
	}
	setS(&pr.SKU, urlID, srcURL, "sku")
	setS(&pr.Name, p.h1, srcPageText, "name")
	if pr.Price == nil && pr.SKU == nil && pr.Availability == nil {
		return nil
	}
	return pr
}

// jsonProduct finds the page's product in decoded page data: an analytics ecommerce item, else
// the object whose id is the URL's, else one whose name is the page's title and that has a price.
func (p *page) jsonProduct(v any, urlID string) map[string]any {
	// GA4 (ecommerce.items) and Universal Analytics (ecommerce.detail.products) pushes.
	for _, e := range list(v) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if ec, ok := m["ecommerce"].(map[string]any); ok {
			items := ec["items"]
			if d, ok := ec["detail"].(map[string]any); ok {
				items = d["products"]
			}
			if it, ok := first(items).(map[string]any); ok {
				it = copyMap(it)
				it["_currency"] = firstNonEmpty(str(ec["currency"]), str(ec["currencyCode"]))
				return it
			}
		}
		if it, ok := first(m["items"]).(map[string]any); ok && (m["event"] != nil || it["item_id"] != nil) {
			return it
		}
	}
	// An application state: breadth first, bounded.
	queue := []any{v}
	var byName map[string]any
	for i := 0; i < len(queue) && i < 20000; i++ {
		switch x := queue[i].(type) {
		case []any:
			queue = append(queue, x...)
		case map[string]any:
			if _, _, hasPrice := jsonPrice(x); hasPrice {
				for _, k := range []string{"usItemId", "tcin", "sku", "productId", "product_id", "itemId", "id"} {
					if id := str(x[k]); id != "" && id == urlID {
						it := copyMap(x)
						it["_id"] = id
						return it
					}
				}
				if byName == nil && p.h1 != "" && similarity(str(x["name"]), p.h1) > 0.8 && similarity(p.h1, str(x["name"])) > 0.8 {
					byName = x
				}
			}
			for _, k := range sortedKeys(x) {
				switch x[k].(type) {
				case map[string]any, []any:
					queue = append(queue, x[k])
				}
			}
		}
	}
	return byName
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// jsonPrice reads an item's current price: price, salePrice, currentPrice, or priceInfo's
// currentPrice, as a number or an object with price (and a currency).
func jsonPrice(m map[string]any) (float64, string, bool) {
	read := func(v any) (float64, string, bool) {
		switch v := v.(type) {
		case float64, string:
			f, ok := number(v)
			return f, "", ok && f > 0
		case map[string]any:
			f, ok := number(firstPresent(v["price"], v["amount"], v["value"]))
			return f, currency(firstNonEmpty(str(v["currencyUnit"]), str(v["currency"]), str(v["currencyCode"])), str(v["priceString"])), ok && f > 0
		}
		return 0, "", false
	}
	if pi, ok := m["priceInfo"].(map[string]any); ok {
		if f, c, ok := read(pi["currentPrice"]); ok {
			return f, c, true
		}
	}
	for _, k := range []string{"currentPrice", "salePrice", "price", "finalPrice", "offerPrice"} {
		if f, c, ok := read(m[k]); ok {
			return f, firstNonEmpty(c, currency(str(m["currency"]), "")), true
		}
	}
	return 0, "", false
}

func jsonAvailability(m map[string]any) string {
	for _, k := range []string{"availabilityStatus", "availability", "stockStatus", "stock_status", "inventoryStatus", "isInStock", "inStock", "in_stock", "available"} {
		if v, ok := m[k]; ok {
			if a := availability(v); a != "" {
				return a
			}
		}
	}
	return ""
}

// productIDFromURL is the product id a shop's URL carries: an Amazon ASIN (/dp/, /gp/product/),
// an eBay item (/itm/), a Walmart item (/ip/.../123), a Target TCIN (/A-123), a /p/ID path, or a
// trailing number of five digits or more.
// shop says the pattern is one of a shop's product pages (the first four), not a generic one.
func productIDFromURL(u string) (id string, shop bool) {
	pu, err := url.Parse(u)
	if err != nil || pu.Path == "" {
		return "", false
	}
	for i, re := range urlIDs {
		if m := re.FindStringSubmatch(pu.Path); m != nil {
			return m[1], i < 4
		}
	}
	return "", false
}

// stockWord reports a line that speaks of stock, not merely of something being available.
func stockWord(t string) bool {
	l := strings.ToLower(t)
	for _, w := range []string{"stock", "lager", "vorrätig", "voorraad", "sold out", "magazzino", "existencia", "estoque", "épuisé", "ausverkauft", "agotado", "esaurito"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

var urlIDs = []*regexp.Regexp{
	regexp.MustCompile(`/(?:dp|gp/product|gp/aw/d)/([A-Z0-9]{10})(?:/|$)`),
	regexp.MustCompile(`/itm/(?:[^/]+/)?(\d{9,})(?:/|$)`),
	regexp.MustCompile(`/ip/(?:[^/]+/)?(\d{5,})(?:/|$)`),
	regexp.MustCompile(`/A-(\d{6,})(?:/|$)`),
	regexp.MustCompile(`/p/([A-Za-z0-9][A-Za-z0-9_-]{3,})/?$`),
	regexp.MustCompile(`[/-](\d{5,})(?:\.html?|/)?$`),
}

// skuLabelRe is a SKU label at the start of a text: "SKU", "Item no.", "Product code", "Art.-Nr.",
// "Artikelnummer", "Réf.", "Código", "ASIN", "TCIN", "eBay item number".
var skuLabelRe = regexp.MustCompile(`(?i)^(?:sku|item\s*(?:no\.?|number|#|code)|ebay item number|product\s*(?:code|id|no\.?|number)|art\.?\s*-?\s*nr\.?|artikel\s*-?\s*(?:nr\.?|nummer)|bestellnummer|réf(?:érence)?\.?|code produit|código(?: de producto)?|cod\.?(?: articolo)?|codice(?: articolo)?|asin|tcin|part\s*(?:no\.?|number)|style\s*(?:no\.?|#))(?:\s*[:#]\s*|\s+|$)`)

func skuLabelText(t string) (bool, string) {
	loc := skuLabelRe.FindStringIndex(t)
	if loc == nil {
		return false, ""
	}
	return true, t[loc[1]:]
}

var skuValueRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]{2,39}$`)

// skuValue is an identifier: one token of letters, digits and - . _ / with a digit in it.
func skuValue(t string) string {
	t = strings.Trim(strings.TrimSpace(t), ":#\u200e\u200f") // and the bidi marks
	if !skuValueRe.MatchString(t) || !strings.ContainsAny(t, "0123456789") {
		return ""
	}
	return t
}

// struck reports a price that is not the current one: struck through, or named old, was, list or
// regular price.
func struck(n *html.Node) bool {
	for p, d := n, 0; p != nil && d < 4; p, d = p.Parent, d+1 {
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.S, atom.Del, atom.Strike:
			return true
		}
		names := strings.ToLower(attr(p, "class") + " " + attr(p, "id"))
		for _, w := range []string{"old", "was", "strike", "list-price", "listprice", "regular", "mrp", "before", "crossed", "rrp", "uvp", "original", "compare"} {
			if strings.Contains(names, w) {
				return true
			}
		}
	}
	return false
}

// perUnit reports a unit price: "2,49 €/kg", "$0.12 per oz", "(1 l = 3,98 €)".
func perUnit(t string) bool {
	l := strings.ToLower(t)
	return strings.Contains(l, "/") || strings.Contains(l, " per ") || strings.Contains(l, "=") || strings.HasPrefix(l, "per ")
}

func inRecommendationName(n *html.Node) bool {
	names := strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
	if names == " " {
		return false
	}
	for _, w := range []string{"recommend", "related-products", "upsell", "cross-sell", "also-bought", "also-viewed", "recently-viewed", "similar-products"} {
		if strings.Contains(names, w) {
			return true
		}
	}
	return false
}

// stockName reports an element named for the stock state: #availability, .stock, .in-stock.
func stockName(n *html.Node) bool {
	names := strings.ToLower(attr(n, "class") + " " + attr(n, "id"))
	return strings.Contains(names, "availability") || strings.Contains(names, "stock") || strings.Contains(names, "delivery")
}

var cartWords = []string{"add to cart", "add to basket", "add to bag", "add to shopping", "buy now", "in den warenkorb", "ajouter au panier",
	"añadir al carrito", "agregar al carro", "agregar al carrito", "aggiungi al carrello", "in winkelwagen", "adicionar ao carrinho", "do koszyka", "lägg i varukorgen"}

// addToCart reports an add-to-cart button: a button or submit input named or labelled so (a
// link saying "Buy now" is an article's affiliate link as often as a shop's).
func addToCart(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Button, atom.Input:
	default:
		return false
	}
	if _, dis := attrOK(n, "disabled"); dis {
		return false
	}
	names := strings.ToLower(attr(n, "class") + " " + attr(n, "id") + " " + attr(n, "name"))
	if strings.Contains(names, "add-to-cart") || strings.Contains(names, "addtocart") || strings.Contains(names, "add_to_cart") || strings.Contains(names, "add-to-basket") {
		return true
	}
	t := strings.ToLower(clean(firstNonEmpty(nodeText(n), attr(n, "value"), attr(n, "title"))))
	for _, w := range cartWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}
