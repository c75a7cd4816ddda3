package fhirmap

import (
	"providerdir/stored"
	"strings"
)

// HasOrganization reports whether a registry record yields an Organization: an organization
// with a name (US Core makes name mandatory).
func HasOrganization(r *stored.RegistryRecord) bool {
	return r.EntityType == "organization" && strings.TrimSpace(r.OrganizationName) != ""
}

// BuildOrganization builds an organization provider's resources: the Organization (id = NPI),
// its practice Locations, the Location of the facility the hospital enrollment file bridges it
// to, its Endpoints, and, while it is active, its HealthcareService (id = NPI). The Organization
// and its service name the Endpoints: the organization's endpoints are how its services are
// reached; each Location names those whose endpoint file row gives its address.
//
// The HealthcareService is served on Plan-Net's profile, which fixes active to true: a service in
// a Plan-Net directory is one a member can use. A deactivated organization or a terminated
// facility offers none, so it has no HealthcareService, while its Organization stays (active
// false, as US Core allows) and the roles naming it name no service (Employer.Inactive).
func BuildOrganization(p *Provider, tax Taxonomies) ([]Resource, error) {
	r := &p.Record
	if !HasOrganization(r) {
		return nil, ErrNoResource
	}
	updated := lastUpdated(r.LastUpdated, p.Provenance)
	org := Organization{
		ResourceType: TypeOrganization, ID: r.NPI,
		Identifier: []Identifier{npiIdentifier(r.NPI)},
		Active:     boolPtr(r.Active),
		Type:       []CodeableConcept{orgTypeConcept(orgTypeOfTaxonomy(r.PrimaryTaxonomy), "")},
		Name:       r.OrganizationName,
		Telecom:    telecom(r.PracticeAddress),
	}
	if p.CCN != "" {
		org.Identifier = append(org.Identifier, ccnIdentifier(p.CCN))
	}
	if p.Facility != nil {
		org.Type = []CodeableConcept{orgTypeConcept("fac", stored.FacilityCategory(p.Facility.Record.CategoryCode))}
	}
	seen := map[string]bool{strings.ToUpper(r.OrganizationName): true}
	for _, n := range append([]string{r.OtherName}, p.OtherNames...) {
		if n = strings.TrimSpace(n); n != "" && !seen[strings.ToUpper(n)] {
			seen[strings.ToUpper(n)] = true
			org.Alias = append(org.Alias, n)
		}
	}
	if a := fhirAddress(r.PracticeAddress, "work", "physical"); a != nil {
		org.Address = append(org.Address, *a)
	}
	if a := fhirAddress(r.MailingAddress, "work", "postal"); a != nil && !sameAddress(r.MailingAddress, r.PracticeAddress) {
		org.Address = append(org.Address, *a)
	}
	if p.PartOf != "" {
		org.PartOf = &Reference{Reference: Ref(TypeOrganization, p.PartOf)}
		if p.PartOfByName {
			org.PartOf.Display = r.ParentOrganization
			org.PartOf.Extension = []Extension{partOfMatch()}
		}
	}
	if o := r.AuthorizedOfficial; o != nil && o.Name.Last != "" {
		name, _ := personName(&o.Name)
		name.Use = ""
		c := OrganizationContact{
			Purpose: &CodeableConcept{Coding: []Coding{{System: SystemContactEntityType, Code: "ADMIN", Display: "Administrative"}}, Text: o.Title},
			Name:    &name,
		}
		if o.Phone != "" {
			c.Telecom = []ContactPoint{{System: "phone", Value: o.Phone, Use: "work"}}
		}
		org.Contact = []OrganizationContact{c}
	}

	eps, err := providerEndpoints(p, org.ID, updated)
	if err != nil {
		return nil, err
	}
	org.Endpoint = endpointRefs(eps)
	out := make([]Resource, 0, 4+len(p.Secondary)+len(eps))
	res, err := encode(TypeOrganization, org.ID, org, newMeta(TypeOrganization, updated, p.Provenance).meetsPlanNet(meetsPlanNetOrganization(&org)), organizationKeys(&org, p.Sandbox))
	if err != nil {
		return nil, err
	}
	out = append(out, res)
	locs, err := providerLocations(p, org.Name, org.ID, updated)
	if err != nil {
		return nil, err
	}
	if p.Facility != nil {
		l, ok, err := facilityLocation(p.Facility, org.ID, endpointsAt(p, p.Facility.Record.Address), p.Sandbox)
		if err != nil {
			return nil, err
		}
		if ok {
			locs = append(locs, l)
		}
	}
	out = append(out, locs...)
	out = append(out, eps...)
	if !r.Active {
		return out, nil // inactive: no HealthcareService (see BuildOrganization)
	}

	svc := HealthcareService{
		ResourceType: TypeHealthcareService, ID: org.ID,
		Active:     boolPtr(true),
		ProvidedBy: &Reference{Reference: Ref(TypeOrganization, org.ID), Display: org.Name},
		Category:   []CodeableConcept{categoryConcept(taxonomyCategory(r.PrimaryTaxonomy))},
		Specialty:  tax.specialties(r),
		Name:       org.Name,
		Telecom:    org.Telecom,
		Endpoint:   org.Endpoint,
	}
	if p.Facility != nil {
		if c := serviceCategories[p.Facility.Record.CategoryCode]; c != "" {
			svc.Category = []CodeableConcept{categoryConcept(c)}
		}
		if t := stored.FacilityCategory(p.Facility.Record.CategoryCode); t != "" {
			svc.Type = []CodeableConcept{{Text: t}}
		}
	}
	for _, l := range locs {
		svc.Location = append(svc.Location, Reference{Reference: Ref(TypeLocation, l.ID)})
	}
	res, err = encode(TypeHealthcareService, svc.ID, svc, newMeta(TypeHealthcareService, updated, p.Provenance), serviceKeys(&svc, p.Sandbox))
	if err != nil {
		return nil, err
	}
	return append(out, res), nil
}

// BuildFacility builds the resources of a Provider of Services facility that no organization
// NPI stands for: an Organization, its Location and its HealthcareService, all with id
// "ccn-<CCN>" and the CCN as identifier.
func BuildFacility(f *Facility) ([]Resource, error) {
	rec := &f.Record
	if strings.TrimSpace(rec.Name) == "" {
		return nil, ErrNoResource
	}
	id := FacilityID(rec.CCN)
	ftype := stored.FacilityCategory(rec.CategoryCode)
	org := Organization{
		ResourceType: TypeOrganization, ID: id,
		Identifier: []Identifier{ccnIdentifier(rec.CCN)},
		Active:     boolPtr(rec.Active),
		Type:       []CodeableConcept{orgTypeConcept("fac", ftype)},
		Name:       rec.Name,
		Telecom:    telecom(rec.Address),
	}
	if a := fhirAddress(rec.Address, "work", "physical"); a != nil {
		org.Address = []Address{*a}
	}
	if f.PartOf != "" {
		org.PartOf = &Reference{Reference: Ref(TypeOrganization, f.PartOf)}
	}
	updated := lastUpdated("", f.Provenance)
	out := make([]Resource, 0, 3)
	res, err := encode(TypeOrganization, id, org, newMeta(TypeOrganization, updated, f.Provenance).meetsPlanNet(meetsPlanNetOrganization(&org)), organizationKeys(&org, f.Sandbox))
	if err != nil {
		return nil, err
	}
	out = append(out, res)
	loc, hasLoc, err := facilityLocation(f, id, nil, f.Sandbox)
	if err != nil {
		return nil, err
	}
	if hasLoc {
		out = append(out, loc)
	}

	if !rec.Active {
		return out, nil // inactive: no HealthcareService (see BuildOrganization)
	}
	category := serviceCategories[rec.CategoryCode]
	if category == "" {
		category = "other"
	}
	svc := HealthcareService{
		ResourceType: TypeHealthcareService, ID: id,
		Identifier: []Identifier{ccnIdentifier(rec.CCN)},
		Active:     boolPtr(true),
		ProvidedBy: &Reference{Reference: Ref(TypeOrganization, id), Display: rec.Name},
		Category:   []CodeableConcept{categoryConcept(category)},
		Name:       rec.Name,
		Telecom:    org.Telecom,
	}
	if ftype != "" {
		svc.Type = []CodeableConcept{{Text: ftype}}
	}
	if hasLoc {
		svc.Location = []Reference{{Reference: Ref(TypeLocation, loc.ID)}}
	}
	res, err = encode(TypeHealthcareService, id, svc, newMeta(TypeHealthcareService, updated, f.Provenance), serviceKeys(&svc, f.Sandbox))
	if err != nil {
		return nil, err
	}
	return append(out, res), nil
}

// ExtLinkMatch states how a reference was inferred, on the Reference: the rule matched
// (valueString "rule"), its confidence (valueDecimal "confidence", 0 to 1, as the provenance's
// _confidence) and the methodology that documents it ("methodology").
const ExtLinkMatch = "urn:providerdir:extension:link-match"

// PartOfNameConfidence is the confidence of a subpart's parent found by its legal name: a
// unique exact name among the organizations that are not subparts, but a name, not an
// identifier.
const PartOfNameConfidence = 0.9

// partOfMatch states the subpart rule on an Organization.partOf it produced.
func partOfMatch() Extension {
	return linkMatch("NPPES subpart: its Parent Organization LBN is the legal business name of exactly one organization NPI not itself a subpart (case, punctuation and spacing aside)",
		PartOfNameConfidence)
}

// linkMatch is the ExtLinkMatch extension of a reference inferred by rule with a confidence.
func linkMatch(rule string, confidence float64) Extension {
	return Extension{URL: ExtLinkMatch, Extension: []Extension{
		{URL: "rule", ValueString: rule},
		{URL: "confidence", ValueDecimal: &confidence},
		{URL: "methodology", ValueString: "fhir-directory/1.0.0"},
	}}
}

// meetsPlanNetOrganization reports whether an Organization meets plannet-Organization: active
// (the profile fixes it to true), with an address (1..*) and a type (1..*, which every
// Organization here has).
func meetsPlanNetOrganization(org *Organization) bool {
	return org.Active != nil && *org.Active && len(org.Address) > 0 && len(org.Type) > 0
}

func organizationKeys(org *Organization, visible bool) stored.Keys {
	k := make(stored.Keys, 0, keysPerResource)
	addIdentifiers(&k, org.Identifier)
	addString(&k, KeyName, org.Name)
	for _, a := range org.Alias {
		addString(&k, KeyName, a)
	}
	for i := range org.Address {
		addAddress(&k, &org.Address[i])
	}
	addConcepts(&k, KeyType, org.Type)
	k.Add(KeyActive, boolKey(org.Active != nil && *org.Active))
	addReference(&k, KeyPartOf, org.PartOf)
	addTelecom(&k, org.Telecom)
	addReferences(&k, KeyEndpoint, org.Endpoint)
	sandbox(&k, visible)
	return k
}

func serviceKeys(svc *HealthcareService, visible bool) stored.Keys {
	k := make(stored.Keys, 0, keysPerResource)
	addIdentifiers(&k, svc.Identifier)
	addString(&k, KeyName, svc.Name)
	addReference(&k, KeyOrganization, svc.ProvidedBy)
	for i := range svc.Location {
		addReference(&k, KeyLocation, &svc.Location[i])
	}
	addConcepts(&k, KeySpecialty, svc.Specialty)
	addConcepts(&k, KeyCategory, svc.Category)
	k.Add(KeyActive, boolKey(svc.Active != nil && *svc.Active))
	addTelecom(&k, svc.Telecom)
	addReferences(&k, KeyEndpoint, svc.Endpoint)
	sandbox(&k, visible)
	return k
}
