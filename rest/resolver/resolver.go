// Package resolver owns the resolver API (/resolver/v1, docs/contracts/resolver-api.md): provider
// records by NPI with their facts, facility records by CCN, provider search, quality by facility
// type, payments by NPI, and batch resolution. It reads the serving snapshot through
// rest/internal/records, the same reader the supply API uses; keys, quotas and the rate-limit
// headers come from the gate mounted around its routes, the error envelope from package rest.
package resolver

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/internal/records"
	"providerdir/store"
)

// Error codes of the resolver besides those package rest and the gate define
// (docs/contracts/resolver-api.md §7), and the documented additions.
const (
	CodeInvalidNPI    = "invalid_npi"
	CodeBatchTooLarge = "batch_too_large"
	// CodeInvalidCCN is an addition: the contract leaves the error of a malformed CCN open.
	CodeInvalidCCN = "invalid_ccn"
	// CodeInvalidBody is an addition: a batch body that is not the documented JSON object.
	CodeInvalidBody = "invalid_body"
	// CodeInvalidInclude is an addition: include takes only the value facts.
	CodeInvalidInclude = "invalid_include"
)

// API serves the resolver.
type API struct {
	records *records.Reader
	keys    *apikey.Manager
	// words caches, per generation, whether records hold a name token (searcher.isWord).
	words records.Cache[bool]
}

// wordsCached bounds API.words: the tokens of some thousands of searches, a few megabytes.
const wordsCached = 100_000

// New returns the resolver reading from s.
func New(s store.Store) *API {
	a := &API{records: records.New(s), keys: apikey.NewManager(s, nil)}
	a.words.Bound = wordsCached
	return a
}

// Routes registers the handlers on the /resolver/v1 subrouter. Path variables take any value, so
// that the handlers, not the router, answer a malformed one with the contract's error code.
func (a *API) Routes(r *mux.Router) {
	r.HandleFunc("/npi/{npi}", a.npi).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/ccn/{ccn}", a.ccn).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/batch/npi", a.batch).Methods(http.MethodPost)
	r.HandleFunc("/search", a.search).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/quality/{type}/{id}", a.quality).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/payments/{npi}", a.payments).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/sandbox", a.sandbox).Methods(http.MethodGet, http.MethodHead)
}

// fail answers a request the service could not: 503 source_unavailable when the store cannot
// answer, 500 internal_error otherwise. The cause goes to the log only.
func fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	logging.Logger(r.Context()).Error(what, slog.Any("error", err))
	rest.WriteFailure(w, r, rest.ResolverError, err)
}

// errNoRegistry: the serving snapshot holds no registry, so no NPI can be resolved; the
// resolver says the source is unavailable rather than that the provider does not exist.
var errNoRegistry = errors.New("resolver: no registry in the serving snapshot")

// unavailable answers 503 source_unavailable for a source the snapshot does not hold.
func unavailable(w http.ResponseWriter, r *http.Request, message string) {
	rest.SetRetryAfter(w)
	rest.ResolverError(w, r, http.StatusServiceUnavailable, rest.CodeUnavailable, message)
}
