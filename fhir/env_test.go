package fhir_test

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/internal/httpserver"
	"providerdir/mapping/fhirmap"
	"providerdir/smart"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/testing/fhirvalidate"
	"providerdir/testing/liveserver"
)

// The tests run a real server on loopback (httptest) over a synthetic drop ingested into an
// embedded store, with the production router. A test middleware stands where SMART's Protect
// stands in production and puts a Grant into the context, chosen per request by test headers:
// X-Test-Grant: none sends none, X-Test-Scopes sets the scopes, X-Test-Sandbox: 1 confines it
// to the sandbox subset. Without them a request has system/*.rs.

var (
	dropsOnce          sync.Once
	dropRoot           string
	baseDrop, nextDrop string
	nextManifest       *synth.Manifest
	dropErr            error
	sharedOnce         sync.Once
	shared             *env
	sharedErr          error
	sharedStoreDir     string
)

// testProviders is the size of the test drop.
const testProviders = 400

// drops generates a base drop and its evolved successor once for the package.
func drops(tb testing.TB) (string, string) {
	tb.Helper()
	ref := reference.Embedded()
	dropsOnce.Do(func() {
		if dropRoot, dropErr = os.MkdirTemp("", "fhir-drops-"); dropErr != nil {
			return
		}
		baseDrop, nextDrop = filepath.Join(dropRoot, "base"), filepath.Join(dropRoot, "next")
		ctx := context.Background()
		if _, dropErr = synth.Generate(ctx, synth.Config{Providers: testProviders, Seed: 7, Out: baseDrop, Reference: ref}); dropErr != nil {
			return
		}
		nextManifest, dropErr = synth.Generate(ctx, synth.Config{Seed: 7, Out: nextDrop, Reference: ref, EvolveFrom: baseDrop})
	})
	if dropErr != nil {
		tb.Fatalf("generate drops: %v", dropErr)
	}
	return baseDrop, nextDrop
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.close()
	}
	if dropRoot != "" {
		os.RemoveAll(dropRoot)
	}
	if sharedStoreDir != "" {
		os.RemoveAll(sharedStoreDir)
	}
	os.Exit(code)
}

// env is a served, ingested store.
type env struct {
	st   store.Store
	srv  *httptest.Server
	base string // FHIR base URL
	ref  fs.FS
}

func (e *env) close() {
	e.srv.Close()
	e.st.Close()
}

// sharedEnv is the read-only environment most tests use: the base drop, ingested once.
func sharedEnv(tb testing.TB) *env {
	tb.Helper()
	base, _ := drops(tb)
	sharedOnce.Do(func() {
		if sharedStoreDir, sharedErr = os.MkdirTemp("", "fhir-store-"); sharedErr != nil {
			return
		}
		shared, sharedErr = newEnv(sharedStoreDir, base, reference.Embedded(), fhir.Config{})
	})
	if sharedErr != nil {
		tb.Fatal(sharedErr)
	}
	return shared
}

// freshEnv is an environment of its own, for tests that change the snapshot or the limits.
func freshEnv(t *testing.T, limits fhir.Config) *env {
	t.Helper()
	base, _ := drops(t)
	e, err := newEnv(t.TempDir(), base, reference.Embedded(), limits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.close)
	return e
}

// newEnv ingests drop into a store in dir and serves it; limits sets the server's caps and the
// CORS origins the HTTP server allows.
func newEnv(dir, drop string, ref fs.FS, limits fhir.Config) (*env, error) {
	st, err := embedded.Open(dir)
	if err != nil {
		return nil, err
	}
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: st, Dir: drop, Reference: ref}); err != nil {
		st.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		st.Close()
		return nil, err
	}
	e := &env{st: st, ref: ref, base: "http://" + ln.Addr().String() + "/fhir"}
	limits.Store, limits.BaseURL, limits.GrantFrom = st, e.base, smartGrant
	if limits.Log == nil {
		limits.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv := fhir.New(limits)
	h, err := httpserver.New(httpserver.Options{
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		CORSOrigins: limits.CORSOrigins,
		Surfaces: []httpserver.Surface{{Name: "fhir", Prefix: "/fhir", Error: fhir.Error, CORS: true, Routes: func(r *mux.Router) {
			r.Use(testGrant)
			srv.Routes(r)
		}}},
	})
	if err != nil {
		ln.Close()
		st.Close()
		return nil, err
	}
	e.srv = httptest.NewUnstartedServer(h)
	e.srv.Listener.Close()
	e.srv.Listener = ln
	e.srv.Start()
	return e, nil
}

// smartGrant finds the grant SMART's Protect, or testGrant standing in for it, put into the
// request's context, as cmd/providerd wires the FHIR surface.
func smartGrant(ctx context.Context) (fhir.Grant, bool) { return smart.GrantFrom(ctx) }

// testGrant stands in for SMART's Protect.
func testGrant(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Grant") == "none" {
			next.ServeHTTP(w, r)
			return
		}
		g := smart.Grant{ClientID: "test", Scopes: []string{"system/*.rs"}}
		if s := r.Header.Get("X-Test-Scopes"); s != "" {
			g.Scopes = strings.Fields(s)
		}
		g.Sandbox = r.Header.Get("X-Test-Sandbox") == "1"
		next.ServeHTTP(w, r.WithContext(smart.WithGrant(r.Context(), g)))
	})
}

// response is what a request returned.
type response struct {
	status int
	header http.Header
	body   []byte
}

func do(tb testing.TB, method, u string, body io.Reader, headers ...string) response {
	tb.Helper()
	resp, b := liveserver.Fetch(tb, method, u, body, headers...)
	return response{resp.StatusCode, resp.Header, b}
}

func get(tb testing.TB, u string, headers ...string) response {
	tb.Helper()
	return do(tb, http.MethodGet, u, nil, headers...)
}

// bundle is the part of a searchset Bundle the tests read.
type bundle struct {
	ResourceType string `json:"resourceType"`
	Type         string `json:"type"`
	Total        *int64 `json:"total"`
	Link         []struct {
		Relation string `json:"relation"`
		URL      string `json:"url"`
	} `json:"link"`
	Entry []struct {
		FullURL  string          `json:"fullUrl"`
		Resource json.RawMessage `json:"resource"`
		Search   struct {
			Mode string `json:"mode"`
		} `json:"search"`
	} `json:"entry"`
}

func (b *bundle) link(rel string) string {
	for _, l := range b.Link {
		if l.Relation == rel {
			return l.URL
		}
	}
	return ""
}

// outcome is an OperationOutcome.
type outcome struct {
	ResourceType string `json:"resourceType"`
	Issue        []struct {
		Severity    string `json:"severity"`
		Code        string `json:"code"`
		Diagnostics string `json:"diagnostics"`
	} `json:"issue"`
}

func decodeOutcome(tb testing.TB, r response) outcome {
	tb.Helper()
	var oo outcome
	if err := json.Unmarshal(r.body, &oo); err != nil || oo.ResourceType != "OperationOutcome" || len(oo.Issue) == 0 {
		tb.Fatalf("status %d: not an OperationOutcome: %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/fhir+json") {
		tb.Errorf("OperationOutcome served as %q", ct)
	}
	return oo
}

// idOf returns "Type/id" of a resource.
func idOf(raw json.RawMessage) string {
	var r struct {
		ResourceType string `json:"resourceType"`
		ID           string `json:"id"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.ResourceType + "/" + r.ID
}

// queryParam returns a parameter of a URL's query, "" if it has none.
func queryParam(u, name string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return p.Query().Get(name)
}

// searchResult is every page of a search, followed to the end.
type searchResult struct {
	total    *int64
	matches  []string // "Type/id" in order
	included []string
	outcomes []json.RawMessage
	pages    int
	first    bundle
	resumed  bool // started from a next link, not the first page
}

// searchAll runs a search and follows its next links to the end, validating every page and
// every resource on the way. Extra headers go with every request.
func (e *env) searchAll(tb testing.TB, u string, headers ...string) searchResult {
	tb.Helper()
	res := searchResult{resumed: strings.Contains(u, "_cursor=")}
	seen := map[string]bool{}
	for u != "" {
		r := get(tb, u, headers...)
		if r.status != http.StatusOK {
			tb.Fatalf("GET %s: %d %s", u, r.status, r.body)
		}
		b := e.checkBundle(tb, r)
		if res.pages == 0 {
			res.total, res.first = b.Total, b
		} else if (b.Total == nil) != (res.total == nil) || b.Total != nil && *b.Total != *res.total {
			tb.Errorf("page %d total %v, first page %v", res.pages, b.Total, res.total)
		}
		res.pages++
		onPage := 0
		for _, en := range b.Entry {
			id := idOf(en.Resource)
			switch en.Search.Mode {
			case "match":
				if seen[id] {
					tb.Errorf("%s: %s returned twice", u, id)
				}
				seen[id] = true
				res.matches = append(res.matches, id)
				onPage++
			case "include":
				res.included = append(res.included, id)
			case "outcome":
				res.outcomes = append(res.outcomes, en.Resource)
			}
		}
		if limit, err := strconv.Atoi(queryParam(u, "_count")); err == nil && onPage > limit {
			tb.Errorf("%s: %d matches on a page of _count=%d", u, onPage, limit)
		}
		next := b.link("next")
		if next != "" && !strings.HasPrefix(next, e.base+"/") {
			tb.Fatalf("next link %s is not under the base %s", next, e.base)
		}
		u = next
		if res.pages > 1000 {
			tb.Fatal("more than 1000 pages")
		}
	}
	if res.total != nil && int(*res.total) != len(res.matches) && !res.resumed {
		tb.Errorf("total %d, paged through %d", *res.total, len(res.matches))
	}
	return res
}

// checkBundle decodes a searchset and validates each resource in it with google/fhir/go and the
// profile rules.
func (e *env) checkBundle(tb testing.TB, r response) bundle {
	tb.Helper()
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/fhir+json") {
		tb.Errorf("Bundle served as %q", ct)
	}
	if cl := r.header.Get("Content-Length"); cl != strconv.Itoa(len(r.body)) {
		tb.Errorf("Content-Length %q for a Bundle of %d bytes", cl, len(r.body))
	}
	var b bundle
	if err := json.Unmarshal(r.body, &b); err != nil || b.ResourceType != "Bundle" || b.Type != "searchset" {
		tb.Fatalf("not a searchset: %v %.300s", err, r.body)
	}
	if b.link("self") == "" {
		tb.Error("Bundle without a self link")
	}
	for _, en := range b.Entry {
		if en.Search.Mode == "outcome" {
			continue
		}
		validate := fhirvalidate.Validate
		if strings.Contains(string(en.Resource), `"code":"SUBSETTED"`) {
			// A subsetted resource may lack what the profile makes mandatory; it must still parse.
			validate = func(b []byte, _ string) error { return fhirvalidate.Parse(b) }
		}
		if err := validate(en.Resource, e.base+"/provenance/"); err != nil {
			tb.Errorf("%v", err)
		}
		if want := e.base + "/" + idOf(en.Resource); en.FullURL != want {
			tb.Errorf("fullUrl %s, want %s", en.FullURL, want)
		}
	}
	return b
}

// all loads every served resource of the snapshot, as the client sees it, by type.
func (e *env) all(tb testing.TB) map[string]map[string]map[string]any {
	tb.Helper()
	out := map[string]map[string]map[string]any{}
	snap, err := store.Serving(context.Background(), e.st)
	if err != nil {
		tb.Fatal(err)
	}
	for _, typ := range fhirmap.Types {
		out[typ] = map[string]map[string]any{}
		coll := catalog.FHIRCollection(typ)
		q := store.Query{Collection: coll, Generation: snap.Generation(coll), Limit: 1000}
		for {
			page, err := e.st.Find(context.Background(), q)
			if err != nil {
				tb.Fatal(err)
			}
			for _, d := range page.Docs {
				resource, err := fhirvalidate.Stored(context.Background(), e.st, snap.Generation(catalog.FHIRTags), d)
				if err != nil {
					tb.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(resource, &m); err != nil {
					tb.Fatal(err)
				}
				if slices.Contains(d.Keys, store.Key{Param: fhirmap.KeySandbox, Value: "1"}) {
					m["__sandbox"] = true
				}
				out[typ][d.ID] = m
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	return out
}

func (e *env) url(path string, params ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		v.Add(params[i], params[i+1])
	}
	if len(v) == 0 {
		return e.base + path
	}
	return e.base + path + "?" + v.Encode()
}
