package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"asa/store"
)

// serveConfig is the configuration of `asa serve`. Precedence: flags, then ASA_* environment
// variables, then the YAML file named by --config, then these defaults. docs/configuration.md lists
// every key.
type serveConfig struct {
	Addr                string        `yaml:"addr"`
	DB                  string        `yaml:"db"`
	Sitedefs            string        `yaml:"sitedefs"`
	Fixtures            string        `yaml:"fixtures"`
	PublicURL           string        `yaml:"public_url"`
	AllowPrivateNetwork bool          `yaml:"allow_private_network"`
	LogFormat           string        `yaml:"log_format"`
	LogLevel            string        `yaml:"log_level"`
	RequestTimeout      time.Duration `yaml:"request_timeout"`
	ShutdownTimeout     time.Duration `yaml:"shutdown_timeout"`
	// StoreTimeout bounds how long a request waits for a locked or failing database before it is
	// answered 503 service_unavailable.
	StoreTimeout time.Duration `yaml:"store_timeout"`
	Proxies      []proxyConfig `yaml:"proxies"`
	// FarmAddr and FarmCA point every target host at a target farm (asa farm) instead of the
	// internet: demos and end-to-end tests on a machine without network.
	FarmAddr string `yaml:"farm_addr"`
	FarmCA   string `yaml:"farm_ca"`
	// BatchConcurrency is the internal budget of batch items in flight (0: api.DefaultBatchConcurrency).
	BatchConcurrency int `yaml:"batch_concurrency"`
	// Workspaces are created, or brought to the plan given here, at every start (file only).
	Workspaces []workspaceConfig `yaml:"workspaces"`
	// MetricsAddr serves /metrics on its own listener (a private interface) instead of the API's;
	// MetricsToken makes /metrics require Authorization: Bearer TOKEN wherever it is served.
	MetricsAddr  string `yaml:"metrics_addr"`
	MetricsToken string `yaml:"metrics_token"`
	// Browser is the Chromium binary that turns on render_js and screenshot ("": off, 501);
	// BrowserContexts bounds the pages rendered at once, BrowserTimeout one render.
	Browser         string        `yaml:"browser"`
	BrowserContexts int           `yaml:"browser_contexts"`
	BrowserTimeout  time.Duration `yaml:"browser_timeout"`
}

type proxyConfig struct {
	URL     string `yaml:"url"`
	Country string `yaml:"country"`
}

func defaultServeConfig() serveConfig {
	return serveConfig{
		Addr:            "127.0.0.1:8080",
		DB:              "data/asa.db",
		LogFormat:       "text",
		LogLevel:        "info",
		RequestTimeout:  90 * time.Second,
		ShutdownTimeout: 30 * time.Second,
		StoreTimeout:    store.DefaultTimeout,
	}
}

// configEnv maps environment variables to the keys they set.
var configEnv = []struct{ env, key string }{
	{"ASA_ADDR", "addr"}, {"ASA_DB", "db"}, {"ASA_SITEDEFS", "sitedefs"}, {"ASA_FIXTURES", "fixtures"}, {"ASA_PUBLIC_URL", "public_url"},
	{"ASA_ALLOW_PRIVATE_NETWORK", "allow_private_network"}, {"ASA_LOG_FORMAT", "log_format"},
	{"ASA_LOG_LEVEL", "log_level"}, {"ASA_REQUEST_TIMEOUT", "request_timeout"}, {"ASA_SHUTDOWN_TIMEOUT", "shutdown_timeout"},
	{"ASA_STORE_TIMEOUT", "store_timeout"},
	{"ASA_FARM", "farm_addr"}, {"ASA_FARM_CA", "farm_ca"}, {"ASA_BATCH_CONCURRENCY", "batch_concurrency"},
	{"ASA_METRICS_ADDR", "metrics_addr"}, {"ASA_METRICS_TOKEN", "metrics_token"},
	{"ASA_BROWSER", "browser"}, {"ASA_BROWSER_CONTEXTS", "browser_contexts"}, {"ASA_BROWSER_TIMEOUT", "browser_timeout"},
}

// loadServeConfig resolves the configuration from args, the environment and the file.
func loadServeConfig(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	cfg := defaultServeConfig()
	fl := flag.NewFlagSet("asa serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	file := fl.String("config", getenv("ASA_CONFIG"), "YAML configuration file (env ASA_CONFIG)")
	addr := fl.String("addr", "", "listen address HOST:PORT (env ASA_ADDR; default "+cfg.Addr+")")
	db := fl.String("db", "", "SQLite database file (env ASA_DB; default "+cfg.DB+")")
	sd := fl.String("sitedefs", "", "sitedefs directory replacing the embedded set (env ASA_SITEDEFS)")
	fx := fl.String("fixtures", "", "fixtures directory the sandbox answers from (env ASA_FIXTURES; default: the fixtures/ beside --sitedefs, else the embedded set)")
	pub := fl.String("public-url", "", "base URL clients use, for docs links (env ASA_PUBLIC_URL; default http://ADDR)")
	priv := fl.Bool("allow-private-network", false, "let fetches reach private and loopback addresses: tests and local development only (env ASA_ALLOW_PRIVATE_NETWORK)")
	logFormat := fl.String("log-format", "", "text or json (env ASA_LOG_FORMAT; default text)")
	logLevel := fl.String("log-level", "", "debug, info, warn or error (env ASA_LOG_LEVEL; default info)")
	reqTimeout := fl.Duration("request-timeout", 0, "deadline of one synchronous request (env ASA_REQUEST_TIMEOUT; default 90s)")
	storeTimeout := fl.Duration("store-timeout", 0, "longest wait for a locked or failing database before 503 service_unavailable (env ASA_STORE_TIMEOUT; default 3s)")
	farmAddr := fl.String("farm", "", "send every target request to this target farm IP:PORT instead of the internet (env ASA_FARM)")
	farmCA := fl.String("farm-ca", "", "PEM file of the farm's test CA, written by asa farm --ca-out (env ASA_FARM_CA)")
	batchConc := fl.Int("batch-concurrency", 0, "batch items in flight on this node, apart from every key's limits (env ASA_BATCH_CONCURRENCY; default 64)")
	metricsAddr := fl.String("metrics-addr", "", "serve /metrics on this HOST:PORT instead of the API's address (env ASA_METRICS_ADDR)")
	metricsToken := fl.String("metrics-token", "", "require Authorization: Bearer TOKEN on /metrics (env ASA_METRICS_TOKEN, which keeps it out of ps)")
	browserPath := fl.String("browser", "", "Chromium binary (Debian: /usr/bin/chromium) that turns on render_js and screenshot (env ASA_BROWSER; default off: they answer 501)")
	browserContexts := fl.Int("browser-contexts", 0, "pages rendered at once; more wait for a free one (env ASA_BROWSER_CONTEXTS; default 8)")
	browserTimeout := fl.Duration("browser-timeout", 0, "deadline of one rendered page, within the request's (env ASA_BROWSER_TIMEOUT; default 30s)")
	if err := fl.Parse(args); err != nil {
		return cfg, err
	}
	if fl.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fl.Arg(0))
	}
	if *file != "" {
		data, err := os.ReadFile(*file)
		if err != nil {
			return cfg, fmt.Errorf("reading config: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && err != io.EOF {
			return cfg, fmt.Errorf("config %s: %w", *file, err)
		}
	}
	for _, e := range configEnv {
		if v := getenv(e.env); v != "" {
			if err := setKey(&cfg, e.key, v); err != nil {
				return cfg, fmt.Errorf("%s: %w", e.env, err)
			}
		}
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *addr != "" {
		cfg.Addr = *addr
	}
	if *db != "" {
		cfg.DB = *db
	}
	if *sd != "" {
		cfg.Sitedefs = *sd
	}
	if *fx != "" {
		cfg.Fixtures = *fx
	}
	if *pub != "" {
		cfg.PublicURL = *pub
	}
	if set["allow-private-network"] {
		cfg.AllowPrivateNetwork = *priv
	}
	if *logFormat != "" {
		cfg.LogFormat = *logFormat
	}
	if *logLevel != "" {
		cfg.LogLevel = *logLevel
	}
	if *reqTimeout != 0 {
		cfg.RequestTimeout = *reqTimeout
	}
	if *storeTimeout != 0 {
		cfg.StoreTimeout = *storeTimeout
	}
	if cfg.StoreTimeout <= 0 {
		return cfg, fmt.Errorf("store timeout %v: want a positive duration", cfg.StoreTimeout)
	}
	if *farmAddr != "" {
		cfg.FarmAddr = *farmAddr
	}
	if *farmCA != "" {
		cfg.FarmCA = *farmCA
	}
	if *batchConc != 0 {
		cfg.BatchConcurrency = *batchConc
	}
	if *metricsAddr != "" {
		cfg.MetricsAddr = *metricsAddr
	}
	if *metricsToken != "" {
		cfg.MetricsToken = *metricsToken
	}
	if *browserPath != "" {
		cfg.Browser = *browserPath
	}
	if *browserContexts != 0 {
		cfg.BrowserContexts = *browserContexts
	}
	if *browserTimeout != 0 {
		cfg.BrowserTimeout = *browserTimeout
	}
	if cfg.BrowserContexts < 0 || cfg.BrowserTimeout < 0 {
		return cfg, fmt.Errorf("browser contexts %d and timeout %v: want positive values", cfg.BrowserContexts, cfg.BrowserTimeout)
	}
	if cfg.BatchConcurrency < 0 {
		return cfg, fmt.Errorf("batch concurrency %d: want a positive number", cfg.BatchConcurrency)
	}
	if (cfg.FarmAddr == "") != (cfg.FarmCA == "") {
		return cfg, fmt.Errorf("--farm and --farm-ca go together")
	}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "http://" + cfg.Addr
	}
	switch cfg.LogFormat {
	case "text", "json":
	default:
		return cfg, fmt.Errorf("log format %q: text or json", cfg.LogFormat)
	}
	if err := checkWorkspaces(cfg.Workspaces); err != nil {
		return cfg, err
	}
	for i, p := range cfg.Proxies {
		if p.URL == "" || len(p.Country) != 2 {
			return cfg, fmt.Errorf("proxies[%d]: needs url and a two-letter country", i)
		}
	}
	return cfg, nil
}

func setKey(cfg *serveConfig, key, v string) error {
	switch key {
	case "addr":
		cfg.Addr = v
	case "db":
		cfg.DB = v
	case "sitedefs":
		cfg.Sitedefs = v
	case "fixtures":
		cfg.Fixtures = v
	case "public_url":
		cfg.PublicURL = v
	case "log_format":
		cfg.LogFormat = v
	case "log_level":
		cfg.LogLevel = v
	case "farm_addr":
		cfg.FarmAddr = v
	case "farm_ca":
		cfg.FarmCA = v
	case "metrics_addr":
		cfg.MetricsAddr = v
	case "metrics_token":
		cfg.MetricsToken = v
	case "browser":
		cfg.Browser = v
	case "browser_contexts":
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		cfg.BrowserContexts = n
	case "browser_timeout":
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		cfg.BrowserTimeout = d
	case "batch_concurrency":
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		cfg.BatchConcurrency = n
	case "allow_private_network":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return err
		}
		cfg.AllowPrivateNetwork = b
	case "request_timeout", "shutdown_timeout", "store_timeout":
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		switch key {
		case "request_timeout":
			cfg.RequestTimeout = d
		case "shutdown_timeout":
			cfg.ShutdownTimeout = d
		default:
			cfg.StoreTimeout = d
		}
	default:
		return fmt.Errorf("unknown key %s", strings.ToLower(key))
	}
	return nil
}
