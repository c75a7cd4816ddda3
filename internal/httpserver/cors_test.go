package httpserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"providerdir/internal/httpserver"
)

// withCORS marks the v1, resolver and fhir surfaces CORS and allows origins.
func withCORS(origins ...string) func(*httpserver.Options) {
	return func(o *httpserver.Options) {
		o.CORSOrigins = origins
		for i := range o.Surfaces {
			o.Surfaces[i].CORS = slices.Contains([]string{"v1", "resolver", "fhir"}, o.Surfaces[i].Name)
		}
	}
}

// TestCORS checks the CORS protocol over real HTTP: preflights of an allowed origin answered 204
// with the path's methods, the allowed headers and a max age; responses readable by that origin
// with the headers clients need exposed; nothing for other origins, other surfaces or a server
// configured without origins; and Vary: Origin wherever the answer depends on the origin.
func TestCORS(t *testing.T) {
	const app = "https://app.example"
	preflight := func(origin, method string) map[string]string {
		return map[string]string{"Origin": origin, "Access-Control-Request-Method": method,
			"Access-Control-Request-Headers": "authorization, prefer"}
	}
	tests := []struct {
		name    string
		origins []string
		method  string
		path    string
		header  map[string]string
		status  int
		allow   string // Access-Control-Allow-Origin; "" none
		methods string // Access-Control-Allow-Methods; "" none
		vary    bool   // Vary names Origin
	}{
		{"preflight of a read", []string{app}, http.MethodOptions, "/fhir/items/1", preflight(app, "GET"), 204, app, "GET, HEAD, DELETE", true},
		{"preflight of a POST", []string{app}, http.MethodOptions, "/v1/echo", preflight(app, "POST"), 204, app, "POST", true},
		{"preflight on the resolver", []string{app}, http.MethodOptions, "/resolver/v1/items/1", preflight(app, "GET"), 204, app, "GET, HEAD, DELETE", true},
		{"preflight of another origin", []string{app}, http.MethodOptions, "/fhir/items/1", preflight("https://evil.example", "GET"), 204, "", "", true},
		{"preflight of an unrouted path", []string{app}, http.MethodOptions, "/fhir/nothing", preflight(app, "GET"), 404, app, "", true},
		{"preflight, any origin", []string{httpserver.AnyOrigin}, http.MethodOptions, "/fhir/items/1", preflight("https://any.example", "GET"), 204, "*", "GET, HEAD, DELETE", false},
		{"GET of an allowed origin", []string{app}, http.MethodGet, "/fhir/items/1", map[string]string{"Origin": app}, 200, app, "", true},
		{"GET of a second allowed origin", []string{"http://localhost:3000", app}, http.MethodGet, "/v1/items/1", map[string]string{"Origin": app}, 200, app, "", true},
		{"error of an allowed origin", []string{app}, http.MethodGet, "/fhir/nothing", map[string]string{"Origin": app}, 404, app, "", true},
		{"GET of another origin", []string{app}, http.MethodGet, "/fhir/items/1", map[string]string{"Origin": "https://app.example.evil"}, 200, "", "", true},
		{"GET, any origin", []string{httpserver.AnyOrigin}, http.MethodGet, "/fhir/items/1", map[string]string{"Origin": "https://any.example"}, 200, "*", "", false},
		{"GET without Origin", []string{app}, http.MethodGet, "/fhir/items/1", nil, 200, "", "", true},
		{"surface without CORS", []string{app}, http.MethodGet, "/api/items/1", map[string]string{"Origin": app}, 200, "", "", false},
		{"preflight on a surface without CORS", []string{app}, http.MethodOptions, "/api/items/1", preflight(app, "GET"), 405, "", "", false},
		{"no origins configured", nil, http.MethodGet, "/fhir/items/1", map[string]string{"Origin": app}, 200, "", "", false},
		{"preflight, no origins configured", nil, http.MethodOptions, "/fhir/items/1", preflight(app, "GET"), 405, "", "", false},
		{"OPTIONS that is no preflight", []string{app}, http.MethodOptions, "/fhir/items/1", map[string]string{"Origin": app}, 405, app, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil, withCORS(tt.origins...))
			r := f.do(t, tt.method, tt.path, tt.header)
			h := r.header
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if got := h.Get("Access-Control-Allow-Origin"); got != tt.allow {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.allow)
			}
			if got := h.Get("Access-Control-Allow-Methods"); got != tt.methods {
				t.Errorf("Access-Control-Allow-Methods %q, want %q", got, tt.methods)
			}
			if got := slices.ContainsFunc(h.Values("Vary"), func(v string) bool { return strings.Contains(v, "Origin") && !strings.Contains(v, "Access-Control") }); got != tt.vary {
				t.Errorf("Vary %q: names Origin %v, want %v", h.Values("Vary"), got, tt.vary)
			}
			if h.Get("Access-Control-Allow-Credentials") != "" {
				t.Error("credentials allowed")
			}
			switch {
			case tt.methods != "":
				allowHeaders := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
				for _, want := range []string{"authorization", "content-type", "prefer", "if-none-match", "x-service-key"} {
					if !strings.Contains(allowHeaders, want) {
						t.Errorf("Access-Control-Allow-Headers %q lacks %s", allowHeaders, want)
					}
				}
				if h.Get("Access-Control-Max-Age") != "7200" {
					t.Errorf("Access-Control-Max-Age %q", h.Get("Access-Control-Max-Age"))
				}
				if r.body != "" {
					t.Errorf("a preflight answered with a body: %q", r.body)
				}
			case tt.allow != "":
				expose := h.Get("Access-Control-Expose-Headers")
				for _, want := range []string{"X-RateLimit-Remaining", "RateLimit", "ETag", "Location", "X-Request-ID", "WWW-Authenticate"} {
					if !strings.Contains(expose, want) {
						t.Errorf("Access-Control-Expose-Headers %q lacks %s", expose, want)
					}
				}
			default:
				if h.Get("Access-Control-Expose-Headers") != "" || h.Get("Access-Control-Max-Age") != "" {
					t.Errorf("CORS headers for a request CORS does not allow: %v", h)
				}
			}
		})
	}
}
