package universal_test

import (
	"strconv"
	"testing"

	"asa/engine/universal"
)

// TestProductFaults: each product fault is on a page of ours (fixtures/evaluniversal/pages); the
// product read from it, with the source of each value.
func TestProductFaults(t *testing.T) {
	type want struct {
		price, sku, availability string // "" expects null
		sources                  map[string]string
	}
	for _, tc := range []struct {
		fault, page, url string
		want             want
		noProduct        bool
	}{
		{"JSON-LD @type product in lower case; 24.990 CLP is thousands", "product-lowercase-clp.html", "https://tienda-andes.example/p/sonar-x2",
			want{"24990", "SX2-NEG", "InStock", map[string]string{"price": "json-ld", "sku": "json-ld", "availability": "json-ld"}}, false},
		{"microdata offers through itemref; a later size in stock", "product-itemref-variants.html", "https://northway.example/p/trail-runner-3",
			want{"89", "TR3-GRN", "InStock", map[string]string{"price": "microdata", "sku": "microdata", "availability": "microdata"}}, false},
		{"NOT SOLD normalised; a markup price of 0 not reported", "product-notsold-zero.html", "https://homemart.example/p/cf-brz-56",
			want{"", "CF-BRZ-56", "OutOfStock", map[string]string{"sku": "json-ld", "availability": "json-ld"}}, false},
		{"recommendation slider not the product; price block near the title, old price struck; Art.-Nr.", "product-slider-nomarkup.html", "https://werkzeughaus.example/p/akku-bohrschrauber-bs-18-pro",
			want{"149", "4711-0815", "InStock", map[string]string{"price": "page-text", "sku": "page-text", "availability": "page-text"}}, false},
		{"__NEXT_DATA__ product by the URL's id, not the carousel item", "product-nextdata.html", "https://bigshop.example/ip/cordless-stick-vacuum-v9/552019331",
			want{"129", "552019331", "InStock", map[string]string{"price": "next-data", "sku": "next-data", "availability": "next-data"}}, false},
		{"dataLayer view_item ecommerce item", "product-datalayer.html", "https://kitchenkart.example/steel-water-bottle-1l/p/KK-BTL-1000",
			want{"549", "KK-BTL-1000", "InStock", map[string]string{"price": "data-layer", "sku": "data-layer", "availability": "page-text"}}, false},
		{"data-price-amount and itemprop=sku outside an item, stock line", "product-attributes.html", "https://luma.example/joust-duffle-bag.html",
			want{"34", "24-MB01", "InStock", map[string]string{"price": "attributes", "sku": "attributes", "availability": "page-text"}}, false},
		{"Item no. label; compare-at and unit prices skipped", "product-itemno-url.html", "https://hemkoket.example/kaffebryggare-brew-10/p/302-118-44",
			want{"599", "302-118-44", "InStock", map[string]string{"price": "page-text", "sku": "page-text", "availability": "page-text"}}, false},
		{"meta product:price:amount", "product-og-meta.html", "https://fieldandhearth.example/products/linen-apron",
			want{"32", "APR-LIN-NAT", "InStock", map[string]string{"price": "opengraph", "sku": "opengraph", "availability": "opengraph"}}, false},
		{"the ProductGroup variant the URL selects, out of stock while other sizes are in stock", "product-group-variant.html", "https://fjordknit.example/products/merino-crew?variant=1002",
			want{"120", "MCS-M", "OutOfStock", map[string]string{"price": "json-ld", "sku": "json-ld", "availability": "json-ld"}}, false},
		{"no variant selected: any size in stock", "product-group-variant.html", "https://fjordknit.example/products/merino-crew",
			want{"120", "", "InStock", map[string]string{"price": "json-ld", "availability": "json-ld"}}, false},
		{"an article with prices, a stock word, a Buy now link and an id in its URL", "article-with-price.html", "https://news.example/2025/03/04/grocery-robots-12345678",
			want{}, true},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			res, err := universal.Extract(devsetPage(t, tc.page), "text/html", tc.url, universal.Auto)
			if err != nil {
				t.Fatal(err)
			}
			pr := res.Structured.Product
			if tc.noProduct {
				if pr != nil {
					t.Fatalf("a product on a page that sells nothing: %+v", *pr)
				}
				return
			}
			if pr == nil {
				t.Fatal("no product")
			}
			price := ""
			if pr.Price != nil {
				price = strconv.FormatFloat(*pr.Price, 'f', -1, 64)
			}
			deref := func(s *string) string {
				if s == nil {
					return ""
				}
				return *s
			}
			if price != tc.want.price || deref(pr.SKU) != tc.want.sku || deref(pr.Availability) != tc.want.availability {
				t.Errorf("price %q sku %q availability %q, want %q %q %q", price, deref(pr.SKU), deref(pr.Availability), tc.want.price, tc.want.sku, tc.want.availability)
			}
			for field, src := range tc.want.sources {
				if pr.Sources[field] != src {
					t.Errorf("source of %s: %q, want %q (all: %v)", field, pr.Sources[field], src, pr.Sources)
				}
			}
			if pr.Price == nil && pr.Sources["price"] != "" {
				t.Errorf("a source for a price not given: %v", pr.Sources)
			}
		})
	}
}

// TestProductAtThePageURL: a page with one JSON-LD Product per colour, each with its url: the
// product is the one at the page's URL, not the first.
func TestProductAtThePageURL(t *testing.T) {
	ld := func(sku, color, avail string) string {
		return `<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Canvas Tote","sku":"` + sku +
			`","url":"https://bags.example/p/canvas-tote?color=` + color + `","offers":{"@type":"Offer","price":"45.00","priceCurrency":"EUR","availability":"https://schema.org/` + avail + `"}}</script>`
	}
	page := []byte(`<html><head><title>Canvas Tote</title>` + ld("TOTE-RED", "red", "OutOfStock") + ld("TOTE-BLUE", "blue", "InStock") + `</head><body><h1>Canvas Tote</h1></body></html>`)
	res, err := universal.Extract(page, "text/html", "https://bags.example/p/canvas-tote?color=blue", universal.Auto)
	if err != nil {
		t.Fatal(err)
	}
	pr := res.Structured.Product
	if pr == nil || pr.SKU == nil || *pr.SKU != "TOTE-BLUE" || pr.Availability == nil || *pr.Availability != "InStock" {
		t.Fatalf("product %+v", pr)
	}
}
