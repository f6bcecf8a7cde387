// Package sitedef is the model of site definitions and their strict loading. It decodes and checks
// structure only; compiling selectors and expressions and running them belong to package engine.
//
// The doc tags on the model's fields are the user documentation: the JSON Schema and
// docs/sitedef-reference.md are generated from them.
package sitedef

import "time"

// Site is site.yaml: what every endpoint of a site shares.
type Site struct {
	Schema        string          `yaml:"$schema" doc:"Optional JSON Schema reference for editors."`
	Kind          string          `yaml:"kind" doc:"Always 'site'." enum:"site"`
	Site          string          `yaml:"site" doc:"The slug, equal to the directory name: lower case letters, digits, underscores and hyphens (google-play)." required:"true"`
	Name          string          `yaml:"name" doc:"Display name." required:"true"`
	Category      string          `yaml:"category" doc:"Catalogue category." enum:"marketplace,search-engine,job-board,app-store,video,forum,social,news,travel,real-estate,other" required:"true"`
	Version       string          `yaml:"version" doc:"Semantic version of the site definition, sent as Asa-Extractor-Version: <site>@<version>. Major: breaking output change; minor: new field or parameter; patch: selector fix." required:"true"`
	Summary       string          `yaml:"summary" doc:"One line for the catalogue."`
	Aliases       []string        `yaml:"aliases" doc:"Other slugs the site answers to (x for twitter): GET /api/v1/<alias>/<resource> and the batch endpoint <alias>.<resource> run the site's endpoints. The catalogue lists the site once, under its slug; responses name the slug."`
	DefaultDomain string          `yaml:"default_domain" doc:"The domain key used when a request names none."`
	Domains       Map[Domain]     `yaml:"domains" doc:"Regional storefronts, selectable with the domain parameter."`
	Request       RequestDefaults `yaml:"request" doc:"Defaults for every step of every endpoint."`
	Retry         Retry           `yaml:"retry" doc:"Retry policy for blocked responses."`
	Rules         []Rule          `yaml:"rules" doc:"Rules checked on every step response of every endpoint, before the endpoint's own."`
	Extends       string          `yaml:"extends" doc:"A family (a directory under _families/) whose site.yaml gives this site's defaults: category, request, retry, rules, domains. This file's keys override them (docs/sitedef-format.md, Families)."`
	Endpoints     Map[Endpoint]   `yaml:"endpoints" doc:"Family endpoints mounted on this site, by resource name. Each says extends: <family>/<resource> and may override or remove parts of the base, like an endpoint file that extends."`
	Remove        []string        `yaml:"remove" doc:"With extends: parts of the family's site.yaml this site drops, e.g. rules.<id> or domains.<key>."`
}

// Domain is one regional storefront.
type Domain struct {
	Host     string `yaml:"host" doc:"Host name, e.g. www.amazon.de." required:"true"`
	Locale   string `yaml:"locale" doc:"Locale as xx_YY, used to parse numbers and for Accept-Language." required:"true"`
	Currency string `yaml:"currency" doc:"ISO 4217 currency of prices on this storefront."`
}

// RequestDefaults are headers and limits applied to every step.
type RequestDefaults struct {
	Headers Map[string]   `yaml:"headers" doc:"Header templates; ${ expr } parts are evaluated."`
	Timeout time.Duration `yaml:"timeout" doc:"Deadline of one attempt, e.g. 20s."`
}

// Retry is the policy for responses a rule marks as blocked.
type Retry struct {
	MaxAttempts int `yaml:"max_attempts" doc:"Attempts per step when a rule says blocked (1 to 10; default 3)."`
}

// Endpoint is one resource of a site: <site>/<resource>.yaml.
type Endpoint struct {
	Schema      string       `yaml:"$schema" doc:"Optional JSON Schema reference for editors."`
	Kind        string       `yaml:"kind" doc:"Always 'endpoint'." enum:"endpoint"`
	Resource    string       `yaml:"resource" doc:"The resource name, equal to the file name: GET /api/v1/<site>/<resource>." required:"true"`
	Summary     string       `yaml:"summary" doc:"One line for the catalogue and OpenAPI." required:"true"`
	Description string       `yaml:"description" doc:"Longer description for the docs."`
	Params      Map[Param]   `yaml:"params" doc:"Request parameters, validated before any request is made."`
	Constraints []Constraint `yaml:"constraints" doc:"Cross-parameter rules."`
	Steps       []Step       `yaml:"steps" doc:"The requests, run in order." required:"true"`
	Sources     Map[Source]  `yaml:"sources" doc:"JSON values decoded once per run, read by expressions as src.<name>."`
	Rules       []Rule       `yaml:"rules" doc:"Rules mapping responses and outputs to error codes; the first that matches wins."`
	Paginate    *Paginate    `yaml:"paginate" doc:"Pagination of a list endpoint over start_page and pages."`
	Fields      Map[Field]   `yaml:"fields" doc:"The output, in this order." required:"true"`
	Extends     string       `yaml:"extends" doc:"<family>/<resource>: the base endpoint (_families/<family>/<resource>.yaml) this one extends. Named entries given here (params, fields, sources, steps and rules by id) replace the base's of that name, new ones are appended, scalars override."`
	Remove      []string     `yaml:"remove" doc:"With extends: parts of the base this endpoint drops: fields.<name> (fields.<name>.<child> inside an object), params.<name>, sources.<name>, steps.<id>, rules.<id>, constraints, paginate. Naming nothing is an error."`
}

// Param is one request parameter.
type Param struct {
	Type        string   `yaml:"type" doc:"Parameter type." enum:"string,int,bool,enum,url" required:"true"`
	Description string   `yaml:"description" doc:"One line for the docs, written as what the parameter takes: a value matching neither pattern nor url_pattern is refused with it (and the example) as the message."`
	Required    bool     `yaml:"required" doc:"A request without it gets 400 invalid_params."`
	Default     any      `yaml:"default" doc:"Value when the request gives none."`
	Pattern     string   `yaml:"pattern" doc:"Regular expression the whole value must match (strings)."`
	Min         *int     `yaml:"min" doc:"Lowest value (int) or shortest length (string)."`
	Max         *int     `yaml:"max" doc:"Highest value (int) or longest length (string)."`
	Values      []string `yaml:"values" doc:"Allowed values (enum)."`
	ValuesFrom  string   `yaml:"values_from" doc:"'domains': the allowed values are the site's domain keys." enum:"domains"`
	Normalize   string   `yaml:"normalize" doc:"Expression over value applied before the checks, e.g. upper(trim(value))."`
	URLPattern  string   `yaml:"url_pattern" doc:"The value may instead be a full URL matching this regular expression; its named groups fill the parameters of the same name, and a group named host selects the domain: the one whose host it is, else the one whose host shares its registrable domain (edition.cnn.com for www.cnn.com)."`
	Example     any      `yaml:"example" doc:"A valid value for docs, OpenAPI and checks."`
}

// Constraint is a rule over several parameters.
type Constraint struct {
	Require string   `yaml:"require" doc:"Expression over params that must be true."`
	OneOf   []string `yaml:"one_of" doc:"Exactly one of these parameters must be given."`
	Message string   `yaml:"message" doc:"The message of the 400 when the constraint fails."`
}

// Step is one request.
type Step struct {
	ID           string        `yaml:"id" doc:"The step's name, used by rules, sources, vars and fixtures." required:"true"`
	When         string        `yaml:"when" doc:"Expression: the step is skipped when false."`
	Optional     bool          `yaml:"optional" doc:"An extra the answer stands without: when the step fails (the target unreachable, a status it does not expect, a rule firing on its response, a body that does not parse), its sources and vars are nil, steps.<id> is absent, and the answer carries a warning instead of the error. The first step cannot be optional."`
	Request      Request       `yaml:"request" doc:"The request." required:"true"`
	Parse        string        `yaml:"parse" doc:"How to parse the response (default html)." enum:"html,json,xml,text"`
	ExpectStatus []int         `yaml:"expect_status" doc:"Statuses that count as success (default 200-299)."`
	Vars         Map[Selector] `yaml:"vars" doc:"Values extracted for later steps, read as vars.<name>."`
	Render       bool          `yaml:"render" doc:"The page needs its scripts run: fetched in the headless browser (where the server has one, --browser) and parsed as the rendered DOM, as with render_js=true, which costs the add-on. GET and parse html only. Without a browser the step is fetched as it is."`
	WaitFor      string        `yaml:"wait_for" doc:"CSS selector of a rendered step: the page is read as soon as it matches instead of when the network is idle (the request's wait_for parameter overrides it)."`
}

// Request is a templated HTTP request.
type Request struct {
	URL     string      `yaml:"url" doc:"URL template: ${ expr } parts are evaluated and path-escaped; a template that is one ${ } alone is taken as a whole URL." required:"true"`
	Method  string      `yaml:"method" doc:"HTTP method (default GET)." enum:"GET,POST"`
	Query   Map[string] `yaml:"query" doc:"Query parameter templates; empty values are dropped."`
	Headers Map[string] `yaml:"headers" doc:"Header templates, added to the site's."`
	JSON    any         `yaml:"json" doc:"A JSON body; strings in it are templates."`
	Body    string      `yaml:"body" doc:"A raw body template."`
}

// Source is a named JSON value taken from a step's response.
type Source struct {
	From       string `yaml:"from" doc:"Step id (default: the last step)."`
	JSONLD     string `yaml:"json_ld" doc:"The first JSON-LD object whose @type is or contains this type."`
	ScriptJSON string `yaml:"script_json" doc:"Regular expression: the balanced JSON value following its first match."`
	XPathJSON  string `yaml:"xpath_json" doc:"XPath: the text of the first node, parsed as JSON."`
	Body       bool   `yaml:"body" doc:"The whole response body parsed as JSON."`
	Expr       string `yaml:"expr" doc:"Expression over params, domain, vars, steps and the sources declared above this one, of the same or an earlier step: the source is its value. One reading of several layouts (today's state object, else an older page's), named once for the rules and fields that read it; give from: the step whose rules read it."`
	MainText   bool   `yaml:"main_text" doc:"The page's main content as the universal extractor finds it (navigation, ads, footers and related links removed): an object {text, word_count, title, byline, excerpt, published, site_name, lang}; nil when the page has no main text."`
	Required   bool   `yaml:"required" doc:"A missing source fails the request with extraction_failed (unless its when does not hold)."`
	When       string `yaml:"when" doc:"Expression over params, domain, vars, steps and the sources declared above this one: the source is looked for only where it holds, and is nil elsewhere. A fallback layout's data (an older page's state object) then costs nothing on a page of today."`
}

// Rule maps a response or an output to an error code.
type Rule struct {
	ID      string `yaml:"id" doc:"The rule's name, shown in logs and test reports." required:"true"`
	Step    string `yaml:"step" doc:"Only check responses of this step."`
	Match   *Match `yaml:"match" doc:"Structured matcher over a step response."`
	When    string `yaml:"when" doc:"Expression checked after the fields are extracted (output phase)."`
	Error   string `yaml:"error" doc:"Error code from the catalogue." enum:"blocked,product_not_found,target_unreachable,extraction_failed,id_mismatch,generic_gallery_page" required:"true"`
	Detail  string `yaml:"detail" doc:"A short refinement shown to clients, e.g. captcha."`
	Message string `yaml:"message" doc:"Message template for the client."`
}

// Match is a structured matcher; the keys given are all required to hold.
type Match struct {
	Any          []Match      `yaml:"any" doc:"At least one must hold."`
	All          []Match      `yaml:"all" doc:"All must hold."`
	Not          *Match       `yaml:"not" doc:"Must not hold."`
	Status       []int        `yaml:"status" doc:"The response status is one of these."`
	Header       *HeaderMatch `yaml:"header" doc:"A response header matches."`
	XPath        string       `yaml:"xpath" doc:"The XPath selects at least one node (or a true/non-empty scalar)."`
	BodyContains string       `yaml:"body_contains" doc:"The body contains this text."`
	BodyMatches  string       `yaml:"body_matches" doc:"The body matches this regular expression."`
	FinalURL     string       `yaml:"final_url" doc:"The final URL matches this regular expression."`
	Expr         string       `yaml:"expr" doc:"Expression over src, vars, steps and params."`
}

// HeaderMatch matches one response header.
type HeaderMatch struct {
	Name    string `yaml:"name" doc:"Header name." required:"true"`
	Matches string `yaml:"matches" doc:"Regular expression over the value." required:"true"`
}

// Selector picks a value.
type Selector struct {
	XPath     string `yaml:"xpath" doc:"XPath against the step document; node sets give text (or a list with all)."`
	Expr      string `yaml:"expr" doc:"Expression."`
	Regex     string `yaml:"regex" doc:"Regular expression over the step body: first capture group, or the match."`
	Const     any    `yaml:"const" doc:"A constant value."`
	All       bool   `yaml:"all" doc:"Keep every node or match as a list."`
	Text      string `yaml:"text" doc:"How xpath reads an element's text: flat (the default: one line, whitespace normalised) or block (laid out in lines as a browser shows it: a line per br and block element, paragraphs, lists and pre blocks a blank line apart (so is a second br in a row), a pre's lines and indentation kept)." enum:"flat,block"`
	From      string `yaml:"from" doc:"Step whose document xpath and regex read (default: the last step run; on a field with select:, the default of each of its selectors)."`
	Transform string `yaml:"transform" doc:"Expression over value, the selector's result."`
}

// Field is one output key.
type Field struct {
	Selector    `yaml:",inline"`
	Type        string     `yaml:"type" doc:"Output type." enum:"string,int,float,bool,url,object,any,list<string>,list<int>,list<float>,list<bool>,list<url>,list<object>,list<any>"`
	Description string     `yaml:"description" doc:"One line for the docs."`
	Select      []Selector `yaml:"select" doc:"Selectors tried in order; the first non-empty result wins."`
	Post        string     `yaml:"post" doc:"Expression over value applied to the winning result."`
	Default     any        `yaml:"default" doc:"Value when every selector is empty."`
	Required    bool       `yaml:"required" doc:"Top level: an empty value fails with extraction_failed. In a list item: the item is dropped."`
	When        string     `yaml:"when" doc:"Expression: the field is left out when false."`
	Hidden      bool       `yaml:"hidden" doc:"Computed and readable as fields.<name>, but not output."`
	Fields      Map[Field] `yaml:"fields" doc:"Child fields of an object or list<object>."`
	Recurse     bool       `yaml:"recurse" doc:"On a list<object> child: reuse the enclosing list's definition (nested comments)."`
	Limit       string     `yaml:"limit" doc:"Expression: the most list items kept."`
	Page        string     `yaml:"page" doc:"In a paginated endpoint, the page a top-level field is taken from (default first); last suits cursors." enum:"first,last"`
	Extends     string     `yaml:"extends" doc:"On an object or list<object> field: <site>.<resource> (another endpoint) or <family>/<resource> (a base) whose top-level fields are this field's child fields, resolved at load; this field's own fields replace them by name or are appended, as in an endpoint that extends."`
	Remove      []string   `yaml:"remove" doc:"With extends on a field: the other endpoint's fields this one drops (a name, or name.child inside an object). Naming nothing is an error."`
}

// Paginate repeats the steps for consecutive pages.
type Paginate struct {
	Items string `yaml:"items" doc:"The list<object> field concatenated across pages." required:"true"`
	Next  string `yaml:"next" doc:"Expression giving the next page's cursor (page.cursor); nil stops."`
	Start string `yaml:"start" doc:"Expression giving the first page number (default params.start_page)."`
	Pages string `yaml:"pages" doc:"Expression giving the number of pages (default params.pages), at most 10."`
}
