package smart

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// jwkJSON imports a raw key, sets fields on it and returns the set {"keys":[it]} as JSON.
func jwkJSON(t testing.TB, raw any, public bool, fields map[string]any) []byte {
	t.Helper()
	k, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	if public {
		if k, err = k.PublicKey(); err != nil {
			t.Fatal(err)
		}
	}
	for n, v := range fields {
		if err := k.Set(n, v); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(map[string]any{"keys": []any{k}})
	return b
}

// smallRSAJWKS writes an RSA public key by hand: jwx refuses to import one under 2048 bits.
func smallRSAJWKS(k *rsa.PrivateKey) []byte {
	enc := base64.RawURLEncoding.EncodeToString
	b, _ := json.Marshal(map[string]any{"keys": []any{map[string]string{
		"kty": "RSA", "kid": "small", "n": enc(k.N.Bytes()), "e": enc(big.NewInt(int64(k.E)).Bytes()),
	}}})
	return b
}

func TestValidateJWKS(t *testing.T) {
	rsaK, _ := rsa.GenerateKey(rand.Reader, 2048)
	smallRSA, _ := rsa.GenerateKey(rand.Reader, 1024)
	ec384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	ec256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	kid := map[string]any{jwk.KeyIDKey: "k1"}
	twoSame := func() []byte {
		a := jwkJSON(t, rsaK, true, kid)
		b := jwkJSON(t, ec384, true, kid)
		var sa, sb map[string][]any
		json.Unmarshal(a, &sa)
		json.Unmarshal(b, &sb)
		out, _ := json.Marshal(map[string]any{"keys": append(sa["keys"], sb["keys"]...)})
		return out
	}
	tests := []struct {
		name string
		jwks []byte
		err  string // "" for accepted
	}{
		{"RSA public", jwkJSON(t, rsaK, true, kid), ""},
		{"EC P-384 public", jwkJSON(t, ec384, true, kid), ""},
		{"RSA with alg RS384", jwkJSON(t, rsaK, true, map[string]any{jwk.KeyIDKey: "k", jwk.AlgorithmKey: jwa.RS384()}), ""},
		{"RSA with alg RS256", jwkJSON(t, rsaK, true, map[string]any{jwk.KeyIDKey: "k", jwk.AlgorithmKey: jwa.RS256()}), "only RS384"},
		{"use enc", jwkJSON(t, rsaK, true, map[string]any{jwk.KeyIDKey: "k", jwk.KeyUsageKey: "enc"}), "not sig"},
		{"no kid", jwkJSON(t, rsaK, true, nil), "no kid"},
		{"duplicate kid", twoSame(), "two keys"},
		{"private key", jwkJSON(t, rsaK, false, kid), "private"},
		{"EC P-256", jwkJSON(t, ec256, true, kid), "P-384"},
		{"symmetric", jwkJSON(t, []byte("0123456789abcdef0123456789abcdef"), false, kid), "private or symmetric"},
		{"RSA 1024", smallRSAJWKS(smallRSA), "does not parse"},
		{"empty set", []byte(`{"keys":[]}`), "no keys"},
		{"not JSON", []byte(`nope`), "does not parse"},
		{"too large", []byte(`{"keys":[` + strings.Repeat(" ", maxJWKSBytes) + `]}`), "larger"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := validateJWKS(tt.jwks)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(out), `"d"`) {
					t.Error("private member kept")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("got %v, want an error containing %q", err, tt.err)
			}
		})
	}
}

func TestCheckJWKSURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://client.example/jwks.json":     true,
		"http://127.0.0.1:8443/jwks.json":      true,
		"http://[::1]/jwks":                    true,
		"http://localhost/jwks":                true,
		"http://client.example/jwks.json":      false,
		"ftp://client.example/jwks.json":       false,
		"https://user:pw@client.example/jwks":  false,
		"https://client.example/jwks#fragment": false,
		"/relative/jwks.json":                  false,
		"https://" + strings.Repeat("a", 2100): false,
	} {
		if err := checkJWKSURL(u); (err == nil) != ok {
			t.Errorf("%q: %v", u, err)
		}
	}
}

// TestJWKSCacheHonoursCacheControl: a fetched set is kept as long as its max-age says, within
// the configured floor and ceiling.
func TestJWKSCacheHonoursCacheControl(t *testing.T) {
	ec, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	body := jwkJSON(t, ec, true, map[string]any{jwk.KeyIDKey: "k"})
	ks, err := newKeyStore(Config{JWKSMinRefresh: 15 * time.Second, JWKSMaxRefresh: time.Hour, JWKSForcedRefresh: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ks.close()
	tests := []struct {
		cacheControl string
		want         time.Duration
	}{
		{"public, max-age=600", 600 * time.Second},
		{"max-age=86400", time.Hour},    // ceiling
		{"max-age=2", 15 * time.Second}, // floor
		{"no-store", 15 * time.Second},  // no lifetime given: the floor
		{"", 15 * time.Second},          // likewise
		{"max-age=120, must-revalidate", 120 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.cacheControl, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				if tt.cacheControl != "" {
					w.Header().Set("Cache-Control", tt.cacheControl)
				}
				w.Write(body)
			}))
			defer srv.Close()
			before := time.Now()
			if _, err := ks.remoteSet(context.Background(), srv.URL); err != nil {
				t.Fatal(err)
			}
			r, err := ks.cache.LookupResource(context.Background(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Next().Sub(before); got < tt.want-time.Second || got > tt.want+5*time.Second {
				t.Errorf("next fetch in %s, want %s", got, tt.want)
			}
		})
	}
}
