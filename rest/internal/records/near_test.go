package records_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"providerdir/catalog"
	"providerdir/geo"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/demostore"
)

// countingStore counts the Count calls that reach the store beneath.
type countingStore struct {
	store.Store
	counts atomic.Int64
}

func (s *countingStore) Count(ctx context.Context, q store.Query) (int64, error) {
	s.counts.Add(1)
	return s.Store.Count(ctx, q)
}

// Nearest pages through the records near a place nearest first, ties by NPI, with the total, as
// a plain read of every record in the radius orders them; a second search around the same place
// counts nothing again, since a generation's per-ZIP counts do not change; the records come as
// bodies alone, which is all their readers use.
func TestNearest(t *testing.T) {
	d := demostore.Open(t)
	ctx := t.Context()
	cs := &countingStore{Store: d.Store}
	v, err := records.New(cs).Serving(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := geo.ZCTAs()
	if err != nil {
		t.Fatal(err)
	}
	gen := v.Snap.Generation(catalog.RegistryProviders)

	// The oracle: every registry record, its practice ZIP looked up in the near search's ZIPs.
	var all []store.Document
	q := store.Query{Collection: catalog.RegistryProviders, Generation: gen, Limit: store.MaxLimit, KeysOf: []string{stored.KeyPostal}}
	for {
		page, err := d.Store.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Docs...)
		if q.After = page.Next; q.After == "" {
			break
		}
	}
	at, ok := ix.Lookup(densest(all, ix))
	if !ok {
		t.Fatal("no registry record practises in a ZIP with a ZCTA")
	}
	near := records.NewNear(ix, at, 100)
	type hit struct {
		zip int
		id  string
	}
	var want []hit
	for _, doc := range all {
		for _, k := range doc.Keys {
			if i := slices.Index(near.ZIPs, k.Value); i >= 0 {
				want = append(want, hit{i, doc.ID})
			}
		}
	}
	slices.SortFunc(want, func(a, b hit) int {
		if a.zip != b.zip {
			return a.zip - b.zip
		}
		return strings.Compare(a.id, b.id)
	})
	if len(want) < 5 {
		t.Fatalf("only %d records within 100 miles of the densest ZIP", len(want))
	}

	const limit = 3
	for page := 1; page <= (len(want)+limit-1)/limit+1; page++ {
		got, total, err := v.Nearest(ctx, near, nil, page, limit)
		if err != nil {
			t.Fatal(err)
		}
		if total != len(want) {
			t.Errorf("page %d: total %d, want %d", page, total, len(want))
		}
		lo := min((page-1)*limit, len(want))
		hi := min(lo+limit, len(want))
		if len(got) != hi-lo {
			t.Fatalf("page %d: %d records, want %d", page, len(got), hi-lo)
		}
		for i, r := range got {
			w := want[lo+i]
			if r.ID != w.id {
				t.Errorf("page %d record %d: %s, want %s", page, i, r.ID, w.id)
			}
			if r.Keys != nil {
				t.Errorf("page %d record %d: %d keys read with the body", page, i, len(r.Keys))
			}
			if m, _ := near.Miles(near.ZIPs[w.zip]); r.Miles != m {
				t.Errorf("page %d record %d: %v miles, want %v", page, i, r.Miles, m)
			}
		}
	}

	before := cs.counts.Load()
	if _, _, err := v.Nearest(ctx, near, nil, 2, limit); err != nil {
		t.Fatal(err)
	}
	if n := cs.counts.Load() - before; n != 0 {
		t.Errorf("a search around a place already searched counted %d times, want 0", n)
	}
}

// densest is the ZIP with a ZCTA that the most of docs practise at.
func densest(docs []store.Document, ix *geo.Index) string {
	n := map[string]int{}
	best := ""
	for _, d := range docs {
		for _, k := range d.Keys {
			if _, ok := ix.Lookup(k.Value); ok {
				if n[k.Value]++; n[k.Value] > n[best] || (n[k.Value] == n[best] && k.Value < best) {
					best = k.Value
				}
			}
		}
	}
	return best
}

// A place searched again is found once: every search of it shares one Near, and a different
// point or radius is a different place.
func TestNewNearShared(t *testing.T) {
	ix, err := geo.ZCTAs()
	if err != nil {
		t.Fatal(err)
	}
	at, _ := ix.Lookup("10001")
	first := records.NewNear(ix, at, 25)
	if again := records.NewNear(ix, at, 25); again != first {
		t.Error("a second search of the same place found it again")
	}
	if len(first.ZIPs) == 0 {
		t.Fatal("no ZCTA within 25 miles of 10001")
	}
	for _, other := range []*records.Near{records.NewNear(ix, at, 5), records.NewNear(ix, geo.Point{Lat: at.Lat + 1, Lon: at.Lon}, 25)} {
		if other == first || slices.Equal(other.ZIPs, first.ZIPs) {
			t.Errorf("another place shares the first's ZCTAs")
		}
	}
}
