// Package export owns the supply API's LLM-ready exports (GET /v1/exports/{dataset}/llm-ready,
// docs/contracts/supply-api.md §2 and §4): each of the seventeen registered datasets (package
// rest/dataset) as chunks with stable ids, provenance written into every paragraph and an APA
// citation, in JSON, ndjson or text blocks, with a narrative cached per dataset and methodology
// version. Responses are written a chunk at a time, so memory does not grow with an export.
package export

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/internal/safetext"
	"providerdir/rest"
	"providerdir/rest/dataset"
	"providerdir/store"
)

// Error codes of the export endpoint. docs/contracts/supply-api.md names the status of an unknown
// dataset (404) and no codes; these follow the API's other codes.
const (
	CodeDatasetNotFound  = "dataset_not_found"
	CodeInvalidFormat    = "invalid_format"
	CodeDatasetNotLoaded = "dataset_not_loaded"
)

// Response headers of an export (docs/contracts/supply-api.md §4, Exports).
const (
	HeaderMethodologyVersion = "X-Methodology-Version"
	HeaderLastRefreshed      = "X-Last-Refreshed"
	HeaderTotalChunks        = "X-Total-Chunks"
	HeaderNarrativeCacheHit  = "X-Narrative-Cache-Hit"
)

// Options configure the exports.
type Options struct {
	// BaseURL is the public base URL (without /v1) absolute links are built from.
	BaseURL string
	// Narrator words narratives; nil uses the template alone.
	Narrator Narrator
	// Now is the clock of the narrative cache's generated_at; nil is time.Now.
	Now func() time.Time
}

// API serves the exports.
type API struct {
	store    store.Store
	source   *dataset.Source
	baseURL  string
	narrator Narrator
	now      func() time.Time
}

// New returns the exports reading from s.
func New(s store.Store, o Options) *API {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &API{store: s, source: dataset.NewSource(s), baseURL: strings.TrimRight(o.BaseURL, "/"), narrator: o.Narrator, now: now}
}

// Routes registers the export on the /v1 subrouter.
func (a *API) Routes(r *mux.Router) {
	r.HandleFunc("/exports/{dataset}/llm-ready", a.export).Methods(http.MethodGet, http.MethodHead)
}

// exportURL is the absolute URL of a dataset's export.
func (a *API) exportURL(slug string) string {
	return a.baseURL + "/v1/exports/" + slug + "/llm-ready"
}

// export serves GET /v1/exports/{dataset}/llm-ready.
func (a *API) export(w http.ResponseWriter, r *http.Request) {
	slug := mux.Vars(r)["dataset"]
	d, ok := dataset.Lookup(slug)
	if !ok {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeDatasetNotFound,
			"No export dataset has the slug "+strconv.Quote(safetext.Echo(slug))+".", map[string]any{"supported_datasets": dataset.Slugs()})
		return
	}
	format := FormatJSON
	if q := r.URL.Query(); q.Has("format") {
		format = q.Get("format")
	}
	if _, ok := contentTypes[format]; !ok {
		rest.WriteV1Error(w, r, http.StatusBadRequest, CodeInvalidFormat,
			"The format "+strconv.Quote(safetext.Echo(format))+" is not one of json, ndjson, text-blocks.",
			map[string]any{"supported_formats": []string{FormatJSON, FormatNDJSON, FormatTextBlocks}})
		return
	}
	ctx := r.Context()
	f, err := a.source.Load(ctx, d)
	if errors.Is(err, dataset.ErrNotLoaded) {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeDatasetNotLoaded,
			"The sources of "+d.Slug+" are not loaded in the serving snapshot.", map[string]any{"source_families": d.Families})
		return
	}
	if err != nil {
		a.fail(w, r, "export: read the figures", err)
		return
	}
	narrative, hit, err := a.narrative(ctx, f)
	if err != nil {
		a.fail(w, r, "export: the narrative", err)
		return
	}
	meta, err := a.source.Meta(ctx, r, d, a.baseURL)
	if err != nil {
		a.fail(w, r, "export: read the manifests", err)
		return
	}
	x := a.build(f, format, narrative)
	h := w.Header()
	h.Set("Content-Type", contentTypes[format])
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set(HeaderMethodologyVersion, d.MethodologyVersion())
	h.Set(HeaderLastRefreshed, rest.Timestamp(f.LastRefreshed))
	h.Set(HeaderTotalChunks, strconv.Itoa(x.Total))
	h.Set(HeaderNarrativeCacheHit, strconv.FormatBool(hit))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if err := Write(w, format, x, meta); err != nil {
		// The status is sent; a broken connection ends the body short, which the client sees.
		logging.Logger(ctx).Warn("export: write the body", slog.Any("error", err))
	}
}

// build assembles the export of a dataset's figures.
func (a *API) build(f *dataset.Figures, format, narrative string) Export {
	d := f.Dataset
	c := newChunker(f, a.exportURL(d.Slug))
	return Export{Total: c.total(), Chunks: c.chunks(), Header: Header{
		SchemaVersion: SchemaVersion,
		Dataset: DatasetHeader{Slug: d.Slug, DisplayName: d.DisplayName, OneLiner: d.OneLiner,
			MethodologyVersion: d.MethodologyVersion(), SnapshotDate: f.SnapshotDate, RefreshCadence: d.Cadence(),
			SourceFamilies: d.Families},
		Narrative: &narrative,
		Meta: ExportMeta{Format: format, TotalChunks: c.total(),
			ChunkTypes:    []string{TypeDatasetMeta, TypeNational, TypeState, TypeUnderserved},
			LastRefreshed: rest.Timestamp(f.LastRefreshed), MethodologyURL: d.MethodologyURL(a.baseURL),
			ExportURL: a.exportURL(d.Slug), Citation: c.citation},
		methodology: methodologyText(f, d.MethodologyURL(a.baseURL)),
		sources: []string{
			f.Primary.Source + ". " + f.Primary.SourceURL + " (snapshot " + f.Primary.Snapshot + ", license " + f.Primary.License + ")",
			f.Census.Source + ". " + f.Census.SourceURL + " (license " + f.Census.License + ")",
		},
	}}
}

// fail answers a failure the client cannot fix in the /v1 envelope, the cause logged.
func (a *API) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	logging.Logger(r.Context()).Error(what, slog.Any("error", err))
	w.Header().Set("Cache-Control", "no-store")
	rest.WriteFailure(w, r, rest.V1Error, err)
}
