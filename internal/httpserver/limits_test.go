package httpserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"

	"providerdir/internal/httpserver"
	"providerdir/internal/requestid"
	"providerdir/store/embedded"
)

// errorShape reads the code of an error body in any surface's envelope: the supply API's and
// the flat error object's error.code, an OperationOutcome's issue code, or the text error's
// status line.
func errorShape(t *testing.T, prefix, body string) string {
	t.Helper()
	switch prefix {
	case "":
		line, _, _ := strings.Cut(body, "\n")
		return line
	case "/fhir":
		var oo struct {
			ResourceType string
			Issue        []struct{ Severity, Code, Diagnostics string }
		}
		if err := json.Unmarshal([]byte(body), &oo); err != nil || oo.ResourceType != "OperationOutcome" || len(oo.Issue) != 1 {
			t.Fatalf("not an OperationOutcome: %q", body)
		}
		return oo.Issue[0].Code
	default:
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" {
			t.Fatalf("not an error envelope: %q", body)
		}
		return e.Error.Code
	}
}

// surfaces lists each test surface's prefix and the Content-Type of its errors.
var surfaces = []struct{ name, prefix, contentType string }{
	{"web", "", "text/plain; charset=utf-8"},
	{"v1", "/v1", "application/json; charset=utf-8"},
	{"resolver", "/resolver/v1", "application/json; charset=utf-8"},
	{"fhir", "/fhir", "application/fhir+json"},
	{"api", "/api", "application/json; charset=utf-8"},
}

// wantCode is the code a refusal carries in each surface's envelope.
func wantCode(prefix, jsonCode, fhirCode, text string) string {
	switch prefix {
	case "":
		return text
	case "/fhir":
		return fhirCode
	}
	return jsonCode
}

func TestRequestLimitsPerSurface(t *testing.T) {
	const maxBody = 1 << 10
	f := newFixture(t, nil, func(o *httpserver.Options) { o.MaxBodyBytes = maxBody })
	tests := []struct {
		name, method, path string
		uriLen             int // the length of the whole request target, padded in its query
		body               string
		chunked            bool
		headerLen          int // the length of an extra header field's value
		status             int
		jsonCode, fhirCode string
		text               string
		ok                 string // the body of a request that passes
	}{
		{name: "URL at the bound passes", method: "GET", path: "/items/1?q=", uriLen: httpserver.DefaultMaxURLBytes, status: 200, ok: "item 1"},
		{name: "URL over the bound", method: "GET", path: "/items/1?q=", uriLen: httpserver.DefaultMaxURLBytes + 1, status: 414, jsonCode: "uri_too_long", fhirCode: "too-long", text: "414 Request URI Too Long: the request URL is longer than 8192 bytes"},
		{name: "headers within the bound", method: "GET", path: "/items/1", headerLen: httpserver.DefaultMaxHeaderBytes - 1024, status: 200, ok: "item 1"},
		{name: "headers over the bound", method: "GET", path: "/items/1", headerLen: httpserver.DefaultMaxHeaderBytes, status: 431, jsonCode: "request_header_fields_too_large", fhirCode: "too-long", text: "431 Request Header Fields Too Large: the request's header fields are larger than 32768 bytes"},
		{name: "body within the bound", method: "POST", path: "/echo", body: strings.Repeat("b", maxBody), status: 200, ok: "got 1024 bytes"},
		{name: "declared body over the bound", method: "POST", path: "/echo", body: strings.Repeat("b", maxBody+1), status: 413, jsonCode: "request_too_large", fhirCode: "too-long", text: "413 Request Entity Too Large: the request body is larger than 1024 bytes"},
		{name: "chunked body within the bound", method: "POST", path: "/echo", body: strings.Repeat("b", maxBody), chunked: true, status: 200, ok: "got 1024 bytes"},
		{name: "chunked body over the bound", method: "POST", path: "/echo", body: strings.Repeat("b", 3*maxBody), chunked: true, status: 413, jsonCode: "request_too_large", fhirCode: "too-long", text: "413 Request Entity Too Large: the request body is larger than 1024 bytes"},
	}
	for _, s := range surfaces {
		for _, tt := range tests {
			t.Run(s.name+" "+tt.name, func(t *testing.T) {
				var body io.Reader
				if tt.body != "" {
					body = strings.NewReader(tt.body)
					if tt.chunked { // a reader of unknown length is sent chunked
						body = io.MultiReader(body)
					}
				}
				target := s.prefix + tt.path
				if tt.uriLen > 0 {
					target += strings.Repeat("a", tt.uriLen-len(target))
				}
				req, err := http.NewRequest(tt.method, f.srv.URL+target, body)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set(requestid.Header, "limit-1")
				if tt.headerLen > 0 {
					req.Header.Set("X-Padding", strings.Repeat("h", tt.headerLen))
				}
				resp, err := f.srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != tt.status {
					t.Fatalf("status %d, want %d: %q", resp.StatusCode, tt.status, b)
				}
				if tt.status == 200 {
					if string(b) != tt.ok {
						t.Fatalf("body %q, want %q", b, tt.ok)
					}
					return
				}
				if (tt.status == 413 || tt.status == 431) && !resp.Close {
					t.Errorf("%d leaves the connection open", tt.status)
				}
				if ct := resp.Header.Get("Content-Type"); ct != s.contentType {
					t.Errorf("Content-Type %q, want %q", ct, s.contentType)
				}
				if got, want := errorShape(t, s.prefix, string(b)), wantCode(s.prefix, tt.jsonCode, tt.fhirCode, tt.text); got != want {
					t.Errorf("error %q, want %q in %q", got, want, b)
				}
			})
		}
	}
}

func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	f := newFixture(t, nil)
	for _, path := range []string{"/v1/items/1", "/v1/nope", "/fhir/panic", "/resolver/v1/items/1", "/api/nope", "/nope", "/livez", "/readyz", "/items/1?q=" + strings.Repeat("a", 9000)} {
		r := f.do(t, "GET", path, nil)
		for k, want := range map[string]string{
			"X-Content-Type-Options":    "nosniff",
			"Content-Security-Policy":   "default-src 'none'; frame-ancestors 'none'",
			"Referrer-Policy":           "no-referrer",
			"Strict-Transport-Security": "",
		} {
			if got := r.header.Get(k); got != want {
				t.Errorf("%.40s (%d): %s %q, want %q", path, r.status, k, got, want)
			}
		}
	}
}

func TestStrictTransportSecurity(t *testing.T) {
	const hsts = "max-age=31536000"
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	elsewhere := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	tests := []struct {
		name    string
		tls     bool
		trusted []netip.Prefix
		proto   []string // X-Forwarded-Proto lines
		want    string
	}{
		{"plain HTTP", false, nil, nil, ""},
		{"TLS connection", true, nil, nil, hsts},
		{"client claims https, no proxy trusted", false, nil, []string{"https"}, ""},
		{"client claims https, peer is not a trusted proxy", false, elsewhere, []string{"https"}, ""},
		{"trusted proxy says https", false, loopback, []string{"https"}, hsts},
		{"trusted proxy says HTTPS", false, loopback, []string{"HTTPS"}, hsts},
		{"trusted proxy says http", false, loopback, []string{"http"}, ""},
		{"trusted proxy appends http to a client's https", false, loopback, []string{"https, http"}, ""},
		{"trusted proxy's own line is last", false, loopback, []string{"http", "https"}, hsts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, _, _ := newHandler(t, nil, func(o *httpserver.Options) { o.TrustedProxies = tt.trusted })
			srv := httptest.NewUnstartedServer(h)
			if tt.tls {
				srv.StartTLS()
			} else {
				srv.Start()
			}
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/v1/items/1", nil)
			for _, p := range tt.proto {
				req.Header.Add("X-Forwarded-Proto", p)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Get("Strict-Transport-Security"); got != tt.want {
				t.Fatalf("Strict-Transport-Security %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReadyzSeesDeletedStore deletes the embedded store's directory under a running server.
func TestReadyzSeesDeletedStore(t *testing.T) {
	dir := t.TempDir()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	f := newFixture(t, httpserver.StoreCheck(s))
	if r := f.do(t, "GET", "/readyz", nil); r.status != 200 {
		t.Fatalf("readyz with the store in place: %d %q", r.status, r.body)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	r := f.do(t, "GET", "/readyz", nil)
	if r.status != 503 || r.header.Get("Retry-After") != "5" {
		t.Fatalf("readyz with the store deleted: %d %q, Retry-After %q", r.status, r.body, r.header.Get("Retry-After"))
	}
}

// A path with dot segments or doubled slashes is routed as sent, never redirected: an unknown
// path gets its surface's 404, in its envelope.
func TestUncleanPathsAreNotRedirected(t *testing.T) {
	f := newFixture(t, nil)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, s := range surfaces {
		for _, p := range []string{"/./items/1", "/items/../items/1", "//items/1"} {
			t.Run(s.name+" "+p, func(t *testing.T) {
				req, err := http.NewRequest("GET", f.srv.URL+s.prefix+p, nil)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != s.contentType {
					t.Fatalf("%d %q: %q", resp.StatusCode, resp.Header.Get("Content-Type"), b)
				}
				if got := errorShape(t, s.prefix, string(b)); got != wantCode(s.prefix, "not_found", "not-found", "404 Not Found: no resource at "+req.URL.Path) {
					t.Fatalf("error %q", got)
				}
			})
		}
	}
}
