package farm

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// control serves the control endpoint (plain HTTP, its own port):
//
//	/__farm/fault?kind=K&host=H&path=P&times=N&status=S&retry_after=S&delay=D&bps=N&location=U&size=N&body=B
//	/__farm/clear     remove every fault
//	/__farm/counts    the request counters as JSON {"host/path": n}; ?host=&path= for one sum {"count": n}
//	/__farm/reset     clear faults and counters
//	/__farm/ca.pem    the CA certificate
func (f *Farm) control(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch r.URL.Path {
	case "/__farm/fault":
		ft, err := faultFromQuery(q.Get)
		if err == nil {
			err = f.SetFault(ft)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		writeJSON(w, map[string]any{"ok": true})
	case "/__farm/clear":
		f.ClearFaults()
		writeJSON(w, map[string]any{"ok": true})
	case "/__farm/reset":
		f.ClearFaults()
		f.ResetCounts()
		writeJSON(w, map[string]any{"ok": true})
	case "/__farm/counts":
		if q.Has("host") || q.Has("path") {
			writeJSON(w, map[string]any{"count": f.Count(q.Get("host"), q.Get("path"))})
			return
		}
		writeJSON(w, f.Counts())
	case "/__farm/ca.pem":
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Write(f.CACertPEM())
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func faultFromQuery(get func(string) string) (Fault, error) {
	ft := Fault{Kind: Kind(get("kind")), Host: get("host"), Path: get("path"), Location: get("location"), Body: get("body")}
	ints := map[string]*int{"times": &ft.Times, "status": &ft.Status, "retry_after": &ft.RetryAfter, "bps": &ft.BytesPerSec}
	for k, p := range ints {
		if v := get(k); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return ft, fmt.Errorf("farm: %s=%q is not an integer", k, v)
			}
			*p = n
		}
	}
	if v := get("size"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return ft, fmt.Errorf("farm: size=%q is not an integer", v)
		}
		ft.Size = n
	}
	if v := get("delay"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return ft, fmt.Errorf("farm: delay=%q: %v", v, err)
		}
		ft.Delay = d
	}
	return ft, nil
}

// Main runs the farm as a command (`asa farm`) until ctx is done. Flags: --addr, --control-addr,
// --pages DIR, --ca-out FILE (the CA certificate, PEM), --hosts (comma-separated; default "*"),
// --latency.
func Main(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("farm", flag.ContinueOnError)
	fs.SetOutput(stdout)
	addr := fs.String("addr", "127.0.0.1:8443", "listen address (TLS with HTTP/2, and plain HTTP, on one port)")
	ctl := fs.String("control-addr", "127.0.0.1:8444", `control endpoint address (plain HTTP; "off" disables it)`)
	pages := fs.String("pages", "", "directory of pages served as DIR/<host>/<path>")
	caOut := fs.String("ca-out", "", "write the CA certificate (PEM) to this file")
	hosts := fs.String("hosts", "*", `host names to serve, comma-separated ("*": every name)`)
	latency := fs.Duration("latency", 0, "delay every answer by this much")
	verbose := fs.Bool("v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("farm: unexpected arguments %q", fs.Args())
	}
	opts := Options{Addr: *addr, ControlAddr: *ctl, Pages: *pages, Latency: *latency}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts.Hosts = append(opts.Hosts, h)
		}
	}
	if *verbose {
		opts.Logf = func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	}
	f, err := New(opts)
	if err != nil {
		return err
	}
	defer f.Close()
	if *caOut != "" {
		if err := os.WriteFile(*caOut, f.CACertPEM(), 0o644); err != nil {
			return fmt.Errorf("farm: --ca-out: %w", err)
		}
		fmt.Fprintf(stdout, "farm: CA certificate written to %s\n", *caOut)
	}
	fmt.Fprintf(stdout, "farm: serving https:// and http:// on %s\n", f.Addr())
	if u := f.ControlURL(); u != "" {
		fmt.Fprintf(stdout, "farm: control endpoint %s/__farm/fault?kind=status&status=500&host=www.amazon.com&times=2\n", u)
	}
	fmt.Fprintf(stdout, "farm: try  curl --cacert CA.pem --connect-to ::%s https://www.amazon.com/\n", f.Addr())
	<-ctx.Done()
	return nil
}
