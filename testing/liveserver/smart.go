package liveserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/smart"
	"providerdir/store"
)

// SMARTClient is a SMART Backend Services client registered in a store, with the private key it
// signs its assertions with.
type SMARTClient struct {
	ID  string  // its client_id
	Key jwk.Key // a P-384 private key with kid "k1"; the client's registered JWKS holds its public half
}

// AddSMARTClient registers a client named name, allowed scopes, under a fresh key, the way an
// operator registers one, so that the token endpoint checks its assertions against a real JWKS.
func AddSMARTClient(tb testing.TB, st store.Store, name string, scopes ...string) SMARTClient {
	tb.Helper()
	raw, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	priv, err := jwk.Import(raw)
	if err != nil {
		tb.Fatal(err)
	}
	if err := priv.Set(jwk.KeyIDKey, "k1"); err != nil {
		tb.Fatal(err)
	}
	pub, err := priv.PublicKey()
	if err != nil {
		tb.Fatal(err)
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		tb.Fatal(err)
	}
	jwks, err := json.Marshal(set)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := smart.AddClient(context.Background(), st, smart.ClientSpec{Name: name, JWKS: jwks, Scopes: scopes})
	if err != nil {
		tb.Fatal(err)
	}
	return SMARTClient{ID: c.ID, Key: priv}
}
