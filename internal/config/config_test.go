package config

import (
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"providerdir/internal/storeopen"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestParseDefaults(t *testing.T) {
	c, err := Parse(nil, env())
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Addr:            "127.0.0.1:8080",
		Store:           storeopen.Spec{Backend: storeopen.BackendEmbedded, Dir: "./data/db"},
		BaseURL:         "http://127.0.0.1:8080",
		LogFormat:       "json",
		LogLevel:        slog.LevelInfo,
		RollbackWindow:  15 * time.Minute,
		ShutdownTimeout: 15 * time.Second,
		LLMTimeout:      5 * time.Second,

		WebhookConcurrency: 32,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestParsePrecedence(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		env   func(string) string
		check func(Config) bool
	}{
		{"env over default", nil, env("PROVIDERD_ADDR", "127.0.0.1:9000"),
			func(c Config) bool { return c.Addr == "127.0.0.1:9000" && c.BaseURL == "http://127.0.0.1:9000" }},
		{"flag over env", []string{"--addr", "127.0.0.1:9001"}, env("PROVIDERD_ADDR", "127.0.0.1:9000"),
			func(c Config) bool { return c.Addr == "127.0.0.1:9001" }},
		{"single dash flag", []string{"-addr=127.0.0.1:9002"}, env(),
			func(c Config) bool { return c.Addr == "127.0.0.1:9002" }},
		{"store from env", nil, env("PROVIDERD_STORE", "mongodb://db.internal:27017/providers"),
			func(c Config) bool {
				return c.Store == storeopen.Spec{Backend: storeopen.BackendMongo, URI: "mongodb://db.internal:27017/providers"}
			}},
		{"base url from env, trailing slash dropped", nil, env("PROVIDERD_BASE_URL", "https://api.example.org/"),
			func(c Config) bool { return c.BaseURL == "https://api.example.org" }},
		{"base url with a path prefix", []string{"--base-url", "https://example.org/directory/"}, env(),
			func(c Config) bool { return c.BaseURL == "https://example.org/directory" }},
		{"unspecified host gives localhost base url", []string{"--addr", ":8080"}, env(),
			func(c Config) bool { return c.BaseURL == "http://localhost:8080" }},
		{"wildcard ipv6 gives localhost base url", []string{"--addr", "[::]:8080"}, env(),
			func(c Config) bool { return c.BaseURL == "http://localhost:8080" }},
		{"ipv6 loopback base url", []string{"--addr", "[::1]:8080"}, env(),
			func(c Config) bool { return c.BaseURL == "http://[::1]:8080" }},
		{"log settings", []string{"--log-format=text"}, env("PROVIDERD_LOG_LEVEL", "debug"),
			func(c Config) bool { return c.LogFormat == "text" && c.LogLevel == slog.LevelDebug }},
		{"shutdown timeout", nil, env("PROVIDERD_SHUTDOWN_TIMEOUT", "2m"),
			func(c Config) bool { return c.ShutdownTimeout == 2*time.Minute }},
		{"rollback window", []string{"--rollback-window", "0"}, env("PROVIDERD_ROLLBACK_WINDOW", "1h"),
			func(c Config) bool { return c.RollbackWindow == 0 }},
		{"rollback window from env", nil, env("PROVIDERD_ROLLBACK_WINDOW", "1h"),
			func(c Config) bool { return c.RollbackWindow == time.Hour }},
		{"drain delay", []string{"--drain-delay", "10s"}, env(),
			func(c Config) bool { return c.DrainDelay == 10*time.Second }},
		{"drain delay from env", nil, env("PROVIDERD_DRAIN_DELAY", "3s"),
			func(c Config) bool { return c.DrainDelay == 3*time.Second }},
		{"metrics addr", []string{"--metrics-addr", "127.0.0.1:9090"}, env(),
			func(c Config) bool { return c.MetricsAddr == "127.0.0.1:9090" }},
		{"metrics addr from env", nil, env("PROVIDERD_METRICS_ADDR", "[::1]:9090"),
			func(c Config) bool { return c.MetricsAddr == "[::1]:9090" }},
		{"metrics and public addr both on ephemeral ports", []string{"--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"}, env(),
			func(c Config) bool { return c.MetricsAddr == "127.0.0.1:0" }},
		{"metrics off by an empty flag over env", []string{"--metrics-addr="}, env("PROVIDERD_METRICS_ADDR", "127.0.0.1:9090"),
			func(c Config) bool { return c.MetricsAddr == "" }},
		{"trusted proxies masked, bare addresses are hosts", []string{"--trusted-proxies", "10.1.2.3/8, 192.168.0.7,::1/128"}, env(),
			func(c Config) bool {
				return reflect.DeepEqual(c.TrustedProxies, []netip.Prefix{
					netip.MustParsePrefix("10.0.0.0/8"),
					netip.MustParsePrefix("192.168.0.7/32"),
					netip.MustParsePrefix("::1/128"),
				})
			}},
		{"no cors origins by default", nil, env(),
			func(c Config) bool { return c.CORSOrigins == nil }},
		{"cors origins as browsers send them", []string{"--cors-origins", "https://App.Example.org, http://localhost:3000,https://x.org:443,http://[::1]:8080"}, env(),
			func(c Config) bool {
				return reflect.DeepEqual(c.CORSOrigins, []string{"https://app.example.org", "http://localhost:3000", "https://x.org", "http://[::1]:8080"})
			}},
		{"any origin from env", nil, env("PROVIDERD_CORS_ORIGINS", "*"),
			func(c Config) bool { return reflect.DeepEqual(c.CORSOrigins, []string{"*"}) }},
		{"empty env is unset", nil, env("PROVIDERD_LOG_FORMAT", ""),
			func(c Config) bool { return c.LogFormat == "json" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.args, tt.env)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(c) {
				t.Fatalf("unexpected config %+v", c)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  func(string) string
		want string // substring of the one-line error
	}{
		{"unknown flag", []string{"--nope"}, env(), "flag provided but not defined: -nope"},
		{"positional argument", []string{"serve"}, env(), `unexpected argument "serve"`},
		{"bad addr", []string{"--addr", "localhost"}, env(), `invalid --addr: "localhost" is not host:port`},
		{"bad port", []string{"--addr", "127.0.0.1:99999"}, env(), "invalid --addr"},
		{"bad addr from env names the variable", nil, env("PROVIDERD_ADDR", "nope"), "invalid PROVIDERD_ADDR"},
		{"bad store", []string{"--store", "postgres://x"}, env(), "invalid --store"},
		{"empty embedded dir", []string{"--store", "embedded:"}, env(), "names no directory"},
		{"mongo without host", []string{"--store", "mongodb://"}, env(), "invalid --store"},
		{"mongo password not echoed", []string{"--store", "mongodb://u:secret@/"}, env(), "invalid --store"},
		{"bad base url scheme", []string{"--base-url", "ftp://x"}, env(), "invalid --base-url"},
		{"relative base url", []string{"--base-url", "/v1"}, env(), "invalid --base-url"},
		{"base url with query", []string{"--base-url", "https://x.org/?a=b"}, env(), "invalid --base-url"},
		{"bad log format", []string{"--log-format", "xml"}, env(), `invalid --log-format: "xml" is neither json nor text`},
		{"bad log level", nil, env("PROVIDERD_LOG_LEVEL", "loud"), "invalid PROVIDERD_LOG_LEVEL"},
		{"bad timeout", []string{"--shutdown-timeout", "soon"}, env(), "invalid --shutdown-timeout"},
		{"negative timeout", []string{"--shutdown-timeout", "-1s"}, env(), "invalid --shutdown-timeout"},
		{"bad drain delay", []string{"--drain-delay", "a while"}, env(), "invalid --drain-delay"},
		{"negative drain delay", nil, env("PROVIDERD_DRAIN_DELAY", "-5s"), "invalid PROVIDERD_DRAIN_DELAY"},
		{"negative rollback window", []string{"--rollback-window", "-1m"}, env(), "invalid --rollback-window"},
		{"bad metrics addr", []string{"--metrics-addr", "9090"}, env(), "invalid --metrics-addr"},
		{"metrics on the public addr", []string{"--addr", "127.0.0.1:8080", "--metrics-addr", "127.0.0.1:8080"}, env(), "invalid --metrics-addr"},
		{"bad cidr", []string{"--trusted-proxies", "10.0.0.0/33"}, env(), "invalid --trusted-proxies"},
		{"empty reference", []string{"--reference", " "}, env(), "invalid --reference"},
		{"origin with a path", []string{"--cors-origins", "https://app.example.org/"}, env(), "invalid --cors-origins"},
		{"origin without a scheme", []string{"--cors-origins", "app.example.org"}, env(), "invalid --cors-origins"},
		{"any origin among others", []string{"--cors-origins", "*,https://app.example.org"}, env(), "invalid --cors-origins"},
		{"llm url without a scheme", []string{"--llm-url", "localhost:11434/v1", "--llm-model", "m"}, env(), "invalid --llm-url"},
		{"llm url without a model", []string{"--llm-url", "http://127.0.0.1:11434/v1"}, env(), "invalid --llm-model"},
		{"llm timeout zero", []string{"--llm-timeout", "0s"}, env(), "invalid --llm-timeout"},
		{"llm timeout from env", nil, env("PROVIDERD_LLM_TIMEOUT", "soon"), "invalid PROVIDERD_LLM_TIMEOUT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.args, tt.env)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Fatalf("error %q does not contain %q", msg, tt.want)
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, "secret") {
				t.Fatalf("error %q is not one clean line", msg)
			}
		})
	}
}

// The language model is configured by three flags and its key by the environment alone: a
// --llm-api-key flag does not exist, so a key never shows in a process listing.
func TestLLMOptions(t *testing.T) {
	c, err := Parse([]string{"--llm-url", "http://127.0.0.1:11434/v1/", "--llm-model", "llama3.1:8b", "--llm-timeout", "2s"},
		env(EnvLLMAPIKey, "sk-test"))
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMURL != "http://127.0.0.1:11434/v1" || c.LLMModel != "llama3.1:8b" || c.LLMTimeout != 2*time.Second || c.LLMAPIKey != "sk-test" {
		t.Fatalf("llm options %q %q %v %q", c.LLMURL, c.LLMModel, c.LLMTimeout, c.LLMAPIKey)
	}
	if _, err := Parse([]string{"--llm-api-key", "sk-test"}, env()); err == nil {
		t.Fatal("--llm-api-key is accepted as a flag")
	}
}

func TestParseHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		if _, err := Parse([]string{arg}, env()); !errors.Is(err, ErrHelp) {
			t.Errorf("%s: got %v, want ErrHelp", arg, err)
		}
	}
}

func TestUsageListsEveryFlagWithItsVariable(t *testing.T) {
	var b strings.Builder
	Usage(&b, "providerd")
	for _, o := range options() {
		if !strings.Contains(b.String(), "--"+o.name+" ("+EnvName(o.name)+")") {
			t.Errorf("usage lacks --%s", o.name)
		}
	}
}

func TestStoreFlag(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		want    storeopen.Spec
		wantErr string
	}{
		{"default", nil, env(), storeopen.Spec{Backend: storeopen.BackendEmbedded, Dir: "./data/db"}, ""},
		{"env", nil, env("PROVIDERD_STORE", "embedded:/srv/db"), storeopen.Spec{Backend: storeopen.BackendEmbedded, Dir: "/srv/db"}, ""},
		{"flag wins", []string{"--store", "embedded:/x"}, env("PROVIDERD_STORE", "embedded:/srv/db"), storeopen.Spec{Backend: storeopen.BackendEmbedded, Dir: "/x"}, ""},
		{"bad env", nil, env("PROVIDERD_STORE", "nope"), storeopen.Spec{}, "invalid PROVIDERD_STORE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("status", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			get := StoreFlag(fs, tt.env)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got, err := get()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestFHIRPublicRead(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want bool
		bad  bool
	}{
		{nil, nil, false, false},
		{[]string{"--fhir-public-read"}, nil, true, false},
		{[]string{"--fhir-public-read=false"}, map[string]string{"PROVIDERD_FHIR_PUBLIC_READ": "true"}, false, false},
		{nil, map[string]string{"PROVIDERD_FHIR_PUBLIC_READ": "true"}, true, false},
		{[]string{"--fhir-public-read=maybe"}, nil, false, true},
	}
	for _, tt := range tests {
		c, err := Parse(append([]string{"--reference", "."}, tt.args...), func(k string) string { return tt.env[k] })
		if tt.bad {
			if err == nil {
				t.Errorf("%v: no error", tt.args)
			}
			continue
		}
		if err != nil || c.FHIRPublicRead != tt.want {
			t.Errorf("%v %v: got %v, %v; want %v", tt.args, tt.env, c.FHIRPublicRead, err, tt.want)
		}
	}
}

func TestWebhookFlags(t *testing.T) {
	tests := []struct {
		args        []string
		env         map[string]string
		loopback    bool
		concurrency int
		bad         bool
	}{
		{nil, nil, false, 32, false},
		{[]string{"--webhook-allow-loopback"}, nil, true, 32, false},
		{nil, map[string]string{"PROVIDERD_WEBHOOK_ALLOW_LOOPBACK": "true", "PROVIDERD_WEBHOOK_CONCURRENCY": "8"}, true, 8, false},
		{[]string{"--webhook-concurrency", "64"}, nil, false, 64, false},
		{[]string{"--webhook-allow-loopback=perhaps"}, nil, false, 0, true},
		{[]string{"--webhook-concurrency", "0"}, nil, false, 0, true},
		{[]string{"--webhook-concurrency", "many"}, nil, false, 0, true},
	}
	for _, tt := range tests {
		c, err := Parse(append([]string{"--reference", "."}, tt.args...), func(k string) string { return tt.env[k] })
		if tt.bad {
			if err == nil {
				t.Errorf("%v: no error", tt.args)
			}
			continue
		}
		if err != nil || c.WebhookAllowLoopback != tt.loopback || c.WebhookConcurrency != tt.concurrency {
			t.Errorf("%v %v: got %v %d, %v", tt.args, tt.env, c.WebhookAllowLoopback, c.WebhookConcurrency, err)
		}
	}
}
