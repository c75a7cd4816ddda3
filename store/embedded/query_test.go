package embedded

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

// raceDocs is a collection for the race of a broad condition's probe against a scan of the
// documents (query.go): each document has 20 filler keys besides these, so that a round of the
// scan passes about a hundred documents, and the collection is long next to both plans' rounds.
//
//   - name: "alpha<i>" for even i, "beta<i>" for odd: prefix "a" matches every other document,
//     and the scan fills a page long before the probe runs out.
//   - tag: "rare" on every 97th document: the probe runs out in its first round.
//   - late: three keys on every 4th document from the 1000th and on three before it, some 1,500
//     index entries: the probe runs out in its third round, after the scan has passed early
//     matches but not filled a page; the ids after the scanned part are then visited.
//   - state: CA, NY or TX in turn, for a condition with several exact values.
func raceDocs(n int) []store.Document {
	docs := make([]store.Document, n)
	states := []string{"CA", "NY", "TX"}
	for i := range docs {
		name := fmt.Sprintf("beta%d", i)
		if i%2 == 0 {
			name = fmt.Sprintf("alpha%d", i)
		}
		keys := []store.Key{{Param: "name", Value: name}, {Param: "state", Value: states[i%3]}}
		for f := range 20 {
			keys = append(keys, store.Key{Param: "filler", Value: fmt.Sprint(f)})
		}
		if i%97 == 0 {
			keys = append(keys, store.Key{Param: "tag", Value: "rare"})
		}
		if i >= 1000 && i%4 == 0 || i == 10 || i == 400 || i == 790 {
			for _, part := range []string{"a", "b", "c"} {
				keys = append(keys, store.Key{Param: "late", Value: fmt.Sprintf("l-%d-%s", i, part)})
			}
		}
		id := fmt.Sprintf("d%05d", i)
		docs[i] = store.Document{ID: id, Body: []byte(`{"id":"` + id + `"}`), Keys: keys}
	}
	return docs
}

// bruteForce returns the ids of the documents matching every condition, in id order (reversed
// if desc), read off the documents one by one.
func bruteForce(docs []store.Document, where []store.Condition, desc bool) []string {
	var ids []string
	for _, d := range docs {
		all := true
		for _, c := range where {
			hit := false
			for _, k := range d.Keys {
				for _, v := range c.Values {
					if k.Param == c.Param && (c.Match == store.Exact && k.Value == v || c.Match == store.Prefix && strings.HasPrefix(k.Value, v)) {
						hit = true
					}
				}
			}
			all = all && hit
		}
		if all {
			ids = append(ids, d.ID)
		}
	}
	slices.Sort(ids)
	if desc {
		slices.Reverse(ids)
	}
	return ids
}

// TestFindBroadByID pages through queries in id order without a posting list to leapfrog, in
// both directions, which the race of probe and scan answers: the result must be the brute force
// answer, each document once, the bodies those stored. Count must be exact; the probe caps of 1
// and 4 drive it to probe to the end, the default one finds every condition here small.
func TestFindBroadByID(t *testing.T) {
	docs := raceDocs(3000)
	prefix := func(param string, values ...string) store.Condition {
		return store.Condition{Param: param, Values: values, Match: store.Prefix}
	}
	tests := []struct {
		name  string
		where []store.Condition
	}{
		{"dense prefix", []store.Condition{prefix("name", "a")}},
		{"sparse prefix", []store.Condition{prefix("tag", "ra")}},
		{"early few, then dense", []store.Condition{prefix("late", "l-")}},
		{"no match", []store.Condition{prefix("name", "q")}},
		{"prefix values", []store.Condition{prefix("name", "alpha1", "beta2")}},
		{"dense prefix and exact values", []store.Condition{prefix("name", "a"), {Param: "state", Values: []string{"CA", "NY"}}}},
		{"sparse and dense prefixes", []store.Condition{prefix("tag", "r"), prefix("name", "b")}},
	}
	for _, cap := range []int{1, 4, defaults().probeCap} {
		s := open(t, func(c *config) { c.probeCap = cap })
		putChunks(t, s, docs)
		for _, tt := range tests {
			for _, desc := range []bool{false, true} {
				want := bruteForce(docs, tt.where, desc)
				for _, limit := range []int{7, 50} {
					t.Run(fmt.Sprintf("probeCap=%d/%s/desc=%v/limit=%d", cap, tt.name, desc, limit), func(t *testing.T) {
						q := store.Query{Generation: "g1", Collection: "c", Where: tt.where, Descending: desc, Limit: limit}
						var got []string
						for page := 0; ; page++ {
							p, err := s.Find(t.Context(), q)
							if err != nil {
								t.Fatal(err)
							}
							if len(p.Docs) > limit || p.Next != "" && len(p.Docs) != limit {
								t.Fatalf("page %d: %d documents with next %q", page, len(p.Docs), p.Next)
							}
							for _, d := range p.Docs {
								if string(d.Body) != `{"id":"`+d.ID+`"}` {
									t.Fatalf("document %s has body %s", d.ID, d.Body)
								}
								got = append(got, d.ID)
							}
							if p.Next == "" {
								break
							}
							q.After = p.Next
						}
						if !slices.Equal(got, want) {
							t.Errorf("got %d ids %v, want %d ids %v", len(got), head(got), len(want), head(want))
						}
						if n, err := s.Count(t.Context(), q); err != nil || n != int64(len(want)) {
							t.Errorf("Count = %d, %v; want %d", n, err, len(want))
						}
					})
				}
			}
		}
	}
}

func head(ids []string) []string { return ids[:min(len(ids), 10)] }

// TestProbeDrivesBySmallest: when several conditions run out in the same round of the probe,
// the smallest drives the plan, wherever it stands in the query: the first to run out reads its
// whole chunk before the next starts, and driving by it would load every one of its documents.
// On raceDocs, a state is a third of the documents (1,000 of 3,000: within the first round of
// 1,024 entries) and "rare" 31 of them.
func TestProbeDrivesBySmallest(t *testing.T) {
	docs := raceDocs(3000)
	s := open(t)
	putChunks(t, s, docs)
	state := store.Condition{Param: "state", Values: []string{"CA", "XX"}}
	rare := store.Condition{Param: "tag", Values: []string{"rare", "none"}}
	empty := store.Condition{Param: "tag", Values: []string{"none", "nothing"}}
	tests := []struct {
		name   string
		where  []store.Condition
		driver int
	}{
		{"small last", []store.Condition{state, rare}, 1},
		{"small first", []store.Condition{rare, state}, 0},
		{"empty after small", []store.Condition{state, rare, empty}, 2},
		{"only one", []store.Condition{state}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := newView(s.db)
			if err != nil {
				t.Fatal(err)
			}
			defer v.close()
			q := s.newQuery(t.Context(), v, store.Query{Generation: "g1", Collection: "c", Where: tt.where})
			p, err := q.newProber(window{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			driver, ids, err := p.advance(4 * probeStep)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(docs, tt.where[tt.driver:tt.driver+1], false)
			if driver != tt.driver || !slices.Equal(ids, want) {
				t.Errorf("driver %d with %d ids, want %d with %d", driver, len(ids), tt.driver, len(want))
			}
			// The answer is the same whichever condition drives.
			checkFindAll(t, s, docs, tt.where)
		})
	}
}

// TestCandidatesNarrowByIndex: once a condition drives, the others are read on through their
// index entries, and one that runs out within the bound keeps only the candidates it yields too;
// one too large to run out checks the candidates on its posting lists, so that the documents of
// the rest are never loaded. Only a Prefix condition, or one of more lists than both
// narrowFactor and the candidates, is left to be checked on the documents. On raceDocs, "rare"
// is 31 documents, a state 1,000, a filler value every one of the 3,000.
func TestCandidatesNarrowByIndex(t *testing.T) {
	docs := raceDocs(3000)
	s := open(t)
	putChunks(t, s, docs)
	rare := store.Condition{Param: "tag", Values: []string{"rare", "none"}}
	state := store.Condition{Param: "state", Values: []string{"CA", "XX"}}
	filler := store.Condition{Param: "filler", Values: []string{"0", "none"}}
	fillerPrefix := store.Condition{Param: "filler", Values: []string{"1"}, Match: store.Prefix}
	manyLists := store.Condition{Param: "filler", Values: []string{"3"}}
	for i := range 2 * narrowFactor {
		manyLists.Values = append(manyLists.Values, fmt.Sprintf("none-%d", i))
	}
	tests := []struct {
		name   string
		where  []store.Condition
		verify []store.Condition // left to check on the documents
	}{
		{"both small", []store.Condition{rare, state}, nil},
		{"small after large", []store.Condition{state, rare}, nil},
		{"the other too large to run out", []store.Condition{rare, filler}, nil},
		{"one of each", []store.Condition{filler, rare, state}, nil},
		{"a prefix", []store.Condition{rare, fillerPrefix}, []store.Condition{fillerPrefix}},
		{"more lists than candidates", []store.Condition{rare, manyLists}, []store.Condition{manyLists}},
		{"more lists, after another narrowed", []store.Condition{manyLists, filler, rare, fillerPrefix}, []store.Condition{manyLists, fillerPrefix}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := newView(s.db)
			if err != nil {
				t.Fatal(err)
			}
			defer v.close()
			q := s.newQuery(t.Context(), v, store.Query{Generation: "g1", Collection: "c", Where: tt.where})
			_, c, err := q.probe(window{}, q.cap)
			if err != nil {
				t.Fatal(err)
			}
			var narrowed []store.Condition // the conditions the candidates are known to meet
			for _, w := range tt.where {
				if !slices.ContainsFunc(tt.verify, func(v store.Condition) bool { return v.Param == w.Param }) {
					narrowed = append(narrowed, w)
				}
			}
			if want := bruteForce(docs, narrowed, false); !slices.Equal(c.ids, want) {
				t.Errorf("%d candidates, want %d", len(c.ids), len(want))
			}
			if !slices.EqualFunc(c.verify, tt.verify, func(a, b store.Condition) bool {
				return a.Param == b.Param && a.Match == b.Match && len(a.Values) == len(b.Values)
			}) {
				t.Errorf("left to check %v, want %v", c.verify, tt.verify)
			}
			checkFindAll(t, s, docs, tt.where)
		})
	}
}

// TestFullPageLoadsNoMore: a page's one match more, which only says that a next page exists, is
// not loaded when the index has shown that it matches: the documents after the first are
// unreadable here, and the first page is still answered (the next one is not).
func TestFullPageLoadsNoMore(t *testing.T) {
	s := open(t)
	var docs []store.Document
	for i := range 3 {
		id := fmt.Sprintf("d%d", i)
		docs = append(docs, store.Document{ID: id, Body: []byte(`{}`), Keys: []store.Key{{Param: "tag", Value: "x"}, {Param: "state", Value: "CA"}}})
	}
	putChunks(t, s, docs)
	for _, d := range docs[1:] {
		if err := s.db.Set(docKey("g1", "c", d.ID), []byte{0xff}, pebble.Sync); err != nil {
			t.Fatal(err)
		}
	}
	tag := store.Condition{Param: "tag", Values: []string{"x"}}
	state := store.Condition{Param: "state", Values: []string{"CA"}}
	tagOrNone := store.Condition{Param: "tag", Values: []string{"x", "none"}}
	tests := []struct {
		name  string
		where []store.Condition
	}{
		{"one posting list", []store.Condition{tag}},
		{"posting lists leapfrogged", []store.Condition{tag, state}},
		{"candidates checked on the index", []store.Condition{tagOrNone, state}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := store.Query{Generation: "g1", Collection: "c", Where: tt.where, Limit: 1}
			page, err := s.Find(t.Context(), q)
			if err != nil || len(page.Docs) != 1 || page.Docs[0].ID != "d0" || page.Next == "" {
				t.Fatalf("Find: %d documents, next %q, %v", len(page.Docs), page.Next, err)
			}
			q.After = page.Next
			if _, err := s.Find(t.Context(), q); !errors.Is(err, errCorrupt) {
				t.Errorf("next page: %v, want the unreadable document's error", err)
			}
		})
	}
}

// putChunks writes docs into g1/c a thousand at a time, as an ingest's batches come.
func putChunks(tb testing.TB, s *Store, docs []store.Document) {
	tb.Helper()
	for start := 0; start < len(docs); start += 1000 {
		if err := s.Put(tb.Context(), "g1", "c", docs[start:min(start+1000, len(docs))]); err != nil {
			tb.Fatal(err)
		}
	}
}

// checkFindAll checks that one page of Find over g1/c holds exactly the documents where selects,
// whichever way the planner got to them.
func checkFindAll(t *testing.T, s *Store, docs []store.Document, where []store.Condition) {
	t.Helper()
	page, err := s.Find(t.Context(), store.Query{Generation: "g1", Collection: "c", Where: where, Limit: 2000})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range page.Docs {
		got = append(got, d.ID)
	}
	if all := bruteForce(docs, where, false); !slices.Equal(got, all) {
		t.Errorf("Find: %d documents, want %d", len(got), len(all))
	}
}

// BenchmarkFindSmallAfterLarge measures a query of two conditions of several values each that
// both run out in the probe's first round, the larger first: a first name and its nicknames in a
// state, and a typo's deletions, as a resolver search makes them. Driven by the larger, it would
// load a third of the collection's documents to keep 31.
func BenchmarkFindSmallAfterLarge(b *testing.B) {
	docs := raceDocs(3000)
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	putChunks(b, s, docs)
	q := store.Query{Generation: "g1", Collection: "c", Limit: 100, Where: []store.Condition{
		{Param: "state", Values: []string{"CA", "XX"}}, {Param: "tag", Values: []string{"rare", "none"}}}}
	for b.Loop() {
		if _, err := s.Find(b.Context(), q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindCandidatesOnIndex measures a query whose driving condition selects 663 of
// 100,000 documents of a kilobyte each and whose two other conditions, of a third and a half of
// the collection, are too large to run out: the shape of a resolver search by a rare name and
// two common words. The candidates are checked on the large conditions' posting lists, and only
// the 110 that meet both are loaded.
func BenchmarkFindCandidatesOnIndex(b *testing.B) {
	const n = 100_000
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	filler := strings.Repeat("x", 1000)
	batch := make([]store.Document, 0, 1000)
	for i := range n {
		id := fmt.Sprintf("%010d", i*7919%n)
		batch = append(batch, store.Document{ID: id, Body: []byte(`{"id":"` + id + `","pad":"` + filler + `"}`),
			Keys: []store.Key{{Param: "rare", Value: fmt.Sprint(i % 151)}, {Param: "third", Value: fmt.Sprint(i % 3)}, {Param: "half", Value: fmt.Sprint(i % 2)}}})
		if len(batch) == cap(batch) {
			if err := s.Put(b.Context(), "g1", "c", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	// Settled into the lower levels, as an ingested store is, with no compaction running on.
	if err := s.db.Compact(b.Context(), []byte{0}, []byte{0xff}, false); err != nil {
		b.Fatal(err)
	}
	q := store.Query{Generation: "g1", Collection: "c", Limit: 1000, Where: []store.Condition{
		{Param: "rare", Values: []string{"7", "none"}}, {Param: "third", Values: []string{"1", "none"}}, {Param: "half", Values: []string{"0"}}}}
	for b.Loop() {
		p, err := s.Find(b.Context(), q)
		if err != nil || len(p.Docs) != 110 {
			b.Fatalf("Find: %d docs, %v", len(p.Docs), err)
		}
	}
}

// BenchmarkFindBroadPrefix measures the first page of a broad prefix condition in id order on a
// collection of small documents: the query a short FHIR name prefix makes. A name is a letter
// (one of 26), "a" and four digits, so the prefix "sa" matches about 7,700 of the 200,000
// documents: more than the probe's cap, and scattered over the ids.
func BenchmarkFindBroadPrefix(b *testing.B) {
	const n = 200_000
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	batch := make([]store.Document, 0, 1000)
	for i := range n {
		id := fmt.Sprintf("%010d", 1_000_000_000+i*7)
		family := fmt.Sprintf("%ca%04d", 'a'+i*7919%26, i%10_000)
		batch = append(batch, store.Document{ID: id, Body: []byte(`{"resourceType":"Practitioner","id":"` + id + `","name":[{"family":"` + family + `"}]}`),
			Keys: []store.Key{{Param: "name", Value: family}, {Param: "identifier", Value: id}, {Param: "state", Value: "CA"}}})
		if len(batch) == cap(batch) {
			if err := s.Put(b.Context(), "g1", "practitioner", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	for _, desc := range []bool{false, true} {
		b.Run(fmt.Sprintf("desc=%v", desc), func(b *testing.B) {
			q := store.Query{Generation: "g1", Collection: "practitioner", Limit: 20, Descending: desc,
				Where: []store.Condition{{Param: "name", Values: []string{"sa"}, Match: store.Prefix}}}
			for b.Loop() {
				p, err := s.Find(b.Context(), q)
				if err != nil || len(p.Docs) != 20 {
					b.Fatalf("Find: %d docs, %v", len(p.Docs), err)
				}
			}
		})
	}
}

// TestMatchStored holds the scan's in-place matching of encoded keys to store.Matches.
func TestMatchStored(t *testing.T) {
	keys := []store.Key{{Param: "name", Value: "smith"}, {Param: "name", Value: "john"}, {Param: "state", Value: "CA"},
		{Param: "empty", Value: ""}, {Param: "names", Value: "x"}}
	exact := func(param string, values ...string) store.Condition {
		return store.Condition{Param: param, Values: values}
	}
	prefix := func(param string, values ...string) store.Condition {
		return store.Condition{Param: param, Values: values, Match: store.Prefix}
	}
	or := func(c store.Condition, param string, values ...string) store.Condition {
		c.Or = append(c.Or, store.Alternative{Param: param, Values: values})
		return c
	}
	tests := []struct {
		name  string
		keys  []store.Key
		where []store.Condition
	}{
		{"no conditions", keys, nil},
		{"no keys", nil, []store.Condition{prefix("name", "")}},
		{"exact, second key of the param", keys, []store.Condition{exact("name", "john")}},
		{"exact, absent value", keys, []store.Condition{exact("name", "jo")}},
		{"exact, one of several values", keys, []store.Condition{exact("state", "AK", "CA", "NY")}},
		{"exact empty value", keys, []store.Condition{exact("empty", "")}},
		{"prefix of the whole value", keys, []store.Condition{prefix("name", "smith")}},
		{"prefix below the value", keys, []store.Condition{prefix("name", "sm")}},
		{"prefix above every value", keys, []store.Condition{prefix("name", "z")}},
		{"prefix longer than the value", keys, []store.Condition{prefix("name", "smithers")}},
		{"prefix values around the value", keys, []store.Condition{prefix("name", "a", "jo", "sn")}},
		{"prefix values all below", keys, []store.Condition{prefix("name", "a", "b")}},
		{"empty prefix", keys, []store.Condition{prefix("state", "")}},
		{"another param that begins with the name", keys, []store.Condition{prefix("names", "x"), exact("name", "smith")}},
		{"param absent", keys, []store.Condition{prefix("city", "")}},
		{"all of several conditions", keys, []store.Condition{prefix("name", "jo"), exact("state", "CA"), exact("empty", "")}},
		{"one of several conditions fails", keys, []store.Condition{prefix("name", "jo"), exact("state", "NY")}},
		{"same param twice", keys, []store.Condition{prefix("name", "s"), prefix("name", "j")}},
		{"alternative param holds", keys, []store.Condition{or(prefix("city", "x"), "state", "C")}},
		{"first param holds, not the alternative", keys, []store.Condition{or(exact("name", "john"), "state", "NY")}},
		{"no alternative holds", keys, []store.Condition{or(or(exact("name", "jo"), "state", "ca"), "names", "y")}},
		{"alternative with values of its own", keys, []store.Condition{or(prefix("state", "N", "T"), "names", "a", "x")}},
		{"alternatives and another condition", keys, []store.Condition{or(prefix("city", "b"), "name", "smi"), exact("empty", "x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conds := prepare(tt.where)
			got, n, err := matchStored(encodeDoc(store.Document{ID: "x", Body: []byte("{}"), Keys: tt.keys}), conds, make([]bool, len(conds)))
			if want := store.Matches(tt.keys, tt.where); err != nil || got != want || n != len(tt.keys) {
				t.Errorf("matchStored = %v (%d keys), %v; store.Matches = %v", got, n, err, want)
			}
		})
	}
	for _, v := range [][]byte{nil, {0}, {formatV1, 5, 1}, {formatV1, 1, 4, 'n', 'a'}} {
		if _, _, err := matchStored(v, prepare([]store.Condition{exact("name", "x")}), make([]bool, 1)); err == nil {
			t.Errorf("matchStored(%q) accepted a corrupt value", v)
		}
	}
}

// TestViewIsConsistent: a view reads the database as it was when the view was made, through
// point reads and iterators alike, whatever is written after.
func TestViewIsConsistent(t *testing.T) {
	s := open(t)
	put := func(id, value string) {
		t.Helper()
		if err := s.Put(t.Context(), "g1", "c", []store.Document{{ID: id, Body: []byte(value), Keys: []store.Key{{Param: "p", Value: value}}}}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "old")
	v, err := newView(s.db)
	if err != nil {
		t.Fatal(err)
	}
	defer v.close()
	put("a", "new")
	put("b", "new")

	for _, tt := range []struct {
		id, want string
	}{{"a", "old"}, {"b", ""}} {
		d, found, err := loadDoc(v, "g1", "c", tt.id)
		if err != nil || found != (tt.want != "") || found && string(d.Body) != tt.want {
			t.Errorf("Get %s through the view = %q, %v, %v; want %q", tt.id, d.Body, found, err, tt.want)
		}
	}
	it, err := v.NewIter(&pebble.IterOptions{LowerBound: paramPrefix("g1", "c", "p"), UpperBound: prefixEnd(paramPrefix("g1", "c", "p"))})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var entries []string
	for valid := it.First(); valid; valid = it.Next() {
		entries = append(entries, string(it.Key()[len(paramPrefix("g1", "c", "p")):]))
	}
	if want := []string{"old\x00a"}; !slices.Equal(entries, want) {
		t.Errorf("index entries through the view %q, want %q", entries, want)
	}
}
