package mcptools_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"providerdir/cmd/provider-mcp/internal/mcptools"
)

// recorder is a reverse proxy in front of a resolver that records the target of each request
// it passes on and fails the test on one whose path holds a dot segment, or any of hostile
// unescaped.
type recorder struct {
	mu      sync.Mutex
	targets []string
}

func startRecorder(t *testing.T, resolver string, hostile []string) (*recorder, string) {
	t.Helper()
	u, err := url.Parse(resolver)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.targets = append(rec.targets, r.RequestURI)
		rec.mu.Unlock()
		path := r.URL.EscapedPath()
		if strings.Contains(path, "..") {
			t.Errorf("a request path holds a dot segment: %s", r.RequestURI)
		}
		for _, h := range hostile {
			if strings.Contains(path, h) {
				t.Errorf("a request path holds %q unescaped: %s", h, r.RequestURI)
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL + u.Path
}

// sent returns the targets recorded since the last call and forgets them.
func (r *recorder) sent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.targets
	r.targets = nil
	return out
}

// An argument of the wrong form is a tool error with the resolver's code for it, and no request
// reaches the resolver; a good one goes out as one escaped path segment.
func TestArgumentsCheckedBeforeAnyRequest(t *testing.T) {
	l := startLive(t)
	tests := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"resolve_npi", map[string]any{"npi": "../webhooks"}, mcptools.CodeInvalidNPI},
		{"resolve_npi", map[string]any{"npi": ".."}, mcptools.CodeInvalidNPI},
		{"resolve_npi", map[string]any{"npi": "1234567890"}, mcptools.CodeInvalidNPI}, // check digit
		{"resolve_npi", map[string]any{"npi": "12345/7893"}, mcptools.CodeInvalidNPI},
		{"resolve_npi", map[string]any{"npi": ""}, mcptools.CodeInvalidNPI},
		{"check_exclusion", map[string]any{"npi": "%2e%2e%2fwebhooks"}, mcptools.CodeInvalidNPI},
		{"get_payments", map[string]any{"npi": "../../v1/keys"}, mcptools.CodeInvalidNPI},
		{"get_facility", map[string]any{"ccn": "../webhooks"}, mcptools.CodeInvalidCCN},
		{"get_facility", map[string]any{"ccn": "05C0000001"}, mcptools.CodeInvalidCCN}, // a supplier number: no facility record
		{"get_facility", map[string]any{"ccn": "050001\u202e"}, mcptools.CodeInvalidCCN},
		{"get_quality", map[string]any{"type": "hospital", "ccn": ".."}, mcptools.CodeInvalidCCN},
		{"get_quality", map[string]any{"type": "..", "ccn": "050001"}, mcptools.CodeInvalidArgument},
		{"get_quality", map[string]any{"type": "hospital/../../webhooks", "ccn": "050001"}, mcptools.CodeInvalidArgument},
	}
	var hostile []string
	for _, tt := range tests {
		for _, v := range tt.args {
			if s := v.(string); s != "" && url.PathEscape(s) != s {
				hostile = append(hostile, s)
			}
		}
	}
	rec, base := startRecorder(t, l.srv.URL, hostile)
	cs := connect(t, base, l.key)
	for _, tt := range tests {
		t.Run(tt.tool+" "+fmt.Sprint(tt.args), func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if sent := rec.sent(); len(sent) > 0 {
				t.Errorf("requests sent: %q", sent)
			}
			if e := toolErr(t, res); e.Code != tt.code || e.Status != 0 || e.Retryable || !strings.Contains(e.Guidance, "no request was sent") || e.Message == "" {
				t.Errorf("%+v, want %s without a status, not retryable", e, tt.code)
			}
		})
	}

	// What passes its check goes out, one request, the argument its own path segment.
	if res := call(t, cs, "resolve_npi", map[string]any{"npi": l.f.Enrolled}); res.IsError {
		t.Fatalf("tool error: %+v", toolErr(t, res))
	}
	if sent, want := rec.sent(), "/resolver/v1/npi/"+l.f.Enrolled+"?include=facts"; len(sent) != 1 || sent[0] != want {
		t.Errorf("sent %q, want [%s]", sent, want)
	}
}
