package ingest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/stored"
)

// joiner gathers what one provider's FHIR resources are built from. It holds the small tables and
// the PECOS employer join in memory; the registry's secondary locations and other names are
// merged in by NPI as the registry is scanned, and organizations and facilities are read by id.
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
	// emp is the PECOS employer join of every individual, built once (see pecosJoin).
	emp *pecosJoin

	mu    sync.Mutex
	orgs  map[string]orgInfo // registry organizations looked up so far, by NPI
	facs  map[string]facInfo // POS facilities looked up so far, by CCN
	named map[string]string  // organizations looked up by legal name so far (namedOrganization), by LegalNameKey
}

type orgInfo struct {
	ok     bool // the NPI is a registry organization that gets an Organization resource
	name   string
	active bool
	// parentName is the Parent Organization LBN of an organization the registry marks a
	// subpart, "" for any other.
	parentName string
}

// parentLink is the Organization another is part of, and whether the link is a subpart's
// parent found by its legal name (namedOrganization), which the resource states with its rule and
// confidence.
type parentLink struct {
	id     string
	byName bool
}

type facInfo struct {
	ok  bool // the CCN is a POS facility that gets a resource
	rec *stored.Body[stored.FacilityRecord]
}

func newJoiner(ctx context.Context, p *Projection) (*joiner, error) {
	gen := map[string]string{}
	for _, c := range fhirInputs {
		g, err := p.Generation(ctx, c)
		if err != nil {
			return nil, err
		}
		gen[c] = g
	}
	return newJoinerAt(ctx, p.Store(), gen, loadPECOSJoin)
}

// newJoinerAt is a joiner reading the inputs at the generations gen, whose PECOS employer join
// comes from pecos: the whole join, or the part a delta needs.
func newJoinerAt(ctx context.Context, st store.Store, gen map[string]string, pecos func(context.Context, *joiner) (*pecosJoin, error)) (*joiner, error) {
	j := &joiner{st: st, gen: gen, sandbox: map[string]bool{}, sandboxOrgs: map[string]bool{},
		ccnNPIs: map[string][]string{}, npiCCNs: map[string][]string{}, mergedCCN: map[string]string{}, orgCCN: map[string]string{},
		orgs: map[string]orgInfo{}, facs: map[string]facInfo{}, named: map[string]string{}}
	var err error
	if j.tax, err = taxonomies(ctx, j.st, j.gen[catalog.NUCCTaxonomy]); err != nil {
		return nil, err
	}
	if j.emp, err = pecos(ctx, j); err != nil {
		return nil, err
	}
	err = j.each(ctx, catalog.SandboxNPIs, func(d *store.Document) error { j.sandbox[d.ID] = true; return nil })
	if err != nil {
		return nil, err
	}
	err = j.each(ctx, catalog.HospitalEnrollments, func(d *store.Document) error {
		b, err := stored.DecodeBody[stored.HospitalEnrollmentRecord](*d)
		if err != nil {
			return fmt.Errorf("fhir: hospital enrollment %s: %w", d.ID, err)
		}
		if r := b.Record; r.CCN != "" && r.NPI != "" && !slices.Contains(j.ccnNPIs[r.CCN], r.NPI) {
			r.CCN, r.NPI = strings.Clone(r.CCN), strings.Clone(r.NPI) // kept for the whole build
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
	// ... the organizations their endpoints belong to, so that managingOrganization resolves ...
	for npi := range j.sandbox {
		affs, err := j.affiliates(ctx, npi)
		if err != nil {
			return nil, err
		}
		work = append(work, affs...)
	}
	// ... and, for each organization, those it is part of and those its endpoints belong to.
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
		if parent.id != "" {
			work = append(work, parent.id)
		}
		affs, err := j.affiliates(ctx, id)
		if err != nil {
			return nil, err
		}
		work = append(work, affs...)
	}
	return j, nil
}

// affiliates returns the Organizations the endpoints of an NPI affiliated elsewhere belong to
// (namedOrganization of each Affiliation Legal Business Name).
func (j *joiner) affiliates(ctx context.Context, npi string) ([]string, error) {
	g := j.gen[catalog.RegistryEndpoints]
	if g == "" {
		return nil, nil
	}
	var out []string
	err := store.EachDocument(ctx, j.st, store.Query{Collection: catalog.RegistryEndpoints, Generation: g, BodiesOnly: true,
		Where: []store.Condition{{Param: stored.KeyNPI, Values: []string{npi}, Match: store.Exact}}}, func(d *store.Document) error {
		b, err := stored.DecodeBody[stored.EndpointRecord](*d)
		if err != nil || !b.Record.AffiliatedElsewhere() {
			return err
		}
		id, err := j.namedOrganization(ctx, b.Record.AffiliationName)
		if id != "" {
			out = append(out, id)
		}
		return err
	})
	return out, err
}

// parentOf returns the Organization an Organization is part of, none when no join says so: for
// an organization NPI, the facility of a CCN it is enrolled under with others, else, for a
// registry subpart, the parent its record names (namedOrganization); for a facility, the
// organization of its related provider.
func (j *joiner) parentOf(ctx context.Context, orgID string) (parentLink, error) {
	if ccn, ok := strings.CutPrefix(orgID, fhirmap.FacilityID("")); ok {
		f, err := j.facility(ctx, ccn)
		if err != nil || !f.ok {
			return parentLink{}, err
		}
		parent, err := j.facilityOrgID(ctx, f.rec.Record.RelatedProvider)
		if parent == orgID {
			parent = ""
		}
		return parentLink{id: parent}, err
	}
	for _, ccn := range j.npiCCNs[orgID] {
		if len(j.ccnNPIs[ccn]) > 1 {
			parent, err := j.facilityOrgID(ctx, ccn)
			return parentLink{id: parent}, err
		}
	}
	org, err := j.org(ctx, orgID)
	if err != nil || org.parentName == "" {
		return parentLink{}, err
	}
	parent, err := j.namedOrganization(ctx, org.parentName)
	if parent == orgID {
		parent = ""
	}
	return parentLink{id: parent, byName: parent != ""}, err
}

// namedOrganization finds the organization a record names by its legal business name (a
// subpart's Parent Organization LBN, an endpoint's Affiliation Legal Business Name): the one
// registry organization not itself marked a subpart whose legal name is that name
// (stored.LegalNameKey: case, punctuation and spacing aside), and that has an Organization.
// None when no organization or more than one has the name: names are not identifiers, so an
// ambiguous name links nothing. Subparts usually carry their parent's legal name, so they are
// not candidates. A subpart's row also gives its parent's TIN, which cannot decide: the
// registry withholds every organization's own EIN.
func (j *joiner) namedOrganization(ctx context.Context, lbn string) (string, error) {
	key := stored.LegalNameKey(lbn)
	g := j.gen[catalog.RegistryProviders]
	if key == "" || g == "" {
		return "", nil
	}
	j.mu.Lock()
	id, ok := j.named[key]
	j.mu.Unlock()
	if ok {
		return id, nil
	}
	page, err := j.st.Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: g, Limit: 2,
		Where: []store.Condition{{Param: stored.KeyLegalName, Values: []string{key}, Match: store.Exact}}})
	if err != nil {
		return "", err
	}
	if len(page.Docs) == 1 {
		org, err := j.org(ctx, page.Docs[0].ID)
		if err != nil {
			return "", err
		}
		if org.ok {
			id = strings.Clone(page.Docs[0].ID)
		}
	}
	j.mu.Lock()
	j.named[key] = id
	j.mu.Unlock()
	return id, nil
}

// subpartsNaming returns the registry subparts whose Parent Organization LBN is, as
// stored.LegalNameKey compares it, the legal name of organization npi in this joiner's
// generation: the organizations whose parent link a change of npi may make or break.
func (j *joiner) subpartsNaming(ctx context.Context, npi string) ([]string, error) {
	return j.naming(ctx, npi, catalog.RegistryProviders, stored.KeyParentName)
}

// endpointOwnersNaming returns the NPIs with an endpoint affiliated elsewhere whose Affiliation
// Legal Business Name is, as stored.LegalNameKey compares it, the legal name of organization npi
// in this joiner's generation: the NPIs whose Endpoints' managing organization a change of npi
// may make or break.
func (j *joiner) endpointOwnersNaming(ctx context.Context, npi string) ([]string, error) {
	return j.naming(ctx, npi, catalog.RegistryEndpoints, stored.KeyAffiliationName)
}

// naming returns the NPIs of the documents of collection (ids that start with an NPI) whose
// param key is the legal name of organization npi, each once.
func (j *joiner) naming(ctx context.Context, npi, collection, param string) ([]string, error) {
	org, err := j.org(ctx, npi)
	key := stored.LegalNameKey(org.name)
	g := j.gen[collection]
	if err != nil || key == "" || g == "" {
		return nil, err
	}
	var out []string
	err = store.EachDocument(ctx, j.st, store.Query{Collection: collection, Generation: g,
		Where: []store.Condition{{Param: param, Values: []string{key}, Match: store.Exact}}}, func(d *store.Document) error {
		if n := npiOf(d.ID); !slices.Contains(out, n) {
			out = append(out, strings.Clone(n))
		}
		return nil
	})
	return out, err
}

// each calls fn for every document of a collection, read without its keys: the resources are
// built from bodies.
func (j *joiner) each(ctx context.Context, collection string, fn func(*store.Document) error) error {
	gen := j.gen[collection]
	if gen == "" {
		return nil
	}
	return store.EachDocument(ctx, j.st, store.Query{Collection: collection, Generation: gen, BodiesOnly: true}, fn)
}

// provider builds the resources of one registry document from it and the documents joined to
// it by NPI (its secondary locations, other names and endpoints, in id order).
func (j *joiner) provider(ctx context.Context, in *providerInput) ([]fhirmap.Resource, error) {
	d := &in.doc
	body, err := stored.DecodeBody[stored.RegistryRecord](*d)
	if err != nil {
		return nil, fmt.Errorf("fhir: registry record %s: %w", d.ID, err)
	}
	p := &fhirmap.Provider{Record: body.Record, Provenance: body.Provenance}
	r := &p.Record
	individual := fhirmap.HasPractitioner(r)
	if !individual && !fhirmap.HasOrganization(r) {
		return nil, fhirmap.ErrNoResource
	}
	for i := range in.locations {
		b, err := stored.DecodeBody[stored.Address](in.locations[i])
		if err != nil {
			return nil, err
		}
		p.Secondary = append(p.Secondary, fhirmap.SecondaryLocation{ID: in.locations[i].ID, Address: b.Record})
	}
	for i := range in.endpoints {
		b, err := stored.DecodeBody[stored.EndpointRecord](in.endpoints[i])
		if err != nil {
			return nil, err
		}
		ep := fhirmap.EndpointInput{ID: in.endpoints[i].ID, Record: b.Record}
		if b.Record.AffiliatedElsewhere() {
			if ep.Affiliate, err = j.namedOrganization(ctx, b.Record.AffiliationName); err != nil {
				return nil, err
			}
		}
		p.Endpoints = append(p.Endpoints, ep)
	}
	if individual {
		p.Sandbox = j.sandbox[r.NPI]
		if p.Employers, err = j.employers(ctx, r.NPI); err != nil {
			return nil, err
		}
		return fhirmap.BuildIndividual(p, j.tax)
	}
	p.Sandbox = j.sandboxOrgs[r.NPI]
	for i := range in.otherNames {
		b, err := stored.DecodeBody[stored.OtherNameRecord](in.otherNames[i])
		if err != nil {
			return nil, err
		}
		p.OtherNames = append(p.OtherNames, b.Record.Name)
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
	// An organization NPI enrolled with others under one hospital CCN is part of that hospital;
	// a subpart, of the parent its record names, where the name is unique.
	parent, err := j.parentOf(ctx, r.NPI)
	if err != nil {
		return nil, err
	}
	p.PartOf, p.PartOfByName = parent.id, parent.byName
	return fhirmap.BuildOrganization(p, j.tax)
}

// providerInput is one registry document with the documents joined to it by NPI.
type providerInput struct {
	doc        store.Document
	locations  []store.Document
	otherNames []store.Document
	endpoints  []store.Document
}

// npiGroups walks a collection whose ids start with an NPI ("<npi>.<digest>": the NPPES secondary
// locations, other names and endpoints) in id order, which is NPI order because an NPI is ten digits and
// the separator sorts before every digit. Asked for NPIs in ascending order, it returns each
// one's documents, so joining them to the registry is a merge of two ordered scans instead of
// a lookup per provider.
type npiGroups struct {
	sc   *scan // nil when the collection was never loaded
	peek *store.Document
	done bool
}

func newNPIGroups(st store.Store, collection, gen string) *npiGroups {
	if gen == "" {
		return &npiGroups{done: true}
	}
	return &npiGroups{sc: newScan(st, collection, gen)}
}

// npiOf returns the NPI an id starts with.
func npiOf(id string) string {
	if i := strings.IndexByte(id, '.'); i >= 0 {
		return id[:i]
	}
	return id
}

// take returns the documents of npi. Calls must come in ascending NPI order; documents of NPIs
// passed over (no registry record) are skipped.
func (g *npiGroups) take(ctx context.Context, npi string) ([]store.Document, error) {
	var out []store.Document
	for !g.done {
		if g.peek == nil {
			d, err := g.sc.next(ctx)
			if err != nil {
				return nil, err
			}
			if d == nil {
				g.done = true
				break
			}
			g.peek = d
		}
		switch n := npiOf(g.peek.ID); {
		case n < npi:
			g.peek = nil
		case n == npi:
			out = append(out, *g.peek)
			g.peek = nil
		default:
			return out, nil
		}
	}
	return out, nil
}

// pecosJoin is the PECOS employer join of every individual, read once in two scans: the
// enrollments (enrollment id -> NPIs) and the reassignments of benefits (reassigning enrollment
// -> receiving enrollment), giving each individual NPI the NPIs that bill for their work, in
// reassignment id order, each with the provenance of the reassignment it came through. NPIs and
// enrollment ids are held as numbers and provenances once each, so that the national files
// (about 3 million enrollments and 3.5 million reassignments) take a few hundred megabytes at
// most, and only while the join is being built. The join itself is one array of links sorted
// by individual, which holds no pointers: the garbage collector never scans it, however long
// the FHIR projection that reads it runs.
type pecosJoin struct {
	links []pecosLink // by individual, each individual's in reassignment order
	provs []stored.Provenance
}

type pecosLink struct {
	individual uint32 // the reassigning enrollment's NPI
	org        uint32 // the receiving enrollment's NPI
	prov       uint32 // index into provs
}

// of returns the links of an individual, in reassignment order.
func (pj *pecosJoin) of(individual uint32) []pecosLink {
	i, _ := slices.BinarySearchFunc(pj.links, individual, func(l pecosLink, n uint32) int { return cmp.Compare(l.individual, n) })
	j := i
	for j < len(pj.links) && pj.links[j].individual == individual {
		j++
	}
	return pj.links[i:j]
}

// npiNumber parses a ten-digit NPI; ok is false for anything else (validated NPIs always are).
func npiNumber(s string) (uint32, bool) {
	if len(s) != 10 {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 32)
	return uint32(n), err == nil
}

func npiString(n uint32) string { return fmt.Sprintf("%010d", n) }

// loadPECOSJoin reads the whole join: the enrollments and the reassignments, the two
// collections at once (the builder resolves reassignments only when the join is made).
func loadPECOSJoin(ctx context.Context, j *joiner) (*pecosJoin, error) {
	b := newPECOSJoinBuilder()
	if j.gen[catalog.Enrollments] == "" || j.gen[catalog.Reassignments] == "" {
		return b.join(), nil
	}
	scans := []struct {
		collection string
		add        func(*store.Document) error
	}{{catalog.Enrollments, b.addEnrollment}, {catalog.Reassignments, b.addReassignment}}
	err := concurrently(ctx, len(scans), len(scans), func(ctx context.Context, i int) error {
		return j.each(ctx, scans[i].collection, scans[i].add)
	})
	if err != nil {
		return nil, err
	}
	return b.join(), nil
}

// pecosJoinBuilder builds a pecosJoin from enrollment and reassignment documents. Enrollment
// ids are held as numbers (enrollmentCodes), so that its maps hold nothing the garbage collector
// scans; reassignments are noted in the order added and resolved against the enrollments when
// the join is made. One goroutine may add enrollments while another adds reassignments.
type pecosJoinBuilder struct {
	codes enrollmentCodes
	// Enrollment -> NPI; an enrollment under several NPIs keeps the others in more.
	first map[uint64]uint32
	more  map[uint64][]uint32
	// The reassignments added, and the provenances they name, each once.
	reassignments []reassignmentCodes
	provs         []stored.Provenance
	provIndex     map[string]uint32
}

// reassignmentCodes is one reassignment of benefits: the reassigning and receiving enrollments
// and the index of its provenance.
type reassignmentCodes struct {
	from, to uint64
	prov     uint32
}

func newPECOSJoinBuilder() *pecosJoinBuilder {
	return &pecosJoinBuilder{first: map[uint64]uint32{}, more: map[uint64][]uint32{}, provIndex: map[string]uint32{}}
}

// join returns the join built: every reassignment whose two enrollments have NPIs links each
// NPI of the reassigning enrollment to each other NPI of the receiving one; the links are sorted
// by individual, each individual's kept in the order their reassignments were added.
func (b *pecosJoinBuilder) join() *pecosJoin {
	pj := &pecosJoin{provs: b.provs}
	var from, to []uint32
	for _, r := range b.reassignments {
		if from = b.npisOf(r.from, from); len(from) == 0 {
			continue
		}
		if to = b.npisOf(r.to, to); len(to) == 0 {
			continue
		}
		for _, a := range from {
			for _, o := range to {
				if o != a {
					pj.links = append(pj.links, pecosLink{individual: a, org: o, prov: r.prov})
				}
			}
		}
	}
	slices.SortStableFunc(pj.links, func(x, y pecosLink) int { return cmp.Compare(x.individual, y.individual) })
	return pj
}

// addEnrollment notes the NPI of one enrollment document. Adding one twice changes nothing.
func (b *pecosJoinBuilder) addEnrollment(d *store.Document) error {
	var e struct {
		Record struct {
			NPI          string `json:"npi"`
			EnrollmentID string `json:"enrollment_id"`
		} `json:"record"`
	}
	if err := stored.DecodeJSON(d.Body, &e); err != nil {
		return fmt.Errorf("fhir: enrollment %s: %w", d.ID, err)
	}
	npi, ok := npiNumber(e.Record.NPI)
	if !ok || e.Record.EnrollmentID == "" {
		return nil
	}
	id := b.codes.of(e.Record.EnrollmentID)
	if prev, seen := b.first[id]; !seen {
		b.first[id] = npi
	} else if prev != npi && !slices.Contains(b.more[id], npi) {
		b.more[id] = append(b.more[id], npi)
	}
	return nil
}

func (b *pecosJoinBuilder) npisOf(enrollment uint64, buf []uint32) []uint32 {
	buf = buf[:0]
	if n, ok := b.first[enrollment]; ok {
		buf = append(buf, n)
	}
	return append(buf, b.more[enrollment]...)
}

// addReassignment notes a reassignment of benefits from one enrollment to another.
func (b *pecosJoinBuilder) addReassignment(d *store.Document) error {
	var r struct {
		Record     stored.ReassignmentRecord `json:"record"`
		Provenance json.RawMessage           `json:"provenance"`
	}
	if err := stored.DecodeJSON(d.Body, &r); err != nil {
		return fmt.Errorf("fhir: reassignment %s: %w", d.ID, err)
	}
	if r.Record.Reassigning == "" || r.Record.Receiving == "" {
		return nil
	}
	pi, ok := b.provIndex[string(r.Provenance)]
	if !ok {
		var prov stored.Provenance
		// encoding/json: its strings do not share the document's bytes, which the join would
		// otherwise keep for the whole build (see stored.DecodeJSON).
		if err := json.Unmarshal(r.Provenance, &prov); err != nil {
			return fmt.Errorf("fhir: reassignment %s: %w", d.ID, err)
		}
		pi = uint32(len(b.provs))
		b.provs = append(b.provs, prov)
		b.provIndex[string(r.Provenance)] = pi
	}
	b.reassignments = append(b.reassignments, reassignmentCodes{from: b.codes.of(r.Record.Reassigning), to: b.codes.of(r.Record.Receiving), prov: pi})
	return nil
}

// enrollmentCodes numbers enrollment ids. A PECOS enrollment id is a letter and fourteen digits
// (I20031104000123): its number is the letter in the top byte and the digits below it, worked
// out without a look-up. Any other id is numbered in the order first seen, with the top bit set,
// which no letter's number has. Safe for concurrent use.
type enrollmentCodes struct {
	mu    sync.Mutex
	other map[string]uint64
}

func (c *enrollmentCodes) of(id string) uint64 {
	if n, ok := pecosEnrollmentNumber(id); ok {
		return n
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.other[id]
	if !ok {
		if c.other == nil {
			c.other = map[string]uint64{}
		}
		n = 1<<63 | uint64(len(c.other))
		c.other[strings.Clone(id)] = n
	}
	return n
}

// pecosEnrollmentNumber is the number of an id of the PECOS form (an ASCII letter, then fourteen
// digits); ok is false for any other id.
func pecosEnrollmentNumber(id string) (uint64, bool) {
	if len(id) != 15 || !('A' <= id[0] && id[0] <= 'Z' || 'a' <= id[0] && id[0] <= 'z') {
		return 0, false
	}
	var n uint64
	for i := 1; i < len(id); i++ {
		d := id[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + uint64(d)
	}
	return uint64(id[0])<<56 | n, true
}

// employers follows PECOS from an individual's NPI to the organizations that bill for their
// work: the individual's enrollments, their reassignments of benefits, the receiving
// enrollments, and those enrollments' NPIs, kept when the registry holds them as organizations.
// Each organization comes once, with the provenance of the first reassignment that led to it.
func (j *joiner) employers(ctx context.Context, npi string) ([]fhirmap.Employer, error) {
	n, ok := npiNumber(npi)
	if !ok {
		return nil, nil
	}
	var out []fhirmap.Employer
	for _, l := range j.emp.of(n) {
		orgID := npiString(l.org)
		if slices.ContainsFunc(out, func(e fhirmap.Employer) bool { return e.OrgID == orgID }) {
			continue
		}
		org, err := j.org(ctx, orgID)
		if err != nil {
			return nil, err
		}
		if !org.ok {
			continue
		}
		prov := j.emp.provs[l.prov]
		out = append(out, fhirmap.Employer{OrgID: orgID, Name: org.name, Provenance: prov, Snapshot: prov.Snapshot, Inactive: !org.active})
	}
	slices.SortFunc(out, func(a, b fhirmap.Employer) int { return strings.Compare(a.OrgID, b.OrgID) })
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
	if g := j.gen[catalog.RegistryProviders]; g != "" {
		d, err := j.st.Get(ctx, g, catalog.RegistryProviders, npi)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return orgInfo{}, err
		default:
			b, err := stored.DecodeBody[stored.RegistryRecord](d)
			if err != nil {
				return orgInfo{}, err
			}
			// The name alone outlives the record: cloned, it does not keep the record's
			// decoded bytes in memory (see stored.DecodeJSON).
			info = orgInfo{ok: fhirmap.HasOrganization(&b.Record), name: strings.Clone(b.Record.OrganizationName), active: b.Record.Active}
			if b.Record.OrganizationSubpart {
				info.parentName = strings.Clone(b.Record.ParentOrganization)
			}
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
	if g := j.gen[catalog.Facilities]; g != "" && ccn != "" {
		d, err := j.st.Get(ctx, g, catalog.Facilities, ccn)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return facInfo{}, err
		default:
			b, err := stored.DecodeBody[stored.FacilityRecord](d)
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
