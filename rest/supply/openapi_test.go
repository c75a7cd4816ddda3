package supply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/gorilla/mux"

	"providerdir/rest/apikey"
	"providerdir/rest/auditpack"
	"providerdir/rest/evidence"
	"providerdir/rest/export"
	"providerdir/rest/intake"
	"providerdir/rest/resolver"
	"providerdir/rest/supply"
	"providerdir/rest/webhooks"
	"providerdir/testing/apiclient"
	"providerdir/testing/backends"
	"providerdir/webhook"
)

// The served document is valid OpenAPI 3.0, names this deployment as its server, and describes
// exactly the routes the API serves as served, the rest of both contracts as planned.
func TestOpenAPIDocument(t *testing.T) {
	e := newEnv(t, backends.Embedded(t))
	doc, _ := e.description(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.0") || doc.Info.Version != "1.0.0" {
		t.Fatalf("openapi %q, info.version %q", doc.OpenAPI, doc.Info.Version)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != e.URL {
		t.Fatalf("servers %v, want the configured base URL %s", doc.Servers, e.URL)
	}

	// Routes the supply API, the resolver and the service host register, as METHOD /path
	// templates.
	root := mux.NewRouter()
	v1 := root.PathPrefix("/v1").Subrouter()
	api := supply.New(e.store, e.URL)
	api.Routes(v1)
	export.New(e.store, export.Options{}).Routes(v1)
	packs := auditpack.New(e.store, e.URL)
	packs.Routes(v1)
	packs.Register(root.PathPrefix("/api").Subrouter(), func(h http.Handler) http.Handler { return h })
	resolverRoutes := root.PathPrefix("/resolver/v1").Subrouter()
	resolver.New(e.store).Routes(resolverRoutes)
	webhooks.NewAPI(e.store, webhook.AddressPolicy{}, nil).Routes(resolverRoutes)
	intake.New(e.store, e.Gate.Keys(), nil).Register(root.PathPrefix("/api").Subrouter(), func(h http.Handler) http.Handler { return h })
	ask := evidence.New(evidence.Config{Store: e.store, Studies: api, BaseURL: e.URL})
	ask.Routes(root.PathPrefix("/v1").Subrouter())
	ask.RegisterDemo(root.PathPrefix("/api").Subrouter(), func(h http.Handler) http.Handler { return h })
	var routes []string
	_ = root.Walk(func(rt *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, _ := rt.GetPathTemplate()
		methods, err := rt.GetMethods()
		if err != nil {
			return nil // a subrouter's prefix, not a route
		}
		for _, m := range methods {
			if m != http.MethodHead {
				routes = append(routes, m+" "+tpl)
			}
		}
		return nil
	})
	var served, planned []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			switch op.Extensions["x-implementation-status"] {
			case "served":
				served = append(served, method+" "+path)
			case "planned":
				planned = append(planned, method+" "+path)
			default:
				t.Errorf("%s %s: x-implementation-status %v", method, path, op.Extensions["x-implementation-status"])
			}
		}
	}
	slices.Sort(routes)
	slices.Sort(served)
	if !slices.Equal(routes, served) {
		t.Errorf("routes %v\ndescribed as served %v", routes, served)
	}
	// Every path the contracts name is served: none is described as still planned.
	if len(planned) != 0 {
		t.Errorf("described as planned, not served: %v", planned)
	}

	// Every error code of docs/contracts/supply-api.md §7 and docs/contracts/resolver-api.md §7 is
	// described, and the resolver's additions.
	raw := e.get(t, "/v1/openapi.json").Raw
	for _, code := range []string{"invalid_npi", "missing_state", "missing_county_fips", "state_county_mismatch",
		"invalid_subspecialty", "missing_api_key", "invalid_api_key", "specialty_not_found", "county_not_found",
		"provider_not_found", "methodology_not_found", "state_not_found", "rate_limit_exceeded", "internal_error",
		"batch_too_large", "invalid_key", "not_found", "rate_limited", "source_unavailable",
		"invalid_ccn", "invalid_include", "invalid_body"} {
		if !bytes.Contains(raw, []byte(`"`+code+`"`)) {
			t.Errorf("error code %s is not described", code)
		}
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-RateLimit-Window",
		"Retry-After", "Cache-Control", "X-Methodology-Version", "X-Last-Refreshed", "X-Total-Chunks", "X-Narrative-Cache-Hit"} {
		if !bytes.Contains(raw, []byte(`"`+h+`"`)) {
			t.Errorf("header %s is not described", h)
		}
	}
}

// The validator the black-box tests rely on does reject a response that breaks the document:
// a by-state answer with 50 rows, and one without its rate-limit fields.
func TestOpenAPIValidatorCatchesMismatches(t *testing.T) {
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	good := e.get(t, "/v1/specialties/cardiology/by-state", apiclient.Bearer(key)...)
	_, router := e.description(t)
	req, _ := http.NewRequest(http.MethodGet, e.URL+"/v1/specialties/cardiology/by-state", nil)
	route, params, err := router.FindRoute(req)
	if err != nil {
		t.Fatal(err)
	}
	check := func(header http.Header, body []byte) error {
		return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
			Status:                 200, Header: header, Body: io.NopCloser(bytes.NewReader(body)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true},
		})
	}
	if err := check(good.Header, good.Raw); err != nil {
		t.Fatalf("the real response fails: %v", err)
	}
	rows := good.Body["data"].([]any)
	short, err := json.Marshal(map[string]any{"data": rows[:50], "meta": good.Body["meta"]})
	if err != nil {
		t.Fatal(err)
	}
	if check(good.Header, short) == nil {
		t.Error("50 rows passed")
	}
	bare := good.Header.Clone()
	bare.Del("X-RateLimit-Window")
	if check(bare, good.Raw) == nil {
		t.Error("a response without X-RateLimit-Window passed")
	}
}
