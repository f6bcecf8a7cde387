package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"asa/api"
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
	// MemoryLimit is the Go runtime's soft memory limit: "auto" (the container's limit, less a
	// tenth), "off", or a size such as 256MiB. GOMEMLIMIT in the environment wins.
	MemoryLimit string `yaml:"memory_limit"`
	// CacheMaxBytes bounds the response cache of max_age (0: api.DefaultCacheMaxTotal).
	CacheMaxBytes int64 `yaml:"cache_max_bytes"`
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
	// BatchLease is how long a claimed batch item or webhook stays leased without renewal (0: the
	// worker's default, 60s). On PostgreSQL it is how long a dead node's items wait before another
	// node takes them over.
	BatchLease time.Duration `yaml:"batch_lease"`
	// DBPoolSize is, on PostgreSQL, the connections per pool (two pools a node; 0: store.DefaultPoolSize).
	DBPoolSize int `yaml:"db_pool_size"`
	// Workspaces are created, or brought to the plan given here, at every start (file only).
	Workspaces []workspaceConfig `yaml:"workspaces"`
	// MetricsAddr serves /metrics on its own listener (a private interface) instead of the API's;
	// MetricsToken makes /metrics require Authorization: Bearer TOKEN wherever it is served.
	MetricsAddr  string `yaml:"metrics_addr"`
	MetricsToken string `yaml:"metrics_token"`
	// Redis (a redis:// URL) shares every key's rate limits between the nodes of a deployment;
	// RedisFail is what admissions do while it is unreachable: "closed" (503) or "open" (each
	// node alone). docs/operations.md, "Many nodes".
	Redis     string `yaml:"redis"`
	RedisFail string `yaml:"redis_fail"`
	// AuthCacheTTL keeps authenticated keys in memory this long (0: every request looks its key
	// up). Unset (negative), it is DefaultAuthCacheTTL with Redis, which tells every node of a
	// revocation at once, and 0 without.
	AuthCacheTTL time.Duration `yaml:"auth_cache_ttl"`
	// Browser is the Chromium binary that turns on render_js and screenshot ("": off, 501);
	// BrowserContexts bounds the pages rendered at once, BrowserTimeout one render.
	Browser         string        `yaml:"browser"`
	BrowserContexts int           `yaml:"browser_contexts"`
	BrowserTimeout  time.Duration `yaml:"browser_timeout"`
	// The dashboard's security settings (docs/dashboard.md, Security). SecureCookies nil (unset):
	// Secure exactly when PublicURL is https. The others always hold a value, the defaults being
	// api.DashboardConfig's.
	SecureCookies  *bool         `yaml:"secure_cookies"`
	SessionTTL     time.Duration `yaml:"session_ttl"`
	SignInPerEmail int           `yaml:"sign_in_per_email"`
	SignInPerIP    int           `yaml:"sign_in_per_ip"`
	SignInWindow   time.Duration `yaml:"sign_in_window"`
	SignUpPerIP    int           `yaml:"sign_up_per_ip"`
	SignUpWindow   time.Duration `yaml:"sign_up_window"`
}

// Lower bounds of the dashboard's durations: a sign-in shorter than a minute cannot be used, and a
// limit's window is counted in seconds (Retry-After).
const (
	minSessionTTL  = time.Minute
	minLimitWindow = time.Second
)

// DefaultAuthCacheTTL is the auth cache's lifetime with --redis: the bound on how long a revocation
// whose pub/sub message was lost, a plan change or another node's charges go unseen.
const DefaultAuthCacheTTL = 5 * time.Second

// maxAuthCacheTTL keeps the documented promise: a revoked key is refused on every node within 10 s.
const maxAuthCacheTTL = 10 * time.Second

type proxyConfig struct {
	URL     string `yaml:"url"`
	Country string `yaml:"country"`
}

func defaultServeConfig() serveConfig {
	dash := api.DashboardConfig{}.WithDefaults()
	return serveConfig{
		SessionTTL:      dash.SessionTTL,
		SignInPerEmail:  dash.SignInPerEmail,
		SignInPerIP:     dash.SignInPerIP,
		SignInWindow:    dash.SignInWindow,
		SignUpPerIP:     dash.SignUpPerIP,
		SignUpWindow:    dash.SignUpWindow,
		Addr:            "127.0.0.1:8080",
		DB:              "data/asa.db",
		LogFormat:       "text",
		LogLevel:        "info",
		RequestTimeout:  90 * time.Second,
		ShutdownTimeout: 30 * time.Second,
		StoreTimeout:    store.DefaultTimeout,
		RedisFail:       "closed",
		AuthCacheTTL:    -1,
		MemoryLimit:     memoryLimitAuto,
	}
}

// configEnv maps environment variables to the keys they set.
var configEnv = []struct{ env, key string }{
	{"ASA_ADDR", "addr"}, {"ASA_DB", "db"}, {"ASA_SITEDEFS", "sitedefs"}, {"ASA_FIXTURES", "fixtures"}, {"ASA_PUBLIC_URL", "public_url"},
	{"ASA_ALLOW_PRIVATE_NETWORK", "allow_private_network"}, {"ASA_LOG_FORMAT", "log_format"},
	{"ASA_LOG_LEVEL", "log_level"}, {"ASA_REQUEST_TIMEOUT", "request_timeout"}, {"ASA_SHUTDOWN_TIMEOUT", "shutdown_timeout"},
	{"ASA_STORE_TIMEOUT", "store_timeout"},
	{"ASA_CACHE_MAX_BYTES", "cache_max_bytes"}, {"ASA_MEMORY_LIMIT", "memory_limit"},
	{"ASA_FARM", "farm_addr"}, {"ASA_FARM_CA", "farm_ca"}, {"ASA_BATCH_CONCURRENCY", "batch_concurrency"},
	{"ASA_BATCH_LEASE", "batch_lease"}, {"ASA_DB_POOL_SIZE", "db_pool_size"},
	{"ASA_METRICS_ADDR", "metrics_addr"}, {"ASA_METRICS_TOKEN", "metrics_token"},
	{"ASA_REDIS", "redis"}, {"ASA_REDIS_FAIL", "redis_fail"}, {"ASA_AUTH_CACHE_TTL", "auth_cache_ttl"},
	{"ASA_BROWSER", "browser"}, {"ASA_BROWSER_CONTEXTS", "browser_contexts"}, {"ASA_BROWSER_TIMEOUT", "browser_timeout"},
	{"ASA_SECURE_COOKIES", "secure_cookies"}, {"ASA_SESSION_TTL", "session_ttl"},
	{"ASA_SIGN_IN_PER_EMAIL", "sign_in_per_email"}, {"ASA_SIGN_IN_PER_IP", "sign_in_per_ip"}, {"ASA_SIGN_IN_WINDOW", "sign_in_window"},
	{"ASA_SIGN_UP_PER_IP", "sign_up_per_ip"}, {"ASA_SIGN_UP_WINDOW", "sign_up_window"},
}

// loadServeConfig resolves the configuration from args, the environment and the file.
func loadServeConfig(args []string, getenv func(string) string, stderr io.Writer) (serveConfig, error) {
	cfg := defaultServeConfig()
	fl := flag.NewFlagSet("asa serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	file := fl.String("config", getenv("ASA_CONFIG"), "YAML configuration file (env ASA_CONFIG)")
	addr := fl.String("addr", "", "listen address HOST:PORT (env ASA_ADDR; default "+cfg.Addr+")")
	db := fl.String("db", "", "SQLite database file, or a postgres:// URL for PostgreSQL (env ASA_DB; default "+cfg.DB+")")
	sd := fl.String("sitedefs", "", "sitedefs directory replacing the embedded set (env ASA_SITEDEFS)")
	fx := fl.String("fixtures", "", "fixtures directory the sandbox answers from (env ASA_FIXTURES; default: the fixtures/ beside --sitedefs, else the embedded set)")
	pub := fl.String("public-url", "", "base URL clients use, for docs links (env ASA_PUBLIC_URL; default http://ADDR)")
	priv := fl.Bool("allow-private-network", false, "let fetches reach private and loopback addresses: tests and local development only (env ASA_ALLOW_PRIVATE_NETWORK)")
	logFormat := fl.String("log-format", "", "text or json (env ASA_LOG_FORMAT; default text)")
	logLevel := fl.String("log-level", "", "debug, info, warn or error (env ASA_LOG_LEVEL; default info)")
	reqTimeout := fl.Duration("request-timeout", 0, "deadline of one synchronous request (env ASA_REQUEST_TIMEOUT; default 90s)")
	memLimit := fl.String("memory-limit", "", "the Go runtime's soft memory limit: auto (the container's limit less a tenth), off, or a size such as 256MiB (env ASA_MEMORY_LIMIT; default auto; GOMEMLIMIT wins)")
	storeTimeout := fl.Duration("store-timeout", 0, "longest wait for a locked or failing database before 503 service_unavailable (env ASA_STORE_TIMEOUT; default 3s)")
	farmAddr := fl.String("farm", "", "send every target request to this target farm IP:PORT instead of the internet (env ASA_FARM)")
	farmCA := fl.String("farm-ca", "", "PEM file of the farm's test CA, written by asa farm --ca-out (env ASA_FARM_CA)")
	batchConc := fl.Int("batch-concurrency", 0, "batch items in flight on this node, apart from every key's limits (env ASA_BATCH_CONCURRENCY; default 64)")
	batchLease := fl.Duration("batch-lease", 0, "how long a claimed batch item stays leased without renewal; on PostgreSQL, how soon a dead node's items are taken over (env ASA_BATCH_LEASE; default 60s)")
	dbPool := fl.Int("db-pool-size", 0, "PostgreSQL connections per pool, two pools a node (env ASA_DB_POOL_SIZE; default 10)")
	metricsAddr := fl.String("metrics-addr", "", "serve /metrics on this HOST:PORT instead of the API's address (env ASA_METRICS_ADDR)")
	metricsToken := fl.String("metrics-token", "", "require Authorization: Bearer TOKEN on /metrics (env ASA_METRICS_TOKEN, which keeps it out of ps)")
	redisURL := fl.String("redis", "", "redis://HOST:PORT/DB shared by every node for the per-key rate limits (env ASA_REDIS; default: this node's memory)")
	redisFail := fl.String("redis-fail", "", "while Redis is unreachable: closed (503 service_unavailable) or open (each node enforces the limits alone) (env ASA_REDIS_FAIL; default closed)")
	authTTL := fl.Duration("auth-cache-ttl", 0, "keep authenticated keys in memory this long, at most 10s; 0 looks every request's key up (env ASA_AUTH_CACHE_TTL; default 5s with --redis, else 0)")
	browserPath := fl.String("browser", "", "Chromium binary (Debian: /usr/bin/chromium) that turns on render_js and screenshot (env ASA_BROWSER; default off: they answer 501)")
	browserContexts := fl.Int("browser-contexts", 0, "pages rendered at once; more wait for a free one (env ASA_BROWSER_CONTEXTS; default 8)")
	browserTimeout := fl.Duration("browser-timeout", 0, "deadline of one rendered page, within the request's (env ASA_BROWSER_TIMEOUT; default 30s)")
	secureCookies := fl.Bool("secure-cookies", false, "mark the dashboard's cookies Secure and name them __Host-...; --secure-cookies=false keeps them off behind an https --public-url (env ASA_SECURE_COOKIES; default: exactly when --public-url is https)")
	sessionTTL := fl.Duration("session-ttl", 0, "how long a dashboard sign-in lasts, at least 1m (env ASA_SESSION_TTL; default 168h)")
	signInPerEmail := fl.Int("sign-in-per-email", 0, "failed dashboard sign-ins per email and client address in --sign-in-window before 429 (env ASA_SIGN_IN_PER_EMAIL; default 5)")
	signInPerIP := fl.Int("sign-in-per-ip", 0, "dashboard sign-in attempts per client address in --sign-in-window before 429 (env ASA_SIGN_IN_PER_IP; default 20)")
	signInWindow := fl.Duration("sign-in-window", 0, "the window of the sign-in limits (env ASA_SIGN_IN_WINDOW; default 15m)")
	signUpPerIP := fl.Int("sign-up-per-ip", 0, "dashboard sign-ups per client address in --sign-up-window before 429 (env ASA_SIGN_UP_PER_IP; default 10)")
	signUpWindow := fl.Duration("sign-up-window", 0, "the window of the sign-up limit (env ASA_SIGN_UP_WINDOW; default 1h)")
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
			return cfg, fmt.Errorf("config %s: %w", *file, namingKeys(err, data))
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
	if *memLimit != "" {
		cfg.MemoryLimit = *memLimit
	}
	if _, _, err := parseMemoryLimit(cfg.MemoryLimit); err != nil {
		return cfg, err
	}
	if cfg.StoreTimeout <= 0 {
		return cfg, fmt.Errorf("store timeout %v: want a positive duration", cfg.StoreTimeout)
	}
	if cfg.CacheMaxBytes < 0 {
		return cfg, fmt.Errorf("cache max bytes %d: want a positive number", cfg.CacheMaxBytes)
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
	if *batchLease != 0 {
		cfg.BatchLease = *batchLease
	}
	if *dbPool != 0 {
		cfg.DBPoolSize = *dbPool
	}
	if cfg.BatchLease < 0 || (cfg.BatchLease > 0 && cfg.BatchLease < 300*time.Millisecond) {
		return cfg, fmt.Errorf("batch lease %v: want 300ms or more (leases are renewed every third of it)", cfg.BatchLease)
	}
	if cfg.DBPoolSize < 0 {
		return cfg, fmt.Errorf("db pool size %d: want a positive number", cfg.DBPoolSize)
	}
	if *metricsAddr != "" {
		cfg.MetricsAddr = *metricsAddr
	}
	if *metricsToken != "" {
		cfg.MetricsToken = *metricsToken
	}
	if *redisURL != "" {
		cfg.Redis = *redisURL
	}
	if *redisFail != "" {
		cfg.RedisFail = *redisFail
	}
	if set["auth-cache-ttl"] {
		cfg.AuthCacheTTL = *authTTL
	}
	if cfg.AuthCacheTTL < 0 {
		cfg.AuthCacheTTL = 0
		if cfg.Redis != "" {
			cfg.AuthCacheTTL = DefaultAuthCacheTTL
		}
	}
	if cfg.AuthCacheTTL > maxAuthCacheTTL {
		return cfg, fmt.Errorf("auth cache ttl %v: at most %v (a revoked key must be refused everywhere within 10 s)", cfg.AuthCacheTTL, maxAuthCacheTTL)
	}
	switch cfg.RedisFail {
	case "open", "closed":
	default:
		return cfg, fmt.Errorf("redis fail %q: open or closed", cfg.RedisFail)
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
	if set["secure-cookies"] {
		cfg.SecureCookies = secureCookies
	}
	for _, f := range []struct {
		flag string
		v    *time.Duration
		to   *time.Duration
	}{
		{"session-ttl", sessionTTL, &cfg.SessionTTL}, {"sign-in-window", signInWindow, &cfg.SignInWindow}, {"sign-up-window", signUpWindow, &cfg.SignUpWindow},
	} {
		if set[f.flag] {
			*f.to = *f.v
		}
	}
	for _, f := range []struct {
		flag string
		v    *int
		to   *int
	}{
		{"sign-in-per-email", signInPerEmail, &cfg.SignInPerEmail}, {"sign-in-per-ip", signInPerIP, &cfg.SignInPerIP}, {"sign-up-per-ip", signUpPerIP, &cfg.SignUpPerIP},
	} {
		if set[f.flag] {
			*f.to = *f.v
		}
	}
	if err := checkDashboard(cfg); err != nil {
		return cfg, err
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

// checkDashboard refuses dashboard settings that would turn a protection off or make the dashboard
// unusable, naming the setting. The api package reads a zero as "the default"; here every value
// is explicit, so a zero is a mistake.
func checkDashboard(cfg serveConfig) error {
	for _, c := range []struct {
		key string
		n   int
	}{{"sign_in_per_email", cfg.SignInPerEmail}, {"sign_in_per_ip", cfg.SignInPerIP}, {"sign_up_per_ip", cfg.SignUpPerIP}} {
		if c.n < 1 {
			return fmt.Errorf("%s %d: want 1 or more", c.key, c.n)
		}
	}
	for _, c := range []struct {
		key    string
		d, min time.Duration
	}{{"session_ttl", cfg.SessionTTL, minSessionTTL}, {"sign_in_window", cfg.SignInWindow, minLimitWindow}, {"sign_up_window", cfg.SignUpWindow, minLimitWindow}} {
		if c.d < c.min {
			return fmt.Errorf("%s %v: want %v or more", c.key, c.d, c.min)
		}
	}
	return nil
}

// namingKeys adds to each of a YAML type error's lines ("line 3: cannot unmarshal !!str `soon`
// into time.Duration") the top-level key written on that line of data, so the message names the
// setting.
func namingKeys(err error, data []byte) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	lines := strings.Split(string(data), "\n")
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = m
		var n int
		if _, serr := fmt.Sscanf(m, "line %d:", &n); serr != nil || n < 1 || n > len(lines) {
			continue
		}
		if k := topLevelKey.FindStringSubmatch(lines[n-1]); k != nil {
			msgs[i] = strings.Replace(m, ":", " ("+k[1]+"):", 1)
		}
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

var topLevelKey = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s*:`)

func setKey(cfg *serveConfig, key, v string) error {
	switch key {
	case "secure_cookies":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return err
		}
		cfg.SecureCookies = &b
	case "session_ttl", "sign_in_window", "sign_up_window":
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		switch key {
		case "session_ttl":
			cfg.SessionTTL = d
		case "sign_in_window":
			cfg.SignInWindow = d
		default:
			cfg.SignUpWindow = d
		}
	case "sign_in_per_email", "sign_in_per_ip", "sign_up_per_ip":
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		switch key {
		case "sign_in_per_email":
			cfg.SignInPerEmail = n
		case "sign_in_per_ip":
			cfg.SignInPerIP = n
		default:
			cfg.SignUpPerIP = n
		}
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
	case "cache_max_bytes":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return err
		}
		cfg.CacheMaxBytes = n
	case "memory_limit":
		cfg.MemoryLimit = v
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
	case "redis":
		cfg.Redis = v
	case "redis_fail":
		cfg.RedisFail = v
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
	case "batch_concurrency", "db_pool_size":
		n, err := strconv.Atoi(v)
		if err != nil {
			return err
		}
		if key == "db_pool_size" {
			cfg.DBPoolSize = n
		} else {
			cfg.BatchConcurrency = n
		}
	case "allow_private_network":
		b, err := strconv.ParseBool(v)
		if err != nil {
			return err
		}
		cfg.AllowPrivateNetwork = b
	case "auth_cache_ttl":
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		cfg.AuthCacheTTL = d
	case "request_timeout", "shutdown_timeout", "store_timeout", "batch_lease":
		d, err := time.ParseDuration(v)
		if err != nil {
			return err
		}
		switch key {
		case "request_timeout":
			cfg.RequestTimeout = d
		case "shutdown_timeout":
			cfg.ShutdownTimeout = d
		case "batch_lease":
			cfg.BatchLease = d
		default:
			cfg.StoreTimeout = d
		}
	default:
		return fmt.Errorf("unknown key %s", strings.ToLower(key))
	}
	return nil
}
