package embedded

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"providerdir/store"
	"providerdir/testing/storecontract"
)

// A dropped generation's files are freed while the store stays open, but not from under a
// reader: a query's view opened before the drop reads the whole generation until it is closed,
// and only then does the space go. The generations are bulk-loaded, as an ingest writes them.
func TestDropGenerationFreesSpaceOnceReleased(t *testing.T) {
	const docs, bodySize = 3000, 2048
	s := open(t)
	rng := rand.New(rand.NewPCG(1, 2))
	dropped := map[string][]byte{}
	for _, gen := range []string{"g1", "g2"} {
		batch := make([]store.Document, docs)
		for i := range batch {
			// Random letters, so that compression does not hide a generation's size.
			body := make([]byte, bodySize)
			for j := range body {
				body[j] = byte('a' + rng.IntN(26))
			}
			id := fmt.Sprintf("d%05d", i)
			if gen == "g1" {
				dropped[id] = body
			}
			batch[i] = store.Document{ID: id, Body: body, Keys: []store.Key{{Param: "k", Value: id}}}
		}
		load(t, s, gen, batch)
	}
	both := storecontract.DirBytes(t, s.dir)

	v, err := newView(s.db)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DropGeneration(t.Context(), "g1"); err != nil {
		v.close()
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), "g1", "c", "d00000"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get of a dropped generation: %v, want ErrNotFound", err)
	}
	if gens, err := s.Generations(t.Context()); err != nil || !slices.Equal(gens, []string{"g2"}) {
		t.Errorf("generations after the drop: %v, %v; want [g2]", gens, err)
	}

	// The view opened before the drop still reads every document of g1.
	read := readGeneration(t, v, "g1")
	v.close()
	if len(read) != docs {
		t.Errorf("the held view read %d documents of the dropped generation, want %d", len(read), docs)
	}
	for id, body := range read {
		if !bytes.Equal(body, dropped[id]) {
			t.Errorf("the held view read %s with a body that is not the one written", id)
			break
		}
	}

	// Released, the generation's space goes: about half of what the two took.
	limit := both/2 + both/8
	after := storecontract.SettledDirBytes(t, s.dir, limit, 30*time.Second)
	t.Logf("two generations %d bytes, one left %d bytes", both, after)
	if after > limit {
		t.Errorf("after the drop the store holds %d bytes of %d, above %d", after, both, limit)
	}
}

// load bulk-loads docs into collection c of gen.
func load(t *testing.T, s *Store, gen string, docs []store.Document) {
	t.Helper()
	ld, err := s.Load(t.Context(), gen, "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := ld.Add(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
	if err := ld.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// readGeneration reads the documents of collection c of gen through v.
func readGeneration(t *testing.T, v *view, gen string) map[string][]byte {
	t.Helper()
	p := docPrefix(gen, "c")
	it, err := v.NewIter(&pebble.IterOptions{LowerBound: p, UpperBound: prefixEnd(p)})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	out := map[string][]byte{}
	for valid := it.First(); valid; valid = it.Next() {
		id := string(it.Key()[len(p):])
		d, err := decodeDoc(id, it.Value())
		if err != nil {
			t.Fatal(err)
		}
		out[id] = d.Body
	}
	if err := it.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}
