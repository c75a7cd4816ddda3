package supply

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"providerdir/ident"
	"providerdir/internal/safetext"
	"providerdir/mapping/study"
	"providerdir/rest"
	"providerdir/store"
	"providerdir/stored"
)

// ProviderRecord is the contract's ProviderRecord: every field a ProvenanceField.
type ProviderRecord struct {
	NPI                 Field `json:"npi"`
	Specialty           Field `json:"specialty"`
	TaxonomyCodes       Field `json:"taxonomy_codes"`
	TaxonomyPrimary     Field `json:"taxonomy_primary"`
	State               Field `json:"state"`
	City                Field `json:"city"`
	LastUpdatedInSource Field `json:"last_updated_in_source"`
}

// provider serves GET /v1/providers/{npi}: a provider counted by a specialty study, that is an
// active registry record practising in one of the 51 whose taxonomy list holds a registered
// code. Any other NPI, registered or not, is 404 provider_not_found (rule 7).
func (a *API) provider(w http.ResponseWriter, r *http.Request) {
	npi, hint, ok := validNPI(w, r)
	switch {
	case !ok:
		return
	case hint != nil:
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeProviderNotFound,
			"NPI "+npi+" is not among the active providers of any specialty study.", hint)
		return
	}
	ctx := r.Context()
	v, err := a.view(ctx)
	if err != nil {
		fail(w, r, "provider: read the serving snapshot", err)
		return
	}
	rec, prov, err := v.Registry(ctx, npi)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		fail(w, r, "provider: read the registry", err)
		return
	}
	var sp study.Specialty
	counted := false
	if err == nil {
		sp, counted = studied(rec)
	}
	if !counted {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeProviderNotFound,
			"NPI "+npi+" is not among the active providers of any specialty study.", nil)
		return
	}
	o := recordOrigin(prov)
	codes := make([]string, 0, len(rec.Taxonomies))
	for _, t := range rec.Taxonomies {
		codes = append(codes, t.Code)
	}
	location := "Primary practice location as last reported to the registry; secondary practice locations are not shown."
	data := ProviderRecord{
		NPI: o.field(rec.NPI, ""),
		Specialty: o.field(sp.Slug, "Derived from the registry taxonomy list: "+
			"the specialty of the primary taxonomy when it is registered, else the first matching specialty in slug order."),
		TaxonomyCodes:       o.field(codes, "Self-reported by the provider, in slot order; no board certification is implied."),
		TaxonomyPrimary:     o.field(rec.PrimaryTaxonomy, "The slot the provider marked primary, else the first filled slot."),
		State:               o.field(rec.PracticeAddress.State, location),
		City:                o.field(rec.PracticeAddress.City, location),
		LastUpdatedInSource: o.field(rec.LastUpdated, "Date the registry record was last updated by the provider or CMS."),
	}
	meta, err := a.meta(ctx, r, v, registryFamilies, a.MethodologyURL(sp.Study()))
	if err != nil {
		fail(w, r, "provider: read the manifests", err)
		return
	}
	rest.WriteV1(w, r, http.StatusOK, data, meta)
}

// studied reports whether a registry record is counted by a specialty study, and under which
// specialty it is reported. The test is the studies' own (mapping/study.Tally).
func studied(rec stored.RegistryRecord) (study.Specialty, bool) {
	p := study.FromRecord(rec)
	if !study.Counted(p) {
		return study.Specialty{}, false
	}
	return study.Primary(rec.PrimaryTaxonomy, p.Codes)
}

// validNPI reads the {npi} path variable. A value that is not exactly ten decimal digits is
// answered here with 400 invalid_npi (rules 7 and 8), and ok is false. Ten digits that fail the
// NPI check digit are well formed but can belong to no one: they come back with ok true and a
// hint for the 404 the caller answers, since the contract keeps invalid_npi for the format.
func validNPI(w http.ResponseWriter, r *http.Request) (npi string, checkDigitHint map[string]any, ok bool) {
	npi = mux.Vars(r)["npi"]
	err := ident.ValidateNPI(npi)
	var ie *ident.Error
	switch {
	case err == nil:
		return npi, nil, true
	case errors.As(err, &ie) && ie.Reason == ident.ReasonCheckDigit:
		return npi, map[string]any{"npi": npi, "hint": "check_digit",
			"hint_message": "The NPI fails its check digit (Luhn over 80840 and the first nine digits), so no provider holds it: check it for a mistyped digit."}, true
	}
	reason := "invalid"
	if ie != nil {
		reason = string(ie.Reason)
	}
	rest.WriteV1Error(w, r, http.StatusBadRequest, CodeInvalidNPI, "An NPI is exactly 10 decimal digits.",
		map[string]any{"npi": safetext.EchoEscaped(npi), "reason": reason})
	return "", nil, false
}
