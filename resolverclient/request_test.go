package resolverclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"providerdir/resolverclient"
	"providerdir/stored"
)

// Each method sends the request of its path in docs/contracts/resolver-api.md §4 and decodes the
// documented payload of section 2 without losing a field: encoding the decoded result gives the
// body back.
func TestRequestsAndPayloads(t *testing.T) {
	const prov = `"_source":"CMS","_source_url":"https://example.org/s","_dataset_id":"nppes","_snapshot":"2026-01-01",` +
		`"_methodology":"npi-resolution/1.0","_last_checked":"2026-01-02T03:04:05Z","_confidence":0.97,` +
		`"_data_availability":["present"],"_pipeline_version":"abc1234","_doi":null,"_license":"CC0-1.0",` +
		`"_coverage_period_start":"2005-05-23","_coverage_period_end":"ongoing","_slsa_provenance_url":null`
	tests := []struct {
		name        string
		call        func(c *resolverclient.Client) (any, error)
		method, uri string
		body        string // the request body, "" for none
		response    string
	}{
		{"npi", func(c *resolverclient.Client) (any, error) { return c.NPI(context.Background(), "1234567893") },
			"GET", "/resolver/v1/npi/1234567893", "",
			`{"npi":"1234567893","entity_type":"organization","organization_name":"A","primary_taxonomy":"282N00000X","enumeration_date":"2007-01-01","address":{"city":"X","state":"CA","postal_code":"94000"},"pecos_enrolled":true,` + prov + `}`},
		{"npi with facts", func(c *resolverclient.Client) (any, error) {
			return c.NPIWithFacts(context.Background(), "1234567893")
		}, "GET", "/resolver/v1/npi/1234567893?include=facts", "",
			`{"npi":"1234567893","entity_type":"individual","name":{"first":"A","last":"B"},"address":{"state":"CA"},"facts":[{"type":"exclusion","value":false,` + prov + `},{"type":"care_compare_star","value":4,"ccn":"050001",` + prov + `}],` + prov + `}`},
		{"npi escaped", func(c *resolverclient.Client) (any, error) { return c.NPI(context.Background(), "x y?#%..") },
			"GET", "/resolver/v1/npi/x%20y%3F%23%25..", "", `{"npi":"x","entity_type":"organization","address":{},` + prov + `}`},
		{"ccn", func(c *resolverclient.Client) (any, error) { return c.CCN(context.Background(), "050001") },
			"GET", "/resolver/v1/ccn/050001", "",
			`{"ccn":"050001","facility_name":"F","facility_type":"Acute Care Hospitals","ownership_type":"Voluntary non-profit - Private","address":{"city":"X","state":"CA"},"overall_star":4,` + prov + `}`},
		{"search", func(c *resolverclient.Client) (any, error) {
			return c.Search(context.Background(), resolverclient.SearchParams{Q: "jose garcia", State: "TX", Taxonomy: "207Q00000X", Limit: 5, Page: 2})
		}, "GET", "/resolver/v1/search?limit=5&page=2&q=jose+garcia&state=TX&taxonomy=207Q00000X", "",
			`{"query":{"q":"jose garcia","state":"TX","taxonomy":"207Q00000X","limit":5,"page":2,"near":null,"radius":null},"total":7,"results":[{"npi":"1234567893","name":"JOSE GARCIA","entity_type":"individual","taxonomy":"207Q00000X","city":"AUSTIN","state":"TX","_match_score":0.93,` + prov + `}]}`},
		{"search near a ZIP", func(c *resolverclient.Client) (any, error) {
			return c.Search(context.Background(), resolverclient.SearchParams{Taxonomy: "207RC0000X", Near: "10001", RadiusMiles: 25.5})
		}, "GET", "/resolver/v1/search?near=10001&radius=25.5&taxonomy=207RC0000X", "",
			`{"query":{"q":"","state":null,"taxonomy":"207RC0000X","limit":20,"page":1,"near":"10001","radius":25.5},"total":1,"results":[{"npi":"1234567893","name":"A B","entity_type":"individual","city":"NEW YORK","state":"NY","_match_score":0,"distance_miles":0.4,` + prov + `}]}`},
		{"search without filters", func(c *resolverclient.Client) (any, error) {
			return c.Search(context.Background(), resolverclient.SearchParams{Q: "smith"})
		}, "GET", "/resolver/v1/search?q=smith", "", `{"query":{"q":"smith","state":null,"taxonomy":null,"limit":20,"page":1,"near":null,"radius":null},"total":0,"results":[]}`},
		{"quality", func(c *resolverclient.Client) (any, error) {
			return c.Quality(context.Background(), "nursing-home", "055001")
		},
			"GET", "/resolver/v1/quality/nursing-home/055001", "",
			`{"type":"nursing-home","ccn":"055001","facility_name":"N","overall_star":3,"measurement_period":"2024-01-01/2024-12-31","measures":[{"id":"m1","value":null,"national_avg":12.5},{"id":"m2","value":0.5,"national_avg":0.4}],` + prov + `}`},
		{"payments", func(c *resolverclient.Client) (any, error) { return c.Payments(context.Background(), "1234567893") },
			"GET", "/resolver/v1/payments/1234567893", "",
			`{"npi":"1234567893","program_year":2024,"total_amount_usd":150.25,"record_count":2,"records":[{"record_id":"r1","manufacturer":"M","amount_usd":100,"nature":"Food and Beverage","date":"2024-03-01","match_method":"npi_and_last_name","_confidence":1},{"record_id":"r2","manufacturer":"N","amount_usd":50.25,"match_method":"name_and_state","_confidence":0.7}],"program_years":[2023,2024],` + prov + `}`},
		{"quality without star or period", func(c *resolverclient.Client) (any, error) {
			return c.Quality(context.Background(), "asc", "05C0000001")
		},
			"GET", "/resolver/v1/quality/asc/05C0000001", "",
			`{"type":"asc","ccn":"05C0000001","overall_star":null,"measurement_period":null,"measures":[],` + prov + `}`},
		{"ccn with nulls", func(c *resolverclient.Client) (any, error) { return c.CCN(context.Background(), "152300") },
			"GET", "/resolver/v1/ccn/152300", "",
			`{"ccn":"152300","facility_name":"F","facility_type":null,"ownership_type":null,"address":{"city":null,"state":"IN"},"overall_star":null,` + prov + `}`},
		{"sandbox", func(c *resolverclient.Client) (any, error) { return c.Sandbox(context.Background()) },
			"GET", "/resolver/v1/sandbox", "",
			`{"key":"pdsandbox_k","tier":"sandbox","limits":{"requests_per_hour":100,"metered_by":"client_address","batch_max_npis":1000,"batch_npis_per_hour":1000,"search_max_limit":100}}`},
		{"batch", func(c *resolverclient.Client) (any, error) {
			return c.BatchNPI(context.Background(), []string{"1234567893", "1234567885"})
		}, "POST", "/resolver/v1/batch/npi", `{"npis":["1234567893","1234567885"]}`,
			`{"requested":2,"resolved":1,"results":[{"npi":"1234567893","entity_type":"organization","address":{"state":"CA"},` + prov + `},null]}`},
		{"empty batch", func(c *resolverclient.Client) (any, error) { return c.BatchNPI(context.Background(), nil) },
			"POST", "/resolver/v1/batch/npi", `{"npis":[]}`, `{"requested":0,"resolved":0,"results":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct{ method, uri, body, key, contentType string }
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				got.method, got.uri, got.body = r.Method, r.RequestURI, string(b)
				got.key, got.contentType = r.Header.Get("X-Service-Key"), r.Header.Get("Content-Type")
				_, _ = io.WriteString(w, tt.response)
			}))
			defer srv.Close()
			c, err := resolverclient.New(srv.URL+"/resolver/v1/", resolverclient.Options{APIKey: "pdsandbox_k"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := tt.call(c)
			if err != nil {
				t.Fatal(err)
			}
			if got.method != tt.method || got.uri != tt.uri || got.body != tt.body || got.key != "pdsandbox_k" {
				t.Errorf("sent %s %s %q key %q, want %s %s %q", got.method, got.uri, got.body, got.key, tt.method, tt.uri, tt.body)
			}
			if tt.body != "" && got.contentType != "application/json" {
				t.Errorf("Content-Type %q", got.contentType)
			}
			sameJSON(t, res, tt.response)
		})
	}
}

// sameJSON fails unless v encodes to the same JSON value as want.
func sameJSON(t *testing.T, v any, want string) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, w any
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, w) {
		t.Errorf("re-encoded\n%s\nwant\n%s", b, want)
	}
}

// The client's provenance record names exactly the server's 14 keys, in contract order.
func TestProvenanceKeys(t *testing.T) {
	typ := reflect.TypeFor[resolverclient.Provenance]()
	var keys []string
	for i := range typ.NumField() {
		keys = append(keys, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	if !reflect.DeepEqual(keys, stored.ProvenanceKeys) {
		t.Errorf("keys %v, want %v", keys, stored.ProvenanceKeys)
	}
}

// New refuses a base URL it cannot call.
func TestNewRefusesBadBase(t *testing.T) {
	for _, u := range []string{"", "localhost:8080", "ftp://h/resolver/v1", "http:///resolver/v1", "http://h/v1?x=1", "http://h/v1#f"} {
		if _, err := resolverclient.New(u, resolverclient.Options{}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
}

// An identifier that would not stay one path segment (empty, a dot segment, or holding a slash
// or backslash) is refused with ErrInvalidArgument before any request: a server or proxy that
// normalizes the path would send the request to another resource.
func TestArgumentsThatAreNotOneSegment(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("a request was sent: %s %s", r.Method, r.RequestURI)
		w.WriteHeader(http.StatusTeapot)
	}))
	defer srv.Close()
	c, err := resolverclient.New(srv.URL+"/resolver/v1", resolverclient.Options{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
	}{
		{"empty npi", func() error { _, err := c.NPI(ctx, ""); return err }},
		{"npi .", func() error { _, err := c.NPI(ctx, "."); return err }},
		{"npi ..", func() error { _, err := c.NPI(ctx, ".."); return err }},
		{"npi ../webhooks", func() error { _, err := c.NPI(ctx, "../webhooks"); return err }},
		{"npi with facts ..", func() error { _, err := c.NPIWithFacts(ctx, ".."); return err }},
		{"ccn with a backslash", func() error { _, err := c.CCN(ctx, `..\webhooks`); return err }},
		{"payments ..", func() error { _, err := c.Payments(ctx, ".."); return err }},
		{"quality type ..", func() error { _, err := c.Quality(ctx, "..", "webhooks"); return err }},
		{"quality ccn .", func() error { _, err := c.Quality(ctx, "hospital", "."); return err }},
		{"quality ccn with a slash", func() error { _, err := c.Quality(ctx, "hospital", "050001/../../x"); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, resolverclient.ErrInvalidArgument) {
				t.Errorf("error %v, want ErrInvalidArgument", err)
			}
		})
	}
}

// A client without a key sends no X-Service-Key header at all: a blank one is not a key.
func TestNoKeyNoHeader(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v, ok := r.Header[http.CanonicalHeaderKey(resolverclient.HeaderServiceKey)]; ok {
			t.Errorf("X-Service-Key sent: %q", v)
		}
		_, _ = io.WriteString(w, `{"key":"k","tier":"sandbox","limits":{}}`)
	}))
	defer srv.Close()
	c, err := resolverclient.New(srv.URL+"/resolver/v1", resolverclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := c.Sandbox(context.Background()); err != nil || s.Key != "k" {
		t.Errorf("%+v, %v", s, err)
	}
}
