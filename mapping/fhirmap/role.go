package fhirmap

import (
	"providerdir/stored"
	"slices"
)

// practitionerRoles builds an individual's PractitionerRoles: one per organization PECOS says
// the practitioner reassigns benefits to (id "<NPI>-<organization id>"), or, with none, one of
// the practitioner alone (id = NPI). Each names the practitioner's practice Locations, the NUCC
// taxonomies as code (the primary) and specialty, and the practice telephone.
//
// Each also names the practitioner's Endpoints. US Core's pd-1 requires telecom or an endpoint:
// a practitioner with neither a published telephone or fax number nor an endpoint gets no role.
func practitionerRoles(p *Provider, tax Taxonomies, display string, locs, eps []Resource, updated string) ([]Resource, error) {
	r := &p.Record
	tel := roleTelecom(p)
	if len(tel) == 0 && len(eps) == 0 {
		return nil, nil
	}
	base := PractitionerRole{
		ResourceType: TypePractitionerRole,
		Active:       boolPtr(r.Active),
		Practitioner: &Reference{Reference: Ref(TypePractitioner, r.NPI), Display: display},
		Specialty:    tax.specialties(r),
		Telecom:      tel,
		Endpoint:     endpointRefs(eps),
	}
	// plannet-PractitionerRole binds code to its role codes: the role's concept holds the NUCC
	// code (US Core's binding) and the Plan-Net role code it falls under, and a role only meets
	// the Plan-Net profile with one.
	planNet := false
	if r.PrimaryTaxonomy != "" {
		code := tax.concept(r.PrimaryTaxonomy)
		if c, ok := providerRole(r.PrimaryTaxonomy); ok {
			code.Coding = append(code.Coding, c)
			planNet = r.Active
		}
		base.Code = []CodeableConcept{code}
	}
	var near []string
	for _, l := range locs {
		base.Location = append(base.Location, Reference{Reference: Ref(TypeLocation, l.ID)})
		for _, k := range l.Doc.Keys {
			if k.Param == KeyNear && !slices.Contains(near, k.Value) {
				near = append(near, k.Value)
			}
		}
	}

	if len(p.Employers) == 0 {
		role := base
		role.ID = r.NPI
		res, err := encode(TypePractitionerRole, role.ID, role, newMeta(TypePractitionerRole, updated, p.Provenance).meetsPlanNet(planNet), roleKeys(&role, near, p.Sandbox))
		if err != nil {
			return nil, err
		}
		return []Resource{res}, nil
	}
	out := make([]Resource, 0, len(p.Employers))
	for _, e := range p.Employers {
		role := base
		role.ID = r.NPI + "-" + e.OrgID
		role.Organization = &Reference{Reference: Ref(TypeOrganization, e.OrgID), Display: e.Name}
		if !e.Inactive {
			role.HealthcareService = []Reference{{Reference: Ref(TypeHealthcareService, e.OrgID), Display: e.Name}}
		}
		meta := newMeta(TypePractitionerRole, laterDate(updated, e.Snapshot), e.Provenance).meetsPlanNet(planNet)
		res, err := encode(TypePractitionerRole, role.ID, role, meta, roleKeys(&role, near, p.Sandbox))
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// roleTelecom is the practice's telephone and fax, else a secondary practice's, else the mailing
// address's: the numbers the registry publishes for reaching the practitioner at work.
func roleTelecom(p *Provider) []ContactPoint {
	if t := telecom(p.Record.PracticeAddress); len(t) > 0 {
		return t
	}
	for _, s := range p.Secondary {
		if t := telecom(s.Address); len(t) > 0 {
			return t
		}
	}
	return telecom(p.Record.MailingAddress)
}

// roleKeys computes a PractitionerRole's search keys. near are the ZCTAs of its Locations'
// positions, so that location.near is answered by the role's own keys.
func roleKeys(role *PractitionerRole, near []string, visible bool) stored.Keys {
	k := make(stored.Keys, 0, keysPerResource)
	addReference(&k, KeyPractitioner, role.Practitioner)
	addReference(&k, KeyOrganization, role.Organization)
	for i := range role.Location {
		addReference(&k, KeyLocation, &role.Location[i])
	}
	for i := range role.HealthcareService {
		addReference(&k, KeyService, &role.HealthcareService[i])
	}
	addConcepts(&k, KeySpecialty, role.Specialty)
	addConcepts(&k, KeyRole, role.Code)
	k.Add(KeyActive, boolKey(role.Active != nil && *role.Active))
	addTelecom(&k, role.Telecom)
	addReferences(&k, KeyEndpoint, role.Endpoint)
	for _, z := range near {
		k.Add(KeyNear, z)
	}
	sandbox(&k, visible)
	return k
}
