package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/ingest"
	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/auditpack"
	"providerdir/rest/evidence"
	"providerdir/rest/gate"
	"providerdir/rest/intake"
	"providerdir/rest/supply"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/demostore"
	"providerdir/testing/liveserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// env is the service's surfaces over a store on a loopback listener, wired as providerd wires
// them: the supply API behind its gate, the service host with the access form, and the pages.
type env struct {
	*liveserver.Server
	store  store.Store
	intake *intake.Service
}

// envOptions adds what a test needs beside the real surfaces.
type envOptions struct {
	// audit serves the audit pages from the store's real packs (see markedPacks).
	audit bool
	// api registers extra handlers on the service host (/api), such as a recorded answer.
	api func(r *mux.Router)
	// evidence serves the real evidence demo on the service host.
	evidence bool
}

func newEnv(tb testing.TB, st store.Store, o envOptions) *env {
	tb.Helper()
	e := &env{store: st}
	e.Server = liveserver.Start(tb, st, liveserver.Options{}, func(base string, g *gate.Gate) []httpserver.Surface {
		e.intake = intake.New(st, g.Keys(), nil)
		var packs AuditSource
		if o.audit {
			packs = markedPacks{auditpack.New(st, base)}
		}
		site := New(st, Options{BaseURL: base, AuditPacks: packs})
		return []httpserver.Surface{
			liveserver.Supply(st, base, g),
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) {
				e.intake.Register(r, g.LimitIP(gate.AccessRequestPolicy))
				if o.api != nil {
					o.api(r)
				}
				if o.evidence {
					ask := evidence.New(evidence.Config{Store: st, Studies: supply.New(st, base), BaseURL: base})
					ask.RegisterDemo(r, g.LimitIP(gate.EvidenceDemoPolicy))
				}
			}},
			{Name: "web", Prefix: "", Error: httpserver.TextError, Routes: site.Routes},
		}
	})
	return e
}

// markedPacks are the real audit packs with two changes that tests need: the dermatology pack's
// title holds markup, which a page must show as text, and the slug "broken" fails as a store
// that is down does.
type markedPacks struct{ *auditpack.Service }

func (m markedPacks) Build(ctx context.Context, slug string) (auditpack.Pack, error) {
	if slug == "broken" {
		return auditpack.Pack{}, errors.New("store down")
	}
	p, err := m.Service.Build(ctx, slug)
	if slug == "dermatology-supply" {
		p.DisplayName = "Dermatology <supply>"
	}
	return p, err
}

// demoEnv serves the shared demo snapshot.
func demoEnv(tb testing.TB, o envOptions) *env {
	return newEnv(tb, demostore.Open(tb).Store, o)
}

// smallStore generates and ingests a drop of n providers into an embedded store of its own,
// for figures the demo snapshot does not have (a registered code no provider holds).
func smallStore(tb testing.TB, n int64) store.Store {
	tb.Helper()
	dir := tb.TempDir()
	ref := reference.Embedded()
	ctx := context.Background()
	if _, err := synth.Generate(ctx, synth.Config{Providers: n, Seed: 7, Out: filepath.Join(dir, "drop"), Reference: ref}); err != nil {
		tb.Fatal(err)
	}
	st := backends.Embedded(tb)
	if _, err := ingest.Run(ctx, ingest.Options{Store: st, Dir: filepath.Join(dir, "drop"), Reference: ref}); err != nil {
		tb.Fatal(err)
	}
	return st
}

// key issues a real pilot key.
func (e *env) key(tb testing.TB) string {
	tb.Helper()
	return e.Key(tb, apikey.TierPilot)
}

// get fetches a path with the headers given as name/value pairs and returns the response with
// its body read.
func (e *env) get(tb testing.TB, path string, header ...string) (*http.Response, string) {
	tb.Helper()
	resp, b := liveserver.Fetch(tb, http.MethodGet, e.URL+path, nil, header...)
	return resp, string(b)
}

// postJSON posts a body to a path as one client address and decodes the JSON answer.
func (e *env) postJSON(tb testing.TB, path, ip string, body any) (int, map[string]any) {
	tb.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, e.URL+path, strings.NewReader(string(b)))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", ip)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && err != io.EOF {
		tb.Fatalf("POST %s: decode: %v", path, err)
	}
	return resp.StatusCode, out
}
