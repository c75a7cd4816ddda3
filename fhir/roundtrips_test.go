package fhir_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/fhir"
	"providerdir/internal/httpserver"
	"providerdir/testing/storecontract"
)

// TestIncludeRoundTrips: a search page costs a bounded number of store calls, whatever the
// number of resources it includes: one Find for the page, one read per included type, and no
// Get per included resource; an NPI list is read together too.
func TestIncludeRoundTrips(t *testing.T) {
	e := sharedEnv(t)
	cs := &storecontract.Counting{Store: e.st}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := fhir.New(fhir.Config{Store: cs, BaseURL: e.base, GrantFrom: smartGrant, Log: quiet})
	h, err := httpserver.New(httpserver.Options{Logger: quiet, Surfaces: []httpserver.Surface{{Name: "fhir", Prefix: "/fhir", Error: fhir.Error,
		Routes: func(r *mux.Router) { r.Use(testGrant); srv.Routes(r) }}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	defer ts.Close()
	all := e.all(t)
	var npis []string
	for id := range all["Practitioner"] {
		if npis = append(npis, id); len(npis) == 5 {
			break
		}
	}
	for _, c := range []struct {
		name     string
		query    url.Values
		headers  []string
		included int // at least this many included resources
		// At most this many calls of each kind: the included resources are read by GetBodies
		// unless their keys are needed (a sandbox grant filters by them, an :iterate include
		// follows their references), then by GetMany.
		getMany, getBodies, finds int64
	}{
		{"roles with their practitioners, organizations and locations", url.Values{"_count": {"30"},
			"_include": {"PractitionerRole:practitioner", "PractitionerRole:organization", "PractitionerRole:location"}}, nil, 30, 0, 3, 1},
		{"an iterate include reads keys", url.Values{"_count": {"30"},
			"_include:iterate": {"PractitionerRole:practitioner"}}, nil, 30, 2, 0, 1},
		{"a sandbox grant reads keys", url.Values{"_count": {"30"},
			"_include": {"PractitionerRole:practitioner", "PractitionerRole:organization"}}, []string{"X-Test-Sandbox", "1"}, 1, 2, 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			// The serving snapshot and the tag sets are read once, on first use.
			get(t, ts.URL+"/fhir/PractitionerRole?"+c.query.Encode(), c.headers...)
			cs.Reset()
			r := get(t, ts.URL+"/fhir/PractitionerRole?"+c.query.Encode(), c.headers...)
			b := e.checkBundle(t, r)
			n := 0
			for _, en := range b.Entry {
				if en.Search.Mode == "include" {
					n++
				}
			}
			if n < c.included {
				t.Fatalf("%d resources included, want at least %d", n, c.included)
			}
			g, m, bo, f := cs.Gets.Load(), cs.GetManys.Load(), cs.GetBodiesCalls.Load(), cs.Finds.Load()
			if g != 0 || m > c.getMany || bo > c.getBodies || f > c.finds || m+bo == 0 {
				t.Errorf("%d Get, %d GetMany, %d GetBodies, %d Find for %d included resources; want no Get, at most %d GetMany, %d GetBodies and %d Find",
					g, m, bo, f, n, c.getMany, c.getBodies, c.finds)
			}
		})
	}
	t.Run("NPI list", func(t *testing.T) {
		cs.Gets.Store(0)
		cs.GetManys.Store(0)
		q := url.Values{"identifier": {""}}
		for i, npi := range npis {
			if i > 0 {
				q["identifier"][0] += ","
			}
			q["identifier"][0] += "http://hl7.org/fhir/sid/us-npi|" + npi
		}
		e.checkBundle(t, get(t, ts.URL+"/fhir/Practitioner?"+q.Encode()))
		if g, m := cs.Gets.Load(), cs.GetManys.Load(); g != 0 || m != 1 {
			t.Errorf("%d Get and %d GetMany for %d NPIs, want none and one", g, m, len(npis))
		}
	})
}
