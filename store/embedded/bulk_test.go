package embedded

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
