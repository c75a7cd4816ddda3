package smart_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"

	"providerdir/catalog"
	"providerdir/quota"
	"providerdir/smart"
)

// unmetered lifts the budgets out of a benchmark's way: it measures what a request costs, the
// metering included, not how soon a budget runs out.
func unmetered(c *smart.Config) {
	big := quota.Policy{Name: "bench", Windows: []quota.Window{quota.RollingMinute(1 << 40)}}
	c.ClientPolicy, c.SandboxPolicy, c.TokenPolicy = big, big, big
}

// BenchmarkTokenEndpoint measures POST /fhir/token through the real router and middleware, from
// a signed assertion to a signed access token: the per-address budget's compare-and-swap, JWS
// parse, client record read, signature check, the jti guard write (a synced store write, as the
// budget's is) and the HS256 signature. Assertions are signed before the clock starts; the
// client's cost is not the server's.
func BenchmarkTokenEndpoint(b *testing.B) {
	for _, k := range []testKey{rsaKey(b, "bench"), ecKey(b, "bench")} {
		b.Run(k.alg.String(), func(b *testing.B) {
			e := newEnv(b, unmetered)
			id := e.addClient(b, k)
			bodies := make([]string, b.N)
			for i := range bodies {
				bodies[i] = tokenForm(sign(b, k.priv, k.alg, k.kid, e.claims(id), nil), "system/*.read").Encode()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest(http.MethodPost, "/fhir/token", strings.NewReader(bodies[i]))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				w := httptest.NewRecorder()
				e.handler.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// BenchmarkTokenEndpointParallel is BenchmarkTokenEndpoint's RS384 case with as many
// concurrent requests as cores: the token endpoint's throughput, beside BenchmarkVerifyRS384's
// ceiling of the signature check alone.
func BenchmarkTokenEndpointParallel(b *testing.B) {
	k := rsaKey(b, "bench")
	e := newEnv(b, unmetered)
	id := e.addClient(b, k)
	bodies := make([]string, b.N)
	for i := range bodies {
		bodies[i] = tokenForm(sign(b, k.priv, k.alg, k.kid, e.claims(id), nil), "system/*.read").Encode()
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/fhir/token", strings.NewReader(bodies[next.Add(1)-1]))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			w := httptest.NewRecorder()
			e.handler.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Errorf("%d %s", w.Code, w.Body)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkProtect measures what Protect adds to a FHIR request with a valid token, through to a
// handler that does nothing: the HS256 check, the cached client status, and the client budget's
// compare-and-swap, a synced store write.
func BenchmarkProtect(b *testing.B) {
	e := newEnv(b, unmetered)
	k := ecKey(b, "bench")
	tok := e.token(b, e.addClient(b, k), k, "system/*.read").AccessToken
	h := e.svc.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g, ok := smart.GrantFrom(r.Context()); !ok || !g.Allows("Practitioner", catalog.Read) {
			w.WriteHeader(http.StatusForbidden)
		}
	}))
	req := httptest.NewRequest(http.MethodGet, "/fhir/Practitioner/1234567893", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%d", w.Code)
		}
	}
}

// BenchmarkVerifyRS384 is the ceiling of the token endpoint's signature check: verifying an
// RS384 compact JWS with the public key already parsed, and nothing else, as jws.Verify does it.
func BenchmarkVerifyRS384(b *testing.B) {
	k := rsaKey(b, "bench")
	pub, err := k.priv.PublicKey()
	if err != nil {
		b.Fatal(err)
	}
	e := newEnv(b, unmetered)
	assertion := []byte(sign(b, k.priv, k.alg, k.kid, e.claims("bench"), nil))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jws.Verify(assertion, jws.WithKey(jwa.RS384(), pub)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "verifies/s")
}
