// Package supply owns the supply data API (/v1, docs/contracts/supply-api.md): its routes,
// handlers and the ResponseMeta each response carries. It reads the serving snapshot of the store:
// the manifests, the supply studies the ingest computed (mapping/study), and the source records of
// the registry, exclusion list, enrollment and payment files; the envelopes themselves come from
// package rest, and keys and quotas from the gate mounted around the routes.
package supply

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/rest"
	"providerdir/rest/internal/records"
	"providerdir/store"
)

// API serves the supply data API.
type API struct {
	store   store.Store
	records *records.Reader
	baseURL string

	studies records.Cache[*study.Study]
	encoded records.Cache[json.RawMessage]
	openapi openAPIDoc
}

// New returns the API reading from s. baseURL is the public base URL (without /v1) that absolute
// links in meta are built from; it comes from configuration, never from the request.
func New(s store.Store, baseURL string) *API {
	return &API{store: s, records: records.New(s), baseURL: strings.TrimRight(baseURL, "/")}
}

// Routes registers the API's handlers on the /v1 subrouter. Path variables take any value, so
// that the handlers, not the router, answer a malformed one with the contract's error code.
func (a *API) Routes(r *mux.Router) {
	r.HandleFunc("/health", a.health).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/openapi.json", a.openAPI).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/specialties", a.specialties).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/specialties/{code}/by-state", a.byState).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/specialties/{code}/by-county", a.byCounty).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/states/{state}/coverage", a.coverage).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/providers/{npi}", a.provider).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/npi/{npi}", a.resolveNPI).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/methodology/{dataset}", a.methodology).Methods(http.MethodGet, http.MethodHead)
}

// MethodologyURL is the absolute URL of one dataset's methodology resource.
func (a *API) MethodologyURL(dataset string) string {
	return a.baseURL + "/v1/methodology/" + dataset
}

// methodologyPage and limitationsPage are the absolute URLs of the human-readable pages on the
// web surface; responses spanning several datasets link to them.
func (a *API) methodologyPage() string { return a.baseURL + rest.PathMethodologyPage }
func (a *API) limitationsPage() string { return a.baseURL + rest.PathLimitationsPage }

// documentationURL is the interface description every response links to.
func (a *API) documentationURL() string { return a.baseURL + "/v1/openapi.json" }

// studyURL is the absolute URL of a specialty's by-state study.
func (a *API) studyURL(slug string) string {
	return a.baseURL + "/v1/specialties/" + slug + "/by-state"
}

// freshness returns one DataFreshness entry per stored manifest (one per source family).
func freshness(ms []catalog.Manifest) []rest.DataFreshness {
	out := make([]rest.DataFreshness, 0, len(ms))
	for _, m := range ms {
		out = append(out, rest.Freshness(records.SourceName(m), m.FinishedAt, m.Cadence))
	}
	return out
}

// manifests reads the manifests with the request's context.
func (a *API) manifests(ctx context.Context) ([]catalog.Manifest, error) {
	return catalog.Manifests(ctx, a.store)
}
