package embedded

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
)

// A document larger than a buffer chunk gets a chunk of its own, in runs spilled to disk and in
// the buffer still in memory at commit.
func TestLoadDocumentsLargerThanAChunk(t *testing.T) {
	for _, limit := range []int{4 << 10, loadBufferDefault} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			s := open(t, func(c *config) { c.loadBuffer = limit })
			ld, err := s.Load(t.Context(), "g1", "c")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string][]byte{}
			var docs []store.Document
			for i := range 6 {
				body := bytes.Repeat([]byte{byte('a' + i)}, 100+i%2*(chunkSize+chunkSize/2))
				id := fmt.Sprintf("d%d", 5-i) // out of order: buffered, not streamed
				want[id] = body
				docs = append(docs, store.Document{ID: id, Body: body, Keys: []store.Key{{Param: "k", Value: id}}})
			}
			if err := ld.Add(t.Context(), docs); err != nil {
				t.Fatal(err)
			}
			if err := ld.Commit(t.Context()); err != nil {
				t.Fatal(err)
			}
			for id, body := range want {
				d, err := s.Get(t.Context(), "g1", "c", id)
				if err != nil || !bytes.Equal(d.Body, body) {
					t.Errorf("Get(%s): %d bytes, %v; want %d bytes", id, len(d.Body), err, len(body))
				}
				p, err := s.Find(t.Context(), store.Query{Generation: "g1", Collection: "c", Where: []store.Condition{{Param: "k", Values: []string{id}}}})
				if err != nil || len(p.Docs) != 1 {
					t.Errorf("Find k=%s: %d documents, %v", id, len(p.Docs), err)
				}
			}
		})
	}
}

// An aborted load, a cancelled commit and a committed load all leave no runs or tables behind.
func TestLoadLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, func(c *config) { c.loadBuffer = 2048 })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	docs := make([]store.Document, 300)
	for i := range docs {
		docs[i] = store.Document{ID: fmt.Sprintf("d%03d", (i*7)%300), Body: []byte(`{"a":1}`), Keys: []store.Key{{Param: "k", Value: fmt.Sprint(i % 9)}}}
	}
	finish := []struct {
		name string
		end  func(store.Loading) error
	}{
		{"abort", func(ld store.Loading) error { ld.Abort(); return nil }},
		{"cancelled commit", func(ld store.Loading) error {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			if err := ld.Commit(ctx); err == nil {
				return fmt.Errorf("commit with a cancelled context succeeded")
			}
			return nil
		}},
		{"commit", func(ld store.Loading) error { return ld.Commit(t.Context()) }},
	}
	for i, f := range finish {
		ld, err := s.Load(t.Context(), "g1", fmt.Sprintf("c%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if err := ld.Add(t.Context(), docs); err != nil {
			t.Fatal(err)
		}
		if err := f.end(ld); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		left, err := os.ReadDir(filepath.Join(dir, loadsDir))
		if err != nil {
			t.Fatal(err)
		}
		if len(left) != 0 {
			t.Errorf("after %s the loads directory holds %d entries", f.name, len(left))
		}
	}
}

// A load writes its documents in large compressed blocks with Bloom filters (point reads) and
// its index entries uncompressed with no filters (range scans never consult one).
func TestLoadTableOptions(t *testing.T) {
	s := open(t)
	ld, err := s.Load(t.Context(), "g1", "c")
	if err != nil {
		t.Fatal(err)
	}
	var docs []store.Document
	for i := range 2000 {
		id := fmt.Sprintf("d%05d", i)
		docs = append(docs, store.Document{ID: id, Body: bytes.Repeat([]byte(id), 40), Keys: []store.Key{{Param: "k", Value: id}}})
	}
	if err := ld.Add(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	if err := ld.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	levels, err := s.db.SSTables(pebble.WithProperties())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[byte]bool{}
	for _, level := range levels {
		for _, tbl := range level {
			p := tbl.Properties
			tag := tbl.Smallest.UserKey[0]
			seen[tag] = true
			rawBlock := (p.RawKeySize + p.RawValueSize) / max(p.NumDataBlocks, 1)
			switch tag {
			case tagDoc:
				if p.FilterPolicyName == "" || rawBlock < docTableBlockSize*3/4 || p.CompressionName == "NoCompression" {
					t.Errorf("document table: filter %q, %d bytes a block, compression %q", p.FilterPolicyName, rawBlock, p.CompressionName)
				}
			case tagIndex:
				if p.FilterPolicyName != "" || p.CompressionName != "NoCompression" {
					t.Errorf("index table: filter %q, compression %q", p.FilterPolicyName, p.CompressionName)
				}
			}
		}
	}
	if !seen[tagDoc] || !seen[tagIndex] {
		t.Errorf("tables seen by first key tag: %v", seen)
	}
}

// Beyond the fan-in, a commit merges groups of runs it has not merged before, just enough of
// them that the rest fit one merge: every item is rewritten at most once, and none is lost.
func TestOpenRunsMergesEachRunOnce(t *testing.T) {
	tests := []struct{ runs, fanIn, merges int }{
		{3, 4, 0},
		{4, 4, 0},
		{5, 4, 1},  // 2 merged: 3 left + 1
		{10, 4, 2}, // 4 merged, then 4 merged: 2 left + 2
		{16, 4, 4},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d runs, fan-in %d", tt.runs, tt.fanIn), func(t *testing.T) {
			s := open(t, func(c *config) { c.loadFanIn = tt.fanIn })
			ld, err := s.Load(t.Context(), "g1", "c")
			if err != nil {
				t.Fatal(err)
			}
			defer ld.Abort()
			l := ld.(*loading)
			prefix := docPrefix("g1", "c")
			var paths []string
			for r := range tt.runs {
				var b loadBuffer
				items := []item{b.put(fmt.Appendf(nil, "d%02d", r), []byte("v"), uint64(r+1))}
				paths = append(paths, l.runPath(r, "d0"))
				if err := writeRun(paths[r], &b, items, docRun); err != nil {
					t.Fatal(err)
				}
			}
			srcs, err := l.openRuns(t.Context(), paths, "d0", nil, prefix, docRun)
			if err != nil {
				t.Fatal(err)
			}
			merged, _ := filepath.Glob(filepath.Join(l.dir, "merged-*"))
			// A merged file merged again would be gone: mergeRuns removes its inputs.
			if len(merged) != tt.merges {
				t.Errorf("%d merged files, want %d", len(merged), tt.merges)
			}
			if len(srcs) > tt.fanIn+1 { // the runs and the list in memory
				t.Errorf("%d sources for a fan-in of %d", len(srcs), tt.fanIn)
			}
			h := sourceHeap{skip: len(prefix)}
			if err := h.start(srcs); err != nil {
				t.Fatal(err)
			}
			var got []string
			for len(h.items) > 0 {
				got = append(got, string(h.top().key()[len(prefix):]))
				if err := h.advance(); err != nil {
					t.Fatal(err)
				}
			}
			if len(got) != tt.runs || !slices.IsSorted(got) {
				t.Errorf("merged keys %q", got)
			}
		})
	}
}

func TestLargestFirst(t *testing.T) {
	dir := t.TempDir()
	file := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name     string
		paths    [][]string
		buffered []int64
		want     []int
	}{
		{"runs", [][]string{{file("a", 10)}, {file("b", 30), file("c", 5)}, {file("d", 20)}}, []int64{0, 0, 0}, []int{1, 2, 0}},
		{"buffered counts", [][]string{{file("e", 10)}, nil, {file("f", 10)}}, []int64{0, 50, 5}, []int{1, 2, 0}},
		{"ties keep their order", [][]string{nil, nil, nil}, []int64{1, 1, 1}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		got, err := largestFirst(tt.paths, func(i int) int64 { return tt.buffered[i] })
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := largestFirst([][]string{{filepath.Join(dir, "missing")}}, func(int) int64 { return 0 }); err == nil {
		t.Error("a missing run is not an error")
	}
}

// TestTableWriterCutsInBackground writes enough keys for many small tables, each finished in
// the background while the next fills: after cut, every table is complete and holds its keys
// in order.
func TestTableWriterCutsInBackground(t *testing.T) {
	s := open(t)
	dir := t.TempDir()
	tw := &tableWriter{dir: dir, name: "t", opts: s.entryTableOptions(), limit: 4 << 10}
	var want []string
	for i := range 20000 {
		k := fmt.Sprintf("key-%08d", i)
		want = append(want, k)
		if err := tw.add([]byte(k), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.cut(); err != nil {
		t.Fatal(err)
	}
	if len(tw.paths) < 10 {
		t.Fatalf("%d tables, want many", len(tw.paths))
	}
	var got []string
	for _, p := range tw.paths {
		if err := s.readTable(p, func(k, v []byte) {
			if n := len(got); v[0] != byte(n) {
				t.Errorf("key %s: value %d, want %d", k, v[0], byte(n))
			}
			got = append(got, string(k))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("read %d keys back, want %d in order", len(got), len(want))
	}
}
