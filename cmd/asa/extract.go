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
	"strconv"
	"strings"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/nearest"
	"asa/engine/universal"
)

// cmdExtract runs one endpoint on saved responses and prints exactly what a client would get.
func cmdExtract(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var id, dir, finalURL string
	dir = defaultSitedefs()
	params := url.Values{}
	var files []string
	profile, runs := false, 20
	everyStep := ""
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
		case a == "--all-steps" || strings.HasPrefix(a, "--all-steps="):
			v, ok := next()
			if !ok {
				return 2
			}
			everyStep = v
		case a == "--profile":
			profile = true
		case a == "--runs" || strings.HasPrefix(a, "--runs="):
			v, ok := next()
			if !ok {
				return 2
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > maxProfileRuns {
				fmt.Fprintf(stderr, "asa extract: --runs takes a number from 1 to %d, got %q\n", maxProfileRuns, v)
				return 2
			}
			runs = n
		case a == "-h" || a == "--help":
			fmt.Fprint(stdout, extractUsage)
			return 0
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(stderr, "asa extract: unknown flag %s\n\n%s", a, usage)
			return 2
		case id == "":
			id = a
		default:
			files = append(files, a)
		}
	}
	if id == "" || len(files) == 0 && everyStep == "" {
		fmt.Fprintf(stderr, "asa extract: want SITE.RESOURCE and at least one FILE (or --all-steps FILE)\n\n%s", usage)
		return 2
	}
	if id == universal.Endpoint {
		if everyStep != "" {
			fmt.Fprintf(stderr, "asa extract: --all-steps answers a sitedef's steps; %s takes one FILE\n", id)
			return 2
		}
		if profile {
			fmt.Fprintf(stderr, "asa extract: --profile times a sitedef's endpoint; %s has none (make eval-universal times it)\n", id)
			return 2
		}
		return extractUniversal(files, params, finalURL, stdout, stderr)
	}
	reg, _ := loadRegistry(dir, stderr)
	plan := reg.Plan(id)
	if plan == nil {
		if best := nearest.Name(id, reg.IDs()); best != "" {
			fmt.Fprintf(stderr, "asa extract: no endpoint %s; did you mean %s? (asa sitedef list shows them)\n", id, best)
		} else {
			fmt.Fprintf(stderr, "asa extract: no endpoint %s (asa sitedef list shows them)\n", id)
		}
		return 2
	}
	rp, pages, err := replies(plan, files, finalURL)
	if err == nil && everyStep != "" {
		rp.Fallback, err = replyFile(everyStep, finalURL)
	}
	if err != nil {
		fmt.Fprintf(stderr, "asa extract: %v\n", err)
		return 2
	}
	if pages > 1 && params.Get("pages") == "" && plan.Endpoint.Params.Get("pages") != nil {
		// As many pages as were given, unless --param pages says otherwise.
		params.Set("pages", strconv.Itoa(pages))
	}
	if len(params) == 0 || (params.Get("query") == "" && plan.ExampleParams().Get("query") != "" && (len(files) > 0 || everyStep != "")) {
		// With no parameters, use the endpoint's examples so a quick look at a page needs no typing.
		for k, v := range plan.ExampleParams() {
			if params.Get(k) == "" {
				params[k] = v
			}
		}
	}
	if profile {
		return profileExtract(ctx, plan, params, rp, runs, stdout, stderr)
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

const extractUsage = `asa extract SITE.RESOURCE FILE... [--param k=v ...] [--url URL] [--sitedefs DIR]
                   [--all-steps FILE] [--profile [--runs N]]

Runs one endpoint on saved responses and prints what a client would get (warnings on stderr).

  FILE          the response of the next step, in step order ("-" reads standard input)
  STEP=FILE     the response of step STEP, for endpoints whose steps run conditionally; given again
                for the same step, the response of its next page (page 2, 3, ...)
  STEP@N=FILE   the response of step STEP on page N of a paginated endpoint (as fixture cases key it)
  --param k=v   a request parameter (default: the endpoint's examples); with pages of a paginated
                endpoint given and no --param pages, pages is the number of pages given
  --url URL     the final URL of the first response (default: the URL the step requests)
  --all-steps FILE
                the response of every step given no FILE of its own, as a corpus expectation's
                page: answers them all (a channel page that youtube.channel's resolve and browse
                steps both read); the FILE arguments may then be left out
  --profile     instead of the JSON, where a run's time goes: the fastest extraction against the
                fastest parse-only of the HTML responses (as make bench measures its x-parse), then
                the mean time of each phase (decode, parse, sources, rules, fields, json) and of each
                field, most costly first, from runs under a trace
  --runs N      the runs of each kind --profile makes (default 20, at most 10000)

  asa extract reddit.subreddit page=p1.json page=p2.json --param query=pics
  asa extract reddit.subreddit page@1=p1.json page@2=p2.json --param query=pics --param pages=2
  asa extract amazon.search page.html --param query=katzenfutter --param domain=de --profile
`

// replies maps the FILE arguments to recorded responses keyed as the replayer wants them (step, or
// step@N for page N > 1) and returns the highest page given.
func replies(plan *engine.Plan, files []string, finalURL string) (*fixture.Replay, int, error) {
	steps := plan.StepIDs()
	rp := &fixture.Replay{Replies: map[string]*fixture.Reply{}}
	nextPage := map[string]int{} // the page a repeated STEP=FILE fills
	positional, maxPage := 0, 1
	for _, f := range files {
		step, page := "", 0
		if k, v, ok := strings.Cut(f, "="); ok {
			name, n, numbered := strings.Cut(k, "@")
			if plan.HasStep(name) {
				step, f = name, v
				if numbered {
					p, err := strconv.Atoi(n)
					if err != nil || p < 1 || p > engine.MaxPages {
						return nil, 0, fmt.Errorf("%s: the page after @ is a number from 1 to %d", k, engine.MaxPages)
					}
					page = p
				}
			}
		}
		if step == "" {
			if positional >= len(steps) {
				return nil, 0, fmt.Errorf("%s has %d steps (%s) but %d files were given in step order; name pages as STEP=FILE or STEP@N=FILE",
					plan.Endpoint.Resource, len(steps), strings.Join(steps, ", "), positional+1)
			}
			step = steps[positional]
			positional++
		}
		if page == 0 {
			page = nextPage[step] + 1
		}
		nextPage[step] = max(nextPage[step], page)
		key := step
		if page > 1 {
			key = fmt.Sprintf("%s@%d", step, page)
		}
		if rp.Replies[key] != nil {
			return nil, 0, fmt.Errorf("two files for step %s page %d", step, page)
		}
		url := ""
		if len(rp.Replies) == 0 {
			url = finalURL
		}
		rep, err := replyFile(f, url)
		if err != nil {
			return nil, 0, err
		}
		rp.Replies[key] = rep
		maxPage = max(maxPage, page)
	}
	return rp, maxPage, nil
}

// replyFile is the recorded response of file f, with status 200, the Content-Type its extension
// says and final URL url ("": the URL asked for).
func replyFile(f, url string) (*fixture.Reply, error) {
	body, err := readFile(f)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Content-Type", fixture.ContentType(f))
	return &fixture.Reply{Status: 200, Header: h, Body: body, URL: url}, nil
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
