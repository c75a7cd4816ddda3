package webhook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"providerdir/catalog"
	"providerdir/store"
)

// SourceRefreshed is the body of source.refreshed (docs/contracts/resolver-api.md §2): one dataset
// published a new snapshot. delivered_at is added by each attempt. PreviousSnapshot is null the
// first time the dataset is loaded beside others.
type SourceRefreshed struct {
	Event            string  `json:"event"`
	DatasetID        string  `json:"dataset_id"`
	Snapshot         string  `json:"snapshot"`
	PreviousSnapshot *string `json:"previous_snapshot"`
	// Deprecations announce, at least 90 days ahead, the removal of something the dataset's
	// consumers rely on (docs/contracts/resolver-api.md §6 and §9); empty while nothing is deprecated.
	Deprecations []Deprecation `json:"deprecations"`
}

// Deprecation is a notice carried by source.refreshed.
type Deprecation struct {
	Notice string `json:"notice"`
	// Sunset is the date (YYYY-MM-DD) of the removal.
	Sunset string `json:"sunset"`
}

// deprecations are the notices in force, by dataset id. Nothing in v1 is deprecated
// (docs/contracts/resolver-api.md §9), so the table is empty; a notice added here rides on every
// source.refreshed of its dataset until the sunset.
var deprecations = map[string][]Deprecation{}

// ProviderChanged is the body of provider.changed: something a watched NPI's resolved record
// is made of differs between the snapshot served before a switch and the one served after it
// (the registry record, a fact, a quality record of a facility the NPI maps to, its payments).
//
// Change is "added" (the NPI appeared in the registry), "removed" (it left the registry
// file), "deactivated" (its registry record gained a deactivation date) or "changed". Fields,
// Snapshot and PreviousSnapshot are the registry record's: each top-level field that differs
// with its old and new value (null where absent), and the registry snapshots compared. Sources
// lists every dataset whose part of the resolved record changed, the registry included (see
// SourceChange). The old values are read from the previous generations, which are kept for the
// rollback window after a switch; an event fanned out after they were collected names no
// source, has empty Fields and a null PreviousSnapshot.
type ProviderChanged struct {
	Event            string                 `json:"event"`
	NPI              string                 `json:"npi"`
	Change           string                 `json:"change"`
	Fields           map[string]FieldChange `json:"fields"`
	Snapshot         *string                `json:"snapshot"`
	PreviousSnapshot *string                `json:"previous_snapshot"`
	Sources          []SourceChange         `json:"sources"`
	Provenance       json.RawMessage        `json:"provenance"`
}

// Kinds of change of provider.changed.
const (
	ChangeAdded       = "added"
	ChangeRemoved     = "removed"
	ChangeDeactivated = "deactivated"
	ChangeChanged     = "changed"
)

// SourceChange is one dataset's part of a provider.changed: the dataset's snapshot after and
// before the switch (null where the dataset was not loaded) and each member of its part of the
// resolved record that differs, with its old and new value (null where absent). The members
// are named after what the resolver serves:
//
//   - nppes: the registry record's top-level fields, as in ProviderChanged.Fields;
//   - cms_pecos_ppef: pecos_enrolled, the fact (true or false);
//   - oig_leie_exclusions: exclusion, the fact (true or false);
//   - cms_care_compare_<type>: the CCN of each facility the NPI maps to (its quality row
//     names the NPI, or the hospital enrollment file ties it to the NPI), its quality record;
//   - cms_open_payments: each program year, the year's payment records ordered by record id.
type SourceChange struct {
	DatasetID        string                 `json:"dataset_id"`
	Snapshot         *string                `json:"snapshot"`
	PreviousSnapshot *string                `json:"previous_snapshot"`
	Fields           map[string]FieldChange `json:"fields"`
}

// FieldChange is one field's old and new value.
type FieldChange struct {
	Old json.RawMessage `json:"old"`
	New json.RawMessage `json:"new"`
}

// ExclusionAdded is the body of exclusion.added: a watched NPI appears on the OIG exclusion
// list in a new snapshot.
type ExclusionAdded struct {
	Event         string          `json:"event"`
	NPI           string          `json:"npi"`
	ExclusionType string          `json:"exclusion_type"`
	ExclusionDate string          `json:"exclusion_date,omitempty"`
	Snapshot      *string         `json:"snapshot"`
	Provenance    json.RawMessage `json:"provenance"`
}

// Ping is the body of the test delivery of POST /webhooks/{id}/test.
type Ping struct {
	Event        string `json:"event"`
	Subscription string `json:"subscription"`
}

// cursorID names the fan-out cursor record: the id of the last change-set record turned into
// deliveries.
const cursorID = "changesets"

type cursor struct {
	After string `json:"after"`
}

// fanoutLoop runs the fan-out and the FHIR heartbeats at once and then every FanoutInterval
// until ctx ends.
func (w *Worker) fanoutLoop(ctx context.Context) {
	for ctx.Err() == nil {
		if err := Fanout(ctx, w.o.Store, w.o.Now); err != nil && ctx.Err() == nil {
			w.o.Log.Warn("webhook fan-out", slog.Any("error", err))
		}
		if err := Heartbeats(ctx, w.o.Store, w.o.Now()); err != nil && ctx.Err() == nil {
			w.o.Log.Warn("FHIR subscription heartbeats", slog.Any("error", err))
		}
		sleep(ctx, w.o.FanoutInterval)
	}
}

// Fanout turns the change sets recorded since the last call into deliveries. Change-set records
// are read in id order (generation, collection, chunk) after a durable cursor, which moves on
// only once a record's deliveries are all stored: a fan-out interrupted anywhere is repeated
// from the same record, and since deliveries have ids that depend only on the subscription and
// the event, the repeat adds nothing twice. Several workers may run it at once.
//
// A change set is used when its generation was switched in for its collection since the cursor
// (every switch the serving snapshot descends from, however many came between two calls), or
// serves it, or served it until the last switch. One of a generation still being written stops
// the walk until it switches; one of a generation never switched in (an ingest that failed) is
// passed over. A call that reaches the serving snapshot holds its generations and every newer one
// from collection (store.Hold), so that the switches made before the next call can still be
// compared with the ones before them. The first call on a store starts at its newest change
// set: what happened before webhooks ran is not replayed.
func Fanout(ctx context.Context, st store.Store, now func() time.Time) error {
	// The serving snapshot is read before the change sets: every switch it shows recorded its
	// change sets before switching, so the walk below sees them all.
	serving, err := store.Serving(ctx, st)
	if err != nil {
		return err
	}
	cur, version, err := readCursor(ctx, st)
	if err != nil {
		return err
	}
	if version == 0 {
		if err := startCursor(ctx, st); err != nil {
			return err
		}
		return store.Hold(ctx, st, holder, serving.Collections, now())
	}
	var switched map[switchedKey]bool // read once there is a change set to judge
	var gens []string
	var f *fanout
	for {
		recs, err := st.ListRecords(ctx, catalog.ChangeKind, cur.After, 100)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return store.Hold(ctx, st, holder, serving.Collections, now())
		}
		if switched == nil {
			if switched, err = switchedSince(ctx, st, serving, cur.After); err != nil {
				return err
			}
			if gens, err = st.Generations(ctx); err != nil {
				return err
			}
		}
		for _, rec := range recs {
			var cs catalog.ChangeSet
			if err := json.Unmarshal(rec.Body, &cs); err != nil {
				return fmt.Errorf("webhook: change set %s: %w", rec.ID, err)
			}
			switch changeSetState(cs, serving, switched, gens) {
			case csWait:
				return store.Hold(ctx, st, holder, serving.Collections, now())
			case csUse:
				if f == nil {
					if f, err = newFanout(ctx, st, now, gens); err != nil {
						return err
					}
				}
				if err := f.changeSet(ctx, cs); err != nil {
					return err
				}
			}
			cur.After = rec.ID
			if version, err = writeCursor(ctx, st, cur, version); errors.Is(err, store.ErrConflict) {
				return nil // another worker moved the cursor; the next call goes on from there
			} else if err != nil {
				return err
			}
		}
	}
}

// holder names the fan-out's hold on generations (store.Hold).
const holder = "webhook-fanout"

// switchedKey is a collection and a generation switched in for it.
type switchedKey struct{ collection, generation string }

// switchedSince returns the generations switched in for each collection by the switches the
// serving snapshot descends from, back to the one of the cursor's generation: each switch's
// manifests' change set names every collection's generations before and after it, the
// manifests' own among them, which leads to the switch before. A switch whose manifests had no
// previous generation (a first load) recorded no change set and ends the walk.
func switchedSince(ctx context.Context, st store.Store, serving store.Snapshot, after string) (map[switchedKey]bool, error) {
	out := map[switchedKey]bool{}
	since, _, _ := strings.Cut(after, ".")
	for gen := serving.Generation(catalog.ManifestCollection); gen != "" && gen >= since; {
		rec, err := st.GetRecord(ctx, catalog.ChangeKind, catalog.ChangeRecordID(gen, catalog.ManifestCollection, 0))
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		var cs catalog.ChangeSet
		if err := json.Unmarshal(rec.Body, &cs); err != nil {
			return nil, fmt.Errorf("webhook: change set %s: %w", rec.ID, err)
		}
		for c, p := range cs.Generations {
			if p.Generation != p.Previous {
				out[switchedKey{c, p.Generation}] = true
			}
		}
		if next := cs.Generations[catalog.ManifestCollection].Previous; next < gen {
			gen = next
		} else {
			break
		}
	}
	return out, nil
}

type csState int

const (
	csUse csState = iota
	csWait
	csSkip
)

func changeSetState(cs catalog.ChangeSet, serving store.Snapshot, switched map[switchedKey]bool, gens []string) csState {
	switch {
	case serving.Generation(cs.Collection) == cs.Generation, serving.Previous[cs.Collection] == cs.Generation,
		switched[switchedKey{cs.Collection, cs.Generation}]:
		return csUse
	case cs.Generation > serving.Generation(cs.Collection) && slices.Contains(gens, store.Layers(cs.Generation)[0]):
		// A stacked generation exists while its top layer does.
		return csWait
	}
	return csSkip
}

func readCursor(ctx context.Context, st store.Store) (cursor, int64, error) {
	rec, err := st.GetRecord(ctx, cursorKind, cursorID)
	if errors.Is(err, store.ErrNotFound) {
		return cursor{}, 0, nil
	}
	if err != nil {
		return cursor{}, 0, err
	}
	var c cursor
	if err := json.Unmarshal(rec.Body, &c); err != nil {
		return cursor{}, 0, fmt.Errorf("webhook: fan-out cursor: %w", err)
	}
	return c, rec.Version, nil
}

// writeCursor moves the cursor by compare-and-swap (creates it at version 0).
func writeCursor(ctx context.Context, st store.Store, c cursor, version int64) (int64, error) {
	body, _ := json.Marshal(c)
	rec, err := st.PutRecord(ctx, store.Record{Kind: cursorKind, ID: cursorID, Version: version, Body: body})
	return rec.Version, err
}

// startCursor creates the cursor at the newest change set there is.
func startCursor(ctx context.Context, st store.Store) error {
	var c cursor
	for {
		recs, err := st.ListRecords(ctx, catalog.ChangeKind, c.After, store.MaxLimit)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			break
		}
		c.After = recs[len(recs)-1].ID
	}
	_, err := writeCursor(ctx, st, c, 0)
	if errors.Is(err, store.ErrConflict) {
		return nil // another worker started it
	}
	return err
}

// fanout is one pass's view of the subscriptions: who wants each event, and who watches each
// NPI.
type fanout struct {
	st        store.Store
	now       func() time.Time
	gens      []string // the generations the store holds
	par       parallel
	refreshed []string            // subscriptions wanting source.refreshed
	changed   map[string][]string // NPI -> subscriptions watching it for provider.changed
	excluded  map[string][]string // NPI -> subscriptions watching it for exclusion.added
}

func newFanout(ctx context.Context, st store.Store, now func() time.Time, gens []string) (*fanout, error) {
	subs, err := allSubscriptions(ctx, st)
	if err != nil {
		return nil, err
	}
	f := &fanout{st: st, now: now, gens: gens, par: newParallel(fanoutParallelism), changed: map[string][]string{}, excluded: map[string][]string{}}
	for _, s := range subs {
		if s.Wants(EventSourceRefreshed) {
			f.refreshed = append(f.refreshed, s.ID)
		}
		for _, n := range s.NPIs {
			if s.Wants(EventProviderChanged) {
				f.changed[n] = append(f.changed[n], s.ID)
			}
			if s.Wants(EventExclusionAdded) {
				f.excluded[n] = append(f.excluded[n], s.ID)
			}
		}
	}
	return f, nil
}

// fanoutParallelism is how many events of a change set are turned into deliveries at once:
// each delivery is two durable writes, which the store commits together when they come
// together.
const fanoutParallelism = 16

// changeSet stores the deliveries of one change-set record, returning once all are stored.
func (f *fanout) changeSet(ctx context.Context, cs catalog.ChangeSet) error {
	if cs.Collection == catalog.ManifestCollection && cs.Generations != nil && len(f.changed) > 0 {
		if err := f.providerChanges(ctx, cs); err != nil {
			return err
		}
	}
	f.events(ctx, cs)
	return f.par.wait()
}

// events starts the work of each event of a change set on f.par.
func (f *fanout) events(ctx context.Context, cs catalog.ChangeSet) {
	switch cs.Collection {
	case catalog.ManifestCollection:
		if len(f.refreshed) == 0 {
			return
		}
		for _, family := range slices.Concat(cs.Added, cs.Changed) {
			f.par.do(func() error { return f.sourceRefreshed(ctx, cs, family) })
		}
	case catalog.RegistryProviders:
		if f.readable(cs.Previous) {
			return // the manifests' change set compares the watched NPIs' resolved records
		}
		for kind, ids := range map[string][]string{ChangeAdded: cs.Added, ChangeChanged: cs.Changed, ChangeRemoved: cs.Removed} {
			for _, npi := range ids {
				if subs := f.changed[npi]; len(subs) > 0 {
					f.par.do(func() error { return f.registryChanged(ctx, cs, kind, npi, subs) })
				}
			}
		}
	case catalog.Exclusions:
		if len(f.excluded) == 0 {
			return
		}
		for _, id := range cs.Added {
			f.par.do(func() error { return f.exclusionAdded(ctx, cs, id) })
		}
	}
}

// parallel runs functions on at most n goroutines and keeps the first error.
type parallel struct {
	slots chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	err   error
}

func newParallel(n int) parallel { return parallel{slots: make(chan struct{}, n)} }

// do runs fn once a slot is free; after an error it runs nothing more.
func (p *parallel) do(fn func() error) {
	p.slots <- struct{}{}
	p.mu.Lock()
	failed := p.err != nil
	p.mu.Unlock()
	if failed {
		<-p.slots
		return
	}
	p.wg.Go(func() {
		defer func() { <-p.slots }()
		if err := fn(); err != nil {
			p.mu.Lock()
			if p.err == nil {
				p.err = err
			}
			p.mu.Unlock()
		}
	})
}

// wait waits for every function started and returns the first error, and clears it.
func (p *parallel) wait() error {
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.err
	p.err = nil
	return err
}

// eventID is the id of the event about key in a generation: "evt_", the generation (so ids
// sort in the order the snapshots were made) and a digest of the event type and key.
func eventID(generation, event, key string) string {
	h := sha256.Sum256([]byte(event + "\x00" + key))
	return "evt_" + generation + "_" + hex.EncodeToString(h[:8])
}

// send enqueues one event for each subscription.
func (f *fanout) send(ctx context.Context, subs []string, id, event string, body any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	now := f.now().UTC()
	for _, s := range subs {
		if _, err := enqueue(ctx, f.st, s, id, event, payload, now); err != nil {
			return err
		}
	}
	return nil
}

// sourceRefreshed sends one source.refreshed per dataset of a family whose snapshot changed:
// a family holds several datasets (Care Compare one per facility type), each dated by its own
// files, and a dataset whose snapshot stayed is no event.
func (f *fanout) sourceRefreshed(ctx context.Context, cs catalog.ChangeSet, family string) error {
	m, ok, err := manifestAt(ctx, f.st, cs.Generation, family)
	if err != nil || !ok {
		return err
	}
	prev, hadPrev, err := manifestAt(ctx, f.st, cs.Previous, family)
	if err != nil {
		return err
	}
	for _, id := range m.DatasetIDs() {
		snap, _ := m.SnapshotOf(id)
		body := SourceRefreshed{Event: EventSourceRefreshed, DatasetID: id, Snapshot: snap,
			Deprecations: append([]Deprecation{}, deprecations[id]...)}
		if p, ok := prev.SnapshotOf(id); hadPrev && ok {
			if p == snap {
				continue
			}
			body.PreviousSnapshot = &p
		}
		if err := f.send(ctx, f.refreshed, eventID(cs.Generation, EventSourceRefreshed, id), EventSourceRefreshed, body); err != nil {
			return err
		}
	}
	return nil
}

// manifestAt reads a family's manifest in a generation; false when it is not there (the
// generation was dropped, or the family is new).
func manifestAt(ctx context.Context, st store.Store, gen, family string) (catalog.Manifest, bool, error) {
	var m catalog.Manifest
	ok, err := getJSON(ctx, st, gen, catalog.ManifestCollection, family, &m)
	return m, ok, err
}

// getJSON reads and decodes a document; false when it is absent.
func getJSON(ctx context.Context, st store.Store, gen, collection, id string, v any) (bool, error) {
	if gen == "" {
		return false, nil
	}
	doc, err := st.Get(ctx, gen, collection, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(doc.Body, v); err != nil {
		return false, fmt.Errorf("webhook: %s/%s: %w", collection, id, err)
	}
	return true, nil
}

// sourceDoc is the stored shape of a source record (stored.Body), its record left undecoded.
type sourceDoc struct {
	Record     json.RawMessage `json:"record"`
	Provenance json.RawMessage `json:"provenance"`
}

// snapshot is the _snapshot of a provenance record, or nil.
func (d sourceDoc) snapshot() *string {
	var p struct {
		Snapshot string `json:"_snapshot"`
	}
	if json.Unmarshal(d.Provenance, &p) != nil || p.Snapshot == "" {
		return nil
	}
	return &p.Snapshot
}

// registryChanged sends provider.changed for a watched NPI of a registry change set whose
// previous generation is gone: what changed cannot be told, and listing every field as new
// would say what is not so, so the event names no field and no source.
func (f *fanout) registryChanged(ctx context.Context, cs catalog.ChangeSet, change, npi string, subs []string) error {
	var cur sourceDoc
	hasNew, err := getJSON(ctx, f.st, cs.Generation, catalog.RegistryProviders, npi, &cur)
	if err != nil {
		return err
	}
	if !hasNew && change != ChangeRemoved {
		return nil
	}
	body := ProviderChanged{Event: EventProviderChanged, NPI: npi, Change: change, Fields: map[string]FieldChange{},
		Snapshot: cur.snapshot(), Sources: []SourceChange{}, Provenance: cur.Provenance}
	if body.Provenance == nil {
		body.Provenance = json.RawMessage("null")
	}
	gen := store.Layers(cs.Generation)[0]
	return f.send(ctx, subs, eventID(gen, EventProviderChanged, npi), EventProviderChanged, body)
}

// diffMembers compares two JSON objects member by member (values compacted, so only content
// counts) and returns the members that differ with both values; null stands for an absent one.
func diffMembers(a, b map[string]json.RawMessage) map[string]FieldChange {
	out := map[string]FieldChange{}
	null := json.RawMessage("null")
	for k, v := range a {
		if w, ok := b[k]; !ok || !sameJSON(v, w) {
			out[k] = FieldChange{Old: v, New: orNull(w, ok, null)}
		}
	}
	for k, w := range b {
		if _, ok := a[k]; !ok {
			out[k] = FieldChange{Old: null, New: w}
		}
	}
	return out
}

func orNull(v json.RawMessage, ok bool, null json.RawMessage) json.RawMessage {
	if !ok {
		return null
	}
	return v
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

func (f *fanout) exclusionAdded(ctx context.Context, cs catalog.ChangeSet, id string) error {
	var doc sourceDoc
	ok, err := getJSON(ctx, f.st, cs.Generation, catalog.Exclusions, id, &doc)
	if err != nil || !ok {
		return err
	}
	var rec struct {
		NPI           string `json:"npi"`
		ExclusionType string `json:"exclusion_type"`
		ExclusionDate string `json:"exclusion_date"`
	}
	if err := json.Unmarshal(doc.Record, &rec); err != nil {
		return fmt.Errorf("webhook: exclusion %s: %w", id, err)
	}
	subs := f.excluded[strings.TrimSpace(rec.NPI)]
	if len(subs) == 0 {
		return nil
	}
	body := ExclusionAdded{Event: EventExclusionAdded, NPI: rec.NPI, ExclusionType: rec.ExclusionType,
		ExclusionDate: rec.ExclusionDate, Snapshot: doc.snapshot(), Provenance: doc.Provenance}
	return f.send(ctx, subs, eventID(cs.Generation, EventExclusionAdded, id), EventExclusionAdded, body)
}
