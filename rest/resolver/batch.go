package resolver

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/rest"
	"providerdir/rest/gate"
)

// MaxBatch is the most NPIs one POST /batch/npi resolves (docs/contracts/resolver-api.md §8).
const MaxBatch = 1000

// MaxBatchBody bounds the request body: a full batch of NPIs written with generous whitespace
// fits many times over, and nothing larger is read.
const MaxBatchBody = 64 << 10

// BatchRequest is the body of POST /batch/npi.
type BatchRequest struct {
	NPIs []string `json:"npis"`
}

// BatchResult answers POST /batch/npi: one entry per requested NPI, in request order, null for
// one the registry does not hold: an unknown NPI, one failing its check digit, or a string that
// is not an NPI at all.
type BatchResult struct {
	Requested int         `json:"requested"`
	Resolved  int         `json:"resolved"`
	Results   []*Provider `json:"results"`
}

// batch serves POST /batch/npi. The whole body is checked before any lookup: more than MaxBatch
// NPIs (or a body over MaxBatchBody) is 400 batch_too_large, a body that is not {"npis": [...]}
// of strings 400 invalid_body. An entry that is no NPI is unresolvable, not an error: null at
// its position, like an NPI the registry does not hold. A valid batch is
// then charged, NPI by NPI, to the caller's per-NPI ceiling (gate.MeterNPIs), besides the one
// request the gate counted: over it, 429 rate_limited, which counts neither.
func (a *API) batch(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	req, code, msg := decodeBatch(w, r)
	if code != "" {
		rest.ResolverError(w, r, http.StatusBadRequest, code, msg)
		return
	}
	if !gate.MeterNPIs(w, r, len(req.NPIs)) {
		return
	}
	v, err := a.records.Serving(ctx)
	if err != nil {
		fail(w, r, "batch: read the serving snapshot", err)
		return
	}
	var valid []string
	for _, npi := range req.NPIs {
		if ident.ValidateNPI(npi) == nil { // else malformed or failing its check digit: no provider holds it
			valid = append(valid, npi)
		}
	}
	// The enrollment query and the registry reads need nothing of each other, and each is a
	// large part of a batch's time: they run side by side.
	var (
		enrolled map[string]*Fact
		perr     error
		wg       sync.WaitGroup
	)
	wg.Go(func() { enrolled, perr = presence(ctx, v, familyPECOS, catalog.Enrollments, FactPECOSEnrolled, valid) })
	found, err := providers(ctx, v, valid)
	wg.Wait()
	switch {
	case perr != nil:
		fail(w, r, "batch: read enrollments", perr)
		return
	case errors.Is(err, errNoRegistry):
		unavailable(w, r, "The provider registry is not loaded; retry later.")
		return
	case err != nil:
		fail(w, r, "batch: resolve", err)
		return
	}
	for npi, p := range found {
		p.setEnrolled(enrolled[npi])
	}
	out := BatchResult{Requested: len(req.NPIs), Results: make([]*Provider, len(req.NPIs))}
	for i, npi := range req.NPIs {
		if p := found[npi]; p != nil { // an entry that is no valid NPI is never found
			out.Results[i] = p
			out.Resolved++
		}
	}
	rest.WriteJSON(w, r, http.StatusOK, out)
}

// decodeBatch reads and checks the body; a non-empty code is the error to answer with.
func decodeBatch(w http.ResponseWriter, r *http.Request) (BatchRequest, string, string) {
	var req BatchRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBatchBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&req)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return req, CodeBatchTooLarge, "The body is over " + strconv.Itoa(MaxBatchBody) + " bytes; send at most " + strconv.Itoa(MaxBatch) + " NPIs per batch."
	case err != nil || req.NPIs == nil || !rest.NothingAfter(dec):
		return req, CodeInvalidBody, `The body is one JSON object {"npis": ["<10-digit NPI>", ...]}.`
	case len(req.NPIs) > MaxBatch:
		return req, CodeBatchTooLarge, strconv.Itoa(len(req.NPIs)) + " NPIs sent; a batch holds at most " + strconv.Itoa(MaxBatch) + "."
	}
	return req, "", ""
}
