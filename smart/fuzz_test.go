package smart

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"providerdir/testing/backends"
)

// An inline JWKS of any shape is refused, or accepted as a canonical set that validates again
// to itself and holds only public RS384 or ES384 keys, each with a kid of its own.
func FuzzValidateJWKS(f *testing.F) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	rsaSet := jwkJSON(f, rsaKey, true, map[string]any{"kid": "r1"})
	f.Add(rsaSet)
	f.Add(jwkJSON(f, ecKey, true, map[string]any{"kid": "e1", "alg": "ES384"}))
	f.Add(jwkJSON(f, rsaKey, false, map[string]any{"kid": "private"}))
	f.Add(jwkJSON(f, p256, true, map[string]any{"kid": "p256"}))
	f.Add(jwkJSON(f, rsaKey, true, map[string]any{"kid": "r1", "alg": "RS256"}))
	f.Add(jwkJSON(f, rsaKey, true, nil))
	single, _ := json.Marshal(json.RawMessage(rsaSet[len(`{"keys":[`) : len(rsaSet)-len(`]}`)]))
	f.Add(single)
	f.Add(bytes.Replace(rsaSet, []byte(`]}`), append([]byte(","), rsaSet[len(`{"keys":[`):]...), 1))
	f.Add([]byte(`{"keys":[{"kty":"oct","k":"` + base64.RawURLEncoding.EncodeToString([]byte("secret")) + `","kid":"s"}]}`))
	f.Add([]byte(`{"keys":[]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		out, err := validateJWKS(raw)
		if err != nil {
			if out != nil {
				t.Fatalf("refused with output %s", out)
			}
			return
		}
		again, err := validateJWKS(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("accepted %q as %s, which validates to %s (%v)", raw, out, again, err)
		}
		set, err := jwk.Parse(out)
		if err != nil {
			t.Fatal(err)
		}
		var kids []string
		for i := range set.Len() {
			k, _ := set.Key(i)
			kid, _ := k.KeyID()
			if kid == "" || slices.Contains(kids, kid) {
				t.Fatalf("accepted %s: kid %q", out, kid)
			}
			kids = append(kids, kid)
			if priv, err := jwk.IsPrivateKey(k); err != nil || priv {
				t.Fatalf("accepted %s: key %q is private", out, kid)
			}
			if _, err := algorithmFor(k); err != nil {
				t.Fatalf("accepted %s: key %q: %v", out, kid, err)
			}
		}
	})
}

// A bearer token of any shape verifies only as a token this service issued: whatever the bytes,
// an accepted token's grant is the grant of one the service signed.
func FuzzVerifyAccess(f *testing.F) {
	now := time.Date(2026, 6, 8, 12, 0, 0, 0, time.UTC)
	key, err := decodeTokenKey([]byte(`{"kid":"k1","secret":"` + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32)) + `"}`))
	if err != nil {
		f.Fatal(err)
	}
	s := &Service{issuer: "https://dir.example/fhir", now: func() time.Time { return now }, tokenKey: key}
	clients := []Client{{ID: "payer-a"}, {ID: "sandbox-b", Sandbox: true}}
	var issued []Grant
	for i, c := range clients {
		scopes := []string{"system/Practitioner.rs", "system/*.rs"}[i:]
		tok, err := s.issue(c, scopes)
		if err != nil {
			f.Fatal(err)
		}
		g, err := s.verifyAccess(tok)
		if err != nil {
			f.Fatal(err)
		}
		issued = append(issued, g)
		parts := strings.Split(tok, ".")
		f.Add(tok)
		f.Add(parts[0] + "." + parts[1] + ".")
		f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + ".")
		f.Add(tok + "A")
	}
	f.Add("")
	f.Add("a.b.c")
	f.Fuzz(func(t *testing.T, raw string) {
		g, err := s.verifyAccess(raw)
		if err != nil {
			return
		}
		for _, want := range issued {
			if g.ClientID == want.ClientID && slices.Equal(g.Scopes, want.Scopes) && g.Sandbox == want.Sandbox && g.ExpiresAt.Equal(want.ExpiresAt) {
				return
			}
		}
		t.Fatalf("%q verified as a grant never issued: %+v", raw, g)
	})
}

// A client assertion of any shape authenticates only when the registered client's key signed
// it, names that client as its issuer, and has not been used before: an accepted assertion
// verifies with the registered key, and a second use of it is refused.
func FuzzAuthenticate(f *testing.F) {
	ctx := context.Background()
	st := backends.Embedded(f)
	now := time.Now()
	s, err := New(Config{Store: st, BaseURL: "https://dir.example/fhir", SandboxKeyFile: f.TempDir() + "/sandbox.jwk",
		Now: func() time.Time { return now }, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	priv, err := jwk.Import(rsaKey)
	if err != nil {
		f.Fatal(err)
	}
	if err := priv.Set(jwk.KeyIDKey, "k1"); err != nil {
		f.Fatal(err)
	}
	pub, err := priv.PublicKey()
	if err != nil {
		f.Fatal(err)
	}
	c, err := AddClient(ctx, st, ClientSpec{Name: "fuzz", JWKS: jwkJSON(f, rsaKey, true, map[string]any{"kid": "k1"}), Scopes: []string{"system/*.rs"}})
	if err != nil {
		f.Fatal(err)
	}
	probe, err := SignAssertion(c.ID, s.TokenURL(), priv, now)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := s.authenticate(ctx, tokenForm{Assertion: probe}); err != nil {
		f.Fatalf("a signed assertion does not authenticate: %v", err)
	}
	for range 2 {
		a, err := SignAssertion(c.ID, s.TokenURL(), priv, now)
		if err != nil {
			f.Fatal(err)
		}
		parts := strings.Split(a, ".")
		f.Add(a, "")
		f.Add(a, c.ID)
		f.Add(a, "someone-else")
		f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"k1"}`))+"."+parts[1]+".", "")
		f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS384","kid":"k1"}`))+"."+parts[1]+"."+parts[2], "")
		f.Add(parts[0]+"."+base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"`+c.ID+`","exp":"soon"}`))+"."+parts[2], "")
	}
	f.Add("", "")
	f.Fuzz(func(t *testing.T, assertion, clientID string) {
		got, err := s.authenticate(ctx, tokenForm{Assertion: assertion, ClientID: clientID})
		if err != nil {
			return
		}
		payload, err := jws.Verify([]byte(assertion), jws.WithKey(jwa.RS384(), pub))
		if err != nil {
			t.Fatalf("%q: accepted for %s without the registered key's signature: %v", assertion, got.ID, err)
		}
		var claims struct {
			Iss string `json:"iss"`
		}
		if json.Unmarshal(payload, &claims) != nil || claims.Iss != c.ID || got.ID != c.ID {
			t.Fatalf("%q: accepted for %s, issued by %q", assertion, got.ID, claims.Iss)
		}
		if _, err := s.authenticate(ctx, tokenForm{Assertion: assertion}); err == nil {
			t.Fatalf("%q: accepted twice", assertion)
		}
	})
}

// ParseBudget accepts exactly "default" (nil) and the strings of ASCII digits whose value, read
// as an unbounded integer, is at most MaxClientBudget, and returns that value; anything else is
// an error.
func FuzzParseBudget(f *testing.F) {
	for _, s := range []string{"0", "6000", "1000000", "1000001", "007", "-1", "+5", " 5", "5 ", "1e3", "1_000", "default", "Default", "", "٣", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBudget(s)
		if s == "default" {
			if b != nil || err != nil {
				t.Fatalf("%q: %v, %v; want the default", s, b, err)
			}
			return
		}
		want, digits := new(big.Int), s != ""
		for _, r := range s {
			digits = digits && r >= '0' && r <= '9'
		}
		if digits {
			want.SetString(s, 10)
		}
		if ok := digits && want.Cmp(big.NewInt(MaxClientBudget)) <= 0; !ok {
			if err == nil || b != nil {
				t.Fatalf("%q: %v, %v; want an error", s, b, err)
			}
			return
		}
		if err != nil || b == nil || *b != want.Int64() {
			t.Fatalf("%q: %v, %v; want %s", s, b, err, want)
		}
	})
}
