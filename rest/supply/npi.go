package supply

import (
	"errors"
	"net/http"
	"time"

	"providerdir/rest"
	"providerdir/rest/gate"
	"providerdir/store"
)

// Resolution is the entity-resolution result of GET /v1/npi/{npi}.
type Resolution struct {
	NPI           string  `json:"npi"`
	ResolvedAt    string  `json:"resolved_at"`
	Authenticated bool    `json:"authenticated"`
	Sources       Sources `json:"sources"`
}

// Sources holds one block per source, under the contract's keys.
type Sources struct {
	NPPES        SourceBlock `json:"nppes"`
	OIGLEIE      SourceBlock `json:"oig_leie"`
	PECOS        SourceBlock `json:"pecos"`
	QPPMIPS      SourceBlock `json:"qpp_mips"`
	OpenPayments SourceBlock `json:"open_payments"`
	SAMGov       SourceBlock `json:"sam_gov"`
}

// SourceBlock is one source's answer: its data, null when the source holds no record of the NPI
// or the serving snapshot holds no file of it (provenance._data_availability says which), and its
// provenance.
type SourceBlock struct {
	Data       any             `json:"data"`
	Provenance BlockProvenance `json:"provenance"`
}

// Cache-Control of GET /v1/npi/{npi} (docs/contracts/supply-api.md §4 rule 8): anonymous answers
// may be shared for 60 seconds and served stale for a day while revalidating; keyed ones never.
const (
	CacheAnonymous     = "public, max-age=60, stale-while-revalidate=86400"
	CacheAuthenticated = "private, no-store"
)

// resolveNPI serves GET /v1/npi/{npi}, open to anonymous callers (the gate meters them per
// address). A malformed NPI is 400 invalid_npi; one the registry does not hold, or that fails the
// check digit, is 404 not_found,
// whatever the other sources hold: the registry is the identity every other block hangs on.
func (a *API) resolveNPI(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	_, authenticated := gate.KeyFrom(ctx)
	if authenticated {
		w.Header().Set("Cache-Control", CacheAuthenticated)
	} else {
		w.Header().Set("Cache-Control", CacheAnonymous)
	}
	npi, hint, ok := validNPI(w, r)
	switch {
	case !ok:
		return
	case hint != nil:
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeNPINotInRegistry, "NPI "+npi+" is not in the national registry.", hint)
		return
	}
	v, err := a.view(ctx)
	if err != nil {
		fail(w, r, "npi: read the serving snapshot", err)
		return
	}
	rec, prov, err := v.Registry(ctx, npi)
	if errors.Is(err, store.ErrNotFound) {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeNPINotInRegistry, "NPI "+npi+" is not in the national registry.", nil)
		return
	}
	if err != nil {
		fail(w, r, "npi: read the registry", err)
		return
	}
	res := Resolution{NPI: npi, ResolvedAt: rest.Timestamp(time.Now()), Authenticated: authenticated}
	res.Sources.NPPES = SourceBlock{Data: rec, Provenance: fromRecord(prov)}
	blocks := []struct {
		into *SourceBlock
		read func() (SourceBlock, error)
	}{
		{&res.Sources.OIGLEIE, func() (SourceBlock, error) { return v.exclusions(ctx, npi) }},
		{&res.Sources.PECOS, func() (SourceBlock, error) { return v.enrollments(ctx, npi) }},
		{&res.Sources.OpenPayments, func() (SourceBlock, error) { return v.payments(ctx, npi) }},
		{&res.Sources.QPPMIPS, func() (SourceBlock, error) { return v.mipsScores(ctx, npi) }},
		{&res.Sources.SAMGov, func() (SourceBlock, error) { return v.samExclusions(ctx, npi) }},
	}
	for _, b := range blocks {
		if *b.into, err = b.read(); err != nil {
			fail(w, r, "npi: read a source", err)
			return
		}
	}
	meta, err := a.meta(ctx, r, v, resolveFamilies, a.methodologyPage())
	if err != nil {
		fail(w, r, "npi: read the manifests", err)
		return
	}
	rest.WriteV1(w, r, http.StatusOK, res, meta)
}
