package readability

import (
	"context"
	"fmt"
	"log/slog"
	nurl "net/url"

	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
)

// ParseAndMutate finds the main content of doc, which it mutates.
func (ps *Parser) ParseAndMutate(doc *html.Node, pageURL *nurl.URL) (Article, error) {
	ps.src = nil
	return ps.parse(doc, pageURL)
}

// ParseFrom is ParseAndMutate on a copy of src, which it leaves as it is: the same results, with
// one copy of the tree where ParseAndMutate on a copy would make two. ParseAndMutate copies the
// prepared document at every pass of grabArticle, since a pass prunes the tree it reads and a
// retry pass needs it whole; ParseFrom lets the first pass prune its own copy and makes a retry
// pass (rare: an article under CharThresholds) a new copy of src, prepared again.
func (ps *Parser) ParseFrom(src *html.Node, pageURL *nurl.URL) (Article, error) {
	ps.src = src
	defer func() { ps.src = nil }()
	return ps.parse(cloneDocument(src), pageURL)
}

func (ps *Parser) parse(doc *html.Node, pageURL *nurl.URL) (Article, error) {
	ps.doc = doc
	ps.debug = ps.Logger.Enabled(context.Background(), slog.LevelDebug)

	// Reset parser data
	ps.articleTitle = ""
	ps.articleByline = ""
	ps.articleDir = ""
	ps.articleSiteName = ""
	ps.documentURI = pageURL
	ps.attempts = []parseAttempt{}
	// These flags could get modified during subsequent passes in grabArticle
	ps.flags = flags{
		stripUnlikelys:     true,
		useWeightClasses:   true,
		cleanConditionally: true,
	}

	// Avoid parsing too large documents, as per configuration option
	if ps.MaxElemsToParse > 0 {
		numTags := len(getElementsByTagName(ps.doc, "*"))
		if numTags > ps.MaxElemsToParse {
			return Article{}, fmt.Errorf("documents too large: %d elements", numTags)
		}
	}

	// Unwrap image from noscript
	ps.unwrapNoscriptImages(ps.doc)

	// Extract JSON-LD metadata before removing scripts
	var jsonLd map[string]string
	if !ps.DisableJSONLD {
		jsonLd = ps.getJSONLD()
	}

	// Remove script tags from the document, and prepare it (prepare, which a retry pass of
	// ParseFrom repeats on its new copy).
	ps.prepare()

	// Fetch metadata
	metadata := ps.getArticleMetadata(jsonLd)
	ps.articleTitle = metadata["title"]
	ps.articleByline = metadata["byline"]

	// Try to grab article content
	articleContent := ps.grabArticle()
	var readableNode *html.Node

	if articleContent != nil {
		ps.postProcessContent(articleContent)
		readableNode = dom.FirstElementChild(articleContent)
	}

	return Article{
		title:         ps.articleTitle,
		byline:        ps.articleByline,
		Node:          readableNode,
		excerpt:       metadata["excerpt"],
		siteName:      metadata["siteName"],
		image:         metadata["image"],
		favicon:       metadata["favicon"],
		language:      ps.articleLang,
		publishedTime: metadata["publishedTime"],
		modifiedTime:  metadata["modifiedTime"],
	}, nil
}

// prepare is what ParseAndMutate does to ps.doc after reading its JSON-LD, before grabArticle.
func (ps *Parser) prepare() {
	// Remove script tags from the document.
	ps.removeScripts(ps.doc)

	// Prepares the HTML document
	ps.prepDocument()
}
