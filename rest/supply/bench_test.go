package supply_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/rest/apikey"
	"providerdir/rest/supply"
)

// Handler benchmarks on the demo snapshot: the API's routes alone, as the router dispatches to
// them, without the gate (its key check and quota write are measured in rest/gate) or the
// network. Run: go test -run '^$' -bench . ./rest/supply/
func benchRoute(b *testing.B, path string) {
	st, _, _ := demoSnapshot(b)
	r := mux.NewRouter()
	supply.New(st, "https://directory.example.org").Routes(r.PathPrefix("/v1").Subrouter())
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if w := serve1(r, req); w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", path, w.Code, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if w := serve1(r, req); w.Code != http.StatusOK {
			b.Fatalf("%d", w.Code)
		}
	}
}

func serve1(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func BenchmarkByState(b *testing.B) { benchRoute(b, "/v1/specialties/cardiology/by-state") }

func BenchmarkByStateFiltered(b *testing.B) {
	benchRoute(b, "/v1/specialties/pediatrics/by-state?subspecialty=2080P0204X")
}

// The NPI has a registry record and a PECOS enrollment: four source lookups and two absent
// blocks, as most answers have.
func BenchmarkResolveNPI(b *testing.B) { benchRoute(b, "/v1/npi/"+demoFixtures(b).enrolled) }

// The same requests end to end: loopback HTTP, the router and middleware, the gate (key check,
// quota compare-and-swap in the store). The pilot quota is 60 a minute, so keyed requests rotate
// over keys made beforehand, 50 requests each; run with -benchtime Nx.
func benchHTTP(b *testing.B, path string, keyed bool) {
	e := demoEnv(b)
	var keys []string
	client := &http.Client{}
	n := 0
	do := func() {
		req, _ := http.NewRequest(http.MethodGet, e.URL+path, nil)
		req.Header.Set("X-Forwarded-For", e.IP)
		if keyed {
			if n/50 >= len(keys) {
				b.StopTimer()
				keys = append(keys, e.Key(b, apikey.TierPilot))
				b.StartTimer()
			}
			req.Header.Set("Authorization", "Bearer "+keys[n/50])
		} else if n%90 == 0 {
			e.IP = fmt.Sprintf("192.0.2.%d", n/90%250) // anonymous: 100 an hour per address
		}
		n++
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d", path, resp.StatusCode)
		}
	}
	do()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		do()
	}
}

func BenchmarkByStateHTTP(b *testing.B) { benchHTTP(b, "/v1/specialties/cardiology/by-state", true) }

func BenchmarkResolveNPIHTTP(b *testing.B) {
	benchHTTP(b, "/v1/npi/"+demoFixtures(b).enrolled, true)
}

func BenchmarkResolveNPIAnonymousHTTP(b *testing.B) {
	benchHTTP(b, "/v1/npi/"+demoFixtures(b).enrolled, false)
}
