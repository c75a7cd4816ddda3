package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"providerdir/catalog"
	"providerdir/store"
)

// A watched NPI's resolved record is what the resolver serves of it: the registry record, its
// facts, the quality records of the facilities it maps to and its payments. provider.changed
// compares, for the watched NPIs alone, each part between the generations served before and
// after a switch (the manifests' change set names them), so that a national drop costs a few
// look-ups per watched NPI rather than a diff of its files.

// Search keys of the source collections (package mapping names them).
const (
	keyNPI = "npi"
	keyCCN = "ccn"
)

// Families of the facts.
const (
	familyPECOS = "pecos"
	familyLEIE  = "leie"
)

// Members of the fact parts.
const (
	memberEnrolled  = "pecos_enrolled"
	memberExclusion = "exclusion"
)

// part is one dataset's part of an NPI's resolved record: its members, as SourceChange names
// them. The registry's part keeps the record's snapshot and provenance.
type part struct {
	members    map[string]json.RawMessage
	snapshot   string
	provenance json.RawMessage
}

// resolvedRecord is an NPI's resolved record on one side of a switch, by dataset id.
type resolvedRecord map[string]*part

// side is one side of a switch: each collection's generation, and the manifests served with
// them.
type side struct {
	gens      map[string]string
	manifests []catalog.Manifest
}

// partReader reads one kind of part for a list of NPIs on one side into out.
type partReader struct {
	collections []string
	read        func(ctx context.Context, st store.Store, s side, npis []string, out map[string]resolvedRecord) error
	// always is set for the registry, read whether it switched or not: an event states the
	// registry record's snapshot and provenance.
	always bool
}

// partReaders are the parts of a resolved record and the collections each reads.
var partReaders = []partReader{
	{[]string{catalog.RegistryProviders}, readRegistry, true},
	{[]string{catalog.Enrollments}, presenceReader(catalog.Enrollments, familyPECOS, memberEnrolled), false},
	{[]string{catalog.Exclusions}, presenceReader(catalog.Exclusions, familyLEIE, memberExclusion), false},
	{[]string{catalog.Quality, catalog.HospitalEnrollments}, readQuality, false},
	{[]string{catalog.Payments}, readPayments, false},
}

// providerChanges sends provider.changed for each watched NPI whose resolved record differs
// between the two sides of the switch of cs (the manifests' change set). A part is compared
// when one of its collections switched and both sides of each are still stored.
func (f *fanout) providerChanges(ctx context.Context, cs catalog.ChangeSet) error {
	before, after := side{gens: map[string]string{}}, side{gens: map[string]string{}}
	for c, p := range cs.Generations {
		before.gens[c], after.gens[c] = p.Previous, p.Generation
	}
	var err error
	if before.manifests, err = catalog.ManifestsAt(ctx, f.st, before.gens[catalog.ManifestCollection]); err != nil {
		return err
	}
	if after.manifests, err = catalog.ManifestsAt(ctx, f.st, after.gens[catalog.ManifestCollection]); err != nil {
		return err
	}
	npis := slices.Sorted(maps.Keys(f.changed))
	old, cur := map[string]resolvedRecord{}, map[string]resolvedRecord{}
	for _, r := range partReaders {
		if !f.compared(r.collections, before, after, r.always) {
			continue
		}
		for chunk := range slices.Chunk(npis, lookupChunk) {
			if err := r.read(ctx, f.st, before, chunk, old); err != nil {
				return err
			}
			if err := r.read(ctx, f.st, after, chunk, cur); err != nil {
				return err
			}
		}
	}
	for _, npi := range npis {
		body, ok := compareResolved(npi, old[npi], cur[npi], before, after)
		if !ok {
			continue
		}
		subs := f.changed[npi]
		f.par.do(func() error {
			return f.send(ctx, subs, eventID(cs.Generation, EventProviderChanged, npi), EventProviderChanged, body)
		})
	}
	return f.par.wait()
}

// lookupChunk bounds the NPIs of one keyed look-up.
const lookupChunk = 500

// compared reports whether a part is compared: one of its collections switched to another
// generation (or always is set), and the generations on both sides are still stored.
func (f *fanout) compared(collections []string, before, after side, always bool) bool {
	switched := always
	for _, c := range collections {
		if before.gens[c] != after.gens[c] {
			switched = true
		}
		if !f.readable(before.gens[c]) || !f.readable(after.gens[c]) {
			return false
		}
	}
	return switched
}

// readable reports whether a generation is stored (every layer of a stack is), or is empty: a
// collection not served, which holds nothing.
func (f *fanout) readable(gen string) bool {
	if gen == "" {
		return true
	}
	for _, l := range store.Layers(gen) {
		if !slices.Contains(f.gens, l) {
			return false
		}
	}
	return true
}

// compareResolved builds the provider.changed of an NPI from its resolved record before and
// after; false when nothing differs.
func compareResolved(npi string, old, cur resolvedRecord, before, after side) (ProviderChanged, bool) {
	body := ProviderChanged{Event: EventProviderChanged, NPI: npi, Change: ChangeChanged, Fields: map[string]FieldChange{},
		Sources: []SourceChange{}, Provenance: json.RawMessage("null")}
	ids := map[string]bool{}
	for id := range old {
		ids[id] = true
	}
	for id := range cur {
		ids[id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		a, b := old[id], cur[id]
		fields := diffMembers(a.membersOrNil(), b.membersOrNil())
		if len(fields) == 0 {
			continue
		}
		body.Sources = append(body.Sources, SourceChange{DatasetID: id, Snapshot: after.snapshotOf(id, b),
			PreviousSnapshot: before.snapshotOf(id, a), Fields: fields})
	}
	if len(body.Sources) == 0 {
		return body, false
	}
	reg := func(r resolvedRecord) *part { return r[registryDataset(r)] }
	a, b := reg(old), reg(cur)
	switch {
	case a == nil && b != nil:
		body.Change = ChangeAdded
	case a != nil && b == nil:
		body.Change = ChangeRemoved
	case a != nil && deactivated(b) && !deactivated(a):
		body.Change = ChangeDeactivated
	}
	if a != nil || b != nil {
		body.Fields = diffMembers(a.membersOrNil(), b.membersOrNil())
	}
	body.Snapshot, body.PreviousSnapshot = b.snapshotOrNil(), a.snapshotOrNil()
	if b != nil {
		body.Provenance = b.provenance
	} else if a != nil {
		body.Provenance = a.provenance
	}
	return body, true
}

// registryDataset is the dataset id of the registry part of r ("" when r has none): the part
// that keeps a provenance.
func registryDataset(r resolvedRecord) string {
	for id, p := range r {
		if p.provenance != nil {
			return id
		}
	}
	return ""
}

// deactivated reports whether a registry part carries a deactivation date.
func deactivated(p *part) bool {
	if p == nil {
		return false
	}
	d, ok := p.members["deactivation_date"]
	return ok && string(d) != `""` && string(d) != "null"
}

func (p *part) membersOrNil() map[string]json.RawMessage {
	if p == nil {
		return nil
	}
	return p.members
}

func (p *part) snapshotOrNil() *string {
	if p == nil || p.snapshot == "" {
		return nil
	}
	s := p.snapshot
	return &s
}

// snapshotOf is a dataset's snapshot on one side: the part's own (the registry record's), else
// the one its family's manifest gives it; nil when the dataset was not loaded.
func (s side) snapshotOf(datasetID string, p *part) *string {
	if p != nil && p.snapshot != "" {
		return p.snapshotOrNil()
	}
	for _, m := range s.manifests {
		if snap, ok := m.SnapshotOf(datasetID); ok {
			return &snap
		}
	}
	return nil
}

// partOf returns the part of a dataset of an NPI's resolved record, making it.
func partOf(out map[string]resolvedRecord, npi, datasetID string) *part {
	r := out[npi]
	if r == nil {
		r = resolvedRecord{}
		out[npi] = r
	}
	p := r[datasetID]
	if p == nil {
		p = &part{members: map[string]json.RawMessage{}}
		r[datasetID] = p
	}
	return p
}

// provenanceOf decodes the dataset id and snapshot of a provenance record.
func provenanceOf(raw json.RawMessage) (datasetID, snapshot string) {
	var p struct {
		DatasetID string `json:"_dataset_id"`
		Snapshot  string `json:"_snapshot"`
	}
	_ = json.Unmarshal(raw, &p)
	return p.DatasetID, p.Snapshot
}

// readRegistry reads the registry records: their top-level fields.
func readRegistry(ctx context.Context, st store.Store, s side, npis []string, out map[string]resolvedRecord) error {
	gen := s.gens[catalog.RegistryProviders]
	if gen == "" {
		return nil
	}
	docs, err := st.GetBodies(ctx, gen, catalog.RegistryProviders, npis, nil)
	if err != nil {
		return err
	}
	for _, d := range docs {
		var doc sourceDoc
		if err := json.Unmarshal(d.Body, &doc); err != nil {
			return fmt.Errorf("webhook: registry record %s: %w", d.ID, err)
		}
		id, snap := provenanceOf(doc.Provenance)
		p := partOf(out, d.ID, id)
		if err := json.Unmarshal(doc.Record, &p.members); err != nil {
			return fmt.Errorf("webhook: registry record %s: %w", d.ID, err)
		}
		p.snapshot, p.provenance = snap, slices.Clone(doc.Provenance)
	}
	return nil
}

// presenceReader reads a boolean fact, as the resolver states it: true when the collection
// lists the NPI, false when the family is loaded and does not; unknown (no part) when the
// family is not loaded.
func presenceReader(collection, family, member string) func(context.Context, store.Store, side, []string, map[string]resolvedRecord) error {
	return func(ctx context.Context, st store.Store, s side, npis []string, out map[string]resolvedRecord) error {
		i := slices.IndexFunc(s.manifests, func(m catalog.Manifest) bool { return m.Family == family })
		if i < 0 || s.gens[collection] == "" {
			return nil
		}
		listed := map[string]bool{}
		err := keyed(ctx, st, s.gens[collection], collection, keyNPI, npis, func(d store.Document, doc sourceDoc) error {
			var rec struct {
				NPI string `json:"npi"`
			}
			if err := json.Unmarshal(doc.Record, &rec); err != nil {
				return fmt.Errorf("webhook: %s %s: %w", collection, d.ID, err)
			}
			listed[rec.NPI] = true
			return nil
		})
		if err != nil {
			return err
		}
		for _, npi := range npis {
			partOf(out, npi, s.manifests[i].DatasetID).members[member] = json.RawMessage(strconv.FormatBool(listed[npi]))
		}
		return nil
	}
}

// readQuality reads the quality records of the facilities each NPI maps to: those whose quality
// row names it, and those the hospital enrollment file ties to it by CCN.
func readQuality(ctx context.Context, st store.Store, s side, npis []string, out map[string]resolvedRecord) error {
	gen := s.gens[catalog.Quality]
	if gen == "" {
		return nil
	}
	add := func(npi string, d store.Document, doc sourceDoc) error {
		var rec struct {
			CCN string `json:"ccn"`
		}
		if err := json.Unmarshal(doc.Record, &rec); err != nil {
			return fmt.Errorf("webhook: quality %s: %w", d.ID, err)
		}
		id, _ := provenanceOf(doc.Provenance)
		partOf(out, npi, id).members[rec.CCN] = slices.Clone(doc.Record)
		return nil
	}
	err := keyed(ctx, st, gen, catalog.Quality, keyNPI, npis, func(d store.Document, doc sourceDoc) error {
		var rec struct {
			NPI string `json:"npi"`
		}
		if err := json.Unmarshal(doc.Record, &rec); err != nil {
			return fmt.Errorf("webhook: quality %s: %w", d.ID, err)
		}
		return add(rec.NPI, d, doc)
	})
	if err != nil || s.gens[catalog.HospitalEnrollments] == "" {
		return err
	}
	byCCN := map[string][]string{}
	err = keyed(ctx, st, s.gens[catalog.HospitalEnrollments], catalog.HospitalEnrollments, keyNPI, npis, func(d store.Document, doc sourceDoc) error {
		var rec struct {
			NPI string `json:"npi"`
			CCN string `json:"ccn"`
		}
		if err := json.Unmarshal(doc.Record, &rec); err != nil {
			return fmt.Errorf("webhook: hospital enrollment %s: %w", d.ID, err)
		}
		if rec.CCN != "" && !slices.Contains(byCCN[rec.CCN], rec.NPI) {
			byCCN[rec.CCN] = append(byCCN[rec.CCN], rec.NPI)
		}
		return nil
	})
	if err != nil || len(byCCN) == 0 {
		return err
	}
	return keyed(ctx, st, gen, catalog.Quality, keyCCN, slices.Sorted(maps.Keys(byCCN)), func(d store.Document, doc sourceDoc) error {
		var rec struct {
			CCN string `json:"ccn"`
		}
		if err := json.Unmarshal(doc.Record, &rec); err != nil {
			return fmt.Errorf("webhook: quality %s: %w", d.ID, err)
		}
		for _, npi := range byCCN[rec.CCN] {
			if err := add(npi, d, doc); err != nil {
				return err
			}
		}
		return nil
	})
}

// readPayments reads each NPI's payment records, by program year, ordered by record id.
func readPayments(ctx context.Context, st store.Store, s side, npis []string, out map[string]resolvedRecord) error {
	gen := s.gens[catalog.Payments]
	if gen == "" {
		return nil
	}
	type payment struct {
		id     string
		record json.RawMessage
	}
	years := map[[3]string][]payment{} // NPI, dataset id, program year
	err := keyed(ctx, st, gen, catalog.Payments, keyNPI, npis, func(d store.Document, doc sourceDoc) error {
		var rec struct {
			RecordID    string `json:"record_id"`
			ProgramYear int    `json:"program_year"`
			NPI         string `json:"npi"`
		}
		if err := json.Unmarshal(doc.Record, &rec); err != nil {
			return fmt.Errorf("webhook: payment %s: %w", d.ID, err)
		}
		id, _ := provenanceOf(doc.Provenance)
		k := [3]string{rec.NPI, id, strconv.Itoa(rec.ProgramYear)}
		years[k] = append(years[k], payment{rec.RecordID, slices.Clone(doc.Record)})
		return nil
	})
	if err != nil {
		return err
	}
	for k, ps := range years {
		slices.SortFunc(ps, func(a, b payment) int { return cmp.Compare(a.id, b.id) })
		records := make([]json.RawMessage, len(ps))
		for i, p := range ps {
			records[i] = p.record
		}
		b, err := json.Marshal(records)
		if err != nil {
			return err
		}
		partOf(out, k[0], k[1]).members[k[2]] = b
	}
	return nil
}

// keyed calls each for every document of a collection whose search key param has one of
// values, decoded as a source record.
func keyed(ctx context.Context, st store.Store, gen, collection, param string, values []string, each func(store.Document, sourceDoc) error) error {
	q := store.Query{Collection: collection, Generation: gen, Limit: 1000, Where: []store.Condition{{Param: param, Values: values}}}
	for {
		page, err := st.Find(ctx, q)
		if err != nil {
			return err
		}
		for _, d := range page.Docs {
			var doc sourceDoc
			if err := json.Unmarshal(d.Body, &doc); err != nil {
				return fmt.Errorf("webhook: %s %s: %w", collection, d.ID, err)
			}
			if err := each(d, doc); err != nil {
				return err
			}
		}
		if page.Next == "" {
			return nil
		}
		q.After = page.Next
	}
}
