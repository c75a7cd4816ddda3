package fhirmap

import (
	"errors"
	"providerdir/stored"
)

// ErrNoResource says a record has no resource of its own: a deactivated NPI whose registry row
// the publisher blanked, or a record lacking an element the profile makes mandatory (a
// Practitioner's family name, an Organization's name). Such records are counted, not served.
var ErrNoResource = errors.New("fhirmap: the record lacks what the profile requires")

// HasPractitioner reports whether a registry record yields a Practitioner: an individual with a
// family name (US Core makes name.family mandatory).
func HasPractitioner(r *stored.RegistryRecord) bool {
	return r.EntityType == "individual" && r.Name != nil && r.Name.Last != ""
}

// BuildIndividual builds an individual provider's resources: the Practitioner, a Location per
// practice address (the primary one, id = NPI, and each secondary one), an Endpoint per
// endpoint_pfile record, and the PractitionerRoles (one per employer, else one of the
// practitioner alone), which name the Endpoints: R4 gives Practitioner no endpoint element. Each
// Location names the Endpoints whose endpoint file row gives its address.
func BuildIndividual(p *Provider, tax Taxonomies) ([]Resource, error) {
	r := &p.Record
	if !HasPractitioner(r) {
		return nil, ErrNoResource
	}
	name, display := personName(r.Name)
	updated := lastUpdated(r.LastUpdated, p.Provenance)
	prac := Practitioner{
		ResourceType: TypePractitioner, ID: r.NPI,
		Identifier: []Identifier{npiIdentifier(r.NPI)},
		Active:     boolPtr(r.Active),
		Name:       []HumanName{name},
		Telecom:    telecom(r.PracticeAddress),
		Gender:     gender(r.Sex),
	}
	if a := fhirAddress(r.PracticeAddress, "work", "physical"); a != nil {
		prac.Address = append(prac.Address, *a)
	}
	if a := fhirAddress(r.MailingAddress, "work", "postal"); a != nil && !sameAddress(r.MailingAddress, r.PracticeAddress) {
		prac.Address = append(prac.Address, *a)
	}
	prac.Qualification = qualifications(r, tax)

	k := make(stored.Keys, 0, keysPerResource)
	addIdentifiers(&k, prac.Identifier)
	addHumanName(&k, &name)
	addString(&k, KeyFamily, name.Family)
	for _, g := range name.Given {
		addString(&k, KeyGiven, g)
	}
	for i := range prac.Address {
		addAddress(&k, &prac.Address[i])
	}
	k.Add(KeyActive, boolKey(r.Active))
	addTelecom(&k, prac.Telecom)
	sandbox(&k, p.Sandbox)

	out := make([]Resource, 0, 3+len(p.Secondary)+len(p.Employers)+len(p.Endpoints))
	res, err := encode(TypePractitioner, prac.ID, prac, newMeta(TypePractitioner, updated, p.Provenance).meetsPlanNet(r.Active), k)
	if err != nil {
		return nil, err
	}
	out = append(out, res)

	locs, err := providerLocations(p, display, "", updated)
	if err != nil {
		return nil, err
	}
	out = append(out, locs...)
	eps, err := providerEndpoints(p, "", updated)
	if err != nil {
		return nil, err
	}
	out = append(out, eps...)
	roles, err := practitionerRoles(p, tax, display, locs, eps, updated)
	if err != nil {
		return nil, err
	}
	return append(out, roles...), nil
}

// qualifications lists a practitioner's taxonomies, each with its license and licensing state
// when the registry gives one.
func qualifications(r *stored.RegistryRecord, tax Taxonomies) []Qualification {
	var out []Qualification
	seen := map[string]bool{}
	for _, t := range r.Taxonomies {
		key := t.Code + "\x00" + t.License + "\x00" + t.LicenseState
		if seen[key] {
			continue
		}
		seen[key] = true
		q := Qualification{Code: tax.concept(t.Code)}
		if t.License != "" {
			q.Identifier = []Identifier{{Value: t.License,
				Type: &CodeableConcept{Coding: []Coding{{System: SystemIdentifierType, Code: "LN", Display: "License number"}}}}}
		}
		if t.LicenseState != "" {
			q.Issuer = &Reference{Display: "State of " + t.LicenseState}
		}
		out = append(out, q)
	}
	return out
}

func sameAddress(a, b stored.Address) bool {
	return a.Line1 == b.Line1 && a.Line2 == b.Line2 && a.City == b.City && a.State == b.State && a.PostalCode == b.PostalCode
}

func sandbox(k *stored.Keys, visible bool) {
	if visible {
		k.Add(KeySandbox, "1")
	}
}
