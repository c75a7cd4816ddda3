package fhirmap

import (
	"providerdir/stored"
	"strings"
)

// Provider is everything one NPPES provider's resources are built from. The ingest projection
// gathers it from the stored collections; every reference it carries points at a resource the
// projection knows it builds, so no reference dangles and none is invented.
type Provider struct {
	Record     stored.RegistryRecord
	Provenance stored.Provenance
	// Secondary holds the provider's secondary practice locations (pl_pfile).
	Secondary []SecondaryLocation
	// OtherNames are an organization's other names (othername_pfile).
	OtherNames []string
	// Endpoints are the provider's electronic endpoints (endpoint_pfile).
	Endpoints []EndpointInput
	// Employers are the organizations an individual reassigns Medicare benefits to (PECOS
	// reassignment joined to the receiving enrollment's NPI): one PractitionerRole each.
	Employers []Employer
	// CCN is the CMS Certification Number the hospital enrollment file bridges an organization
	// NPI to, when it bridges it to exactly one; Facility is that facility's POS record, when
	// the POS file holds it.
	CCN      string
	Facility *Facility
	// PartOf is the id of the Organization an organization is a part of, when a real join says so;
	// PartOfByName says the join is a registry subpart's Parent Organization LBN matched to the
	// one organization of that legal name, which partOf states with its rule and confidence.
	PartOf       string
	PartOfByName bool
	// Sandbox says the provider's resources are visible to sandbox credentials.
	Sandbox bool
}

// SecondaryLocation is one pl_pfile row of the provider, with its stored document id.
type SecondaryLocation struct {
	ID      string
	Address stored.Address
}

// Employer is an organization an individual works for, as PECOS says.
type Employer struct {
	// OrgID is the id of the Organization resource.
	OrgID string
	Name  string
	// Provenance is that of the enrollment record the join went through.
	Provenance stored.Provenance
	// Snapshot is that record's snapshot date, for the role's lastUpdated.
	Snapshot string
	// Inactive says the organization is deactivated: it has no HealthcareService, so the role
	// names none (see BuildOrganization).
	Inactive bool
}

// Facility is a Provider of Services facility.
type Facility struct {
	Record     stored.FacilityRecord
	Provenance stored.Provenance
	// PartOf is the id of the Organization of the facility's related provider, when known.
	PartOf string
	// Sandbox says the facility's resources are visible to sandbox credentials.
	Sandbox bool
}

// Taxonomies maps NUCC taxonomy codes to their display names, as the code set publishes them.
type Taxonomies map[string]string

func (t Taxonomies) coding(code string) Coding {
	return Coding{System: SystemNUCC, Code: code, Display: t[code]}
}

func (t Taxonomies) concept(code string) CodeableConcept {
	return CodeableConcept{Coding: []Coding{t.coding(code)}}
}

// specialties returns one concept per distinct taxonomy code, the primary first.
func (t Taxonomies) specialties(r *stored.RegistryRecord) []CodeableConcept {
	var out []CodeableConcept
	seen := map[string]bool{}
	add := func(code string) {
		if code != "" && !seen[code] {
			seen[code] = true
			out = append(out, t.concept(code))
		}
	}
	add(r.PrimaryTaxonomy)
	for _, tx := range r.Taxonomies {
		add(tx.Code)
	}
	return out
}

// fhirAddress converts a stored address; nil when it has no usable part.
func fhirAddress(a stored.Address, use, kind string) *Address {
	out := &Address{Use: use, Type: kind, City: a.City, State: a.State, PostalCode: postalCode(a.PostalCode), Country: a.Country}
	for _, l := range []string{a.Line1, a.Line2} {
		if l = strings.TrimSpace(l); l != "" {
			out.Line = append(out.Line, l)
		}
	}
	if len(out.Line) == 0 && out.City == "" && out.State == "" && out.PostalCode == "" {
		return nil
	}
	return out
}

// postalCode renders a 9-digit ZIP as ZIP+4; anything else as published.
func postalCode(z string) string {
	if len(z) == 9 && digitsOnly(z) == z {
		return z[:5] + "-" + z[5:]
	}
	return z
}

// telecom lists the phone and fax of an address.
func telecom(a stored.Address) []ContactPoint {
	var out []ContactPoint
	if a.Phone != "" {
		out = append(out, ContactPoint{System: "phone", Value: a.Phone, Use: "work"})
	}
	if a.Fax != "" {
		out = append(out, ContactPoint{System: "fax", Value: a.Fax, Use: "work"})
	}
	return out
}

// addressLabel is a one-line rendering of an address, used to name the place.
func addressLabel(a stored.Address) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{a.Line1, a.City, a.State} {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", ")
}

// personName renders an individual's name: official HumanName and a display string.
func personName(n *stored.PersonName) (HumanName, string) {
	h := HumanName{Use: "official", Family: n.Last}
	for _, g := range []string{n.First, n.Middle} {
		if g != "" {
			h.Given = append(h.Given, g)
		}
	}
	if n.Prefix != "" {
		h.Prefix = []string{n.Prefix}
	}
	for _, s := range []string{n.Suffix, n.Credential} {
		if s != "" {
			h.Suffix = append(h.Suffix, s)
		}
	}
	parts := append(append(append([]string{}, h.Prefix...), h.Given...), h.Family)
	parts = append(parts, h.Suffix...)
	h.Text = strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	return h, h.Text
}

// gender maps the NPPES sex code to FHIR administrative gender.
func gender(code string) string {
	switch code {
	case "M":
		return "male"
	case "F":
		return "female"
	case "X":
		return "other"
	case "U":
		return "unknown"
	}
	return ""
}

// lastUpdated is the date a record last changed at source, or its snapshot when the source does
// not date its records.
func lastUpdated(recordDate string, p stored.Provenance) string {
	if recordDate != "" {
		return recordDate
	}
	return p.Snapshot
}

// IDOfNPI returns the id of the resource of type typ that carries an NPI identifier, for the
// types whose ids are NPIs: a Practitioner's and a registry Organization's id is its NPI, and no
// other resource of those types carries that NPI. ok is false for the other types. The search
// surface reads such resources by id rather than probing the identifier index.
func IDOfNPI(typ, npi string) (id string, ok bool) {
	if typ == TypePractitioner || typ == TypeOrganization {
		return npi, true
	}
	return "", false
}

func npiIdentifier(npi string) Identifier {
	return Identifier{Use: "official", System: SystemNPI, Value: npi,
		Type: &CodeableConcept{Coding: []Coding{{System: SystemIdentifierType, Code: "NPI", Display: "National provider identifier"}}}}
}

func ccnIdentifier(ccn string) Identifier {
	return Identifier{Use: "official", System: SystemCCN, Value: ccn,
		Type: &CodeableConcept{Coding: []Coding{{System: SystemIdentifierType, Code: "PRN", Display: "Provider number"}}, Text: "CMS Certification Number"}}
}
