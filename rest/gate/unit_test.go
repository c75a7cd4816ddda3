package gate

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"providerdir/quota"
	"providerdir/rest/apikey"
)

func TestPolicies(t *testing.T) {
	tests := []struct {
		tier    apikey.Tier
		windows map[string]int64
	}{
		{apikey.TierPilot, map[string]int64{"rolling-1m": 60, "rolling-24h": 1000}},
		{apikey.TierSandbox, map[string]int64{"rolling-1h": 100}},
		{apikey.TierStarter, map[string]int64{"rolling-1h": 5000}},
		{apikey.TierPro, map[string]int64{"rolling-1h": 50000}},
	}
	lengths := map[string]time.Duration{"rolling-1m": time.Minute, "rolling-1h": time.Hour, "rolling-24h": 24 * time.Hour}
	for _, tt := range tests {
		p := PolicyFor(tt.tier)
		if err := p.Validate(); err != nil || len(p.Windows) != len(tt.windows) {
			t.Fatalf("%s: %+v %v", tt.tier, p, err)
		}
		for _, w := range p.Windows {
			if w.Limit != tt.windows[w.Name] || w.Length != lengths[w.Name] {
				t.Errorf("%s: window %+v", tt.tier, w)
			}
		}
	}
	for _, p := range []quota.Policy{AnonymousSupplyPolicy, EvidenceDemoPolicy, AccessRequestPolicy} {
		if err := p.Validate(); err != nil {
			t.Error(err)
		}
	}
	if AnonymousSupplyPolicy.Windows[0].Limit != 100 || AnonymousSupplyPolicy.Windows[0].Length != time.Hour ||
		EvidenceDemoPolicy.Windows[0].Limit != 10 || EvidenceDemoPolicy.Windows[0].Length != 24*time.Hour {
		t.Error("anonymous limits differ from docs/contracts/supply-api.md")
	}
}

func TestHeaderValues(t *testing.T) {
	at := time.Date(2025, 6, 8, 12, 0, 0, 250e6, time.UTC)
	d := quota.Decision{Allowed: true, At: at, States: []quota.State{
		{Window: quota.RollingMinute(60), Used: 1, Remaining: 59, Reset: at.Add(60*time.Second + 750*time.Millisecond)},
		{Window: quota.RollingDay(1000), Used: 1, Remaining: 999, Reset: at.Add(24*time.Hour + 59*time.Second + 750*time.Millisecond)},
	}}
	h := http.Header{}
	setSupplyHeaders(h, d)
	want := map[string]string{
		"X-Ratelimit-Limit":     "1000",
		"X-Ratelimit-Remaining": "999",
		"X-Ratelimit-Reset":     "2025-06-09T12:01:00Z",
		"X-Ratelimit-Window":    "rolling-24h",
		"Ratelimit-Policy":      `"rolling-1m";q=60;w=60, "rolling-24h";q=1000;w=86400`,
		"Ratelimit":             `"rolling-1m";r=59;t=61, "rolling-24h";r=999;t=86460`,
	}
	for k, v := range want {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	h = http.Header{}
	quota.SetHeaders(h, d)
	if h.Get("X-RateLimit-Reset") != "1749384061" || h.Get("X-RateLimit-Window") != "" {
		t.Errorf("resolver reset %q window %q", h.Get("X-RateLimit-Reset"), h.Get("X-RateLimit-Window"))
	}
	d.Allowed = false
	d.States[0].Remaining = 0
	quota.SetRetryAfter(h, d)
	if h.Get("Retry-After") != "61" {
		t.Errorf("Retry-After %q", h.Get("Retry-After"))
	}
}

func TestPlainTemplate(t *testing.T) {
	tests := map[string]string{
		"/v1/npi/{npi}":                  "/v1/npi/{npi}",
		"/v1/npi/{npi:[0-9]{10}}":        "/v1/npi/{npi}",
		"/v1/{a:x}/b/{c:[a-z]+}/{d}":     "/v1/{a}/b/{c}/{d}",
		"/v1/health":                     "/v1/health",
		"/v1/quality/{type:a|b}/{id:.*}": "/v1/quality/{type}/{id}",
	}
	for in, want := range tests {
		if got := plainTemplate(in); got != want {
			t.Errorf("plainTemplate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCredentials(t *testing.T) {
	tests := []struct {
		auth       []string
		token      string
		credential credential
	}{
		{nil, "", noCredential},
		{[]string{"Bearer abc"}, "abc", bearerKey},
		{[]string{"bearer   abc  "}, "abc", bearerKey},
		{[]string{"BEARER abc"}, "abc", bearerKey},
		{[]string{"Basic abc"}, "", otherScheme},
		{[]string{"pdsupply_abc"}, "", otherScheme},
		{[]string{""}, "", noCredential},
		{[]string{"Bearer"}, "", badBearer},
		{[]string{"Bearer a b"}, "", badBearer},
		{[]string{"Bearer a", "Bearer b"}, "", badBearer},
		{[]string{"Basic x", "Bearer b"}, "", badBearer},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		for _, v := range tt.auth {
			r.Header.Add("Authorization", v)
		}
		if token, c := bearerToken(r); token != tt.token || c != tt.credential {
			t.Errorf("Authorization %q: %q %v, want %q %v", tt.auth, token, c, tt.token, tt.credential)
		}
	}
	for _, tt := range []struct {
		vals      []string
		token     string
		presented bool
	}{{nil, "", false}, {[]string{" k "}, "k", true}, {[]string{" "}, "", false}, {[]string{"a", "b"}, "", true}} {
		r := httptest.NewRequest("GET", "/", nil)
		for _, v := range tt.vals {
			r.Header.Add("X-Service-Key", v)
		}
		if token, presented := serviceKey(r); token != tt.token || presented != tt.presented {
			t.Errorf("X-Service-Key %q: %q %v", tt.vals, token, presented)
		}
	}
}

func TestFormatInt(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 60: "60", 1000: "1,000", 50000: "50,000", 1234567: "1,234,567"} {
		if got := formatInt(n); got != want {
			t.Errorf("formatInt(%d) = %s", n, got)
		}
	}
}
