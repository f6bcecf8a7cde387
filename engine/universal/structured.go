package universal

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"asa/engine/funcs"
)

// Structured holds the page's main schema.org entities, from JSON-LD and microdata, normalised. Each
// is the first of its kind on the page (top-level entities before nested ones); absent kinds are
// left out of the JSON. Keys come in this order.
type Structured struct {
	Product      *Product      `json:"product,omitempty"`
	Article      *Article      `json:"article,omitempty"`
	Recipe       *Recipe       `json:"recipe,omitempty"`
	JobPosting   *JobPosting   `json:"job_posting,omitempty"`
	Event        *Event        `json:"event,omitempty"`
	Organization *Organization `json:"organization,omitempty"`
	Breadcrumbs  []Breadcrumb  `json:"breadcrumbs,omitempty"`
}

// Product is the page's product: a schema.org Product (the variant the URL selects of a
// ProductGroup) with its first Offer priced above 0, else OpenGraph's product tags, and what the
// markup lacks (or all of it, on a shop page without markup) read from the page's own data, text
// and URL. Price is a number, Currency an ISO 4217 code, Availability the schema.org
// ItemAvailability name (InStock, OutOfStock, PreOrder ...): InStock when any offer is.
type Product struct {
	Name         *string  `json:"name"`
	SKU          *string  `json:"sku"`
	GTIN         *string  `json:"gtin"`
	MPN          *string  `json:"mpn"`
	Brand        *string  `json:"brand"`
	Price        *float64 `json:"price"`
	Currency     *string  `json:"currency"`
	Availability *string  `json:"availability"`
	URL          *string  `json:"url"`
	Image        *string  `json:"image"`
	Rating       *float64 `json:"rating"`
	ReviewsCount *int64   `json:"reviews_count"`
	// Sources says where each value was read, by field: json-ld, microdata, opengraph (the page's
	// markup), next-data, data-layer, attributes (its own data), page-text (the price block near
	// the title, a SKU label, a stock line) or url (the id in its URL).
	Sources map[string]string `json:"sources"`
}

// Article is a schema.org Article or one of its kinds (NewsArticle, BlogPosting ...): Type names
// which. Dates are ISO 8601.
type Article struct {
	Type      string   `json:"type"`
	Headline  *string  `json:"headline"`
	Author    *string  `json:"author"`
	Published *string  `json:"published"`
	Modified  *string  `json:"modified"`
	Publisher *string  `json:"publisher"`
	Section   *string  `json:"section"`
	URL       *string  `json:"url"`
	Image     *string  `json:"image"`
	Keywords  []string `json:"keywords"`
}

// Recipe is a schema.org Recipe. Times are ISO 8601 durations, normalised (PT1H30M) from whatever
// the page wrote ("P0DT1H30M", "PT5400S", "PT0D4H45M", "35 minuti", "1 hr 20 mins").
type Recipe struct {
	Name         *string  `json:"name"`
	Author       *string  `json:"author"`
	Description  *string  `json:"description"`
	Ingredients  []string `json:"ingredients"`
	Instructions []string `json:"instructions"`
	PrepTime     *string  `json:"prep_time"`
	CookTime     *string  `json:"cook_time"`
	TotalTime    *string  `json:"total_time"`
	Yields       *string  `json:"yields"`
	Category     *string  `json:"category"`
	Cuisine      *string  `json:"cuisine"`
	Image        *string  `json:"image"`
	Rating       *float64 `json:"rating"`
	ReviewsCount *int64   `json:"reviews_count"`
}

// JobPosting is a schema.org JobPosting; salary figures are numbers, SalaryUnit HOUR, DAY, WEEK,
// MONTH or YEAR.
type JobPosting struct {
	Title          *string  `json:"title"`
	Organization   *string  `json:"organization"`
	Location       *string  `json:"location"`
	EmploymentType *string  `json:"employment_type"`
	Remote         bool     `json:"remote"`
	DatePosted     *string  `json:"date_posted"`
	ValidThrough   *string  `json:"valid_through"`
	SalaryMin      *float64 `json:"salary_min"`
	SalaryMax      *float64 `json:"salary_max"`
	SalaryCurrency *string  `json:"salary_currency"`
	SalaryUnit     *string  `json:"salary_unit"`
	URL            *string  `json:"url"`
}

// Event is a schema.org Event or one of its kinds; Start and End are ISO 8601.
type Event struct {
	Name      *string `json:"name"`
	Start     *string `json:"start"`
	End       *string `json:"end"`
	Location  *string `json:"location"`
	Organizer *string `json:"organizer"`
	Status    *string `json:"status"`
	URL       *string `json:"url"`
}

// Organization is a schema.org Organization or one of its kinds (Corporation, LocalBusiness ...).
type Organization struct {
	Name   *string  `json:"name"`
	URL    *string  `json:"url"`
	Logo   *string  `json:"logo"`
	SameAs []string `json:"same_as"`
}

// Breadcrumb is one step of a schema.org BreadcrumbList, in position order.
type Breadcrumb struct {
	Name string  `json:"name"`
	URL  *string `json:"url"`
}

// maxObjects bounds the schema.org objects looked at on one page.
const maxObjects = 2000

// objects lists the page's schema.org objects: those of JSON-LD, then those of microdata, each
// breadth first (top-level objects before what they nest).
func (p *page) objects() []map[string]any {
	if !p.objsSet {
		p.objsSet = true
		p.ldObjs = bfs(p.jsonld)
		p.objs = append(append([]map[string]any{}, p.ldObjs...), bfs(p.microdata)...)
	}
	return p.objs
}

// ldObjects is the JSON-LD part of objects.
func (p *page) ldObjects() []map[string]any {
	p.objects()
	return p.ldObjs
}

func bfs(top []map[string]any) []map[string]any {
	queue := append(make([]map[string]any, 0, len(top)), top...)
	for i := 0; i < len(queue) && len(queue) < maxObjects; i++ {
		for _, k := range sortedKeys(queue[i]) {
			collectObjects(queue[i][k], &queue, 0)
		}
	}
	return queue
}

// collectObjects appends the maps directly inside v (through arrays) to q.
func collectObjects(v any, q *[]map[string]any, depth int) {
	if depth > 4 || len(*q) >= maxObjects {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		*q = append(*q, v)
	case []any:
		for _, e := range v {
			collectObjects(e, q, depth+1)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// entity returns the first object that is matches.
func (p *page) entity(is func(map[string]any) bool) map[string]any {
	return firstOf(p.objects(), is)
}

// ldEntity is entity among JSON-LD objects only.
func (p *page) ldEntity(is func(map[string]any) bool) map[string]any {
	return firstOf(p.ldObjects(), is)
}

func firstOf(objs []map[string]any, is func(map[string]any) bool) map[string]any {
	for _, o := range objs {
		if is(o) {
			return o
		}
	}
	return nil
}

// types returns the @type names of o, IRIs cut to their last segment.
func types(o map[string]any) []string {
	switch t := o["@type"].(type) {
	case string:
		return []string{typeName(t)}
	case []any:
		out := make([]string, 0, len(t))
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, typeName(s))
			}
		}
		return out
	}
	return nil
}

// hasType compares type names without case: pages write "product" as often as "Product".
func hasType(o map[string]any, names ...string) bool {
	for _, t := range types(o) {
		for _, n := range names {
			if strings.EqualFold(t, n) {
				return true
			}
		}
	}
	return false
}

func anyType(o map[string]any, pred func(string) bool) bool {
	for _, t := range types(o) {
		if pred(t) {
			return true
		}
	}
	return false
}

func isArticleType(o map[string]any) bool {
	return anyType(o, func(t string) bool {
		switch t {
		case "BlogPosting", "LiveBlogPosting", "SocialMediaPosting", "DiscussionForumPosting", "Report", "APIReference":
			return true
		}
		return strings.HasSuffix(t, "Article")
	})
}

func isProductType(o map[string]any) bool {
	return hasType(o, "Product", "ProductGroup", "IndividualProduct", "ProductModel", "SomeProducts", "Vehicle", "Car", "Motorcycle")
}

func isEventType(o map[string]any) bool {
	return anyType(o, func(t string) bool { return strings.HasSuffix(t, "Event") || t == "Festival" })
}

func isOrganizationType(o map[string]any) bool {
	return hasType(o, "Organization", "Corporation", "NewsMediaOrganization", "LocalBusiness", "OnlineBusiness", "OnlineStore",
		"Store", "EducationalOrganization", "GovernmentOrganization", "NGO", "SportsOrganization", "MedicalOrganization",
		"Airline", "Restaurant", "Hotel", "CollegeOrUniversity", "ResearchOrganization", "Library", "PerformingGroup")
}

// structured normalises the page's main entities.
func (p *page) structured() *Structured {
	s := &Structured{}
	s.Product = p.product()
	if o := p.entity(isArticleType); o != nil {
		s.Article = articleOf(o)
	}
	if o := p.entity(func(o map[string]any) bool { return hasType(o, "Recipe") }); o != nil {
		s.Recipe = recipe(o)
	}
	if o := p.entity(func(o map[string]any) bool { return hasType(o, "JobPosting") }); o != nil {
		s.JobPosting = jobPosting(o)
	}
	if o := p.entity(isEventType); o != nil {
		s.Event = event(o)
	}
	if o := p.entity(isOrganizationType); o != nil {
		s.Organization = organization(o)
	}
	if o := p.entity(func(o map[string]any) bool { return hasType(o, "BreadcrumbList") }); o != nil {
		s.Breadcrumbs = breadcrumbs(o)
	}
	return s
}

// ogProduct reads OpenGraph's product tags (og:type product, product:price:amount ...) when
// the page has no schema.org Product.
func (p *page) ogProduct() *Product {
	m := p.meta
	amount := firstNonEmpty(m["product:price:amount"], m["og:price:amount"], m["product:sale_price:amount"])
	if m["og:type"] != "product" && !strings.HasPrefix(m["og:type"], "product.") && amount == "" {
		return nil
	}
	pr := &Product{
		Name:         opt(unescape(m["og:title"])),
		SKU:          opt(firstNonEmpty(m["product:retailer_item_id"], m["product:sku"])),
		GTIN:         opt(firstNonEmpty(m["product:gtin"], m["product:ean"], m["product:upc"], m["product:isbn"])),
		MPN:          opt(m["product:mfr_part_no"]),
		Brand:        opt(m["product:brand"]),
		Currency:     opt(currency(firstNonEmpty(m["product:price:currency"], m["og:price:currency"], m["product:sale_price:currency"]), amount)),
		Availability: opt(availability(firstNonEmpty(m["product:availability"], m["og:availability"]))),
		URL:          opt(m["og:url"]),
		Image:        opt(m["og:image"]),
	}
	if f, ok := priceNumber(amount, deref(pr.Currency)); ok && f > 0 {
		pr.Price = &f
	}
	pr.setSources(srcOpenGraph)
	return pr
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// number reads a schema.org number: a JSON number, a plain decimal string ("87.11", "1299"), or a
// formatted price ("$1,299.00", "12,50 €") through funcs.ParsePrice.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case []any:
		if len(v) > 0 {
			return number(v[0])
		}
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return 0, false
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
		return funcs.ParsePrice(s, "")
	}
	return 0, false
}

// currency is an ISO 4217 code from priceCurrency ("usd", "US$", "€"), else from the price text.
func currency(code, priceText string) string {
	code = strings.TrimSpace(code)
	if len(code) == 3 && isLetters(code) {
		return strings.ToUpper(code)
	}
	if code != "" {
		if c, ok := funcs.ParseCurrency(code, ""); ok {
			return c
		}
	}
	if priceText != "" {
		if c, ok := funcs.ParseCurrency(priceText, ""); ok {
			return c
		}
	}
	return ""
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// availabilities are the schema.org ItemAvailability names, by folded key.
var availabilities = func() map[string]string {
	m := map[string]string{}
	for _, a := range []string{"InStock", "OutOfStock", "PreOrder", "BackOrder", "Discontinued", "InStoreOnly", "LimitedAvailability",
		"OnlineOnly", "PreSale", "SoldOut", "Reserved", "MadeToOrder"} {
		m[strings.ToLower(a)] = a
	}
	return m
}()

// gtin is the first GTIN-like identifier: gtin, gtin13, gtin12 (UPC), gtin14, gtin8, isbn.
func gtin(o map[string]any) string {
	for _, k := range []string{"gtin", "gtin13", "gtin12", "gtin14", "gtin8", "isbn"} {
		if s := str(o[k]); s != "" {
			return s
		}
	}
	return ""
}

func rating(v any) (*float64, *int64) {
	m, ok := first(v).(map[string]any)
	if !ok {
		return nil, nil
	}
	var r *float64
	if f, ok := number(m["ratingValue"]); ok {
		r = &f
	}
	var n *int64
	for _, k := range []string{"reviewCount", "ratingCount"} {
		if c, ok := count(m[k]); ok {
			n = &c
			break
		}
	}
	return r, n
}

func count(v any) (int64, bool) {
	switch v := v.(type) {
	case float64:
		return int64(v), v >= 0 && v < 1e15
	case string:
		return funcs.ParseCount(v)
	}
	return 0, false
}

func articleOf(o map[string]any) *Article {
	t := ""
	if ts := types(o); len(ts) > 0 {
		t = ts[0]
	}
	a := &Article{
		Type:      t,
		Headline:  opt(firstNonEmpty(txt(o["headline"]), txt(o["name"]))),
		Author:    opt(personNames(o["author"])),
		Published: opt(isoDate(str(o["datePublished"]))),
		Modified:  opt(isoDate(str(o["dateModified"]))),
		Publisher: opt(name(o["publisher"])),
		Section:   opt(strs(o["articleSection"], ", ")),
		URL:       opt(firstNonEmpty(str(o["url"]), str(o["mainEntityOfPage"]))),
		Image:     opt(imageURL(o["image"])),
		Keywords:  keywords(o["keywords"]),
	}
	if a.URL != nil && !looksURL(*a.URL) {
		a.URL = nil
	}
	return a
}

func keywords(v any) []string {
	out := []string{}
	for _, e := range list(v) {
		s, ok := e.(string)
		if !ok {
			continue
		}
		for _, k := range strings.Split(s, ",") {
			if k = clean(k); k != "" {
				out = append(out, k)
			}
		}
	}
	return out
}

func recipe(o map[string]any) *Recipe {
	r := &Recipe{
		Name:         opt(txt(o["name"])),
		Author:       opt(personNames(o["author"])),
		Description:  opt(unescape(clean(str(o["description"])))),
		Ingredients:  ingredients(firstPresent(o["recipeIngredient"], o["ingredients"])),
		Instructions: instructions(o["recipeInstructions"]),
		PrepTime:     opt(isoDuration(str(o["prepTime"]))),
		CookTime:     opt(isoDuration(str(o["cookTime"]))),
		TotalTime:    opt(isoDuration(str(o["totalTime"]))),
		Yields:       opt(strs(o["recipeYield"], ", ")),
		Category:     opt(strs(o["recipeCategory"], ", ")),
		Cuisine:      opt(strs(o["recipeCuisine"], ", ")),
		Image:        opt(imageURL(o["image"])),
	}
	r.Rating, r.ReviewsCount = rating(o["aggregateRating"])
	return r
}

// instructions flattens recipeInstructions: a string (split on lines), HowToStep texts, and the
// steps of HowToSection.
func instructions(v any) []string {
	out := []string{}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 4 {
			return
		}
		switch v := v.(type) {
		case string:
			for _, l := range strings.Split(v, "\n") {
				if l = unescape(clean(stripTags(l))); l != "" {
					out = append(out, l)
				}
			}
		case []any:
			for _, e := range v {
				walk(e, depth+1)
			}
		case map[string]any:
			if items, ok := v["itemListElement"]; ok {
				walk(items, depth+1)
				return
			}
			if t := firstNonEmpty(str(v["text"]), str(v["name"])); t != "" {
				walk(t, depth+1)
			}
		}
	}
	walk(v, 0)
	return out
}

// stripTags removes markup some sites leave in JSON-LD text.
func stripTags(s string) string {
	if strings.IndexByte(s, '<') < 0 {
		return s
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.NewReplacer(" .", ".", " ,", ",", " ;", ";", " :", ":", " !", "!", " ?", "?").Replace(clean(b.String()))
}

func jobPosting(o map[string]any) *JobPosting {
	j := &JobPosting{
		Title:          opt(firstNonEmpty(txt(o["title"]), txt(o["name"]))),
		Organization:   opt(name(o["hiringOrganization"])),
		Location:       opt(place(o["jobLocation"])),
		EmploymentType: opt(strs(o["employmentType"], ", ")),
		Remote:         strings.EqualFold(str(o["jobLocationType"]), "TELECOMMUTE"),
		DatePosted:     opt(isoDate(str(o["datePosted"]))),
		ValidThrough:   opt(isoDate(str(o["validThrough"]))),
		URL:            opt(str(o["url"])),
	}
	if sal, ok := first(o["baseSalary"]).(map[string]any); ok {
		j.SalaryCurrency = opt(currency(str(sal["currency"]), ""))
		val := sal["value"]
		unit := str(sal["unitText"])
		if m, ok := val.(map[string]any); ok {
			if unit == "" {
				unit = str(m["unitText"])
			}
			if f, ok := number(m["minValue"]); ok {
				j.SalaryMin = &f
			}
			if f, ok := number(m["maxValue"]); ok {
				j.SalaryMax = &f
			}
			if j.SalaryMin == nil && j.SalaryMax == nil {
				if f, ok := number(m["value"]); ok {
					j.SalaryMin, j.SalaryMax = &f, &f
				}
			}
		} else if f, ok := number(val); ok {
			j.SalaryMin, j.SalaryMax = &f, &f
		}
		j.SalaryUnit = opt(strings.ToUpper(unit))
	}
	return j
}

func event(o map[string]any) *Event {
	return &Event{
		Name:      opt(txt(o["name"])),
		Start:     opt(isoDate(str(o["startDate"]))),
		End:       opt(isoDate(str(o["endDate"]))),
		Location:  opt(place(o["location"])),
		Organizer: opt(name(o["organizer"])),
		Status:    opt(typeName(str(o["eventStatus"]))),
		URL:       opt(str(o["url"])),
	}
}

func organization(o map[string]any) *Organization {
	org := &Organization{Name: opt(txt(o["name"])), URL: opt(str(o["url"])), Logo: opt(imageURL(o["logo"])), SameAs: []string{}}
	for _, e := range list(o["sameAs"]) {
		if s, ok := e.(string); ok && looksURL(s) {
			org.SameAs = append(org.SameAs, s)
		}
	}
	return org
}

func breadcrumbs(o map[string]any) []Breadcrumb {
	type step struct {
		pos float64
		i   int
		b   Breadcrumb
	}
	var steps []step
	for i, e := range list(o["itemListElement"]) {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		n := str(m["name"])
		u := ""
		switch it := m["item"].(type) {
		case string:
			u = it
		case map[string]any:
			n = firstNonEmpty(n, str(it["name"]))
			u = firstNonEmpty(str(it["@id"]), str(it["url"]), str(it["id"]))
		}
		n = unescape(clean(n))
		if n == "" {
			continue
		}
		pos, ok := number(m["position"])
		if !ok {
			pos = float64(i + 1)
		}
		steps = append(steps, step{pos, i, Breadcrumb{Name: n, URL: opt(u)}})
	}
	sort.SliceStable(steps, func(a, b int) bool { return steps[a].pos < steps[b].pos })
	out := make([]Breadcrumb, len(steps))
	for i, s := range steps {
		out[i] = s.b
	}
	return out
}

// place is a location as one line: a Place's name and address, or a PostalAddress's parts.
func place(v any) string {
	var parts []string
	for _, e := range list(v) {
		switch e := e.(type) {
		case string:
			parts = append(parts, clean(e))
		case map[string]any:
			if hasType(e, "VirtualLocation") {
				parts = append(parts, firstNonEmpty(str(e["url"]), "online"))
				continue
			}
			addr := e
			if a, ok := e["address"].(map[string]any); ok {
				addr = a
			} else if s := str(e["address"]); s != "" {
				parts = append(parts, joinNonEmpty(", ", str(e["name"]), s))
				continue
			}
			line := joinNonEmpty(", ", str(addr["streetAddress"]), str(addr["addressLocality"]), str(addr["addressRegion"]),
				str(addr["postalCode"]), name(addr["addressCountry"]))
			if n := str(e["name"]); n != "" && !strings.Contains(line, n) {
				line = joinNonEmpty(", ", n, line)
			}
			parts = append(parts, line)
		}
	}
	return joinNonEmpty("; ", parts...)
}

func joinNonEmpty(sep string, ss ...string) string {
	var out []string
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

// personNames joins the names of one or more people or organisations (author, creator); a URL
// alone is not a name.
func personNames(v any) string {
	var names []string
	seen := map[string]bool{}
	for _, e := range list(v) {
		n := ""
		switch e := e.(type) {
		case string:
			n = e
		case map[string]any:
			n = str(e["name"])
			if n == "" {
				n = joinNonEmpty(" ", str(e["givenName"]), str(e["familyName"]))
			}
		}
		n = unescape(clean(n))
		if n == "" || looksURL(n) || seen[n] {
			continue
		}
		seen[n] = true
		names = append(names, n)
	}
	return strings.Join(names, ", ")
}

// name is the name of a Thing, or the string itself.
func name(v any) string {
	switch e := first(v).(type) {
	case string:
		return unescape(clean(e))
	case map[string]any:
		return unescape(clean(str(e["name"])))
	}
	return ""
}

// imageURL is the first image: a URL string or an ImageObject's url (or contentUrl).
func imageURL(v any) string {
	switch e := first(v).(type) {
	case string:
		return strings.TrimSpace(e)
	case map[string]any:
		return firstNonEmpty(str(e["url"]), str(e["contentUrl"]), str(e["@id"]))
	}
	return ""
}

// str is a scalar as a trimmed string: strings as they are, numbers without a trailing ".0", the
// first element of a list; maps and null are "".
func str(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return fmt.Sprint(v)
	case []any:
		if len(v) > 0 {
			return str(v[0])
		}
	case map[string]any:
		if s, ok := v["@value"]; ok {
			return str(s)
		}
	}
	return ""
}

// txt is a text value: str with white space collapsed and entities left by double escaping decoded.
func txt(v any) string { return unescape(clean(str(v))) }

// strs joins the strings of a value or list.
func strs(v any, sep string) string {
	var out []string
	for _, e := range list(v) {
		if s := unescape(clean(str(e))); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, sep)
}

// texts is the strings of a list, cleaned.
func texts(v any) []string {
	out := []string{}
	for _, e := range list(v) {
		if s := unescape(clean(stripTags(str(e)))); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func list(v any) []any {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		return v
	}
	return []any{v}
}

func first(v any) any {
	if l, ok := v.([]any); ok {
		if len(l) == 0 {
			return nil
		}
		return l[0]
	}
	return v
}

func firstPresent(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == ""
	case []any:
		return len(v) == 0
	}
	return false
}

// opt is nil for "" (JSON null), else a pointer to s.
func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
