package universal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"asa/engine/universal"
)

// devsetPage reads one of our pages of the development set (fixtures/evaluniversal/pages).
func devsetPage(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir, "evaluniversal", "pages", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBoilerplateInsideArticle: each fault of the article text is on a page of ours; go-readability
// alone shows it (so the page does), the default extractor does not, and the article's own text
// stays whole.
func TestBoilerplateInsideArticle(t *testing.T) {
	for _, tc := range []struct {
		fault string
		page  string
		bad   string // in go-readability's text, not in ours
	}{
		{"section label", "news-boilerplate.html", "Local Politics"},
		{"byline", "news-boilerplate.html", "By Jane Doe"},
		{"updated line", "news-boilerplate.html", "Updated 3:15 PM EST"},
		{"caption and photo credit", "news-boilerplate.html", "Credit: Tom Lee"},
		{"hover card glued into a sentence", "news-boilerplate.html", "Maria SantosMaria Santos"},
		{"hover card body", "news-boilerplate.html", "Santos wins second term"},
		{"newsletter block", "news-boilerplate.html", "Sign up for the Morning Courier"},
		{"tip line", "news-boilerplate.html", "Got a news tip"},
		{"the same caption under every gallery image", "gallery-tweet.html", "Crews work to restore power"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			page := devsetPage(t, tc.page)
			raw, err := universal.ExtractWith(page, "text/html", "https://news.example/a", universal.Text, universal.Readability)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(raw.Text, tc.bad) {
				t.Fatalf("the page does not show the fault: go-readability's text lacks %q", tc.bad)
			}
			res, err := universal.Extract(page, "text/html", "https://news.example/a", universal.Text)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(res.Text, tc.bad) {
				t.Errorf("text keeps %q:\n%s", tc.bad, res.Text)
			}
			want, err := os.ReadFile(filepath.Join(fixturesDir, "evaluniversal", "expected", strings.TrimSuffix(tc.page, ".html")+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(res.Text); got != strings.TrimSpace(string(want)) {
				t.Errorf("text:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestEmbeddedTweetsKept: tweets in wrappers go-readability drops (a WordPress embed figure whose
// tweet reads as a link list, a "social-embed" div) stay in the text, each post and its attribution
// on lines of their own.
func TestEmbeddedTweetsKept(t *testing.T) {
	page := devsetPage(t, "gallery-tweet.html")
	raw, err := universal.ExtractWith(page, "text/html", "https://coastline.example/a", universal.Text, universal.Readability)
	if err != nil {
		t.Fatal(err)
	}
	res, err := universal.Extract(page, "text/html", "https://coastline.example/a", universal.Text)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Ferry service to the islands is suspended", "Our crews have restored power to 12,000 homes"} {
		if strings.Contains(raw.Text, s) {
			t.Errorf("the page does not show the fault: go-readability keeps %q", s)
		}
		if !strings.Contains(res.Text, s) {
			t.Errorf("embedded tweet %q dropped:\n%s", s, res.Text)
		}
	}
	for _, line := range []string{"— Mayor Rosa Chen (@MayorChenGW) March 5, 2025", "— Island Ferries (@IslandFerries) March 5, 2025"} {
		if !strings.Contains(res.Text, "\n"+line+"\n") {
			t.Errorf("attribution %q not on a line of its own:\n%s", line, res.Text)
		}
	}
	// The markdown mode reads the same article.
	md, err := universal.Extract(page, "text/html", "https://coastline.example/a", universal.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.Markdown, "Crews work to restore power") || !strings.Contains(md.Markdown, "Ferry service to the islands") {
		t.Errorf("markdown:\n%s", md.Markdown)
	}
}

// TestBoilerplateKeepsArticleText: what looks like boilerplate but is the article stays: table
// cells of years and counts, short lines of figures, long slideshow captions, a "no_caption" item,
// a paragraph repeated away from any image, and an article that is all short lines.
func TestBoilerplateKeepsArticleText(t *testing.T) {
	para := func(s string) string { return "<p>" + s + "</p>" }
	long := strings.Repeat("The council heard from residents for three hours before the vote, and most of them spoke about the buses. ", 2)
	for _, tc := range []struct {
		name, body string
		keep       []string
	}{
		{"table of years", para(long) + `<table><tr><th>Film</th><th>Year</th></tr><tr><td>Repeat Performance</td><td>1947</td></tr><tr><td>Groundhog Day</td><td>1993</td></tr><tr><td>Groundhog Day</td><td>1993</td></tr></table>` + para(long),
			[]string{"1947", "1993"}},
		{"figures in short lines", para(long) + para("My Guess: $25,000,000") + para("Actual: $28,500,000") + para(long), []string{"Actual: $28,500,000", "My Guess: $25,000,000"}},
		{"long slideshow caption", para(long) + `<figure><img src="a.jpg"><figcaption class="flat-slide-caption"><p>` + strings.Repeat("Sasha says millennials settle for what is fastest to buy, and the rooms end up looking the same. ", 4) + `</p></figcaption></figure>` + para(long),
			[]string{"Sasha says millennials settle"}},
		{"no_caption item", `<div class="item no_caption"><h2>The mother of a woman who took diet pills bought online described how her daughter was burning up from within.</h2><img src="a.jpg"></div>` + para(long) + para(long),
			[]string{"The mother of a woman"}},
		{"source line", para(long) + para(long) + para("Source: Box Office Mojo"), []string{"Source: Box Office Mojo"}},
		{"photo essay told in its captions", para(long) + strings.Repeat(`<figure><img src="a.jpg"><figcaption>Harriet Tubman's shawl and hymnal: Tubman, who escaped to freedom, helped others do so through the Underground Railroad.</figcaption></figure>`, 1) +
			`<figure><img src="b.jpg"><figcaption>Nat Turner's Bible: Turner led a rebellion in 1831 in Southampton County, Virginia, which halted the abolitionists' hopes.</figcaption></figure>` +
			`<figure><img src="c.jpg"><figcaption>Segregated rail car: a car from the Southern Railway shows the accommodations for white and black passengers.</figcaption></figure>` + para(long),
			[]string{"Harriet Tubman's shawl", "Nat Turner's Bible", "Segregated rail car"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := []byte(`<html><head><title>Council votes</title></head><body><article>` + tc.body + `</article></body></html>`)
			res, err := universal.Extract(page, "text/html", "https://news.example/a", universal.Text)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range tc.keep {
				if !strings.Contains(res.Text, k) {
					t.Errorf("lost %q:\n%s", k, res.Text)
				}
			}
		})
	}
}

// TestAuthorBoxAndContactLines: the author box at the end (a name line, then "X is a reporter who
// covers ...") and a reporter's e-mail and handle lines go; a sentence about someone stays.
func TestAuthorBoxAndContactLines(t *testing.T) {
	long := strings.Repeat("The council heard from residents for three hours before the vote, and most of them spoke about the buses. ", 2)
	page := []byte(`<html><head><title>Council votes</title></head><body><article><p>` + long + `</p>` +
		`<p>Maria Santos is a council member who wrote the plan, and she spoke last.</p><p>` + long + `</p>` +
		`<p>jane.doe@courier.example</p><p>Twitter: @janedoe</p><p>Jane Doe</p><p>Jane Doe is a reporter who covers transport and the city council.</p></article></body></html>`)
	res, err := universal.Extract(page, "text/html", "https://news.example/a", universal.Text)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"jane.doe@courier.example", "@janedoe", "Jane Doe"} {
		if strings.Contains(res.Text, bad) {
			t.Errorf("keeps %q:\n%s", bad, res.Text)
		}
	}
	if !strings.Contains(res.Text, "Maria Santos is a council member") {
		t.Errorf("lost a sentence about someone:\n%s", res.Text)
	}
}

// TestMenuInsideArticle: a site menu written as plain links inside the article's container (no
// nav, no class) goes; a short list of links in the text stays.
func TestMenuInsideArticle(t *testing.T) {
	long := strings.Repeat("The council heard from residents for three hours before the vote, and most of them spoke about the buses. ", 3)
	menu := ""
	for _, s := range []string{"News", "Politics", "Business", "Sports", "Opinion", "Arts", "Food", "Travel", "Weather", "Obituaries", "Podcasts", "Video"} {
		menu += `<p><a href="/` + strings.ToLower(s) + `">` + s + `</a></p>`
	}
	page := []byte(`<html><head><title>Council votes</title></head><body><div class="article-body">` + menu + `<p>` + long + `</p>` +
		`<p>The plan's documents:</p><ul><li><a href="/plan.pdf">The plan</a></li><li><a href="/map.pdf">The map</a></li></ul><p>` + long + `</p></div></body></html>`)
	res, err := universal.Extract(page, "text/html", "https://news.example/a", universal.Text)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Obituaries", "Podcasts", "Weather"} {
		if strings.Contains(res.Text, bad) {
			t.Errorf("keeps the menu (%q):\n%s", bad, res.Text)
		}
	}
	if !strings.Contains(res.Text, "The plan") || !strings.Contains(res.Text, "The map") {
		t.Errorf("lost a list of links in the text:\n%s", res.Text)
	}
}
