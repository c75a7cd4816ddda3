package storecontract

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/store"
)

// Bench runs the store benchmarks every backend reports, on documents shaped like the
// directory's: about 1 KB of JSON and 8 search keys each.
//
//   - Put: one operation is one document, written in batches of 1000 (as ingest writes).
//   - Get, FindExact, FindPrefix: on a preloaded collection of benchDocs documents; one
//     operation is one call. FindExact asks for a page of 20 matching one state; FindPrefix a
//     page of 20 family names starting with two letters.
//   - Page: a search page with its included resources as the FHIR surface reads it, by 16
//     concurrent clients: a page of 100 documents matching one state, then the 100 documents
//     they refer to, read together (GetMany) or one Get each (Get); it reports pages/s and the
//     median time of a page.
//
// open must return a new, empty store and arrange its cleanup with b.Cleanup.
func Bench(b *testing.B, open func(b *testing.B) store.Store) {
	b.Run("Put", func(b *testing.B) {
		s := open(b)
		gen := newBenchGen(1)
		b.SetBytes(int64(len(gen.next(0).Body)))
		b.ResetTimer()
		for done := 0; done < b.N; {
			n := min(benchBatch, b.N-done)
			batch := make([]store.Document, n)
			for i := range batch {
				batch[i] = gen.next(done + i)
			}
			if err := s.Put(b.Context(), "g1", "practitioner", batch); err != nil {
				b.Fatal(err)
			}
			done += n
		}
	})

	// The read benchmarks share one preloaded store, loaded on first use so that running only
	// the Put benchmark does not pay for it. It belongs to the outer benchmark, whose cleanup
	// closes it after the last read benchmark.
	outer := b
	var loaded store.Store
	preloaded := func(b *testing.B) store.Store {
		if loaded != nil {
			return loaded
		}
		s := open(outer)
		gen := newBenchGen(2)
		for start := 0; start < benchDocs; start += benchBatch {
			batch := make([]store.Document, benchBatch)
			for i := range batch {
				batch[i] = gen.next(start + i)
			}
			if err := s.Put(b.Context(), "g1", "practitioner", batch); err != nil {
				b.Fatal(err)
			}
		}
		loaded = s
		return s
	}

	b.Run("Get", func(b *testing.B) {
		s := preloaded(b)
		rng := rand.New(rand.NewPCG(3, 3))
		for b.Loop() {
			if _, err := s.Get(b.Context(), "g1", "practitioner", benchID(rng.IntN(benchDocs))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("FindExact", func(b *testing.B) {
		s := preloaded(b)
		rng := rand.New(rand.NewPCG(4, 4))
		for b.Loop() {
			q := store.Query{Generation: "g1", Collection: "practitioner", Limit: 20,
				Where: []store.Condition{exact("state", benchStates[rng.IntN(len(benchStates))])}}
			p, err := s.Find(b.Context(), q)
			if err != nil || len(p.Docs) == 0 {
				b.Fatalf("Find: %d docs, %v", len(p.Docs), err)
			}
		}
	})
	b.Run("FindPrefix", func(b *testing.B) {
		s := preloaded(b)
		rng := rand.New(rand.NewPCG(5, 5))
		for b.Loop() {
			family := benchFamilies[rng.IntN(len(benchFamilies))]
			q := store.Query{Generation: "g1", Collection: "practitioner", Limit: 20,
				Where: []store.Condition{prefix("family", family[:2])}}
			p, err := s.Find(b.Context(), q)
			if err != nil || len(p.Docs) == 0 {
				b.Fatalf("Find: %d docs, %v", len(p.Docs), err)
			}
		}
	})
	for _, together := range []bool{true, false} {
		name := "Page/GetMany"
		if !together {
			name = "Page/Get"
		}
		b.Run(name, func(b *testing.B) {
			s := preloaded(b)
			benchPages(b, s, together)
		})
	}
}

// benchPages runs the Page benchmark: each operation is one page and its included documents.
func benchPages(b *testing.B, s store.Store, together bool) {
	const page, clients = 100, 16
	var mu sync.Mutex
	var times []time.Duration
	var seed atomic.Uint64
	b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0)))
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(seed.Add(1), 6))
		var mine []time.Duration
		for pb.Next() {
			start := time.Now()
			q := store.Query{Generation: "g1", Collection: "practitioner", Limit: page,
				Where: []store.Condition{exact("state", benchStates[rng.IntN(len(benchStates))])}}
			p, err := s.Find(b.Context(), q)
			if err != nil || len(p.Docs) == 0 {
				b.Errorf("Find: %d docs, %v", len(p.Docs), err)
				return
			}
			// Each document of the page refers to another one, as a role does to its practitioner.
			refs := make([]string, len(p.Docs))
			for i := range refs {
				refs[i] = benchID(rng.IntN(benchDocs))
			}
			if together {
				_, err = s.GetMany(b.Context(), "g1", "practitioner", refs, nil)
			} else {
				for _, id := range refs {
					if _, err = s.Get(b.Context(), "g1", "practitioner", id); err != nil {
						break
					}
				}
			}
			if err != nil {
				b.Errorf("read the included documents: %v", err)
				return
			}
			mine = append(mine, time.Since(start))
		}
		mu.Lock()
		times = append(times, mine...)
		mu.Unlock()
	})
	b.StopTimer()
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	b.ReportMetric(float64(len(times))/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

const (
	benchBatch = 1000
	benchDocs  = 20000
)

var (
	benchStates   = strings.Fields("AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY")
	benchFamilies = strings.Fields("smith johnson williams brown jones garcia miller davis rodriguez martinez hernandez lopez gonzalez wilson anderson thomas taylor moore jackson martin lee perez thompson white harris sanchez clark ramirez lewis robinson walker young allen king wright scott torres nguyen hill flores green adams nelson baker hall rivera campbell mitchell carter roberts")
	benchGiven    = strings.Fields("james mary robert patricia john jennifer michael linda david elizabeth william barbara richard susan joseph jessica thomas sarah charles karen")
)

func benchID(i int) string { return fmt.Sprintf("%010d", 1000000000+i*7) }

// benchGen makes deterministic directory-like documents.
type benchGen struct {
	rng *rand.Rand
}

func newBenchGen(seed uint64) *benchGen { return &benchGen{rng: rand.New(rand.NewPCG(seed, 42))} }

func (g *benchGen) next(i int) store.Document {
	r := g.rng
	state := benchStates[r.IntN(len(benchStates))]
	family := benchFamilies[r.IntN(len(benchFamilies))]
	given := benchGiven[r.IntN(len(benchGiven))]
	city := fmt.Sprintf("city%03d", r.IntN(400))
	zip := fmt.Sprintf("%05d", r.IntN(100000))
	taxonomy := fmt.Sprintf("%03dX%05dX", r.IntN(300), r.IntN(100))
	id := benchID(i)
	body := fmt.Sprintf(`{"resourceType":"Practitioner","id":%q,"identifier":[{"system":"http://hl7.org/fhir/sid/us-npi","value":%q}],`+
		`"active":true,"name":[{"use":"official","family":%q,"given":[%q]}],"gender":"unknown",`+
		`"address":[{"use":"work","line":["%d Main Street","Suite %d"],"city":%q,"state":%q,"postalCode":%q,"country":"US"}],`+
		`"qualification":[{"code":{"coding":[{"system":"http://nucc.org/provider-taxonomy","code":%q}]}}],`+
		`"meta":{"source":"https://example.org/nppes","tag":[{"system":"provenance/_source","code":"nppes"},{"system":"provenance/_dataset_id","code":"nppes"},`+
		`{"system":"provenance/_snapshot","code":"2025-06-08"},{"system":"provenance/_methodology","code":"nppes-map/1"}]},"text":%q}`,
		id, id, family, given, r.IntN(9999), r.IntN(999), city, state, zip, taxonomy, strings.Repeat("lorem ipsum ", 20+r.IntN(10)))
	return doc(id, body,
		"identifier", id, "family", family, "given", given, "name", family, "name", given,
		"state", state, "city", city, "postal", zip, "taxonomy", taxonomy)
}
