// Package supply owns the supply data API (/v1, seeds/000): its routes, handlers and the
// ResponseMeta each response carries. It reads the store through the manifests and, later, the
// mapped documents; the envelopes themselves come from package rest.
package supply

import (
	"context"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/ingest"
	"providerdir/rest"
	"providerdir/store"
)

// API serves the supply data API.
type API struct {
	store   store.Store
	baseURL string
}

// New returns the API reading from s. baseURL is the public base URL (without /v1) that absolute
// links in meta are built from; it comes from configuration, never from the request.
func New(s store.Store, baseURL string) *API {
	return &API{store: s, baseURL: strings.TrimRight(baseURL, "/")}
}

// Routes registers the API's handlers on the /v1 subrouter.
func (a *API) Routes(r *mux.Router) {
	r.HandleFunc("/health", a.health).Methods(http.MethodGet, http.MethodHead)
}

// MethodologyURL is the absolute URL of one dataset's methodology resource.
func (a *API) MethodologyURL(dataset string) string {
	return a.baseURL + "/v1/methodology/" + dataset
}

// methodologyPage and limitationsPage are the absolute URLs of the human-readable pages on the
// web surface; responses spanning several datasets link to them.
func (a *API) methodologyPage() string { return a.baseURL + rest.PathMethodologyPage }
func (a *API) limitationsPage() string { return a.baseURL + rest.PathLimitationsPage }

// freshness returns one DataFreshness entry per stored manifest (one per source family).
func freshness(ms []ingest.Manifest) []rest.DataFreshness {
	out := make([]rest.DataFreshness, 0, len(ms))
	for _, m := range ms {
		out = append(out, rest.Freshness(sourceName(m), m.FinishedAt, m.Cadence))
	}
	return out
}

// sourceName is the manifest's human source name, or its family when a manifest lacks one.
func sourceName(m ingest.Manifest) string {
	if m.Source != "" {
		return m.Source
	}
	return m.Family
}

// manifests reads the manifests with the request's context.
func (a *API) manifests(ctx context.Context) ([]ingest.Manifest, error) {
	return ingest.Manifests(ctx, a.store)
}
