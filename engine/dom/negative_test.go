package dom

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// negativeDir is fixtures/_negative at the repository root, two levels up from this package.
func negativeDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "fixtures", "_negative")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no negative fixtures: %v", err)
	}
	return dir
}

// The negative fixtures parse, and each still carries what identifies it (fixtures/_negative/README.md).
func TestNegativeFixtures(t *testing.T) {
	dir := negativeDir(t)
	tests := []struct {
		file   string
		xpaths []string // each must select something
		title  string   // the document's text must match
	}{
		{"captcha-amazon.html", []string{
			"//form[@action='/errors/validateCaptcha']",
			"//input[@id='captchacharacters']",
			"//h4[contains(., 'Type the characters you see in this image')]",
		}, `Enter the characters you see below`},
		{"captcha-google-sorry.html", []string{
			"//form[@id='captcha-form'][@action='index']",
			"//div[contains(@class, 'g-recaptcha')][@data-sitekey]",
		}, `Our systems have detected unusual traffic from your computer network`},
		{"consent-google.html", []string{
			"//form[@action='https://consent.google.com/save'][.//input[@name='set_eom'][@value='true']]",
			"//form[@action='https://consent.google.com/save'][.//input[@name='set_eom'][@value='false']]",
		}, `^Before you continue to Google Sign in`},
		{"consent-youtube.html", []string{
			"//form[@action='https://consent.youtube.com/save']",
		}, `Before you continue to YouTube`},
		{"consent-yahoo-guce.html", []string{
			"//form[starts-with(@action, 'https://guce.yahoo.com/v2/collectConsent')]",
			"//button[@name='reject'][contains(@class, 'reject-all')]",
		}, `Yahoo is part of the Yahoo family of brands`},
		{"login-wall.html", []string{
			"//form[.//input[@type='password']]",
			"//meta[@property='og:title'][contains(@content, 'Log in')]",
		}, `Log in to continue`},
		{"cloudflare-challenge.html", []string{
			"//title[. = 'Just a moment...']",
			"//form[@id='challenge-form'][contains(@action, '__cf_chl_f_tk=')]",
			"//script[contains(., 'window._cf_chl_opt')][contains(., '/cdn-cgi/challenge-platform/')]",
		}, `Verifying you are human`},
		{"datadome-captcha.html", []string{
			"//script[contains(., 'geo.captcha-delivery.com')]",
			"//script[@src='https://ct.captcha-delivery.com/c.js']",
		}, `Please enable JS and disable any ad blocker`},
		{"perimeterx-press-and-hold.html", []string{
			"//title[. = 'Access to this page has been denied']",
			"//div[@id='px-captcha']",
			"//script[contains(., 'window._pxAppId')]",
		}, `Press & Hold to confirm you are`},
		{"akamai-access-denied.html", []string{
			"//title[. = 'Access Denied']",
			"//h1[. = 'Access Denied']",
		}, `You don't have permission to access "http://www\.example-shop\.test/product/123" on this server`},
		{"incapsula-incident.html", []string{
			"//iframe[@id='main-iframe'][starts-with(@src, '/_Incapsula_Resource')][contains(., 'Incapsula incident ID')]",
		}, `^$`}, // an iframe's content is raw text: the page has no text
		{"recaptcha-robot-check.html", []string{
			"//div[contains(@class, 'g-recaptcha')][@data-sitekey]",
			"//title[. = 'Are you a robot?']",
		}, `unusual activity from your network`},
		{"nginx-429.html", []string{"//title[. = '429 Too Many Requests']"}, `429 Too Many Requests\s+nginx`},
		{"apache-503.html", []string{"//title[. = '503 Service Unavailable']", "//address[starts-with(., 'Apache/')]"}, `temporarily unable to service your\s+request`},
		{"meta-refresh-redirect.html", []string{"//meta[@http-equiv='refresh'][starts-with(@content, '0; url=')]"}, `Redirecting to https://www\.example-shop\.test/privacy-gate`},
		{"soft-404.html", []string{"//h1[. = \"Sorry, we couldn't find that page\"]", "//form[@action='/search']"}, `may have been moved or deleted`},
		{"gdpr-451-eu-block.html", []string{"//h1[starts-with(., '451: Unavailable due to legal reasons')]"}, `access cannot be granted at this time`},
		{"eu-unavailable.html", []string{"//div[@id='gdpr-message']"}, `currently unavailable in most European countries`},
		{"empty.html", nil, `^$`},
		{"blank.html", []string{"/html/body[not(*)]"}, `^$`},
		{"other-site-product.html", []string{
			"//h1[@itemprop='name']",
			"//link[@rel='canonical'][contains(@href, 'northwind-kitchen.test')]",
		}, `Add to cart`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			body, err := ToUTF8(raw, "text/html")
			if err != nil {
				t.Fatal(err)
			}
			doc, err := ParseHTML(body)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range tt.xpaths {
				if selectFirst(t, doc, x) == nil {
					t.Errorf("%s selects nothing", x)
				}
			}
			if txt := Text(Navigator(doc)); !regexp.MustCompile(tt.title).MatchString(txt) {
				t.Errorf("text %.200q does not match %q", txt, tt.title)
			}
			objs := JSONLD(doc)
			product := FindJSONLD(objs, "Product")
			if (tt.file == "other-site-product.html") != (product != nil) {
				t.Errorf("JSON-LD Product: %v", product)
			}
			if product != nil {
				if product["sku"] != "NWK-DO-55-RED" || dig(product, "offers", "price") != "89.00" {
					t.Errorf("JSON-LD Product: %v", product)
				}
				if FindJSONLD(objs, "BreadcrumbList") == nil {
					t.Error("no BreadcrumbList")
				}
			}
		})
	}

	// The JSON API error decodes, to an error object; the rate-limit text is not JSON.
	raw, err := os.ReadFile(filepath.Join(dir, "json-error.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeJSON(raw)
	if err != nil || dig(v, "error") != 404.0 || dig(v, "message") != "Not Found" {
		t.Errorf("json-error.json = %v, %v", v, err)
	}
	raw, err = os.ReadFile(filepath.Join(dir, "not-json.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := DecodeJSON(raw); err == nil {
		t.Errorf("not-json.txt decodes: %v", v)
	}
}
