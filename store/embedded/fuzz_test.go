package embedded

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"providerdir/store"
)

// keysFrom turns fuzz text into search keys: one per line, param and value split at the first
// '='.
func keysFrom(spec string) []store.Key {
	if spec == "" {
		return nil
	}
	var keys []store.Key
	for line := range strings.SplitSeq(spec, "\n") {
		p, v, _ := strings.Cut(line, "=")
		keys = append(keys, store.Key{Param: p, Value: v})
	}
	return keys
}

// FuzzDocumentEncoding checks that any document round-trips through the stored encoding and
// that decoding arbitrary bytes fails cleanly instead of panicking.
func FuzzDocumentEncoding(f *testing.F) {
	f.Add("p1", []byte(`{"a":1}`), "name=smith\nname=john\nstate=CA")
	f.Add("", []byte{}, "")
	f.Add("x", []byte{0, 1, 0xff}, "=\n=\n\x00=\x00")
	f.Add("ü", []byte(strings.Repeat("z", 300)), strings.Repeat("k=v\n", 200))
	f.Fuzz(func(t *testing.T, id string, body []byte, spec string) {
		d := store.Document{ID: id, Body: body, Keys: keysFrom(spec)}
		enc := encodeDoc(d)
		got, err := decodeDoc(id, enc)
		if err != nil {
			t.Fatalf("decode of an encoded document: %v", err)
		}
		if got.ID != d.ID || !bytes.Equal(got.Body, d.Body) || !slices.Equal(got.Keys, d.Keys) {
			t.Fatalf("round trip: got %+v, want %+v", got, d)
		}
		// The keys of a few params, and the body, read into an arena: the same as the whole
		// document's, narrowed.
		if len(d.Keys) > 0 {
			params := []string{d.Keys[0].Param, "absent"}
			some, err := keySet{params: params}.decode(new(store.Arena), id, enc)
			want := store.SelectKeys(slices.Clone(d.Keys), store.Query{KeysOf: params})
			if err != nil || !bytes.Equal(some.Body, d.Body) || !slices.Equal(some.Keys, want) {
				t.Fatalf("keys of %q: got %+v, %v; want keys %v", params, some, err, want)
			}
		}
		// Arbitrary bytes (here: the body, and every truncation of a valid encoding) never panic.
		_, _ = decodeDoc(id, body)
		_, _ = keySet{params: []string{"name"}}.decode(nil, id, body)
		for i := range min(len(enc), 64) {
			_, _ = decodeDoc(id, enc[:i])
			_, _ = keySet{params: []string{"name"}}.decode(nil, id, enc[:i])
		}
		_, _ = decodeStored(body)
	})
}

// FuzzIndexKeys checks the property the query planner relies on: for valid names, params,
// values and ids, index keys split back into their value and id, fall under their param's
// prefix range, and sort exactly as (value, id) pairs do; document keys sort as ids do.
func FuzzIndexKeys(f *testing.F) {
	f.Add("g1", "c", "name", "smith", "p1", "smithers", "p0")
	f.Add("g", "c.d", "p", "", "a", "a", "a\xff")
	f.Add("g0000000001", "practitioner", "state", "CA", "z", "C", "zz")
	f.Fuzz(func(t *testing.T, gen, coll, param, v1, id1, v2, id2 string) {
		docs := []store.Document{
			{ID: id1, Keys: []store.Key{{Param: param, Value: v1}}},
			{ID: id2, Keys: []store.Key{{Param: param, Value: v2}}},
		}
		if store.ValidateDocuments(gen, coll, docs) != nil {
			return
		}
		pp := paramPrefix(gen, coll, param)
		k1, k2 := indexKey(gen, coll, param, v1, id1), indexKey(gen, coll, param, v2, id2)
		for _, c := range []struct {
			key       []byte
			value, id string
		}{{k1, v1, id1}, {k2, v2, id2}} {
			if !bytes.HasPrefix(c.key, pp) || bytes.Compare(c.key, prefixEnd(pp)) >= 0 {
				t.Fatalf("index key %q outside its param range %q", c.key, pp)
			}
			value, id, ok := splitEntry(c.key[len(pp):])
			if !ok || string(value) != c.value || string(id) != c.id {
				t.Fatalf("split %q = %q, %q; want %q, %q", c.key, value, id, c.value, c.id)
			}
			// A prefix of the value selects the key by range.
			vp := append(bytes.Clone(pp), c.value[:len(c.value)/2]...)
			if bytes.Compare(c.key, vp) < 0 || bytes.Compare(c.key, prefixEnd(vp)) >= 0 {
				t.Fatalf("index key %q outside the range of value prefix %q", c.key, vp)
			}
		}
		want := cmp.Or(strings.Compare(v1, v2), strings.Compare(id1, id2))
		if got := bytes.Compare(k1, k2); sign(got) != sign(want) {
			t.Fatalf("index keys compare %d, (value, id) pairs compare %d: %q vs %q", got, want, k1, k2)
		}
		d1, d2 := docKey(gen, coll, id1), docKey(gen, coll, id2)
		if got := bytes.Compare(d1, d2); sign(got) != sign(strings.Compare(id1, id2)) {
			t.Fatalf("document keys compare %d for ids %q, %q", got, id1, id2)
		}
		if dp := docPrefix(gen, coll); !bytes.HasPrefix(d1, dp) || string(d1[len(dp):]) != id1 {
			t.Fatalf("document key %q does not hold id %q after prefix %q", d1, id1, dp)
		}
		gp := genPrefix(tagDoc, gen)
		if !bytes.HasPrefix(d1, gp) || bytes.Compare(d1, prefixEnd(gp)) >= 0 {
			t.Fatalf("document key %q outside its generation range %q", d1, gp)
		}
	})
}

func sign(n int) int { return cmp.Compare(n, 0) }

// FuzzRunFile checks that run files of either kind (compressed or not) round-trip any sorted
// items, and that a run whose decompressed bytes are anything at all reads as items or
// errRunCorrupt, never a panic.
func FuzzRunFile(f *testing.F) {
	f.Add([]byte("k=v\nk2=v2\nk2=v3"), []byte{0, 3, 'a', 'b', 'c', 1, 1, 'x'}, false)
	f.Add([]byte(""), []byte{}, true)
	f.Add([]byte("=\n\x00=\x00"), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}, false)
	f.Fuzz(func(t *testing.T, spec, raw []byte, entries bool) {
		kind := docRun
		if entries {
			kind = entryRun
		}
		prefix := []byte("i\x00g\x00c\x00")
		dir := t.TempDir()
		var b loadBuffer
		var items []item
		for n, line := range bytes.Split(spec, []byte("\n")) {
			k, v, _ := bytes.Cut(line, []byte("="))
			items = append(items, b.put(k, v, uint64(n))) // buffered without the prefix
		}
		b.sortItems(items)
		path := dir + "/run"
		if err := writeRun(path, &b, items, kind); err != nil {
			t.Fatal(err)
		}
		r, err := openRun(path, prefix)
		if err != nil {
			t.Fatal(err)
		}
		for i, it := range items {
			ok, err := r.next()
			if err != nil || !ok {
				t.Fatalf("item %d: %v %v", i, ok, err)
			}
			if !bytes.Equal(r.key(), append(slices.Clip(prefix), b.key(it)...)) || !bytes.Equal(r.value(), b.value(it)) || r.seq() != it.seq {
				t.Fatalf("item %d read back as %q=%q (%d)", i, r.key(), r.value(), r.seq())
			}
		}
		if ok, err := r.next(); ok || err != nil {
			t.Fatalf("after the last item: %v %v", ok, err)
		}
		r.close()

		// Arbitrary content under valid framing.
		w, err := createRun(dir+"/raw", len(prefix), kind)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.w.Write(raw)
		if err := w.finish(); err != nil {
			t.Fatal(err)
		}
		r, err = openRun(dir+"/raw", prefix)
		if err != nil {
			t.Fatal(err)
		}
		defer r.close()
		for {
			ok, err := r.next()
			if err != nil && !errors.Is(err, errRunCorrupt) {
				t.Fatalf("unexpected error %v", err)
			}
			if err != nil || !ok {
				return
			}
		}
	})
}

// FuzzSortItems checks that a buffer sorts any keys in (key, sequence) order: keys that share
// long prefixes, keys shorter than the sixteen bytes an item holds, and keys that differ from
// others only by trailing zero bytes, which those bytes pad with. Each input is sorted with the
// radix sort down to buckets of two (every byte decided by it) and with the cutoff in use.
func FuzzSortItems(f *testing.F) {
	f.Add([]byte("http://x|1\nhttp://x|2\nhttp://x|1\nhttp://y"))
	f.Add([]byte("a\na\x00\na\x00\x00\na\nab"))
	f.Add([]byte("0123456789abcdef0\n0123456789abcdef\n0123456789abcdef\x00"))
	f.Fuzz(func(t *testing.T, spec []byte) {
		for _, cutoff := range []int{2, radixCutoff} {
			var b loadBuffer
			var items []item
			for n, k := range bytes.Split(spec, []byte("\n")) {
				items = append(items, b.put(k, nil, uint64(n)))
			}
			b.sortItemsCutoff(items, cutoff)
			checkSorted(t, &b, items)
		}
	})
}

func checkSorted(t *testing.T, b *loadBuffer, items []item) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		x, y := items[i-1], items[i]
		if c := bytes.Compare(b.key(x), b.key(y)); c > 0 || c == 0 && x.seq > y.seq {
			t.Fatalf("%q (%d) sorted before %q (%d)", b.key(x), x.seq, b.key(y), y.seq)
		}
	}
}

// TestSortItemsShapes sorts lists shaped like a load's: few distinct values over many ids,
// NPIs (ten digits), long shared systems, short keys and repeats, large enough that the radix
// sort recurses through several levels before handing buckets over.
func TestSortItemsShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	npi := func() string { return fmt.Sprintf("%010d", rng.IntN(2e9)) }
	shapes := map[string]func(i int) string{
		"few values":     func(int) string { return []string{"active", "inactive", "x"}[rng.IntN(3)] + "\x00" + npi() },
		"npis":           func(int) string { return npi() + "\x00" + npi() },
		"shared system":  func(int) string { return "http://nucc.org/provider-taxonomy|207R" + npi()[:3] + "\x00" + npi() },
		"short":          func(int) string { return string(rune('a' + rng.IntN(3))) },
		"repeats":        func(i int) string { return fmt.Sprint(i % 7) },
		"trailing zeros": func(int) string { return strings.Repeat("\x00", rng.IntN(20)) },
	}
	for name, key := range shapes {
		t.Run(name, func(t *testing.T) {
			var b loadBuffer
			items := make([]item, 20000)
			for i := range items {
				items[i] = b.put([]byte(key(i)), nil, uint64(rng.IntN(1000)))
			}
			b.sortItems(items)
			checkSorted(t, &b, items)
		})
	}
}

func TestCommonPrefix(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 0},
		{"abc", "abd", 2},
		{"abc", "abc", 3},
		{"abcdefgh", "abcdefgh", 8},
		{"abcdefghij", "abcdefghiX", 9},
		{"abcdefgX", "abcdefgh", 7},
		{"http://nucc.org/provider-taxonomy|207R", "http://nucc.org/provider-taxonomy|208D", 36},
		{"short", "shorter", 5},
	}
	for _, tt := range tests {
		if got := commonPrefix([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("commonPrefix(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzMergeOrder checks that the merge heap yields the items of any sorted runs in (key,
// sequence) order, every one exactly once: runs are cut from the fuzz text at blank lines,
// each item numbered in text order, and runs may be empty or hold one key many times.
func FuzzMergeOrder(f *testing.F) {
	f.Add([]byte("b\na\n\nb\nc\n\na\na\nd"))
	f.Add([]byte("x\n\n\n\nx\n\nx\nw\n\ny"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, spec []byte) {
		var b loadBuffer
		var srcs []source
		var all []item
		seq := uint64(0)
		for run := range bytes.SplitSeq(spec, []byte("\n\n")) {
			var items []item
			for _, k := range bytes.Split(run, []byte("\n")) {
				seq++
				items = append(items, b.put(k, nil, seq))
			}
			b.sortItems(items)
			all = append(all, items...)
			srcs = append(srcs, &memRun{buf: &b, items: items})
		}
		h := sourceHeap{}
		if err := h.start(srcs); err != nil {
			t.Fatal(err)
		}
		var got []item
		for len(h.items) > 0 {
			top := h.top().(*memRun)
			got = append(got, top.items[top.pos-1])
			if err := h.advance(); err != nil {
				t.Fatal(err)
			}
		}
		slices.SortFunc(all, func(x, y item) int { return cmp.Or(bytes.Compare(b.key(x), b.key(y)), cmp.Compare(x.seq, y.seq)) })
		if len(got) != len(all) {
			t.Fatalf("merged %d items of %d", len(got), len(all))
		}
		for i := range all {
			if got[i].seq != all[i].seq {
				t.Fatalf("item %d: %q (%d), want %q (%d)", i, b.key(got[i]), got[i].seq, b.key(all[i]), all[i].seq)
			}
		}
	})
}
