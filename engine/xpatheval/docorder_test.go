package xpatheval

import (
	"strings"
	"testing"

	"asa/engine/dom"
)

// TestDocumentOrder: a step whose predicate antchfx takes for a positional one (count() here) is
// evaluated parent by parent there, so a <p> that stands beside the container of the matching <div>s
// came after them, and the first node it yielded was not the page's first. The engine answers a list
// in document order, and the first node's text from the page's first match.
func TestDocumentOrder(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<html><body><section>` +
		`<p class="para">one</p>` +
		`<div class="box"><div class="para">two</div><div class="para"><a href="/x">a link alone</a></div><div class="para">three</div></div>` +
		`<p class="para">four</p>` +
		`</section></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	const src = `//*[contains(concat(' ', normalize-space(@class), ' '), ' para ')][not(count(.//a) = 1 and normalize-space() = normalize-space(.//a))]`
	for _, want := range []*Want{nil, NewWant()} {
		x, err := Compile(src, want)
		if err != nil {
			t.Fatal(err)
		}
		ev := NewEvaluator(want)
		nav := dom.NavigatorAt(root, root)
		var nodes []string
		for _, n := range ev.Nodes(x, nav) {
			nodes = append(nodes, n.Value())
		}
		if got := strings.Join(nodes, " "); got != "one two three four" {
			t.Errorf("Nodes (index %v): %q, want one two three four", want != nil, got)
		}
		list, _ := ev.Value(x, nav, true, true).([]any)
		if len(list) != 4 || list[0] != "one" || list[3] != "four" {
			t.Errorf("Value all (index %v): %v, want [one two three four]", want != nil, list)
		}
		if first := ev.Value(x, nav, false, true); first != "one" {
			t.Errorf("Value first (index %v): %v, want one", want != nil, first)
		}
	}
}
