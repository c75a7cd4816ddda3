package webhook

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/rest/supply"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/synthdrops"
	"providerdir/testing/webhookreceiver"
)

// drops are a small synthetic drop and its next snapshot in the real file formats.
func drops(t *testing.T) synthdrops.Drops { return synthdrops.Generate(t, 300, 11) }

func TestMain(m *testing.M) { synthdrops.Main(m) }

func ingestDrop(t *testing.T, st store.Store, dir string) {
	t.Helper()
	if _, err := ingest.Run(context.Background(), ingest.Options{Store: st, Dir: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
}

// eventSchemas are the schemas of the event bodies in the interface description.
var eventSchemas = map[string]string{
	EventSourceRefreshed: "SourceRefreshedEvent", EventProviderChanged: "ProviderChangedEvent",
	EventExclusionAdded: "ExclusionAddedEvent", EventPing: "PingEvent",
}

// checkBodies validates each delivery's body, as an attempt sends it, against its schema in
// the interface description.
func checkBodies(t *testing.T, st store.Store, ds []Delivery) {
	t.Helper()
	raw, err := supply.New(st, "https://directory.example.org").OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		var body any
		mustJSON(t, withDeliveredAt(d.Payload, time.Now()), &body)
		schema := doc.Components.Schemas[eventSchemas[d.Event]]
		if schema == nil {
			t.Fatalf("no schema for %s", d.Event)
		}
		if err := schema.Value.VisitJSON(body); err != nil {
			t.Errorf("%s body does not match %s: %v\n%s", d.Event, eventSchemas[d.Event], err, d.Payload)
		}
	}
}

// deliveriesOf lists every delivery of a subscription.
func deliveriesOf(t *testing.T, st store.Store, subID string) []Delivery {
	t.Helper()
	ds, err := listDeliveries(context.Background(), st, subID, "", store.MaxLimit)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// An ingest of a drop's next snapshot becomes source.refreshed for each dataset whose snapshot
// changed, provider.changed for each watched NPI whose resolved record changed, and exclusion.added for
// each watched NPI newly excluded; repeating the fan-out adds nothing.
func TestFanoutFromIngest(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, _ := b.Open(t)
		testFanoutFromIngest(t, s)
	})
}

func testFanoutFromIngest(t *testing.T, st store.Store) {
	drop := drops(t)
	base, bm, next, nm := drop.Base, drop.BaseManifest, drop.Next, drop.NextManifest
	if nm.Changes == nil || len(nm.Changes.Moved) < 2 || len(nm.Changes.NewlyExcluded) < 1 {
		t.Fatalf("the evolved drop lists too few changes: %+v", nm.Changes)
	}
	clk := webhookreceiver.NewClock()
	ctx := context.Background()
	ingestDrop(t, st, base)
	if err := Fanout(ctx, st, clk.Now); err != nil { // starts the cursor: the first load is no event
		t.Fatal(err)
	}
	moved := []string{nm.Changes.Moved[0].Key, nm.Changes.Moved[1].Key}
	excluded := nm.Changes.NewlyExcluded[0].Key
	refresh := subscribe(t, st, nil, "https://192.0.2.1/a", []string{EventSourceRefreshed})
	watch := subscribe(t, st, nil, "https://192.0.2.1/b", []string{EventExclusionAdded, EventProviderChanged}, append(moved, excluded)...)
	quiet := subscribe(t, st, nil, "https://192.0.2.1/c", []string{EventProviderChanged}, excluded)

	// A notice in force for the registry rides on its source.refreshed.
	notice := Deprecation{Notice: "the field x is removed", Sunset: "2027-01-01"}
	deprecations["nppes"] = []Deprecation{notice}
	t.Cleanup(func() { delete(deprecations, "nppes") })

	ingestDrop(t, st, next)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}

	refreshed := deliveriesOf(t, st, refresh.ID)
	if len(refreshed) == 0 {
		t.Fatal("no source.refreshed")
	}
	var nppes *SourceRefreshed
	for _, d := range refreshed {
		var b SourceRefreshed
		mustJSON(t, d.Payload, &b)
		if d.Event != EventSourceRefreshed || b.Event != EventSourceRefreshed || b.DatasetID == "" || b.Snapshot == "" {
			t.Errorf("delivery %s: %s", d.ID, d.Payload)
		}
		if b.DatasetID == "nppes" {
			nppes = &b
		} else if b.Deprecations == nil || len(b.Deprecations) != 0 {
			t.Errorf("%s deprecations %v, want []", b.DatasetID, b.Deprecations)
		}
	}
	if nppes == nil || !slices.Equal(nppes.Deprecations, []Deprecation{notice}) || nppes.Snapshot != nm.SnapshotDates["nppes"] || nppes.PreviousSnapshot == nil || *nppes.PreviousSnapshot != bm.SnapshotDates["nppes"] {
		t.Errorf("nppes source.refreshed %+v, want snapshot %s after %s", nppes, nm.SnapshotDates["nppes"], bm.SnapshotDates["nppes"])
	}

	byEvent := map[string][]Delivery{}
	for _, d := range deliveriesOf(t, st, watch.ID) {
		byEvent[d.Event] = append(byEvent[d.Event], d)
	}
	var changedNPIs []string
	for _, d := range byEvent[EventProviderChanged] {
		var b ProviderChanged
		mustJSON(t, d.Payload, &b)
		changedNPIs = append(changedNPIs, b.NPI)
		if b.Change != "changed" || len(b.Sources) == 0 || b.Snapshot == nil || b.PreviousSnapshot == nil || !strings.Contains(string(b.Provenance), `"_dataset_id"`) {
			t.Errorf("provider.changed %s", d.Payload)
		}
		if slices.Contains(moved, b.NPI) && len(b.Fields) == 0 {
			t.Errorf("no registry field of moved NPI %s: %s", b.NPI, d.Payload)
		}
		for name, f := range b.Fields {
			if sameJSON(f.Old, f.New) {
				t.Errorf("field %s unchanged in %s", name, d.Payload)
			}
		}
		for _, src := range b.Sources {
			for name, f := range src.Fields {
				if sameJSON(f.Old, f.New) {
					t.Errorf("%s field %s unchanged in %s", src.DatasetID, name, d.Payload)
				}
			}
		}
	}
	for _, n := range moved {
		if !slices.Contains(changedNPIs, n) {
			t.Errorf("no provider.changed for moved NPI %s (got %v)", n, changedNPIs)
		}
	}
	if ex := byEvent[EventExclusionAdded]; len(ex) != 1 {
		t.Errorf("%d exclusion.added, want 1", len(ex))
	} else {
		var b ExclusionAdded
		mustJSON(t, ex[0].Payload, &b)
		if b.NPI != excluded || b.ExclusionType == "" || b.Snapshot == nil || len(b.Provenance) == 0 {
			t.Errorf("exclusion.added %s", ex[0].Payload)
		}
	}
	checkBodies(t, st, slices.Concat(refreshed, deliveriesOf(t, st, watch.ID), deliveriesOf(t, st, quiet.ID)))
	for _, d := range deliveriesOf(t, st, quiet.ID) {
		if d.Event != EventProviderChanged {
			t.Errorf("a subscription without exclusion.added got %s", d.Event)
		}
	}

	// Repeated, and repeated from the start of this ingest's change sets as after a crash:
	// nothing is added twice.
	total := func() int {
		return len(deliveriesOf(t, st, refresh.ID)) + len(deliveriesOf(t, st, watch.ID)) + len(deliveriesOf(t, st, quiet.ID))
	}
	before, queued := total(), queueLen(t, st)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Update(ctx, st, cursorKind, cursorID, func(r store.Record) (store.Record, error) {
		r.Body = []byte(`{"after":""}`)
		return r, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	if after := total(); after != before || queueLen(t, st) != queued {
		t.Errorf("deliveries %d -> %d, queue %d -> %d after repeated fan-outs", before, after, queued, queueLen(t, st))
	}
}

// A change set of a generation still being written waits; one of a generation switched in
// since the cursor is used, even when later switches replaced it; one of a generation that failed
// and was dropped, or that was written and never switched in, is passed over.
func TestChangeSetState(t *testing.T) {
	serving := store.Snapshot{Collections: map[string]string{"c": "g0000000005"}, Previous: map[string]string{"c": "g0000000003"}}
	gens := []string{"g0000000002", "g0000000003", "g0000000004", "g0000000005", "g0000000007"}
	switched := map[switchedKey]bool{{"c", "g0000000002"}: true, {"c", "g0000000003"}: true, {"c", "g0000000005"}: true}
	for _, c := range []struct {
		gen  string
		want csState
	}{
		{"g0000000005", csUse}, {"g0000000003", csUse}, {"g0000000002", csUse}, {"g0000000007", csWait},
		{"g0000000004", csSkip}, {"g0000000006", csSkip}, {"g0000000001", csSkip},
	} {
		if got := changeSetState(catalog.ChangeSet{Collection: "c", Generation: c.gen}, serving, switched, gens); got != c.want {
			t.Errorf("%s: %v, want %v", c.gen, got, c.want)
		}
	}
}

// When the previous generation was collected before the fan-out, provider.changed still goes
// out, with no field differences claimed and no previous snapshot.
func TestFanoutAfterPreviousCollected(t *testing.T) {
	drop := drops(t)
	base, next, nm := drop.Base, drop.Next, drop.NextManifest
	st, clk := backends.Embedded(t), webhookreceiver.NewClock()
	ctx := context.Background()
	ingestDrop(t, st, base)
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	watch := subscribe(t, st, nil, "https://192.0.2.1/b", []string{EventProviderChanged}, nm.Changes.Moved[0].Key)
	ingestDrop(t, st, next)
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DropGeneration(ctx, snap.Previous[catalog.RegistryProviders]); err != nil {
		t.Fatal(err)
	}
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	ds := deliveriesOf(t, st, watch.ID)
	if len(ds) != 1 {
		t.Fatalf("%d deliveries, want 1", len(ds))
	}
	var b ProviderChanged
	mustJSON(t, ds[0].Payload, &b)
	if b.Change != "changed" || len(b.Fields) != 0 || b.PreviousSnapshot != nil || b.Snapshot == nil {
		t.Errorf("provider.changed %s", ds[0].Payload)
	}
	checkBodies(t, st, ds)
}
