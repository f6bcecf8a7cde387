package engine_test

import (
	"net/url"
	"testing"

	"asa/engine/errcode"
)

// FuzzParams: any query string is either valid parameters or invalid_params naming the fault.
func FuzzParams(f *testing.F) {
	reg := loadShop(f)
	plans := []string{"shop.product", "shop.reviews", "shop.thread"}
	f.Add(0, "query=AB1234&domain=de")
	f.Add(0, "query=https%3A%2F%2Fwww.shop.example.de%2Fp%2FAB1234")
	f.Add(1, "query=x&start_page=9&pages=2")
	f.Add(1, "query=x&pages=-1&pages=2")
	f.Add(2, "query=%ff%fe")
	f.Fuzz(func(t *testing.T, which int, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		plan := reg.Plan(plans[(which%len(plans)+len(plans))%len(plans)])
		ps, err := plan.Params(q)
		if err != nil {
			if errcode.Of(err) != errcode.InvalidParams {
				t.Fatalf("want invalid_params, got %v", err)
			}
			return
		}
		if ps == nil {
			t.Fatal("nil params without error")
		}
	})
}
