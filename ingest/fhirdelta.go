package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/stored"
)

// updateFHIR lays the FHIR resources a weekly NPPES delta changes over the serving ones. It
// rebuilds, with the full projection's own joiner and mapping, the resources of:
//
//   - every NPI of the weekly files;
//   - the practitioners whose roles name one of the organizations among them (a role carries
//     its organization's name and status), found by targeted PECOS look-ups: the organizations'
//     enrollments, the reassignments received by those, the reassigning enrollments' NPIs;
//   - the NPIs that entered or left the sandbox subset, and the organizations that entered or
//     left the sandbox through their practitioners' roles;
//   - the subparts and the NPIs with endpoints affiliated elsewhere that name, by legal name,
//     an organization among them, before or after;
//   - the Provider of Services facilities whose merge with an organization NPI (a CCN bridged to
//     exactly one registry organization) the delta made or undid, and those part of them.
//
// Each of those NPIs' serving resources (ids starting with the NPI) goes into the masks, its
// new ones into the top; the PECOS employer join is built for the rebuilt NPIs alone. Tag sets
// the new resources name and the serving ones lack are added.
func updateFHIR(ctx context.Context, p *Projection) error {
	start := time.Now()
	st, d := p.Store(), p.run.delta
	for _, c := range append(slices.Clip(FHIRCollections), catalog.FHIRTags) {
		p.Stack(c)
	}
	for _, c := range FHIRCollections {
		p.Recycle(c, stored.Recycle)
	}
	gen, old := map[string]string{}, map[string]string{}
	for _, c := range fhirInputs {
		g, err := p.Generation(ctx, c)
		if err != nil {
			return err
		}
		gen[c], old[c] = g, p.run.serving.Generation(c)
	}
	rebuild := map[string]bool{}
	for _, n := range d.npis {
		rebuild[n] = true
	}
	employees, err := employeesOf(ctx, st, gen, d.organizations())
	if err != nil {
		return err
	}
	for _, n := range employees {
		rebuild[n] = true
	}
	oldSandbox, err := idsOf(ctx, st, catalog.SandboxNPIs, old[catalog.SandboxNPIs])
	if err != nil {
		return err
	}
	newSandbox, err := idsOf(ctx, st, catalog.SandboxNPIs, gen[catalog.SandboxNPIs])
	if err != nil {
		return err
	}
	for n := range symmetricDifference(oldSandbox, newSandbox) {
		rebuild[n] = true
	}
	oldJ, err := newJoinerAt(ctx, st, old, pecosJoinOf(slices.Collect(maps.Keys(oldSandbox))))
	if err != nil {
		return err
	}
	newJ, err := newJoinerAt(ctx, st, gen, pecosJoinOf(slices.Collect(maps.Keys(union(rebuild, newSandbox)))))
	if err != nil {
		return err
	}
	// A subpart's parent and an affiliated endpoint's managing organization are found by legal
	// name: an organization of the delta whose name was or is one a subpart or an endpoint names
	// may make or break that link.
	for _, n := range d.npis {
		for _, j := range []*joiner{oldJ, newJ} {
			for _, naming := range []func(context.Context, string) ([]string, error){j.subpartsNaming, j.endpointOwnersNaming} {
				npis, err := naming(ctx, n)
				if err != nil {
					return err
				}
				for _, x := range npis {
					rebuild[x] = true
				}
			}
		}
	}
	facilities := map[string]bool{}
	for id := range symmetricDifference(oldJ.sandboxOrgs, newJ.sandboxOrgs) {
		if ccn, ok := strings.CutPrefix(id, fhirmap.FacilityID("")); ok {
			facilities[ccn] = true
		} else {
			rebuild[id] = true // an organization: its resources need no employer join
		}
	}
	remerged := map[string]bool{}
	for _, ccn := range slices.Concat(slices.Collect(maps.Keys(oldJ.mergedCCN)), slices.Collect(maps.Keys(newJ.mergedCCN))) {
		if oldJ.mergedCCN[ccn] != newJ.mergedCCN[ccn] {
			facilities[ccn], remerged[ccn] = true, true
		}
	}
	if err := facilitiesPartOf(ctx, st, gen[catalog.Facilities], remerged, facilities); err != nil {
		return err
	}
	u := &fhirUpdate{p: p, st: st, j: newJ, tags: map[string]store.Document{}, stats: map[string]int64{}}
	npis := slices.Sorted(maps.Keys(rebuild))
	if err := u.providers(ctx, gen, npis); err != nil {
		return err
	}
	for _, ccn := range slices.Sorted(maps.Keys(facilities)) {
		b, err := u.facility(ctx, gen[catalog.Facilities], ccn)
		if err == nil {
			err = u.write(ctx, b)
		}
		if err != nil {
			return err
		}
	}
	if err := u.addTagSets(ctx); err != nil {
		return err
	}
	p.run.opts.Log.Info("FHIR resources updated", "providers", len(npis), "facilities", len(facilities), "resources", u.stats["resources"],
		"masked", u.stats["masked"], "tag_sets_added", u.stats["tags"], "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// facilitiesPartOf adds to facilities the CCNs of the facilities whose related provider is one of
// ccns: a facility is part of the Organization that stands for its related provider, which
// changes when that CCN is merged into an organization NPI or no longer is. Facilities carry
// no key of their related provider, so they are read whole, which happens only when a merge
// changed.
func facilitiesPartOf(ctx context.Context, st store.Store, gen string, ccns, facilities map[string]bool) error {
	if len(ccns) == 0 {
		return nil
	}
	return eachDoc(ctx, st, store.Query{Collection: catalog.Facilities, Generation: gen}, func(d *store.Document) error {
		var f struct {
			Record struct {
				RelatedProvider string `json:"related_provider"`
			} `json:"record"`
		}
		if err := json.Unmarshal(d.Body, &f); err != nil {
			return fmt.Errorf("fhir: facility %s: %w", d.ID, err)
		}
		if ccns[f.Record.RelatedProvider] {
			facilities[d.ID] = true
		}
		return nil
	})
}

// organizations are the NPIs whose registry record the delta changed that are organizations,
// before or after: the only ones a practitioner's role can name.
func (d *registryDelta) organizations() []string {
	var out []string
	for _, npi := range d.npis {
		if d.old[npi].Organization || d.new[npi].Organization {
			out = append(out, npi)
		}
	}
	return out
}

// fhirUpdate is the state of one updateFHIR.
type fhirUpdate struct {
	p     *Projection
	st    store.Store
	j     *joiner
	tags  map[string]store.Document // the tag sets the new resources name, by id
	stats map[string]int64
}

// fhirBatch is what a batch of the update replaces: the serving resources to mask, by
// collection, and the new resources, with what comparing those with the serving ones of their
// ids found.
type fhirBatch struct {
	masks    map[string][]store.Document
	res      []fhirmap.Resource
	compared []comparison
}

// comparison is whether a new resource's record is the serving one's it replaces.
type comparison struct {
	collection, id string
	same           bool
}

// compare compares each new resource of the batch with the serving one of its id, if it masks
// one, while both bodies are at hand: recording the change sets then reads neither again.
func (b *fhirBatch) compare() {
	type resourceID struct{ collection, id string }
	below := map[resourceID][]byte{}
	for c, docs := range b.masks {
		for _, d := range docs {
			below[resourceID{c, d.ID}] = d.Body
		}
	}
	for _, r := range b.res {
		c := catalog.FHIRCollection(r.Type)
		if body, ok := below[resourceID{c, r.ID}]; ok {
			b.compared = append(b.compared, comparison{c, r.ID, sameRecord(body, r.Doc.Body)})
		}
	}
}

// write emits a batch: its masks, then its resources into the top, noting their tag sets.
func (u *fhirUpdate) write(ctx context.Context, b fhirBatch) error {
	for _, c := range FHIRCollections {
		for _, d := range b.masks[c] {
			if err := u.p.EmitMask(ctx, c, maskOf(d)); err != nil {
				return err
			}
			u.stats["masked"]++
		}
	}
	for _, r := range b.res {
		if err := u.p.Emit(ctx, catalog.FHIRCollection(r.Type), r.Doc); err != nil {
			return err
		}
		t := r.Tags.Document()
		u.tags[t.ID] = t
		u.stats["resources"]++
	}
	for _, c := range b.compared {
		u.p.Compared(c.collection, c.id, c.same)
	}
	return nil
}

// servingResources returns every serving resource, of every type, whose id matches one of ids
// (match Prefix: the resources of those NPIs; Exact: those ids alone), by collection, with its
// keys to mask it and its body to compare the new resource of its id with.
func (u *fhirUpdate) servingResources(ctx context.Context, match store.Match, ids []string) (map[string][]store.Document, error) {
	out := map[string][]store.Document{}
	for _, c := range FHIRCollections {
		q := store.Query{Collection: c, Generation: u.p.run.serving.Generation(c),
			Where: []store.Condition{{Param: fhirmap.KeyID, Values: ids, Match: match}}}
		err := eachDoc(ctx, u.st, q, func(d *store.Document) error {
			out[c] = append(out[c], store.Document{ID: d.ID, Keys: d.Keys, Body: d.Body})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// providers replaces the resources of the registry providers with the given NPIs (ascending),
// a batch at a time, looked up and built in parallel and written in order by this goroutine
// alone, as the batch writer wants, reporting the providers done after each batch.
func (u *fhirUpdate) providers(ctx context.Context, gen map[string]string, npis []string) error {
	batches := slices.Collect(slices.Chunk(npis, maskBatch))
	written, done := 0, int64(0)
	return inOrder(ctx, len(batches), func(ctx context.Context, k int) (fhirBatch, error) {
		return u.batch(ctx, gen, batches[k])
	}, func(b fhirBatch) error {
		if err := u.write(ctx, b); err != nil {
			return err
		}
		done += int64(len(batches[written]))
		written++
		u.p.Advance(done, int64(len(npis)), "providers")
		return nil
	})
}

// batch looks up the serving resources of a batch of NPIs and builds their new ones as the
// full projection does, from their registry documents and the secondary locations, other names
// and endpoints that name them.
func (u *fhirUpdate) batch(ctx context.Context, gen map[string]string, npis []string) (fhirBatch, error) {
	var b fhirBatch
	var err error
	if b.masks, err = u.servingResources(ctx, store.Prefix, npis); err != nil {
		return b, err
	}
	docs, err := u.st.GetMany(ctx, gen[catalog.RegistryProviders], catalog.RegistryProviders, npis, nil)
	if err != nil || len(docs) == 0 {
		return b, err
	}
	groups := map[string]map[string][]store.Document{}
	for _, c := range []string{catalog.RegistryLocations, catalog.RegistryOtherNames, catalog.RegistryEndpoints} {
		byNPI := map[string][]store.Document{}
		q := store.Query{Collection: c, Generation: gen[c], Where: []store.Condition{{Param: stored.KeyNPI, Values: npis}}}
		err := eachDoc(ctx, u.st, q, func(d *store.Document) error {
			byNPI[npiOf(d.ID)] = append(byNPI[npiOf(d.ID)], *d)
			return nil
		})
		if err != nil {
			return b, err
		}
		groups[c] = byNPI
	}
	for _, d := range docs {
		in := providerInput{doc: d, locations: groups[catalog.RegistryLocations][d.ID],
			otherNames: groups[catalog.RegistryOtherNames][d.ID], endpoints: groups[catalog.RegistryEndpoints][d.ID]}
		res, err := u.j.provider(ctx, &in)
		if errors.Is(err, fhirmap.ErrNoResource) {
			continue
		}
		if err != nil {
			return b, err
		}
		b.res = append(b.res, res...)
	}
	if err := u.maskReplaced(ctx, &b, npis); err != nil {
		return b, err
	}
	b.compare()
	return b, nil
}

// maskReplaced adds to a batch's masks the serving resources its new resources replace under
// ids that do not start with one of the batch's NPIs (ascending): the Location an organization
// merged with a Provider of Services facility has under the facility's id.
func (u *fhirUpdate) maskReplaced(ctx context.Context, b *fhirBatch, npis []string) error {
	others := map[string][]string{}
	for _, r := range b.res {
		if _, mine := slices.BinarySearch(npis, r.ID[:min(len(r.ID), 10)]); !mine { // an NPI is ten digits
			c := catalog.FHIRCollection(r.Type)
			others[c] = append(others[c], r.ID)
		}
	}
	for c, ids := range others {
		below, err := u.st.GetMany(ctx, u.p.run.serving.Generation(c), c, ids, nil)
		if err != nil {
			return err
		}
		b.masks[c] = append(b.masks[c], below...)
	}
	return nil
}

// facility replaces the resources of a Provider of Services facility: its serving ones are
// masked, and it gets new ones unless it is now merged into an organization NPI.
func (u *fhirUpdate) facility(ctx context.Context, gen, ccn string) (fhirBatch, error) {
	var b fhirBatch
	var err error
	if b.masks, err = u.servingResources(ctx, store.Exact, []string{fhirmap.FacilityID(ccn)}); err != nil {
		return b, err
	}
	if _, merged := u.j.mergedCCN[ccn]; merged || gen == "" {
		return b, nil
	}
	d, err := u.st.Get(ctx, gen, catalog.Facilities, ccn)
	if errors.Is(err, store.ErrNotFound) {
		return b, nil
	}
	if err != nil {
		return b, err
	}
	b.res, err = u.j.facilityResources(ctx, &d)
	if errors.Is(err, fhirmap.ErrNoResource) {
		err = nil
	}
	b.compare()
	return b, err
}

// addTagSets writes the tag sets the new resources name that the serving generation lacks.
func (u *fhirUpdate) addTagSets(ctx context.Context) error {
	ids := slices.Sorted(maps.Keys(u.tags))
	serving := u.p.run.serving.Generation(catalog.FHIRTags)
	for batch := range slices.Chunk(ids, maskBatch) {
		have := map[string]bool{}
		if serving != "" {
			below, err := u.st.GetMany(ctx, serving, catalog.FHIRTags, batch, nil)
			if err != nil {
				return err
			}
			for _, d := range below {
				have[d.ID] = true
			}
		}
		for _, id := range batch {
			if have[id] {
				continue
			}
			u.stats["tags"]++
			if err := u.p.Emit(ctx, catalog.FHIRTags, u.tags[id]); err != nil {
				return err
			}
		}
	}
	return nil
}

// enrollmentView is what the PECOS look-ups read of an enrollment document.
type enrollmentView struct {
	Record struct {
		NPI          string `json:"npi"`
		EnrollmentID string `json:"enrollment_id"`
	} `json:"record"`
}

// lookUp calls fn for every document of collection at gen with a key param equal to one of
// values, asking for maskBatch values at a time, the batches in parallel and fn in order.
func lookUp(ctx context.Context, st store.Store, gen, collection, param string, values []string, fn func(*store.Document) error) error {
	batches := slices.Collect(slices.Chunk(values, maskBatch))
	return inOrder(ctx, len(batches), func(ctx context.Context, k int) ([]store.Document, error) {
		var docs []store.Document
		q := store.Query{Collection: collection, Generation: gen, Where: []store.Condition{{Param: param, Values: batches[k]}}}
		err := eachDoc(ctx, st, q, func(d *store.Document) error { docs = append(docs, *d); return nil })
		return docs, err
	}, func(docs []store.Document) error {
		for i := range docs {
			if err := fn(&docs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// enrollmentIDs returns the enrollment ids of the enrollments of npis.
func enrollmentIDs(ctx context.Context, st store.Store, gen string, npis []string) ([]string, error) {
	set := map[string]bool{}
	err := lookUp(ctx, st, gen, catalog.Enrollments, stored.KeyNPI, npis, func(d *store.Document) error {
		var e enrollmentView
		if err := json.Unmarshal(d.Body, &e); err != nil {
			return fmt.Errorf("fhir: enrollment %s: %w", d.ID, err)
		}
		if e.Record.EnrollmentID != "" {
			set[e.Record.EnrollmentID] = true
		}
		return nil
	})
	return slices.Sorted(maps.Keys(set)), err
}

// employeesOf returns the NPIs whose PECOS enrollments reassign benefits to an enrollment of
// one of npis: the practitioners whose roles may name one of them.
func employeesOf(ctx context.Context, st store.Store, gen map[string]string, npis []string) ([]string, error) {
	eg, rg := gen[catalog.Enrollments], gen[catalog.Reassignments]
	if eg == "" || rg == "" {
		return nil, nil
	}
	received, err := enrollmentIDs(ctx, st, eg, npis)
	if err != nil {
		return nil, err
	}
	reassigning := map[string]bool{}
	err = lookUp(ctx, st, rg, catalog.Reassignments, stored.KeyReceiving, received, func(d *store.Document) error {
		b, err := stored.DecodeBody[stored.ReassignmentRecord](*d)
		if err != nil {
			return fmt.Errorf("fhir: reassignment %s: %w", d.ID, err)
		}
		reassigning[strings.Clone(b.Record.Reassigning)] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	err = lookUp(ctx, st, eg, catalog.Enrollments, stored.KeyEnrollment, slices.Sorted(maps.Keys(reassigning)), func(d *store.Document) error {
		var e enrollmentView
		if err := json.Unmarshal(d.Body, &e); err != nil {
			return fmt.Errorf("fhir: enrollment %s: %w", d.ID, err)
		}
		out[e.Record.NPI] = true
		return nil
	})
	return slices.Sorted(maps.Keys(out)), err
}

// pecosJoinOf returns a builder of the PECOS employer join of npis alone, by look-ups: their
// enrollments (with every NPI of those enrollment ids), the reassignments of those, and the
// receiving enrollments, the reassignments then added in id order as a full scan adds them, so
// that each NPI's employers come out as the full join gives them.
func pecosJoinOf(npis []string) func(context.Context, *joiner) (*pecosJoin, error) {
	return func(ctx context.Context, j *joiner) (*pecosJoin, error) {
		b := newPECOSJoinBuilder()
		eg, rg := j.gen[catalog.Enrollments], j.gen[catalog.Reassignments]
		if eg == "" || rg == "" || len(npis) == 0 {
			return b.join(), nil
		}
		slices.Sort(npis)
		eids, err := enrollmentIDs(ctx, j.st, eg, npis)
		if err != nil {
			return nil, err
		}
		if err := lookUp(ctx, j.st, eg, catalog.Enrollments, stored.KeyEnrollment, eids, b.addEnrollment); err != nil {
			return nil, err
		}
		var reassignments []store.Document
		receiving := map[string]bool{}
		err = lookUp(ctx, j.st, rg, catalog.Reassignments, stored.KeyReassigning, eids, func(d *store.Document) error {
			rec, err := stored.DecodeBody[stored.ReassignmentRecord](*d)
			if err != nil {
				return fmt.Errorf("fhir: reassignment %s: %w", d.ID, err)
			}
			receiving[strings.Clone(rec.Record.Receiving)] = true
			reassignments = append(reassignments, *d)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if err := lookUp(ctx, j.st, eg, catalog.Enrollments, stored.KeyEnrollment, slices.Sorted(maps.Keys(receiving)), b.addEnrollment); err != nil {
			return nil, err
		}
		slices.SortFunc(reassignments, func(a, b store.Document) int { return strings.Compare(a.ID, b.ID) })
		reassignments = slices.CompactFunc(reassignments, func(a, b store.Document) bool { return a.ID == b.ID })
		for i := range reassignments {
			if err := b.addReassignment(&reassignments[i]); err != nil {
				return nil, err
			}
		}
		return b.join(), nil
	}
}

// idsOf returns the ids of every document of a small collection.
func idsOf(ctx context.Context, st store.Store, collection, gen string) (map[string]bool, error) {
	out := map[string]bool{}
	err := eachDoc(ctx, st, store.Query{Collection: collection, Generation: gen}, func(d *store.Document) error {
		out[d.ID] = true
		return nil
	})
	return out, err
}

// symmetricDifference returns the keys in exactly one of a and b.
func symmetricDifference(a, b map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		if !b[k] {
			out[k] = true
		}
	}
	for k := range b {
		if !a[k] {
			out[k] = true
		}
	}
	return out
}

// union returns the keys of a and b.
func union(a, b map[string]bool) map[string]bool {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}
