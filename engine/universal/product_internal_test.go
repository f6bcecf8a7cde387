package universal

import "testing"

func TestAvailabilityNames(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"https://schema.org/InStock", "InStock"}, {"http://schema.org/OutOfStock", "OutOfStock"}, {"instock", "InStock"},
		{"in stock", "InStock"}, {"IN_STOCK", "InStock"}, {"NOT SOLD", "OutOfStock"}, {"OUT_OF_STOCK", "OutOfStock"},
		{"Currently unavailable.", "OutOfStock"}, {"Derzeit nicht verfügbar.", "OutOfStock"}, {"Auf Lager", "InStock"},
		{"Only 2 left in stock.", "InStock"}, {"SoldOut", "SoldOut"}, {"pre-order", "PreOrder"}, {true, "InStock"}, {false, "OutOfStock"},
		{"Ships in 3 weeks", ""}, {"", ""},
	} {
		if got := availability(tc.in); got != tc.want {
			t.Errorf("availability(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPriceNumber(t *testing.T) {
	for _, tc := range []struct {
		in   any
		code string
		want float64
		ok   bool
	}{
		{"24.990", "CLP", 24990, true}, {"1.299.000", "COP", 1299000, true}, {"4.500", "PKR", 4500, true},
		{"1.250", "KWD", 1.25, true}, {"24.99", "USD", 24.99, true}, {24.99, "CLP", 24.99, true}, {"0.990", "EUR", 0.99, true},
		{"1,299.00", "USD", 1299, true}, {"", "USD", 0, false},
	} {
		got, ok := priceNumber(tc.in, tc.code)
		if ok != tc.ok || got != tc.want {
			t.Errorf("priceNumber(%v, %s) = %v %v, want %v %v", tc.in, tc.code, got, ok, tc.want, tc.ok)
		}
	}
}

func TestProductIDFromURL(t *testing.T) {
	for _, tc := range []struct {
		url, id string
		shop    bool
	}{
		{"https://www.amazon.co.uk/dp/B076TQK2D6", "B076TQK2D6", true},
		{"https://www.amazon.com/Gothamite-Duffle/dp/B01GOH7PKA/ref=sr_1_1", "B01GOH7PKA", true},
		{"https://www.ebay.ca/itm/123808916008", "123808916008", true},
		{"https://www.walmart.com/ip/Pok-mon-GO-Plus/1203950273", "1203950273", true},
		{"https://www.target.com/p/dust-cloths/-/A-90377926", "90377926", true},
		{"https://shop.example/kaffe/p/302-118-44", "302-118-44", false},
		{"https://www.bestbuy.ca/en-ca/product/nest-hello/12222651", "12222651", false},
		{"https://news.example/2025/03/04/story", "", false},
	} {
		id, shop := productIDFromURL(tc.url)
		if id != tc.id || shop != tc.shop {
			t.Errorf("%s: %q %v, want %q %v", tc.url, id, shop, tc.id, tc.shop)
		}
	}
}

func TestSKULabels(t *testing.T) {
	for _, tc := range []struct{ in, rest string }{
		{"SKU: KET-17", "KET-17"}, {"Item no. 302-118-44", "302-118-44"}, {"Art.-Nr.:", ""}, {"Artikelnummer 4711", "4711"},
		{"Product code: AB-12", "AB-12"}, {"Réf. 889", "889"}, {"eBay item number: 1238", "1238"},
	} {
		ok, rest := skuLabelText(tc.in)
		if !ok || rest != tc.rest {
			t.Errorf("skuLabelText(%q) = %v %q, want %q", tc.in, ok, rest, tc.rest)
		}
	}
	for _, in := range []string{"Skull candy", "Items in your cart", "Productivity"} {
		if ok, _ := skuLabelText(in); ok {
			t.Errorf("skuLabelText(%q) took it for a label", in)
		}
	}
}
