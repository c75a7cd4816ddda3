package fhirmap

import "providerdir/stored"

// providerLocations builds a provider's practice Locations: the primary practice address (id =
// the NPI) and each secondary one (id = its pl_pfile document id). managingOrg is the id of the
// Organization that manages them, "" for an individual's (the registry names none). Each names
// the provider's Endpoints whose endpoint file row gives its address (endpointsAt).
func providerLocations(p *Provider, display, managingOrg, updated string) ([]Resource, error) {
	r := &p.Record
	var types []CodeableConcept
	if kind, ok := taxonomyLocationType(r.PrimaryTaxonomy); ok && managingOrg != "" {
		types = []CodeableConcept{kind.concept("")}
	}
	var out []Resource
	if res, ok, err := location(r.NPI, display, r.PracticeAddress, types, r.Active, managingOrg, endpointsAt(p, r.PracticeAddress), p.Sandbox, updated, p.Provenance); err != nil {
		return nil, err
	} else if ok {
		out = append(out, res)
	}
	for _, s := range p.Secondary {
		res, ok, err := location(s.ID, display, s.Address, types, r.Active, managingOrg, endpointsAt(p, s.Address), p.Sandbox, updated, p.Provenance)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, res)
		}
	}
	return out, nil
}

// location builds one practice Location. Its name (mandatory in US Core) is the practice's and
// the address's, since the registry names addresses, not places; types is the place's kind, where
// the organization's taxonomy names one (an individual's office has none). ok is false for an
// address with no usable part.
func location(id, display string, a stored.Address, types []CodeableConcept, active bool, managingOrg string, endpoints []Reference, visible bool, updated string, prov stored.Provenance) (Resource, bool, error) {
	addr := fhirAddress(a, "work", "physical")
	if addr == nil {
		return Resource{}, false, nil
	}
	loc := Location{
		ResourceType: TypeLocation, ID: id,
		Status:   status(active),
		Name:     display + " - " + addressLabel(a),
		Type:     types,
		Telecom:  telecom(a),
		Address:  addr,
		Endpoint: endpoints,
	}
	pos, zip, err := position(addr)
	if err != nil {
		return Resource{}, false, err
	}
	loc.Position = pos
	if managingOrg != "" {
		loc.ManagingOrganization = &Reference{Reference: Ref(TypeOrganization, managingOrg), Display: display}
	}
	res, err := encode(TypeLocation, id, loc, newMeta(TypeLocation, updated, prov).meetsPlanNet(active), locationKeys(&loc, zip, visible))
	return res, err == nil, err
}

// facilityLocation builds the Location of a Provider of Services facility (id "ccn-<CCN>"),
// managed by the Organization orgID, naming endpoints.
func facilityLocation(f *Facility, orgID string, endpoints []Reference, visible bool) (Resource, bool, error) {
	rec := &f.Record
	addr := fhirAddress(rec.Address, "work", "physical")
	if addr == nil || rec.Name == "" {
		return Resource{}, false, nil
	}
	id := FacilityID(rec.CCN)
	loc := Location{
		ResourceType: TypeLocation, ID: id,
		Identifier: []Identifier{ccnIdentifier(rec.CCN)},
		Status:     status(rec.Active),
		Name:       rec.Name,
		Telecom:    telecom(rec.Address),
		Address:    addr,
		Endpoint:   endpoints,
	}
	pos, zip, err := position(addr)
	if err != nil {
		return Resource{}, false, err
	}
	loc.Position = pos
	if kind, ok := facilityLocationTypes[rec.CategoryCode]; ok {
		loc.Type = []CodeableConcept{kind.concept(stored.FacilityCategory(rec.CategoryCode))}
	} else if t := stored.FacilityCategory(rec.CategoryCode); t != "" {
		loc.Type = []CodeableConcept{{Text: t}}
	}
	loc.ManagingOrganization = &Reference{Reference: Ref(TypeOrganization, orgID), Display: rec.Name}
	res, err := encode(TypeLocation, id, loc, newMeta(TypeLocation, lastUpdated("", f.Provenance), f.Provenance).meetsPlanNet(rec.Active), locationKeys(&loc, zip, visible))
	return res, err == nil, err
}

// locationKeys computes a Location's search keys. A practice Location's name is the practice's
// name and its address (location), searched from its start like any name; zcta is the ZCTA its
// position is the centroid of, "" without a position.
func locationKeys(loc *Location, zcta string, visible bool) stored.Keys {
	k := make(stored.Keys, 0, keysPerResource)
	addIdentifiers(&k, loc.Identifier)
	addString(&k, KeyName, loc.Name)
	addAddress(&k, loc.Address)
	addConcepts(&k, KeyType, loc.Type)
	k.Add(KeyStatus, loc.Status)
	addReference(&k, KeyOrganization, loc.ManagingOrganization)
	addTelecom(&k, loc.Telecom)
	addReferences(&k, KeyEndpoint, loc.Endpoint)
	if zcta != "" {
		k.Add(KeyNear, zcta)
	}
	sandbox(&k, visible)
	return k
}

// FacilityID is the resource id of a facility known by its CCN alone.
func FacilityID(ccn string) string { return "ccn-" + ccn }

func status(active bool) string {
	if active {
		return "active"
	}
	return "inactive"
}
