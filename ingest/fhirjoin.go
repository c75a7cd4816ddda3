package ingest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"providerdir/mapping"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// joiner gathers what one provider's FHIR resources are built from. It holds the small tables in
// memory and looks everything else up by search key, so memory does not grow with the registry.
// Its methods are safe for concurrent use by the projection's workers.
type joiner struct {
	st  store.Store
	gen map[string]string
	tax fhirmap.Taxonomies
	// sandbox is the sandbox NPI subset; sandboxOrgs the organizations their roles name.
	sandbox     map[string]bool
	sandboxOrgs map[string]bool
	// ccnNPIs is the hospital enrollment bridge: the organization NPIs enrolled under each CCN;
	// npiCCNs the same the other way.
	ccnNPIs map[string][]string
	npiCCNs map[string][]string
	// mergedCCN maps a CCN bridged to exactly one registry organization to that NPI, and
	// orgCCN the other way: the two are one Organization, identified by both.
	mergedCCN map[string]string
	orgCCN    map[string]string

	mu   sync.Mutex
	orgs map[string]orgInfo // registry organizations looked up so far, by NPI
	facs map[string]facInfo // POS facilities looked up so far, by CCN
}

type orgInfo struct {
	ok   bool // the NPI is a registry organization that gets an Organization resource
	name string
}

type facInfo struct {
	ok  bool // the CCN is a POS facility that gets a resource
	rec *mapping.Body[mapping.FacilityRecord]
}

func newJoiner(ctx context.Context, p *Projection) (*joiner, error) {
	j := &joiner{st: p.Store(), gen: map[string]string{}, sandbox: map[string]bool{}, sandboxOrgs: map[string]bool{},
		ccnNPIs: map[string][]string{}, npiCCNs: map[string][]string{}, mergedCCN: map[string]string{}, orgCCN: map[string]string{},
		orgs: map[string]orgInfo{}, facs: map[string]facInfo{}}
	for _, c := range []string{RegistryProviders, RegistryLocations, RegistryOtherNames, Enrollments, HospitalEnrollments,
		Reassignments, Facilities, NUCCTaxonomy, SandboxNPIs} {
		g, err := p.Generation(ctx, c)
		if err != nil {
			return nil, err
		}
		j.gen[c] = g
	}
	var err error
	if j.tax, err = taxonomies(ctx, j.st, j.gen[NUCCTaxonomy]); err != nil {
		return nil, err
	}
	err = j.each(ctx, SandboxNPIs, nil, func(d *store.Document) error { j.sandbox[d.ID] = true; return nil })
	if err != nil {
		return nil, err
	}
	err = j.each(ctx, HospitalEnrollments, nil, func(d *store.Document) error {
		b, err := mapping.DecodeBody[mapping.HospitalEnrollmentRecord](*d)
		if err != nil {
			return fmt.Errorf("fhir: hospital enrollment %s: %w", d.ID, err)
		}
		if r := b.Record; r.CCN != "" && r.NPI != "" && !slices.Contains(j.ccnNPIs[r.CCN], r.NPI) {
			j.ccnNPIs[r.CCN] = append(j.ccnNPIs[r.CCN], r.NPI)
			j.npiCCNs[r.NPI] = append(j.npiCCNs[r.NPI], r.CCN)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for ccn, npis := range j.ccnNPIs {
		if len(npis) != 1 {
			continue
		}
		org, err := j.org(ctx, npis[0])
		if err != nil {
			return nil, err
		}
		if org.ok {
			j.mergedCCN[ccn], j.orgCCN[npis[0]] = npis[0], ccn
		}
	}
	// The organizations of the sandbox practitioners' roles are in the sandbox too, with their
	// locations and services, so that a sandbox client's includes resolve.
	var work []string
	for npi := range j.sandbox {
		emps, err := j.employers(ctx, npi)
		if err != nil {
			return nil, err
		}
		for _, e := range emps {
			work = append(work, e.OrgID)
		}
	}
	// ... and the organizations those are part of, so that partOf resolves too.
	for len(work) > 0 {
		id := work[len(work)-1]
		work = work[:len(work)-1]
		if j.sandboxOrgs[id] {
			continue
		}
		j.sandboxOrgs[id] = true
		parent, err := j.parentOf(ctx, id)
		if err != nil {
			return nil, err
		}
		if parent != "" {
			work = append(work, parent)
		}
	}
	return j, nil
}

// parentOf returns the id of the Organization an Organization is part of, "" when none: for an
// organization NPI, the facility of a CCN it is enrolled under with others; for a facility, the
// organization of its related provider.
func (j *joiner) parentOf(ctx context.Context, orgID string) (string, error) {
	if ccn, ok := strings.CutPrefix(orgID, fhirmap.FacilityID("")); ok {
		f, err := j.facility(ctx, ccn)
		if err != nil || !f.ok {
			return "", err
		}
		parent, err := j.facilityOrgID(ctx, f.rec.Record.RelatedProvider)
		if parent == orgID {
			parent = ""
		}
		return parent, err
	}
	for _, ccn := range j.npiCCNs[orgID] {
		if len(j.ccnNPIs[ccn]) > 1 {
			return j.facilityOrgID(ctx, ccn)
		}
	}
	return "", nil
}

// each calls fn for every document of a collection matching where.
func (j *joiner) each(ctx context.Context, collection string, where []store.Condition, fn func(*store.Document) error) error {
	gen := j.gen[collection]
	if gen == "" {
		return nil
	}
	q := store.Query{Collection: collection, Generation: gen, Where: where, Limit: 1000}
	for {
		page, err := j.st.Find(ctx, q)
		if err != nil {
			return err
		}
		for i := range page.Docs {
			if err := fn(&page.Docs[i]); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}

// provider builds the resources of one registry document.
func (j *joiner) provider(ctx context.Context, d *store.Document) ([]fhirmap.Resource, error) {
	body, err := mapping.DecodeBody[mapping.RegistryRecord](*d)
	if err != nil {
		return nil, fmt.Errorf("fhir: registry record %s: %w", d.ID, err)
	}
	p := &fhirmap.Provider{Record: body.Record, Provenance: body.Provenance}
	r := &p.Record
	individual := fhirmap.HasPractitioner(r)
	if !individual && !fhirmap.HasOrganization(r) {
		return nil, fhirmap.ErrNoResource
	}
	if p.Secondary, err = j.secondary(ctx, r.NPI); err != nil {
		return nil, err
	}
	if individual {
		p.Sandbox = j.sandbox[r.NPI]
		if p.Employers, err = j.employers(ctx, r.NPI); err != nil {
			return nil, err
		}
		return fhirmap.BuildIndividual(p, j.tax)
	}
	p.Sandbox = j.sandboxOrgs[r.NPI]
	err = j.each(ctx, RegistryOtherNames, []store.Condition{{Param: mapping.KeyNPI, Values: []string{r.NPI}}}, func(d *store.Document) error {
		b, err := mapping.DecodeBody[mapping.OtherNameRecord](*d)
		if err == nil {
			p.OtherNames = append(p.OtherNames, b.Record.Name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if ccn, ok := j.orgCCN[r.NPI]; ok {
		p.CCN = ccn
		f, err := j.facility(ctx, ccn)
		if err != nil {
			return nil, err
		}
		if f.ok {
			p.Facility = &fhirmap.Facility{Record: f.rec.Record, Provenance: f.rec.Provenance}
		}
	}
	// An organization NPI enrolled with others under one hospital CCN is part of that hospital.
	if p.PartOf, err = j.parentOf(ctx, r.NPI); err != nil {
		return nil, err
	}
	return fhirmap.BuildOrganization(p, j.tax)
}

// secondary returns a provider's secondary practice locations.
func (j *joiner) secondary(ctx context.Context, npi string) ([]fhirmap.SecondaryLocation, error) {
	var out []fhirmap.SecondaryLocation
	err := j.each(ctx, RegistryLocations, []store.Condition{{Param: mapping.KeyNPI, Values: []string{npi}}}, func(d *store.Document) error {
		b, err := mapping.DecodeBody[mapping.Address](*d)
		if err == nil {
			out = append(out, fhirmap.SecondaryLocation{ID: d.ID, Address: b.Record})
		}
		return err
	})
	return out, err
}

// employers follows PECOS from an individual's NPI to the organizations that bill for their
// work: the individual's enrollments, their reassignments of benefits, the receiving
// enrollments, and those enrollments' NPIs, kept when the registry holds them as organizations.
func (j *joiner) employers(ctx context.Context, npi string) ([]fhirmap.Employer, error) {
	var enrollments []string
	err := j.each(ctx, Enrollments, []store.Condition{{Param: mapping.KeyNPI, Values: []string{npi}}}, func(d *store.Document) error {
		b, err := mapping.DecodeBody[mapping.EnrollmentRecord](*d)
		if err == nil {
			enrollments = append(enrollments, b.Record.EnrollmentID)
		}
		return err
	})
	if err != nil || len(enrollments) == 0 {
		return nil, err
	}
	type link struct {
		receiving string
		prov      mapping.Provenance
	}
	var links []link
	err = j.each(ctx, Reassignments, []store.Condition{{Param: mapping.KeyReassigning, Values: enrollments}}, func(d *store.Document) error {
		b, err := mapping.DecodeBody[mapping.ReassignmentRecord](*d)
		if err == nil {
			links = append(links, link{b.Record.Receiving, b.Provenance})
		}
		return err
	})
	if err != nil || len(links) == 0 {
		return nil, err
	}
	var out []fhirmap.Employer
	for _, l := range links {
		err := j.each(ctx, Enrollments, []store.Condition{{Param: mapping.KeyEnrollment, Values: []string{l.receiving}}}, func(d *store.Document) error {
			b, err := mapping.DecodeBody[mapping.EnrollmentRecord](*d)
			if err != nil {
				return err
			}
			if b.Record.NPI == npi || slices.ContainsFunc(out, func(e fhirmap.Employer) bool { return e.OrgID == b.Record.NPI }) {
				return nil
			}
			org, err := j.org(ctx, b.Record.NPI)
			if err != nil || !org.ok {
				return err
			}
			out = append(out, fhirmap.Employer{OrgID: b.Record.NPI, Name: org.name, Provenance: l.prov, Snapshot: l.prov.Snapshot})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b fhirmap.Employer) int {
		if a.OrgID < b.OrgID {
			return -1
		}
		if a.OrgID > b.OrgID {
			return 1
		}
		return 0
	})
	return out, nil
}

// org says whether an NPI is a registry organization with an Organization resource.
func (j *joiner) org(ctx context.Context, npi string) (orgInfo, error) {
	j.mu.Lock()
	info, ok := j.orgs[npi]
	j.mu.Unlock()
	if ok {
		return info, nil
	}
	if g := j.gen[RegistryProviders]; g != "" {
		d, err := j.st.Get(ctx, g, RegistryProviders, npi)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return orgInfo{}, err
		default:
			b, err := mapping.DecodeBody[mapping.RegistryRecord](d)
			if err != nil {
				return orgInfo{}, err
			}
			info = orgInfo{ok: fhirmap.HasOrganization(&b.Record), name: b.Record.OrganizationName}
		}
	}
	j.mu.Lock()
	j.orgs[npi] = info
	j.mu.Unlock()
	return info, nil
}

// facility looks a POS facility up by CCN.
func (j *joiner) facility(ctx context.Context, ccn string) (facInfo, error) {
	j.mu.Lock()
	info, ok := j.facs[ccn]
	j.mu.Unlock()
	if ok {
		return info, nil
	}
	if g := j.gen[Facilities]; g != "" && ccn != "" {
		d, err := j.st.Get(ctx, g, Facilities, ccn)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return facInfo{}, err
		default:
			b, err := mapping.DecodeBody[mapping.FacilityRecord](d)
			if err != nil {
				return facInfo{}, err
			}
			info = facInfo{ok: b.Record.Name != "", rec: &b}
		}
	}
	j.mu.Lock()
	j.facs[ccn] = info
	j.mu.Unlock()
	return info, nil
}

// facilityOrgID is the id of the Organization that stands for a CCN: the organization NPI it is
// merged with, or the facility's own; "" when no resource stands for it (a reference to it
// would dangle).
func (j *joiner) facilityOrgID(ctx context.Context, ccn string) (string, error) {
	if ccn == "" {
		return "", nil
	}
	if npi, ok := j.mergedCCN[ccn]; ok {
		return npi, nil
	}
	f, err := j.facility(ctx, ccn)
	if err != nil || !f.ok {
		return "", err
	}
	return fhirmap.FacilityID(ccn), nil
}
