package embedded

import (
	"bytes"
	"fmt"
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
