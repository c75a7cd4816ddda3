package webhook

import (
	"context"
	"encoding/json"
	"testing"

	"providerdir/catalog"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/webhookreceiver"
)

// A weekly NPPES delta, served as stacked generations, fires provider.changed for a watched NPI
// it changed, delivered signed to a receiver on loopback.
func TestProviderChangedFromWeeklyDelta(t *testing.T) {
	base := drops(t).Base
	ctx := context.Background()
	week := t.TempDir()
	wk, err := synth.GenerateWeekly(ctx, synth.WeeklyConfig{From: base, Out: week, Changes: 40})
	if err != nil {
		t.Fatal(err)
	}
	moved := wk.Changes[synth.WeeklyMoved]
	if len(moved) == 0 {
		t.Fatalf("the week moves no provider: %v", wk.Changes)
	}
	st := store.Stacked(backends.Embedded(t))
	clk := webhookreceiver.NewClock()
	ingestDrop(t, st, base)
	if err := Fanout(ctx, st, clk.Now); err != nil { // starts the cursor: the first load is no event
		t.Fatal(err)
	}
	rv := webhookreceiver.NewReceiver(t, signed, nil)
	subscribe(t, st, rv, rv.URL, []string{EventProviderChanged}, moved[0])
	ingestDrop(t, st, week)
	if snap, _ := store.Serving(ctx, st); len(store.Layers(snap.Generation(catalog.RegistryProviders))) != 2 {
		t.Fatalf("the week was not applied as a delta: %v", snap.Collections)
	}
	if err := Fanout(ctx, st, clk.Now); err != nil {
		t.Fatal(err)
	}
	startWorker(t, WorkerOptions{Store: st, Now: clk.Now})
	webhookreceiver.WaitFor(t, "the provider.changed delivery", func() bool { return len(rv.Requests()) > 0 })
	got := rv.Requests()[0]
	var b ProviderChanged
	if err := json.Unmarshal(got.Body, &b); err != nil {
		t.Fatal(err)
	}
	if !got.Verified || got.Event != EventProviderChanged || b.NPI != moved[0] || b.Change != "changed" || b.Fields["practice_address"].New == nil {
		t.Errorf("delivery %+v: %s", got, got.Body)
	}
}

// A change set of a stacked generation is used once it serves, waited for while its top layer
// exists and does not serve yet, and passed over once the top layer is gone.
func TestChangeSetStateOfStack(t *testing.T) {
	stack := store.StackGeneration("g0000000002", "g0000000001")
	cs := catalog.ChangeSet{Generation: stack, Previous: "g0000000001", Collection: catalog.RegistryProviders}
	for _, c := range []struct {
		name    string
		serving string
		gens    []string
		want    csState
	}{
		{"serving", stack, []string{"g0000000001", "g0000000002"}, csUse},
		{"written, not switched yet", "g0000000001", []string{"g0000000001", "g0000000002"}, csWait},
		{"failed and dropped", "g0000000001", []string{"g0000000001"}, csSkip},
	} {
		snap := store.Snapshot{Collections: map[string]string{catalog.RegistryProviders: c.serving}}
		if got := changeSetState(cs, snap, nil, c.gens); got != c.want {
			t.Errorf("%s: state %v, want %v", c.name, got, c.want)
		}
	}
}
