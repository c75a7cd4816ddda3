package smart_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"

	"providerdir/catalog"
	"providerdir/internal/httpserver"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/liveserver"
)

// fakeClock is the injectable clock: tests move it instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testEnv is a providerd-shaped server: the real httpserver router with a /fhir surface holding
// the SMART routes and a stand-in FHIR handler behind Protect that does what the FHIR package
// will: 403 without the scope, 404 for a sandbox grant outside the subset.
type testEnv struct {
	st       store.Store
	svc      *smart.Service
	srv      *httptest.Server
	handler  http.Handler // the server's handler, for benchmarks that skip the network
	clock    *fakeClock
	logs     *liveserver.SyncBuffer
	tokenURL string
	keyFile  string
}

func newEnv(t testing.TB, mods ...func(*smart.Config)) *testEnv {
	t.Helper()
	st := backends.Embedded(t)
	return newEnvOn(t, st, mods...)
}

func newEnvOn(t testing.TB, st store.Store, mods ...func(*smart.Config)) *testEnv {
	t.Helper()
	e := &testEnv{st: st, clock: &fakeClock{t: time.Now()}, logs: &liveserver.SyncBuffer{}}
	var handler http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	e.keyFile = t.TempDir() + "/sandbox-client.jwk"
	cfg := smart.Config{
		Store: st, BaseURL: e.srv.URL, SandboxKeyFile: e.keyFile, Now: e.clock.Now,
		Log: slog.New(slog.NewJSONHandler(e.logs, nil)), JWKSForcedRefresh: time.Nanosecond,
	}
	for _, m := range mods {
		m(&cfg)
	}
	svc, err := smart.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e.svc, e.tokenURL = svc, svc.TokenURL()
	handler, err = httpserver.New(httpserver.Options{
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Surfaces: []httpserver.Surface{{Name: "fhir", Prefix: "/fhir", Error: outcome, Routes: func(r *mux.Router) {
			svc.Routes(r)
			r.Use(svc.Protect) // the whole surface, as providerd may wire it; open paths pass
			r.HandleFunc("/metadata", func(w http.ResponseWriter, _ *http.Request) {
				io.WriteString(w, `{"resourceType":"CapabilityStatement"}`)
			})
			r.HandleFunc("/SearchParameter/{id}", func(w http.ResponseWriter, _ *http.Request) {
				io.WriteString(w, `{"resourceType":"SearchParameter"}`)
			})
			r.HandleFunc("/{type}/{id}", stubRead(st)).Methods(http.MethodGet)
			r.HandleFunc("/{type}", stubSearch).Methods(http.MethodGet)
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.handler = handler
	return e
}

// outcome is the FHIR surface's error writer as package fhir writes it (an OperationOutcome);
// it is repeated here so these tests do not depend on the FHIR package's progress.
func outcome(w http.ResponseWriter, _ *http.Request, status int, _, message string) {
	w.Header().Set("Content-Type", "application/fhir+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"resourceType": "OperationOutcome",
		"issue": []any{map[string]string{"severity": "error", "code": "processing", "diagnostics": message}}})
}

// stubRead stands in for a FHIR read: it echoes the grant it was given.
func stubRead(st store.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := mux.Vars(r)
		g, ok := smart.GrantFrom(r.Context())
		if !ok || !g.Allows(v["type"], catalog.Read) {
			outcome(w, r, http.StatusForbidden, "forbidden", "scope does not allow reading "+v["type"])
			return
		}
		if g.Sandbox {
			if !inSandbox(r.Context(), st, v["id"]) {
				outcome(w, r, http.StatusNotFound, "not_found", "no such resource")
				return
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"resourceType": v["type"], "id": v["id"], "grant": g})
	}
}

func stubSearch(w http.ResponseWriter, r *http.Request) {
	g, ok := smart.GrantFrom(r.Context())
	if !ok || !g.Allows(mux.Vars(r)["type"], catalog.Search) {
		outcome(w, r, http.StatusForbidden, "forbidden", "scope does not allow search")
		return
	}
	io.WriteString(w, `{"resourceType":"Bundle"}`)
}

// testKey is a client key pair: the private JWK the client signs with and its public JWKS.
type testKey struct {
	priv jwk.Key
	jwks []byte
	kid  string
	alg  jwa.SignatureAlgorithm
}

var (
	keyMu    sync.Mutex
	keyCache = map[string]testKey{}
)

// rsaKey and ecKey return a key pair per name, generated once per test binary (RSA generation
// is the slow part of these tests).
func rsaKey(t testing.TB, name string) testKey {
	return cachedKey(t, "rsa-"+name, func() (any, jwa.SignatureAlgorithm, error) {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		return k, jwa.RS384(), err
	})
}

func ecKey(t testing.TB, name string) testKey {
	return cachedKey(t, "ec-"+name, func() (any, jwa.SignatureAlgorithm, error) {
		k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		return k, jwa.ES384(), err
	})
}

func cachedKey(t testing.TB, name string, gen func() (any, jwa.SignatureAlgorithm, error)) testKey {
	t.Helper()
	keyMu.Lock()
	defer keyMu.Unlock()
	if k, ok := keyCache[name]; ok {
		return k
	}
	raw, alg, err := gen()
	if err != nil {
		t.Fatal(err)
	}
	priv, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	kid := name + "-" + randHex(4)
	priv.Set(jwk.KeyIDKey, kid)
	pub, err := priv.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	set := jwk.NewSet()
	set.AddKey(pub)
	jwks, _ := json.Marshal(set)
	k := testKey{priv: priv, jwks: jwks, kid: kid, alg: alg}
	keyCache[name] = k
	return k
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// addClient registers a client with an inline JWKS.
func (e *testEnv) addClient(t testing.TB, k testKey, scopes ...string) string {
	t.Helper()
	if len(scopes) == 0 {
		scopes = []string{"system/*.read"}
	}
	c, err := smart.AddClient(context.Background(), e.st, smart.ClientSpec{Name: "test " + k.kid, JWKS: k.jwks, Scopes: scopes})
	if err != nil {
		t.Fatal(err)
	}
	return c.ID
}

// claims are the claims of a well-formed assertion from client id.
func (e *testEnv) claims(id string) map[string]any {
	now := e.clock.Now()
	return map[string]any{"iss": id, "sub": id, "aud": e.tokenURL, "exp": now.Add(5 * time.Minute).Unix(),
		"iat": now.Unix(), "jti": randHex(16)}
}

// sign signs claims with key under alg with the given extra protected headers (kid defaults to
// the key's own).
func sign(t testing.TB, key any, alg jwa.SignatureAlgorithm, kid string, claims map[string]any, extra map[string]any) string {
	t.Helper()
	payload, _ := json.Marshal(claims)
	if k, ok := key.(jwk.Key); ok { // jws copies a key's own kid into the header
		k, _ = k.Clone()
		k.Remove(jwk.KeyIDKey)
		if kid != "" {
			k.Set(jwk.KeyIDKey, kid)
		}
		key = k
	}
	h := jws.NewHeaders()
	h.Set(jws.TypeKey, "JWT")
	if kid != "" {
		h.Set(jws.KeyIDKey, kid)
	}
	for k, v := range extra {
		h.Set(k, v)
	}
	b, err := jws.Sign(payload, jws.WithKey(alg, key, jws.WithProtectedHeaders(h)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// unsigned builds an alg=none JWS by hand: jwx will not sign one.
func unsigned(kid string, claims map[string]any) string {
	h, _ := json.Marshal(map[string]any{"alg": "none", "typ": "JWT", "kid": kid})
	p, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding.EncodeToString
	return enc(h) + "." + enc(p) + "."
}

func tokenForm(assertion, scope string) url.Values {
	return url.Values{
		"grant_type":            {"client_credentials"},
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion":      {assertion},
		"scope":                 {scope},
	}
}

// oauthReply is a token endpoint answer, success or error.
type oauthReply struct {
	status int
	header http.Header
	smart.TokenResponse
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

func (e *testEnv) postToken(t testing.TB, form url.Values) oauthReply {
	t.Helper()
	res, err := http.Post(e.srv.URL+"/fhir/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	r := oauthReply{status: res.StatusCode, header: res.Header}
	body, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("token endpoint answered %d with non-JSON %q", res.StatusCode, body)
	}
	return r
}

// get calls a FHIR path with an optional bearer token.
func (e *testEnv) get(t testing.TB, path, token string) (int, http.Header, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("GET %s: %d with non-JSON body %q", path, res.StatusCode, b)
	}
	return res.StatusCode, res.Header, body
}

// token gets an access token for client id signed with k, failing the test otherwise.
func (e *testEnv) token(t testing.TB, id string, k testKey, scope string) smart.TokenResponse {
	t.Helper()
	r := e.postToken(t, tokenForm(sign(t, k.priv, k.alg, k.kid, e.claims(id), nil), scope))
	if r.status != http.StatusOK {
		t.Fatalf("token request: %d %s %s", r.status, r.Error, r.Description)
	}
	return r.TokenResponse
}

// inSandbox reports whether id is one of the serving sandbox subset's NPIs.
func inSandbox(ctx context.Context, st store.Store, id string) bool {
	snap, err := store.Serving(ctx, st)
	if err != nil {
		return false
	}
	gen := snap.Generation(catalog.SandboxNPIs)
	if gen == "" {
		return false
	}
	_, err = st.Get(ctx, gen, catalog.SandboxNPIs, id)
	return err == nil
}

// serveSandbox makes npis the serving sandbox subset.
func serveSandbox(t testing.TB, st store.Store, npis []string) {
	t.Helper()
	ctx := context.Background()
	gen, err := store.NewGeneration(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([]store.Document, len(npis))
	for i, n := range npis {
		docs[i] = store.Document{ID: n, Body: []byte(`{}`)}
	}
	if err := st.Put(ctx, gen, catalog.SandboxNPIs, docs); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Switch(ctx, st, snap, map[string]string{catalog.SandboxNPIs: gen}, "test sandbox"); err != nil {
		t.Fatal(err)
	}
}

func fmtStatus(status int, code string) string { return fmt.Sprintf("%d %s", status, code) }
