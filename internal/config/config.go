// Package config owns providerd's startup configuration: which flags exist, their
// PROVIDERD_<NAME> environment fallbacks, their defaults, and the checks that turn a bad value
// into one clear error before anything starts. A flag wins over the environment, the environment
// over the default, so an operator can set a deployment's values in the environment and still
// override one on the command line.
//
// The --store value has its own flag here (StoreFlag) because providerctl takes the same flag and
// must read it exactly as the server does; storeopen parses the value.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"providerdir/internal/storeopen"
)

// Defaults of the options that have one.
const (
	DefaultAddr            = "127.0.0.1:8080"
	DefaultStore           = "embedded:./data/db"
	DefaultReference       = "" // the reference files built into the binary (source/reference)
	DefaultLogFormat       = "json"
	DefaultLogLevel        = "info"
	DefaultShutdownTimeout = 15 * time.Second
	DefaultDrainDelay      = 0 * time.Second
	DefaultRollbackWindow  = 15 * time.Minute
	DefaultLLMTimeout      = 5 * time.Second
	// DefaultWebhookConcurrency is webhook.DefaultConcurrency (config imports no surface).
	DefaultWebhookConcurrency = 32
)

// EnvPrefix is the prefix of every environment fallback: --base-url reads PROVIDERD_BASE_URL.
const EnvPrefix = "PROVIDERD_"

// EnvName returns the environment variable that backs a flag name.
func EnvName(flagName string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// Config is providerd's validated configuration.
type Config struct {
	// Addr is the host:port the server listens on.
	Addr string
	// Store selects and locates the store backend.
	Store storeopen.Spec
	// Reference is a directory of newer public reference files (Census, NUCC, ...) laid out as
	// source/reference; "" means the files built into the binary.
	Reference string
	// BaseURL is the public base URL absolute links are built from, without a trailing slash.
	// Links never come from the Host header, which a client controls.
	BaseURL string
	// LogFormat is "json" or "text".
	LogFormat string
	// LogLevel is the least severe level logged.
	LogLevel slog.Level
	// MetricsAddr is the host:port of the admin listener that serves /metrics; "" serves no
	// metrics. The public listener never serves them.
	MetricsAddr string
	// RollbackWindow is how long the snapshot served before the last switch is kept after it,
	// for `providerctl rollback` and for FHIR searches paging across the switch; then its
	// generations are dropped and their disk freed.
	RollbackWindow time.Duration
	// DrainDelay is how long the server goes on serving after SIGINT/SIGTERM while /readyz
	// answers 503, so a load balancer stops sending before new requests are refused.
	DrainDelay time.Duration
	// ShutdownTimeout bounds how long in-flight requests may take to finish once new ones are
	// refused on SIGINT/SIGTERM.
	ShutdownTimeout time.Duration
	// TrustedProxies are the networks whose X-Forwarded-For a client address may be taken from,
	// and whose X-Forwarded-Proto says whether the client used HTTPS. Empty means no proxy is
	// trusted and the connection's peer is the client.
	TrustedProxies []netip.Prefix
	// FHIRPublicRead lets FHIR reads and searches through without a token, as public provider
	// directories (Plan-Net) often are. Off by default: SMART Backend Services guards /fhir.
	FHIRPublicRead bool
	// CORSOrigins are the origins (scheme://host[:port]) whose browser pages may call the FHIR,
	// supply and resolver APIs; "*" allows any. Empty sends no CORS headers.
	CORSOrigins []string
	// WebhookAllowLoopback lets webhook URLs name loopback addresses over http, for a receiver on
	// the same machine during development. Off by default: only public https endpoints.
	WebhookAllowLoopback bool
	// WebhookConcurrency is how many webhook deliveries this process sends at once.
	WebhookConcurrency int
	// LLMURL is the base URL of an OpenAI-compatible chat completions API (llama.cpp server,
	// Ollama, vLLM: "http://127.0.0.1:11434/v1") the evidence query may phrase answers with; ""
	// answers from the templates alone.
	LLMURL string
	// LLMModel is the model name sent to that API.
	LLMModel string
	// LLMTimeout bounds one completion; past it the template answer is served.
	LLMTimeout time.Duration
	// LLMAPIKey is the bearer key of that API, read from the environment only
	// (PROVIDERD_LLM_API_KEY), never from a flag, and never logged.
	LLMAPIKey string
}

// EnvLLMAPIKey is the environment variable holding the language model API's key.
const EnvLLMAPIKey = EnvPrefix + "LLM_API_KEY"

// option describes one flag: its name, default, help text, and how to check and apply a value.
// Values go through apply whether they came from a flag, the environment or the default, so
// every path is checked the same way.
type option struct {
	name  string
	def   string
	usage string
	apply func(c *Config, v string) error
}

func options() []option {
	return []option{
		{"addr", DefaultAddr, "host:port to listen on", func(c *Config, v string) error {
			if err := checkAddr(v); err != nil {
				return err
			}
			c.Addr = v
			return nil
		}},
		{"store", DefaultStore, "store backend: embedded:DIR, mongodb://... or mongodb+srv://...", func(c *Config, v string) (err error) {
			c.Store, err = storeopen.Parse(v)
			return err
		}},
		{"reference", DefaultReference, referenceUsage, func(c *Config, v string) error {
			if v != "" && strings.TrimSpace(v) == "" {
				return errors.New("is blank: give a directory, or nothing for the built-in files")
			}
			c.Reference = v
			return nil
		}},
		{"base-url", "", "public base URL for absolute links", func(c *Config, v string) (err error) {
			c.BaseURL, err = parseBaseURL(v)
			return err
		}},
		{"log-format", DefaultLogFormat, "log format: json or text", func(c *Config, v string) error {
			if v != "json" && v != "text" {
				return fmt.Errorf("%q is neither json nor text", v)
			}
			c.LogFormat = v
			return nil
		}},
		{"log-level", DefaultLogLevel, "least severe level logged: debug, info, warn or error", func(c *Config, v string) error {
			if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
				return fmt.Errorf("%q is not one of debug, info, warn, error", v)
			}
			return nil
		}},
		{"metrics-addr", "", "host:port of the admin listener that serves /metrics (empty: metrics are not served)", func(c *Config, v string) error {
			if v == "" {
				return nil
			}
			if err := checkAddr(v); err != nil {
				return err
			}
			c.MetricsAddr = v
			return nil
		}},
		{"drain-delay", DefaultDrainDelay.String(), "how long to go on serving after SIGTERM while /readyz answers 503, before refusing new requests", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("%q is not a duration such as 10s", v)
			}
			c.DrainDelay = d
			return nil
		}},
		{"shutdown-timeout", DefaultShutdownTimeout.String(), "how long in-flight requests may take to finish on shutdown once new ones are refused", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 15s", v)
			}
			c.ShutdownTimeout = d
			return nil
		}},
		{"rollback-window", DefaultRollbackWindow.String(), "how long the previous snapshot is kept after a switch (for rollback and paging) before its disk is reclaimed", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("%q is not a duration such as 15m", v)
			}
			c.RollbackWindow = d
			return nil
		}},
		{"fhir-public-read", "false", "serve FHIR reads and searches without a token (a public directory)", func(c *Config, v string) (err error) {
			c.FHIRPublicRead, err = strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%q is neither true nor false", v)
			}
			return nil
		}},
		{"trusted-proxies", "", "comma-separated CIDRs of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are trusted", func(c *Config, v string) (err error) {
			c.TrustedProxies, err = parsePrefixes(v)
			return err
		}},
		{"webhook-allow-loopback", "false", "accept webhook URLs on loopback addresses, over http too (development only)", func(c *Config, v string) (err error) {
			c.WebhookAllowLoopback, err = strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%q is neither true nor false", v)
			}
			return nil
		}},
		{"webhook-concurrency", strconv.Itoa(DefaultWebhookConcurrency), "how many webhook deliveries to send at once", func(c *Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1024 {
				return fmt.Errorf("%q is not a number from 1 to 1024", v)
			}
			c.WebhookConcurrency = n
			return nil
		}},
		{"llm-url", "", "base URL of an OpenAI-compatible chat completions API (llama.cpp server, Ollama, vLLM), e.g. http://127.0.0.1:11434/v1, that phrases evidence-query answers; its key is read from " + EnvLLMAPIKey + "; empty: template answers only", func(c *Config, v string) (err error) {
			if v != "" {
				c.LLMURL, err = parseBaseURL(v)
			}
			return err
		}},
		{"llm-model", "", "model name sent to --llm-url (required with it)", func(c *Config, v string) error {
			c.LLMModel = strings.TrimSpace(v)
			return nil
		}},
		{"llm-timeout", DefaultLLMTimeout.String(), "how long one --llm-url completion may take before the template answer is served", func(c *Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 5s", v)
			}
			c.LLMTimeout = d
			return nil
		}},
		{"cors-origins", "", "comma-separated origins (scheme://host[:port]) whose browser pages may call the FHIR, supply and resolver APIs; * allows any (a public directory); empty sends no CORS headers", func(c *Config, v string) (err error) {
			c.CORSOrigins, err = parseOrigins(v)
			return err
		}},
	}
}

// Usage writes the flag summary, each flag with its environment variable and default.
func Usage(w io.Writer, program string) {
	fmt.Fprintf(w, "usage: %s [flags]\n\nEvery flag may instead be set in the environment variable shown; a flag wins.\n\n", program)
	for _, o := range options() {
		def := o.def
		if def == "" && o.name == "base-url" {
			def = "http://<addr>"
		}
		fmt.Fprintf(w, "  --%s (%s)\n        %s", o.name, EnvName(o.name), o.usage)
		if def != "" {
			fmt.Fprintf(w, " (default %s)", def)
		}
		fmt.Fprintln(w)
	}
}

// ErrHelp is returned by Parse when -h or --help was asked for.
var ErrHelp = flag.ErrHelp

// boolValue is a string-backed flag value that the flag package treats as boolean, so that
// "--fhir-public-read" alone sets "true"; the option's apply still validates the text.
type boolValue struct{ p *string }

func (b boolValue) String() string {
	if b.p == nil {
		return ""
	}
	return *b.p
}
func (b boolValue) Set(v string) error { *b.p = v; return nil }
func (b boolValue) IsBoolFlag() bool   { return true }

// Parse reads the command line (without the program name) and the environment through getenv.
// Any error is a usage error, worded to be printed on one line; ErrHelp means help was asked for.
func Parse(args []string, getenv func(string) string) (Config, error) {
	fs := flag.NewFlagSet("providerd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	opts := options()
	vals := make(map[string]*string, len(opts))
	for _, o := range opts {
		v := o.def
		vals[o.name] = &v
		if o.def == "true" || o.def == "false" {
			fs.Var(boolValue{&v}, o.name, o.usage) // so that a bare --flag means true
		} else {
			fs.StringVar(&v, o.name, o.def, o.usage)
		}
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q: providerd takes only flags", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var c Config
	for _, o := range opts {
		v, from := resolve(o.name, *vals[o.name], set[o.name], getenv)
		if v == "" && o.name == "base-url" {
			continue // derived from the address below
		}
		if err := o.apply(&c, v); err != nil {
			return Config{}, fmt.Errorf("invalid %s: %w", from, err)
		}
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL(c.Addr)
	}
	if c.LLMURL != "" && c.LLMModel == "" {
		return Config{}, errors.New("invalid --llm-model: give the model name --llm-url serves")
	}
	c.LLMAPIKey = getenv(EnvLLMAPIKey)
	if c.MetricsAddr != "" && c.MetricsAddr == c.Addr && !strings.HasSuffix(c.Addr, ":0") {
		return Config{}, fmt.Errorf("invalid --metrics-addr: %q is the public --addr; metrics need a listener of their own", c.MetricsAddr)
	}
	return c, nil
}

// resolve picks a flag's value by precedence and names where it came from, for error messages.
func resolve(name, flagValue string, flagSet bool, getenv func(string) string) (value, from string) {
	if flagSet {
		return flagValue, "--" + name
	}
	if v := getenv(EnvName(name)); v != "" {
		return v, EnvName(name)
	}
	return flagValue, "default --" + name
}

// DefaultBaseURL is the base URL of a server reached directly at addr. An unspecified host
// (":8080", "0.0.0.0:8080") is written as localhost, the one name such a server answers for sure.
func DefaultBaseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func checkAddr(v string) error {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return fmt.Errorf("%q is not host:port", v)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("%q has a malformed host", v)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q has no port between 0 and 65535", v)
	}
	return nil
}

func parseBaseURL(v string) (string, error) {
	u, err := url.Parse(v)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL", v)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q must start with http:// or https://", v)
	case u.Host == "":
		return "", fmt.Errorf("%q has no host", v)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return "", fmt.Errorf("%q must not carry user info, a query or a fragment", v)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// parseOrigins parses a comma-separated list of web origins, each in the form a browser sends in
// its Origin header (lower-case scheme and host, a port only when not the scheme's default, no
// path), or "*" alone for any origin.
func parseOrigins(v string) ([]string, error) {
	var out []string
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if part != "*" {
			u, err := url.Parse(part)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
				u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
				return nil, fmt.Errorf("%q is not an origin such as https://app.example.org", part)
			}
			port := u.Port()
			if port == map[string]string{"http": "80", "https": "443"}[u.Scheme] {
				port = ""
			}
			host := strings.ToLower(u.Hostname())
			if strings.Contains(host, ":") {
				host = "[" + host + "]" // an IPv6 literal
			}
			part = u.Scheme + "://" + host
			if port != "" {
				part += ":" + port
			}
		}
		out = append(out, part)
	}
	if len(out) > 1 && slices.Contains(out, "*") {
		return nil, errors.New(`"*" allows any origin: give it alone`)
	}
	return out, nil
}

func parsePrefixes(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			// A bare address means that one host.
			a, aerr := netip.ParseAddr(part)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8", part)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// referenceUsage is the help text of --reference, wherever it is defined.
const referenceUsage = "directory of newer public reference files, laid out as the built-in set (census/, nucc/, cms/, nppes/); default: the files built into the binary"

// ReferenceFlag defines --reference on fs for providerctl's subcommands, with the same default
// and PROVIDERD_REFERENCE fallback as providerd. Call the returned function after fs.Parse: it
// returns the directory chosen ("" for the built-in files) and where it came from ("--reference",
// "PROVIDERD_REFERENCE", "default --reference"), for an error to name.
func ReferenceFlag(fs *flag.FlagSet, getenv func(string) string) func() (dir, from string) {
	v := fs.String("reference", DefaultReference, referenceUsage+" (env "+EnvName("reference")+")")
	return func() (string, string) {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "reference" })
		return resolve("reference", *v, set, getenv)
	}
}
