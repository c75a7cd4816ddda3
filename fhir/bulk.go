package fhir

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/internal/httpserver"
	"providerdir/internal/logging"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// Bulk export: the system-level $export of the FHIR Bulk Data Access IG 2.0.
//
// A directory is a snapshot, so an export needs no work up front. The kick-off pins the serving
// generations of the types asked for in a job record and answers 202 with the job's status URL;
// the status is complete at once, and its manifest lists one NDJSON file per type that holds
// anything, each streamed from the pinned generation when it is downloaded, resources as a read
// serves them, in id order. A job lives for bulkJobTTL. Its files are served while their
// snapshot is the serving or the previous one, as a search's pages are (cursor.go): after two
// snapshot switches the generation is collected, and a download answers 410.
//
// A job belongs to the client that kicked it off: its status, its files and its cancel answer
// that client alone, and any other the 404 of an unknown job, so that a job id seen elsewhere
// neither reads nor cancels another client's export, nor tells that it exists. Under public
// read mode, a job kicked off without a token belongs to every request without one. Every
// download also applies the downloader's own grant, so a sandbox client sees only the sandbox
// subset of its jobs.

// bulkKind is the store record kind of export jobs.
const bulkKind = "fhir_export"

// bulkJobTTL is how long an export's status and files stay available after its kick-off.
const bulkJobTTL = 24 * time.Hour

// bulkPage is how many resources a file download reads from the store at a time.
const bulkPage = 1000

// bulkParams are the kick-off parameters this server acts on.
var bulkParams = []string{"_outputFormat", "_type", "_since"}

// bulkErrorFile is the name of a job's error file: OperationOutcomes, one a line, as the IG's
// manifest lists them under error.
const bulkErrorFile = "OperationOutcome.ndjson"

// bulkOutputFormats are the _outputFormat values the IG says mean NDJSON.
var bulkOutputFormats = []string{"application/fhir+ndjson", "application/ndjson", "ndjson"}

// bulkJob is an export job's record body.
type bulkJob struct {
	// Request is the kick-off URL, as the manifest repeats it.
	Request         string    `json:"request"`
	TransactionTime time.Time `json:"transaction_time"`
	// Types are the exported types with their pinned generation and their number of resources.
	Types []bulkType `json:"types"`
	// TagGeneration is the pinned generation of the provenance tag sets.
	TagGeneration string `json:"tag_generation"`
	// Since holds the _lastUpdated key prefixes of the days after _since (dates.go), none
	// without it.
	Since []string `json:"since,omitempty"`
	// Sandbox says the kick-off's grant saw only the sandbox subset.
	Sandbox bool `json:"sandbox"`
	// Ignored names the parameters a kick-off with Prefer: handling=lenient sent and this
	// server does not support; the manifest's error file says so.
	Ignored []string `json:"ignored,omitempty"`
	// Client is the id of the client that kicked the job off, "" for a request without a
	// token under public read mode.
	Client string `json:"client"`
}

type bulkType struct {
	Type       string `json:"type"`
	Generation string `json:"generation"`
	Count      int64  `json:"count"`
}

// bulkManifest is the complete status's body.
type bulkManifest struct {
	TransactionTime     string       `json:"transactionTime"`
	Request             string       `json:"request"`
	RequiresAccessToken bool         `json:"requiresAccessToken"`
	Output              []bulkOutput `json:"output"`
	Error               []bulkOutput `json:"error"`
}

type bulkOutput struct {
	Type  string `json:"type"`
	URL   string `json:"url"`
	Count int64  `json:"count"`
}

func (s *Server) bulkRoutes(r *mux.Router) {
	r.HandleFunc("/$export", s.bulkKickoff).Methods(http.MethodGet)
	r.HandleFunc("/$export-status/{job:[0-9a-f]{32}}", s.bulkStatus).Methods(http.MethodGet)
	r.HandleFunc("/$export-status/{job:[0-9a-f]{32}}", s.bulkCancel).Methods(http.MethodDelete)
	// The error file is routed first: its name would match the pattern of a type's file.
	r.HandleFunc("/$export-file/{job:[0-9a-f]{32}}/"+bulkErrorFile, s.bulkErrors).Methods(http.MethodGet)
	r.HandleFunc("/$export-file/{job:[0-9a-f]{32}}/"+typePattern+".ndjson", s.bulkFile).Methods(http.MethodGet)
}

// bulkKickoff serves GET [base]/$export.
func (s *Server) bulkKickoff(w http.ResponseWriter, r *http.Request) {
	g, ok := s.authorize(w, r)
	if !ok {
		return
	}
	// The IG has a client name the format of the kick-off's OperationOutcome and lets a server
	// refuse a kick-off that does not; silently choosing one would hide a client's mistake.
	if r.Header.Get("Accept") == "" {
		Error(w, r, http.StatusBadRequest, "invalid", "an export kick-off must send Accept: application/fhir+json, the format of its OperationOutcome")
		return
	}
	if _, ok := negotiate(r, ""); !ok {
		notAcceptable(w, r)
		return
	}
	if !respondAsync(r) {
		Error(w, r, http.StatusBadRequest, "invalid", "an export is asynchronous: send Prefer: respond-async")
		return
	}
	job, types, err := parseBulk(r, handling(r), s.now())
	if err != nil {
		writeParamError(w, r, err)
		return
	}
	if len(types) == 0 { // every type the grant may read, and at least one
		for _, t := range fhirmap.Types {
			if g.Allows(t, catalog.Read) {
				types = append(types, t)
			}
		}
		if len(types) == 0 {
			types = fhirmap.Types
		}
	}
	needs := make([]access, len(types))
	for i, t := range types {
		needs[i] = access{typ: t, i: catalog.Read, by: "_type"}
	}
	if !permit(w, r, g, needs) {
		return
	}
	v, err := s.serving(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	job.Request, job.TransactionTime, job.Sandbox, job.Client = s.base+"/$export", s.now().UTC().Truncate(time.Second), g.Sandboxed(), clientOf(g)
	if r.URL.RawQuery != "" {
		job.Request += "?" + r.URL.RawQuery
	}
	job.TagGeneration = v.gens[catalog.FHIRTags]
	for _, t := range types {
		bt := bulkType{Type: t, Generation: v.gen(t)}
		if bt.Generation != "" {
			q := store.Query{Collection: catalog.FHIRCollection(t), Generation: bt.Generation, Where: job.where(g)}
			if bt.Count, err = s.st.Count(r.Context(), q); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		job.Types = append(job.Types, bt)
	}
	body, err := json.Marshal(job)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	rec := store.Record{Kind: bulkKind, ID: hex.EncodeToString(id[:]), Body: body, ExpiresAt: job.TransactionTime.Add(bulkJobTTL)}
	if _, err := s.st.PutRecord(r.Context(), rec); err != nil {
		s.fail(w, r, err)
		return
	}
	logging.Logger(r.Context()).Info("export started", slog.String("job", rec.ID), slog.String("client", job.Client),
		slog.Any("types", types), slog.Bool("sandbox", job.Sandbox))
	w.Header().Set("Content-Location", s.base+"/$export-status/"+rec.ID)
	WriteOutcome(w, r, http.StatusAccepted, "information", "informational",
		"export accepted; its status URL is in Content-Location, and its files stay available until "+rec.ExpiresAt.Format(time.RFC3339))
}

// parseBulk reads the kick-off parameters into a job (without its request, time and types'
// generations) and the types asked for, none when _type is absent. handling is the request's
// handling preference (see handling); now is the server's time, which _since may not pass.
//
// The IG's optional parameters that this server does not support change what an export holds,
// so they are refused unless the client asked for handling=lenient itself: then they are
// ignored and named in the job. Parameters the IG does not define are ignored unless the client
// asked for handling=strict, as a search's are.
func parseBulk(r *http.Request, handling string, now time.Time) (bulkJob, []string, error) {
	var job bulkJob
	var types []string
	lenient := handling != "strict"
	query := r.URL.Query()
	for _, name := range slices.Sorted(maps.Keys(query)) { // so that Ignored has one order
		values := slices.DeleteFunc(query[name], func(v string) bool { return v == "" }) // FHIR: a parameter without a value is ignored
		if len(values) == 0 {
			continue
		}
		value := strings.Join(values, ",")
		switch name {
		case "_outputFormat":
			if !slices.Contains(bulkOutputFormats, value) {
				return job, nil, invalid(name, "%q is not an output format of this server (%s)", value, strings.Join(bulkOutputFormats, ", "))
			}
		case "_type":
			for _, t := range strings.Split(value, ",") {
				if !slices.Contains(fhirmap.Types, t) {
					return job, nil, invalid(name, "%q is not a type this server serves (%s)", t, strings.Join(fhirmap.Types, ", "))
				}
				if !slices.Contains(types, t) {
					types = append(types, t)
				}
			}
		case "_since":
			if len(values) > 1 {
				return job, nil, invalid(name, "given %d times", len(values))
			}
			days, err := dateCondition("gt" + value)
			if err != nil {
				return job, nil, invalid(name, "%q: %v", value, err)
			}
			if start, _, _ := dateRange(value); start.After(now) {
				return job, nil, invalid(name, "%q is later than this server's time, %s", value, now.UTC().Format(time.RFC3339))
			}
			if job.Since = days; len(days) == 0 {
				job.Since = []string{"-"} // after the last day the sources date: nothing
			}
		case "_typeFilter", "_elements", "patient", "includeAssociatedData":
			if handling != "lenient" {
				return job, nil, unsupported(name, "this server exports whole types (_type, _since) and supports no %s; "+
					"send Prefer: handling=lenient to have it ignored", name)
			}
			job.Ignored = append(job.Ignored, name)
		case "":
			if !lenient {
				return job, nil, unnamed()
			}
		default:
			if !lenient {
				return job, nil, unsupported(name, "not a parameter of this server's $export (%s)", strings.Join(bulkParams, ", "))
			}
		}
	}
	return job, types, nil
}

// respondAsync reports whether the request asks for the asynchronous pattern (RFC 7240).
func respondAsync(r *http.Request) bool {
	for _, p := range r.Header.Values("Prefer") {
		for _, part := range strings.Split(p, ",") {
			if pref, _, _ := strings.Cut(part, ";"); strings.EqualFold(strings.TrimSpace(pref), "respond-async") {
				return true
			}
		}
	}
	return false
}

// where are the conditions of a job's files for a downloader's grant: the days after _since,
// and the sandbox subset when either the kick-off's grant or the downloader's sees only that.
func (j bulkJob) where(g Grant) []store.Condition {
	var where []store.Condition
	if len(j.Since) > 0 {
		where = append(where, store.Condition{Param: fhirmap.KeyLastUpdated, Values: j.Since, Match: store.Prefix})
	}
	if j.Sandbox || g.Sandboxed() {
		where = append(where, store.Condition{Param: fhirmap.KeySandbox, Values: []string{"1"}})
	}
	return where
}

// loadJob authorizes a request of a status or file URL with needs and reads the job the URL
// names, answering 404 when there is none or when another client kicked it off: the two
// answers are the same, so that a request cannot tell another client's job from none.
func (s *Server) loadJob(w http.ResponseWriter, r *http.Request, needs ...access) (Grant, store.Record, bulkJob, bool) {
	g, ok := s.authorize(w, r, needs...)
	if !ok {
		return g, store.Record{}, bulkJob{}, false
	}
	id := mux.Vars(r)["job"]
	rec, err := s.st.GetRecord(r.Context(), bulkKind, id)
	var job bulkJob
	if err == nil {
		err = json.Unmarshal(rec.Body, &job)
	}
	if errors.Is(err, store.ErrNotFound) || (err == nil && job.Client != clientOf(g)) {
		noJob(w, r, id)
		return g, rec, bulkJob{}, false
	}
	if err != nil {
		s.fail(w, r, err)
		return g, rec, job, false
	}
	return g, rec, job, true
}

// noJob answers 404 for job id: there is none, it was cancelled or has expired, or another
// client kicked it off.
func noJob(w http.ResponseWriter, r *http.Request, id string) {
	Error(w, r, http.StatusNotFound, "not_found", "no export "+id+" of this client: it was cancelled, or it is more than "+bulkJobTTL.String()+" old")
}

// bulkStatus serves the status URL: the manifest, as the export is complete from its start.
func (s *Server) bulkStatus(w http.ResponseWriter, r *http.Request) {
	_, rec, job, ok := s.loadJob(w, r)
	if !ok {
		return
	}
	m := bulkManifest{TransactionTime: job.TransactionTime.Format(time.RFC3339), Request: job.Request, RequiresAccessToken: !s.publicRead,
		Output: []bulkOutput{}, Error: []bulkOutput{}}
	for _, t := range job.Types {
		if t.Count > 0 {
			m.Output = append(m.Output, bulkOutput{Type: t.Type, URL: s.base + "/$export-file/" + rec.ID + "/" + t.Type + ".ndjson", Count: t.Count})
		}
	}
	if len(job.Ignored) > 0 {
		m.Error = append(m.Error, bulkOutput{Type: "OperationOutcome", URL: s.base + "/$export-file/" + rec.ID + "/" + bulkErrorFile, Count: 1})
	}
	body, err := json.Marshal(m)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Expires", rec.ExpiresAt.UTC().Format(http.TimeFormat))
	w.Header().Set("Cache-Control", "no-store")
	s.write(w, http.StatusOK, "application/json", body, false)
}

// bulkCancel serves DELETE on the status URL: the job and its files are gone.
func (s *Server) bulkCancel(w http.ResponseWriter, r *http.Request) {
	_, rec, _, ok := s.loadJob(w, r)
	if !ok {
		return
	}
	err := s.st.DeleteRecord(r.Context(), bulkKind, rec.ID, rec.Version)
	if errors.Is(err, store.ErrNotFound) { // cancelled or expired since it was read
		noJob(w, r, rec.ID)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	WriteOutcome(w, r, http.StatusAccepted, "information", "informational", "export "+rec.ID+" cancelled; its files are gone")
}

// bulkErrors serves a job's error file: one OperationOutcome with a warning for each kick-off
// parameter that handling=lenient had ignored.
func (s *Server) bulkErrors(w http.ResponseWriter, r *http.Request) {
	_, _, job, ok := s.loadJob(w, r)
	if !ok {
		return
	}
	if len(job.Ignored) == 0 {
		Error(w, r, http.StatusNotFound, "not_found", "this export has no error file")
		return
	}
	issues := make([]Issue, len(job.Ignored))
	for i, name := range job.Ignored {
		issues[i] = warning("not-supported", name+" was ignored, as the kick-off's Prefer: handling=lenient allowed: "+
			"this server exports whole types (_type, _since), so the files may hold more than "+name+" asked for")
	}
	body := append(warningOutcome(issues), '\n')
	h := w.Header()
	h.Set("Content-Type", "application/fhir+ndjson") // as the other files
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// bulkFile streams one type's file of a job: the type's resources of the pinned generation, one
// a line, as a read serves them. A failure once the first line is sent aborts the response, so
// that the client sees a broken transfer, never a short file that looks whole.
func (s *Server) bulkFile(w http.ResponseWriter, r *http.Request) {
	typ := mux.Vars(r)["type"]
	g, _, job, ok := s.loadJob(w, r, access{typ: typ, i: catalog.Read})
	if !ok {
		return
	}
	i := slices.IndexFunc(job.Types, func(t bulkType) bool { return t.Type == typ })
	if i < 0 || job.Types[i].Count == 0 {
		Error(w, r, http.StatusNotFound, "not_found", "this export has no "+typ+" file")
		return
	}
	gen := job.Types[i].Generation
	v, err := s.serving(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !v.holds(catalog.FHIRCollection(typ), gen) || !v.holds(catalog.FHIRTags, job.TagGeneration) {
		Error(w, r, http.StatusGone, "gone", "the snapshot this export was taken from has been replaced twice since, and is gone; start a new export")
		return
	}
	q := store.Query{Collection: catalog.FHIRCollection(typ), Generation: gen, Where: job.where(g), Limit: bulkPage, BodiesOnly: true}
	page, err := s.st.Find(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/fhir+ndjson")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriterSize(w, 64<<10)
	var line []byte
	extend := true
	for {
		// A file outlasts the server's write timeout; each page gets that long to reach the
		// client instead, so a reading client is served to the end and a stalled one is cut. A
		// writer that cannot reach its connection keeps the server's timeout.
		if extend {
			if err := httpserver.ExtendWriteDeadline(w, httpserver.DefaultWriteTimeout); err != nil {
				logging.Logger(r.Context()).Warn("export file keeps the server's write timeout", slog.Any("error", err))
				extend = false
			}
		}
		for _, d := range page.Docs {
			stored, err := fhirmap.Open(d.Body)
			if err == nil {
				line, err = s.tags.served(r.Context(), line[:0], job.TagGeneration, stored)
			}
			if err != nil {
				s.abort(r, typ, err)
			}
			line = append(line, '\n')
			if _, err := out.Write(line); err != nil {
				return // the client went away
			}
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
		if page, err = s.st.Find(r.Context(), q); err != nil {
			s.abort(r, typ, err)
		}
	}
	_ = out.Flush() // an error here is the client gone: nothing is left to tell it
}

// abort ends a file download that failed after its status was sent.
func (s *Server) abort(r *http.Request, typ string, err error) {
	if !errors.Is(err, r.Context().Err()) {
		logging.Logger(r.Context()).Error("export file failed", slog.String("type", typ), slog.Any("error", err))
	}
	panic(http.ErrAbortHandler)
}

// bulkDocumentation is the CapabilityStatement's documentation of $export.
var bulkDocumentation = "System-level export of whole types (FHIR Bulk Data Access 2.0): GET $export with Prefer: respond-async; " +
	"_type, _since and _outputFormat (NDJSON) are supported, _typeFilter and _elements are not. The status URL answers the " +
	"manifest at once; files are NDJSON, one per type, and need a token with read scopes for their type. A job's status, " +
	"files and cancel answer only the client that kicked it off. Jobs last " +
	strconv.Itoa(int(bulkJobTTL.Hours())) + " hours."
