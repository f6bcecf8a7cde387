package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/universal"
)

// cmdExtract runs one endpoint on saved responses and prints exactly what a client would get.
func cmdExtract(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var id, dir, finalURL string
	dir = defaultSitedefs()
	params := url.Values{}
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, bool) {
			if k, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(k, "-") {
				return v, true
			}
			if i+1 >= len(args) {
				fmt.Fprintf(stderr, "asa extract: %s needs a value\n", a)
				return "", false
			}
			i++
			return args[i], true
		}
		switch {
		case a == "--param" || a == "-p" || strings.HasPrefix(a, "--param="):
			v, ok := next()
			if !ok {
				return 2
			}
			k, val, found := strings.Cut(v, "=")
			if !found {
				fmt.Fprintf(stderr, "asa extract: --param takes k=v, got %q\n", v)
				return 2
			}
			params.Add(k, val)
		case a == "--url" || strings.HasPrefix(a, "--url="):
			v, ok := next()
			if !ok {
				return 2
			}
			finalURL = v
		case a == "--sitedefs" || strings.HasPrefix(a, "--sitedefs="):
			v, ok := next()
			if !ok {
				return 2
			}
			dir = v
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(stderr, "asa extract: unknown flag %s\n\n%s", a, usage)
			return 2
		case id == "":
			id = a
		default:
			files = append(files, a)
		}
	}
	if id == "" || len(files) == 0 {
		fmt.Fprintf(stderr, "asa extract: want SITE.RESOURCE and at least one FILE\n\n%s", usage)
		return 2
	}
	if id == universal.Endpoint {
		return extractUniversal(files, params, finalURL, stdout, stderr)
	}
	reg, _ := loadRegistry(dir, stderr)
	plan := reg.Plan(id)
	if plan == nil {
		fmt.Fprintf(stderr, "asa extract: no endpoint %s (asa sitedef list shows them)\n", id)
		return 2
	}
	steps := plan.StepIDs()
	if len(files) > len(steps) {
		fmt.Fprintf(stderr, "asa extract: %s has %d steps (%s) but %d files were given\n", id, len(steps), strings.Join(steps, ", "), len(files))
		return 2
	}
	rp := &fixture.Replay{Replies: map[string]*fixture.Reply{}}
	for i, f := range files {
		step := steps[i]
		// STEP=FILE names the step explicitly, for endpoints whose steps run conditionally.
		if k, v, ok := strings.Cut(f, "="); ok && plan.HasStep(k) {
			step, f = k, v
		}
		body, err := readFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "asa extract: %v\n", err)
			return 1
		}
		h := http.Header{}
		h.Set("Content-Type", fixture.ContentType(f))
		rep := &fixture.Reply{Status: 200, Header: h, Body: body}
		if i == 0 {
			rep.URL = finalURL
		}
		rp.Replies[step] = rep
	}
	if len(params) == 0 || (params.Get("query") == "" && plan.ExampleParams().Get("query") != "" && len(files) > 0) {
		// With no parameters, use the endpoint's examples so a quick look at a page needs no typing.
		for k, v := range plan.ExampleParams() {
			if params.Get(k) == "" {
				params[k] = v
			}
		}
	}
	out := fixture.Execute(ctx, plan, params, rp)
	if out.Err != nil {
		writeError(stdout, stderr, out.Err)
		return 1
	}
	var buf bytes.Buffer
	_ = json.Indent(&buf, out.JSON, "", "  ")
	buf.WriteByte('\n')
	_, _ = stdout.Write(buf.Bytes())
	for _, w := range out.Res.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return 0
}

// extractUniversal runs the universal endpoint's extraction on one saved page: --param parse=
// (auto, json, html, text, markdown) and --param url= (or --url, the page's address, which links
// are resolved against). The Content-Type comes from the file's extension.
func extractUniversal(files []string, params url.Values, finalURL string, stdout, stderr io.Writer) int {
	if len(files) != 1 {
		fmt.Fprintf(stderr, "asa extract: %s takes one FILE, got %d\n", universal.Endpoint, len(files))
		return 2
	}
	for k := range params {
		if k != "parse" && k != "url" {
			fmt.Fprintf(stderr, "asa extract: %s takes --param parse= and --param url=, not %s\n", universal.Endpoint, k)
			return 2
		}
	}
	mode, err := universal.ParseMode(params.Get("parse"))
	if err != nil {
		writeError(stdout, stderr, errcode.As(err))
		return 1
	}
	pageURL := params.Get("url")
	if finalURL != "" {
		pageURL = finalURL
	}
	body, err := readFile(files[0])
	if err != nil {
		fmt.Fprintf(stderr, "asa extract: %v\n", err)
		return 1
	}
	res, err := universal.Extract(body, fixture.ContentType(files[0]), pageURL, mode)
	if err != nil {
		e := errcode.As(err)
		if e == nil {
			e = &errcode.Error{Code: errcode.InternalError, Message: err.Error()}
		}
		writeError(stdout, stderr, e)
		return 1
	}
	if params.Get("url") != "" {
		res.URL = params.Get("url")
	}
	res.Status = http.StatusOK
	out, err := res.MarshalJSON()
	if err != nil {
		fmt.Fprintf(stderr, "asa extract: %v\n", err)
		return 1
	}
	var buf bytes.Buffer
	_ = json.Indent(&buf, out, "", "  ")
	buf.WriteByte('\n')
	_, _ = stdout.Write(buf.Bytes())
	return 0
}

func readFile(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(name)
}

// writeError prints the error body a client would get, and its status on stderr.
func writeError(stdout, stderr io.Writer, e *errcode.Error) {
	body := map[string]any{"error": e.Code, "message": e.Message}
	if e.Detail != "" {
		body["detail"] = e.Detail
	}
	if len(e.Params) > 0 {
		body["params"] = e.Params
	}
	if e.Code == errcode.ProductNotFound {
		body["retryable"] = false
	}
	b, _ := json.MarshalIndent(body, "", "  ")
	fmt.Fprintf(stderr, "HTTP %d\n", e.Code.Status())
	fmt.Fprintf(stdout, "%s\n", b)
}
