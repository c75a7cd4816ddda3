// Package packserver runs the server the export and audit pack tests talk to: the real router,
// gate (keys and quotas in the store), the supply API with its interface description, the
// exports and the audit packs on /v1, and the packs' public forms on /api, on a loopback
// listener. Every response a test receives is checked against the served description. Only
// tests import it.
package packserver

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/auditpack"
	"providerdir/rest/export"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/testing/apiclient"
	"providerdir/testing/liveserver"
)

func init() {
	// The validator decodes the bodies it knows; an ndjson export is checked as the string the
	// description says it is (its lines are checked by the tests).
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
}

// Env is one running server over a store, and the client address a test plays against it.
type Env struct {
	apiclient.Client
	Store store.Store
	Packs *auditpack.Service
}

// raw are the media types of exports and packs that are not a JSON object: the validator checks
// them as the strings the description says they are, and the tests read their lines and pages.
var raw = []string{"application/x-ndjson", "text/plain", "application/pdf"}

// Open serves st; o configures the exports (BaseURL is set to the server's).
func Open(tb testing.TB, st store.Store, o export.Options) *Env {
	tb.Helper()
	var packs *auditpack.Service
	srv := liveserver.Start(tb, st, liveserver.Options{}, func(base string, g *gate.Gate) []httpserver.Surface {
		o.BaseURL = base
		packs = auditpack.New(st, base)
		return []httpserver.Surface{
			liveserver.Supply(st, base, g, export.New(st, o).Routes, packs.Routes),
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) {
				packs.Register(r, g.LimitIP(auditpack.Policy))
			}},
		}
	})
	c := apiclient.NewClient(srv)
	c.Raw = raw
	return &Env{Client: c, Store: st, Packs: packs}
}

// Key issues a real pilot key and returns its plaintext.
func (e *Env) Key(tb testing.TB) string {
	tb.Helper()
	return e.Server.Key(tb, apikey.TierPilot)
}

// Get sends a GET as the env's client with the key ("" sends none).
func (e *Env) Get(tb testing.TB, path, key string) apiclient.Response {
	tb.Helper()
	if key == "" {
		return e.Client.Get(tb, path)
	}
	return e.Client.Get(tb, path, apiclient.Bearer(key)...)
}
