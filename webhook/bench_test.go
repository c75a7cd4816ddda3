package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/webhookreceiver"
)

// Scale of one round of BenchmarkDelivery: subscriptions each watching benchWatched NPIs, all
// of which change between two snapshots; benchEvents in all, 10,000 unless
// WEBHOOK_BENCH_EVENTS says otherwise (make bench asks for 100,000).
const benchWatched = MaxWatchedNPIs

var benchEvents = func() int {
	if n, err := strconv.Atoi(os.Getenv("WEBHOOK_BENCH_EVENTS")); err == nil && n >= benchWatched {
		return n / benchWatched * benchWatched
	}
	return 10 * benchWatched
}()

// BenchmarkDelivery measures the event side end to end on the embedded store: a registry
// change set of benchEvents watched NPIs is fanned out into deliveries (events/s), which the
// worker claims, signs, POSTs to a receiver on loopback and records (delivered/s); beside them
// the receiver's own ceiling, the same POSTs from plain clients at the worker's concurrency with
// no store. Run it with -benchtime 1x.
func BenchmarkDelivery(b *testing.B) {
	var got atomic.Int64
	rv := webhookreceiver.NewReceiver(b, signed, func(_ int, w http.ResponseWriter, _ *http.Request) {
		got.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	for range b.N {
		st, clk := backends.Embedded(b), webhookreceiver.NewClock()
		ctx := context.Background()
		npis := benchChangeSet(b, st)
		if err := Fanout(ctx, st, clk.Now); err != nil { // starts the cursor before the change set
			b.Fatal(err)
		}
		for i := range benchEvents / benchWatched {
			subscribe(b, st, nil, rv.URL, []string{EventProviderChanged}, npis[i*benchWatched:(i+1)*benchWatched]...)
		}
		benchChangeRecords(b, st, npis)
		began := time.Now()
		if err := Fanout(ctx, st, clk.Now); err != nil {
			b.Fatal(err)
		}
		fanned := time.Since(began)
		if n := queueLen(b, st); n != benchEvents {
			b.Fatalf("%d deliveries queued, want %d", n, benchEvents)
		}
		before := got.Load()
		began = time.Now()
		stop := startWorker(b, WorkerOptions{Store: st, Now: clk.Now})
		webhookreceiver.WaitFor(b, "every delivery", func() bool { return got.Load()-before >= int64(benchEvents) })
		webhookreceiver.WaitFor(b, "the queue to empty", func() bool { return queueLen(b, st) == 0 })
		sent := time.Since(began)
		stop()
		b.ReportMetric(float64(benchEvents)/fanned.Seconds(), "events/s")
		b.ReportMetric(float64(benchEvents)/sent.Seconds(), "delivered/s")
		b.ReportMetric(receiverCeiling(b, rv.URL, DefaultConcurrency), "receiver-ceiling/s")
	}
}

// benchChangeSet stores two serving generations of benchEvents registry records that differ
// in one field, each with the registry's manifest, the second serving, and returns the NPIs.
func benchChangeSet(b *testing.B, st store.Store) []string {
	ctx := context.Background()
	npis := make([]string, benchEvents)
	for i := range npis {
		npis[i] = fmt.Sprintf("1%09d", i)
	}
	snap := store.Snapshot{}
	for _, city := range []string{"Albany", "Boston"} {
		gen, err := store.NewGeneration(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		docs := make([]store.Document, len(npis))
		for i, n := range npis {
			docs[i] = store.Document{ID: n, Body: fmt.Appendf(nil,
				`{"record":{"npi":%q,"city":%q},"provenance":{"_dataset_id":"nppes","_snapshot":"2026-01-0%d"}}`, n, city, len(city)%9)}
		}
		if err := st.Put(ctx, gen, catalog.RegistryProviders, docs); err != nil {
			b.Fatal(err)
		}
		m, _ := json.Marshal(catalog.Manifest{Family: "nppes", DatasetID: "nppes", Snapshot: fmt.Sprintf("2026-01-0%d", len(city)%9), Generation: gen})
		if err := st.Put(ctx, gen, catalog.ManifestCollection, []store.Document{{ID: "nppes", Body: m}}); err != nil {
			b.Fatal(err)
		}
		gens := map[string]string{catalog.RegistryProviders: gen, catalog.ManifestCollection: gen}
		if snap, err = store.Switch(ctx, st, snap, gens, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	return npis
}

// benchChangeRecords writes the change sets between the two generations as ingest does: the
// registry's in chunks of 5,000 ids, and the manifests', which names both collections'
// generations before and after the switch.
func benchChangeRecords(b *testing.B, st store.Store, npis []string) {
	snap, err := store.Serving(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	cur, prev := snap.Generation(catalog.RegistryProviders), snap.Previous[catalog.RegistryProviders]
	put := func(cs catalog.ChangeSet, chunk int) {
		body, _ := json.Marshal(cs)
		if _, err := st.PutRecord(context.Background(), store.Record{Kind: catalog.ChangeKind, ID: catalog.ChangeRecordID(cur, cs.Collection, chunk), Body: body}); err != nil {
			b.Fatal(err)
		}
	}
	for c := 0; c*5000 < len(npis); c++ {
		put(catalog.ChangeSet{Generation: cur, Previous: prev, Collection: catalog.RegistryProviders, Changed: npis[c*5000 : min((c+1)*5000, len(npis))]}, c)
	}
	pair := catalog.GenerationPair{Previous: prev, Generation: cur}
	put(catalog.ChangeSet{Generation: cur, Previous: prev, Collection: catalog.ManifestCollection, Changed: []string{"nppes"},
		Generations: map[string]catalog.GenerationPair{catalog.RegistryProviders: pair, catalog.ManifestCollection: pair}}, 0)
}

// receiverCeiling POSTs benchEvents bodies to url from n clients at once and returns the rate
// the receiver took them at.
func receiverCeiling(b *testing.B, url string, n int) float64 {
	body := []byte(`{"event":"provider.changed","npi":"1000000000","change":"changed","fields":{"city":{"old":"Albany","new":"Boston"}}}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var next atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for range n {
		wg.Go(func() {
			for next.Add(1) <= int64(benchEvents) {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	return float64(benchEvents) / time.Since(began).Seconds()
}
