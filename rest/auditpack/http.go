package auditpack

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/internal/safetext"
	"providerdir/rest"
)

// Error codes of the audit pack endpoints. docs/contracts/supply-api.md names none; these follow
// the API's others.
const (
	CodeAuditPackNotFound = "audit_pack_not_found"
	CodeDatasetNotLoaded  = "dataset_not_loaded"
)

// Routes registers the catalog and the packs on the /v1 subrouter.
func (s *Service) Routes(r *mux.Router) {
	r.HandleFunc("/audit-pack", s.catalog).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/audit-pack/{slug}", s.pack).Methods(http.MethodGet, http.MethodHead)
}

// Register registers the JSON and PDF forms on the service host's /api subrouter, each behind
// limit (the gate's per-address limit).
func (s *Service) Register(r *mux.Router, limit func(http.Handler) http.Handler) {
	r.Handle("/audit-pack/{slug}/json", limit(http.HandlerFunc(s.publicJSON))).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/audit-pack/{slug}/pdf", limit(http.HandlerFunc(s.publicPDF))).Methods(http.MethodGet, http.MethodHead)
}

// errorWriter is a surface's error envelope writer (rest.WriteV1Error, rest.WriteAPIError).
type errorWriter func(w http.ResponseWriter, r *http.Request, status int, code, message string, details any)

// catalog serves GET /v1/audit-pack.
func (s *Service) catalog(w http.ResponseWriter, r *http.Request) {
	meta := rest.NewV1Meta(r, nil, s.baseURL+rest.PathMethodologyPage, s.baseURL+rest.PathLimitationsPage)
	meta.DocumentationURL = s.baseURL + "/v1/openapi.json"
	entries := s.Catalog()
	meta.Pagination = &rest.Pagination{Total: int64(len(entries)), Page: 1, PerPage: len(entries)}
	rest.WriteV1(w, r, http.StatusOK, entries, meta)
}

// envelope builds the pack of the request's slug with its ResponseMeta, or answers the error
// with write.
func (s *Service) envelope(w http.ResponseWriter, r *http.Request, write errorWriter) (rest.V1Response, bool) {
	slug := mux.Vars(r)["slug"]
	ctx := r.Context()
	p, err := s.Build(ctx, slug)
	switch {
	case errors.Is(err, ErrNoPack):
		write(w, r, http.StatusNotFound, CodeAuditPackNotFound, "No audit pack has the slug "+strconv.Quote(safetext.Echo(slug))+".",
			map[string]any{"supported_slugs": Slugs()})
		return rest.V1Response{}, false
	case errors.Is(err, ErrNotLoaded):
		d, _ := lookup(slug)
		write(w, r, http.StatusNotFound, CodeDatasetNotLoaded, "The sources of "+d.Slug+" are not loaded in the serving snapshot.",
			map[string]any{"source_families": d.Families})
		return rest.V1Response{}, false
	case err != nil:
		fail(w, r, write, "audit pack: build", err)
		return rest.V1Response{}, false
	}
	d, _ := lookup(slug)
	meta, err := s.source.Meta(ctx, r, d, s.baseURL)
	if err != nil {
		fail(w, r, write, "audit pack: read the manifests", err)
		return rest.V1Response{}, false
	}
	return rest.V1Response{Data: p, Meta: meta}, true
}

// pack serves GET /v1/audit-pack/{slug}.
func (s *Service) pack(w http.ResponseWriter, r *http.Request) {
	if env, ok := s.envelope(w, r, rest.WriteV1Error); ok {
		rest.WriteJSON(w, r, http.StatusOK, env)
	}
}

// publicJSON serves GET /api/audit-pack/{slug}/json: the /v1 envelope, without a key.
func (s *Service) publicJSON(w http.ResponseWriter, r *http.Request) {
	if env, ok := s.envelope(w, r, rest.WriteAPIError); ok {
		w.Header().Set("Content-Disposition", `inline; filename="`+env.Data.(Pack).DatasetSlug+`-audit-pack.json"`)
		rest.WriteJSON(w, r, http.StatusOK, env)
	}
}

// publicPDF serves GET /api/audit-pack/{slug}/pdf: the pack as a document.
func (s *Service) publicPDF(w http.ResponseWriter, r *http.Request) {
	env, ok := s.envelope(w, r, rest.WriteAPIError)
	if !ok {
		return
	}
	p := env.Data.(Pack)
	body, err := PDF(p)
	if err != nil {
		fail(w, r, rest.WriteAPIError, "audit pack: render the PDF", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", `inline; filename="`+p.DatasetSlug+`-audit-pack.pdf"`)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// fail answers a failure the client cannot fix in the surface's envelope, the cause logged.
func fail(w http.ResponseWriter, r *http.Request, write errorWriter, what string, err error) {
	logging.Logger(r.Context()).Error(what, slog.Any("error", err))
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteFailure(w, r, func(w http.ResponseWriter, r *http.Request, status int, code, message string) {
		write(w, r, status, code, message, nil)
	}, err)
}
