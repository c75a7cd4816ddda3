package resolver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/geo"
	"providerdir/match/queryset"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// scaleStore opens the embedded store named by RESOLVER_SCALE_STORE (a directory ingested from
// the drop in RESOLVER_SCALE_DROP, such as make bench's 1M one) and reads the drop's labelled
// queries; the test or benchmark is skipped without them.
func scaleStore(tb testing.TB) (store.Store, []queryset.Query) {
	tb.Helper()
	dir, drop := os.Getenv("RESOLVER_SCALE_STORE"), os.Getenv("RESOLVER_SCALE_DROP")
	if dir == "" || drop == "" {
		tb.Skip("RESOLVER_SCALE_STORE and RESOLVER_SCALE_DROP name an ingested store and its drop")
	}
	st, err := embedded.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	qs, err := queryset.Read(filepath.Join(drop, queryset.FileName))
	if err != nil {
		tb.Fatal(err)
	}
	return st, qs
}

// scaleSearch is the labelled queries' search through GET /search of a server over st, over
// loopback with a Pro key, the gate's clock moved on an hour every 10,000 queries so that no
// budget binds.
func scaleSearch(tb testing.TB, st store.Store) queryset.Search {
	e := newEnv(tb, st)
	search := queryset.HTTPSearch(http.DefaultClient, e.URL+"/resolver/v1", e.Key(tb, apikey.TierPro))
	n := 0
	return func(ctx context.Context, q queryset.Query) ([]string, error) {
		if n++; n%10000 == 0 {
			e.clock.Advance(time.Hour)
		}
		return search(ctx, q)
	}
}

// The labelled queries of a large drop (make bench's 1M), one at a time over loopback, meet the
// targets of the demo drop's set (labelled_test.go), and precision@1 of each kind is at least
// minPrecisionAt1; the latency percentiles and the slowest queries are logged for a reader.
// RESOLVER_SCALE_NATIONWIDE searches every query without its state and taxonomy (targets not
// asserted then: a label need not be first nationwide); RESOLVER_SCALE_MISSES lists the kinds
// whose misses are logged.
func TestSearchLabelledAtScale(t *testing.T) {
	st, qs := scaleStore(t)
	ctx := t.Context()
	if os.Getenv("RESOLVER_SCALE_NATIONWIDE") != "" {
		for i := range qs {
			qs[i].State, qs[i].Taxonomy = "", ""
		}
	}
	search := scaleSearch(t, st)
	for _, q := range qs[:min(200, len(qs))] { // warm the block cache
		if _, err := search(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := queryset.Evaluate(ctx, qs, search)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range queryset.Kinds {
		tally := rep.ByDeformation[kind]
		t.Logf("%-18s %4d queries  precision@1 %.4f  recall@10 %.4f", kind, tally.Queries, tally.PrecisionAt1(), tally.RecallAt10())
	}
	t.Logf("all %d queries  precision@1 %.4f  recall@10 %.4f  p50 %v  p99 %v", rep.Queries, rep.PrecisionAt1(), rep.RecallAt10(), rep.Percentile(50), rep.Percentile(99))
	if os.Getenv("RESOLVER_SCALE_NATIONWIDE") == "" {
		for kind, tally := range rep.ByDeformation {
			if tally.PrecisionAt1() < minPrecisionAt1 || queryset.Nationwide(kind) && tally.RecallAt10() < minNationwideRecallAt10 {
				t.Errorf("%s: precision@1 %.4f, recall@10 %.4f", kind, tally.PrecisionAt1(), tally.RecallAt10())
			}
		}
		if rep.PrecisionAt1() < minPrecisionAt1 || rep.RecallAt10() < minRecallAt10 {
			t.Errorf("all: precision@1 %.4f, recall@10 %.4f", rep.PrecisionAt1(), rep.RecallAt10())
		}
	}
	order := make([]int, len(qs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return int(rep.Latencies[b] - rep.Latencies[a]) })
	for _, i := range order[:min(25, len(order))] {
		t.Logf("slow %8v  %-18s %q state %q", rep.Latencies[i].Round(time.Microsecond), qs[i].Deformation, qs[i].Q, qs[i].State)
	}
	for _, m := range rep.Misses {
		if strings.Contains(os.Getenv("RESOLVER_SCALE_MISSES"), m.Deformation) {
			t.Logf("miss %-18s %q state %q npi %s", m.Deformation, m.Q, m.State, m.NPI)
		}
	}
}

// BenchmarkSearchAtScale runs the labelled queries of a large drop in turn over loopback.
// RESOLVER_SCALE_KINDS (comma-separated) keeps the queries of those kinds only.
func BenchmarkSearchAtScale(b *testing.B) {
	st, qs := scaleStore(b)
	if kinds := os.Getenv("RESOLVER_SCALE_KINDS"); kinds != "" {
		qs = slices.DeleteFunc(qs, func(q queryset.Query) bool { return !slices.Contains(strings.Split(kinds, ","), q.Deformation) })
	}
	ctx := b.Context()
	search := scaleSearch(b, st)
	for i := 0; b.Loop(); i++ {
		if _, err := search(ctx, qs[i%len(qs)]); err != nil {
			b.Fatal(err)
		}
	}
}

// batchKeys is how many keys BenchmarkBatchAtScale sends its batches with.
const batchKeys = 25

// BenchmarkBatchAtScale posts batches of 1,000 of the large drop's labelled NPIs (each repeated
// in turn when the set has fewer), as make bench's batch scenario does, over loopback, and
// reports the batches' latency percentiles. RESOLVER_SCALE_BATCH_RATE, batches a second, starts
// them at that rate whether or not the ones before have been answered (make bench's offered
// rate); without it each starts when the one before is answered. The batches go out with
// batchKeys Pro keys in turn, as make bench spreads them over its keys, and the gate's clock
// moves an hour on every 400 batches, so that no key's hourly NPI ceiling binds.
func BenchmarkBatchAtScale(b *testing.B) {
	st, qs := scaleStore(b)
	e := newEnv(b, st)
	keys := make([]string, batchKeys)
	for i := range keys {
		keys[i] = e.Key(b, apikey.TierPro)
	}
	npis := make([]string, 1000)
	for i := range npis {
		npis[i] = qs[i%len(qs)].NPI
	}
	body, _ := json.Marshal(map[string]any{"npis": npis})
	post := func(i int) (time.Duration, error) {
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/resolver/v1/batch/npi", bytes.NewReader(body))
		req.Header.Set(gate.HeaderServiceKey, keys[i%len(keys)])
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		return time.Since(start), err
	}
	rate, _ := strconv.Atoi(os.Getenv("RESOLVER_SCALE_BATCH_RATE"))
	var (
		mu        sync.Mutex
		latencies []time.Duration
		wg        sync.WaitGroup
	)
	record := func(i int) {
		took, err := post(i)
		if err != nil {
			b.Error(err)
			return
		}
		mu.Lock()
		latencies = append(latencies, took)
		mu.Unlock()
	}
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		if i%400 == 399 {
			e.clock.Advance(time.Hour)
		}
		if rate <= 0 {
			record(i)
			continue
		}
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(rate))))
		wg.Go(func() { record(i) })
	}
	wg.Wait()
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		b.ReportMetric(float64(latencies[n/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(latencies[(n*99)/100].Microseconds())/1000, "p99-ms")
	}
}

// BenchmarkNearVsName compares, in one run over loopback, a search of 25 miles around the ZIP
// code that holds the most practices (pages of 20, by place alone) with the labelled name
// searches (pages of 20), alternating them; it reports each one's time and their ratio
// (near/name). It runs on the large store of RESOLVER_SCALE_STORE when set, else on the demo
// snapshot.
func BenchmarkNearVsName(b *testing.B) {
	var st store.Store
	var qs []queryset.Query
	if os.Getenv("RESOLVER_SCALE_STORE") != "" {
		st, qs = scaleStore(b)
	} else {
		d := demostore.Open(b)
		built, err := queryset.Build(d.Drop, 1000, 7)
		if err != nil {
			b.Fatal(err)
		}
		st, qs = d.Store, built
	}
	zip := densestZCTA(b, st)
	e := newEnv(b, st)
	key := e.Key(b, apikey.TierPro)
	get := func(i int, v url.Values) time.Duration {
		start := time.Now()
		e.send(b, i, func() *http.Request {
			req, _ := http.NewRequest(http.MethodGet, e.URL+"/resolver/v1/search?"+v.Encode(), nil)
			req.Header.Set(gate.HeaderServiceKey, key)
			return req
		})
		return time.Since(start)
	}
	var near, name time.Duration
	n := 0
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		name += get(2*i, url.Values{"q": {q.Q}, "state": {q.State}, "taxonomy": {q.Taxonomy}, "limit": {"20"}})
		near += get(2*i+1, url.Values{"near": {zip}, "radius": {"25"}, "limit": {"20"}})
		n++
	}
	b.ReportMetric(float64(near.Microseconds())/float64(n), "near-µs/op")
	b.ReportMetric(float64(name.Microseconds())/float64(n), "name-µs/op")
	b.ReportMetric(float64(near)/float64(name), "near/name")
}

// densestZCTA is the 5-digit ZIP code with a ZCTA that the most registry records practise at.
func densestZCTA(b *testing.B, st store.Store) string {
	ctx := b.Context()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := geo.ZCTAs()
	if err != nil {
		b.Fatal(err)
	}
	count := map[string]int{}
	q := store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders),
		Limit: store.MaxLimit, KeysOf: []string{stored.KeyPostal}}
	for {
		page, err := st.Find(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range page.Docs {
			for _, k := range d.Keys {
				if _, ok := ix.Lookup(k.Value); ok {
					count[k.Value]++
				}
			}
		}
		if q.After = page.Next; q.After == "" {
			break
		}
	}
	best := ""
	for z, c := range count {
		if c > count[best] || c == count[best] && z < best {
			best = z
		}
	}
	b.Logf("densest ZCTA %s: %d records", best, count[best])
	return best
}
