package resolver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/rest"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
)

// Provider is the provider record of GET /npi/{npi} and of a batch result
// (docs/contracts/resolver-api.md §2): the registry's identity of the NPI with the registry
// record's 14 provenance keys.
type Provider struct {
	NPI              string             `json:"npi"`
	EntityType       string             `json:"entity_type"`
	OrganizationName string             `json:"organization_name,omitempty"`
	Name             *stored.PersonName `json:"name,omitempty"`
	PrimaryTaxonomy  string             `json:"primary_taxonomy,omitempty"`
	EnumerationDate  string             `json:"enumeration_date,omitempty"`
	Address          Address            `json:"address"`
	// PecosEnrolled is absent when no enrollment file is loaded: unknown, never false.
	PecosEnrolled *bool `json:"pecos_enrolled,omitempty"`
	stored.Provenance
}

// Address is the practice address of a provider record.
type Address struct {
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postal_code,omitempty"`
}

// WithFacts is the provider record with include=facts.
type WithFacts struct {
	Provider
	Facts []Fact `json:"facts"`
}

// Fact is one sourced statement about a provider, each with the provenance of the record (or of
// the searched snapshot) it rests on. A fact the service cannot establish is left out: a
// missing fact means unknown.
type Fact struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
	// CCN names the facility a care_compare_star fact is about.
	CCN string `json:"ccn,omitempty"`
	stored.Provenance
}

// Fact types.
const (
	FactExclusion       = "exclusion"
	FactPECOSEnrolled   = "pecos_enrolled"
	FactCareCompareStar = "care_compare_star"
)

// Source families the facts read.
const (
	familyLEIE  = "leie"
	familyPECOS = "pecos"
)

// npi serves GET /npi/{npi}. A malformed NPI is 400 invalid_npi before any lookup; one failing
// its check digit is 404 not_found saying so, since no provider can hold it; one the registry
// does not hold is 404 not_found.
func (a *API) npi(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	npi := mux.Vars(r)["npi"]
	if !validNPI(w, r, npi) {
		return
	}
	include := r.URL.Query().Get("include")
	if include != "" && include != "facts" {
		rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidInclude, "include takes the one value facts.")
		return
	}
	v, err := a.records.Serving(ctx)
	if err != nil {
		fail(w, r, "npi: read the serving snapshot", err)
		return
	}
	p, facts, err := resolve(ctx, v, npi, include == "facts")
	switch {
	case errors.Is(err, errNoRegistry):
		unavailable(w, r, "The provider registry is not loaded; retry later.")
	case errors.Is(err, store.ErrNotFound):
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "NPI "+npi+" is not in the national registry.")
	case err != nil:
		fail(w, r, "npi: resolve", err)
	case include == "facts":
		rest.WriteJSON(w, r, http.StatusOK, WithFacts{Provider: p, Facts: facts})
	default:
		rest.WriteJSON(w, r, http.StatusOK, p)
	}
}

// validNPI answers a malformed NPI (400 invalid_npi) or one failing its check digit (404
// not_found, with the reason in the message) and reports whether the lookup goes on.
func validNPI(w http.ResponseWriter, r *http.Request, npi string) bool {
	err := ident.ValidateNPI(npi)
	switch {
	case err == nil:
		return true
	case checkDigitOnly(err):
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound,
			"NPI "+npi+" fails its check digit (Luhn over 80840 and the first nine digits), so no provider holds it: check it for a mistyped digit.")
	default:
		rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidNPI, "An NPI is exactly 10 decimal digits.")
	}
	return false
}

// checkDigitOnly reports whether an NPI's validation failed on its check digit alone: ten digits
// that no provider can hold, which is not found rather than malformed.
func checkDigitOnly(err error) bool {
	var ie *ident.Error
	return errors.As(err, &ie) && ie.Reason == ident.ReasonCheckDigit
}

// resolve reads the provider record of a well-formed NPI and, when asked, its facts. It is
// store.ErrNotFound when the registry does not hold the NPI, errNoRegistry when no registry is
// loaded.
func resolve(ctx context.Context, v records.View, npi string, withFacts bool) (Provider, []Fact, error) {
	enrolled, err := presence(ctx, v, familyPECOS, catalog.Enrollments, FactPECOSEnrolled, []string{npi})
	if err != nil {
		return Provider{}, nil, err
	}
	p, err := record(ctx, v, npi, enrolled[npi])
	if err != nil || !withFacts {
		return p, nil, err
	}
	excluded, err := presence(ctx, v, familyLEIE, catalog.Exclusions, FactExclusion, []string{npi})
	if err != nil {
		return Provider{}, nil, err
	}
	facts := []Fact{}
	for _, f := range []*Fact{excluded[npi], enrolled[npi]} {
		if f != nil {
			facts = append(facts, *f)
		}
	}
	stars, err := starFacts(ctx, v, npi)
	if err != nil {
		return Provider{}, nil, err
	}
	return p, append(facts, stars...), nil
}

// record reads the registry record of a well-formed NPI as a provider record; enrolled is its
// pecos_enrolled fact, nil when unknown.
func record(ctx context.Context, v records.View, npi string, enrolled *Fact) (Provider, error) {
	ps, err := providers(ctx, v, []string{npi})
	if err != nil {
		return Provider{}, err
	}
	p, ok := ps[npi]
	if !ok {
		return Provider{}, fmt.Errorf("npi %s: %w", npi, store.ErrNotFound)
	}
	p.setEnrolled(enrolled)
	return *p, nil
}

// registryRecord is the part of a registry record a provider record is made of. Decoding into
// it passes over the rest (taxonomies, mailing address, authorized official) without building
// it.
type registryRecord struct {
	NPI              string             `json:"npi"`
	EntityType       string             `json:"entity_type"`
	OrganizationName string             `json:"organization_name"`
	Name             *stored.PersonName `json:"name"`
	PrimaryTaxonomy  string             `json:"primary_taxonomy"`
	EnumerationDate  string             `json:"enumeration_date"`
	PracticeAddress  Address            `json:"practice_address"`
}

// providers reads the registry records of well-formed NPIs as provider records (without
// pecos_enrolled), by NPI, in one store call that leaves the records' search keys unread. An NPI
// the registry does not hold is absent from the map; it is errNoRegistry when no registry is
// loaded.
func providers(ctx context.Context, v records.View, npis []string) (map[string]*Provider, error) {
	if v.Snap.Generation(catalog.RegistryProviders) == "" {
		return nil, errNoRegistry
	}
	docs, err := v.Bodies(ctx, catalog.RegistryProviders, npis)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*Provider, len(docs))
	for _, d := range docs {
		b, err := stored.DecodeBody[registryRecord](d)
		if err != nil {
			return nil, fmt.Errorf("decode registry record %s: %w", d.ID, err)
		}
		rec := b.Record
		p := &Provider{NPI: rec.NPI, EntityType: rec.EntityType, OrganizationName: rec.OrganizationName, Name: rec.Name,
			PrimaryTaxonomy: rec.PrimaryTaxonomy, EnumerationDate: rec.EnumerationDate, Address: rec.PracticeAddress,
			Provenance: b.Provenance}
		out[d.ID] = p
	}
	return out, nil
}

// setEnrolled sets pecos_enrolled from the provider's pecos_enrolled fact, nil when unknown.
func (p *Provider) setEnrolled(enrolled *Fact) {
	if enrolled != nil {
		e := enrolled.Value.(bool)
		p.PecosEnrolled = &e
	}
}

// presence is the boolean fact "the source lists the NPI" for each of npis, read in one query:
// true with the provenance of a record that lists it, false with that of the searched snapshot
// when the loaded file does not. The map is nil (every fact unknown) when the family is not
// loaded.
func presence(ctx context.Context, v records.View, family, collection, typ string, npis []string) (map[string]*Fact, error) {
	m, loaded, err := v.Manifest(ctx, family)
	if err != nil || !loaded || v.Snap.Generation(collection) == "" {
		return nil, err
	}
	if len(npis) == 0 {
		return map[string]*Fact{}, nil // the store refuses a condition without values
	}
	docs, err := v.Keyed(ctx, collection, stored.KeyNPI, npis...)
	if err != nil {
		return nil, err
	}
	facts := make(map[string]*Fact, len(npis))
	for _, d := range docs {
		b, err := stored.DecodeBody[struct {
			NPI string `json:"npi"`
		}](d)
		if err != nil {
			return nil, fmt.Errorf("decode %s %s: %w", collection, d.ID, err)
		}
		if facts[b.Record.NPI] == nil {
			facts[b.Record.NPI] = &Fact{Type: typ, Value: true, Provenance: b.Provenance}
		}
	}
	for _, npi := range npis {
		if facts[npi] == nil {
			facts[npi] = &Fact{Type: typ, Value: false, Provenance: records.Searched(m, records.SourceName(m))}
		}
	}
	return facts, nil
}

// starFacts are the Care Compare overall stars of the facilities the NPI maps to: those whose
// quality row names the NPI, and those the hospital enrollment file ties to it by CCN (the join
// ingest makes between an organization NPI and its certification number). A facility without a
// published star gives no fact.
func starFacts(ctx context.Context, v records.View, npi string) ([]Fact, error) {
	quality, err := v.Keyed(ctx, catalog.Quality, stored.KeyNPI, npi)
	if err != nil {
		return nil, err
	}
	enrollments, err := v.Keyed(ctx, catalog.HospitalEnrollments, stored.KeyNPI, npi)
	if err != nil {
		return nil, err
	}
	for _, d := range enrollments {
		b, err := stored.DecodeBody[stored.HospitalEnrollmentRecord](d)
		if err != nil {
			return nil, fmt.Errorf("decode hospital enrollment %s: %w", d.ID, err)
		}
		if b.Record.CCN == "" {
			continue
		}
		more, err := v.Keyed(ctx, catalog.Quality, stored.KeyCCN, b.Record.CCN)
		if err != nil {
			return nil, err
		}
		quality = append(quality, more...)
	}
	var facts []Fact
	seen := map[string]bool{}
	for _, d := range quality {
		if seen[d.ID] {
			continue
		}
		seen[d.ID] = true
		b, err := stored.DecodeBody[stored.QualityRecord](d)
		if err != nil {
			return nil, fmt.Errorf("decode quality %s: %w", d.ID, err)
		}
		if b.Record.OverallStar == nil {
			continue
		}
		facts = append(facts, Fact{Type: FactCareCompareStar, Value: int(math.Round(*b.Record.OverallStar)),
			CCN: b.Record.CCN, Provenance: b.Provenance})
	}
	return facts, nil
}
