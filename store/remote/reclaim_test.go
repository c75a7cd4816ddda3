package remote_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/testing/storecontract"
)

// Repeated ingests into a running server's store, through its socket as `providerctl ingest`
// goes, free the generations they retire: the store holds the serving generation and the one
// kept for rollback, not one more per ingest. The retired generation's files go while the
// server keeps the store open, and the rollback target still serves whole.
func TestIngestsReclaimRetiredGenerations(t *testing.T) {
	ref := reference.Embedded()
	drop := t.TempDir()
	if _, err := synth.Generate(context.Background(), synth.Config{Providers: 1000, Seed: 3, Out: drop, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "db")
	c := serve(t, dir)

	empty := storecontract.DirBytes(t, db)
	var sizes []int64
	var gens []string
	for i := range 3 {
		// Force loads every family again: each ingest writes a whole new generation.
		res, err := ingest.Run(t.Context(), ingest.Options{Store: c, Dir: drop, Reference: ref, Force: true})
		if err != nil {
			t.Fatalf("ingest %d: %v", i+1, err)
		}
		gens = append(gens, res.Generation)
		sizes = append(sizes, storecontract.DirBytes(t, db))
		t.Logf("after ingest %d (%s): %d bytes", i+1, res.Generation, sizes[i])
	}
	// One generation's size, and the margin above the two kept that the store may hold beyond
	// them (its log, manifest and the tables of records).
	one := sizes[0] - empty
	limit := empty + 2*one + one/2
	// Pebble deletes the files of dropped tables in the background.
	final := storecontract.SettledDirBytes(t, db, limit, 30*time.Second)
	t.Logf("settled after ingest 3: %d bytes (one generation %d, limit %d)", final, one, limit)
	if final > limit {
		t.Errorf("after three ingests the store holds %d bytes, above %d (two generations of %d and a margin)", final, limit, one)
	}

	listed, err := c.Generations(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := gens[1:]; !slices.Equal(listed, want) {
		t.Errorf("generations %v, want %v (serving and rollback target)", listed, want)
	}
	// The rollback target is whole: the same drop loaded it, so each collection holds as many
	// documents in it as in the serving generation.
	serving, err := store.Serving(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	for coll := range serving.Collections {
		now, errNow := c.Count(t.Context(), store.Query{Generation: gens[2], Collection: coll})
		prev, errPrev := c.Count(t.Context(), store.Query{Generation: gens[1], Collection: coll})
		if errNow != nil || errPrev != nil || now != prev {
			t.Errorf("%s: %d documents serving (%v), %d in the rollback target (%v)", coll, now, errNow, prev, errPrev)
		}
	}
	snap, err := store.Rollback(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Generation(catalog.ManifestCollection); got != gens[1] {
		t.Errorf("rollback serves %s, want %s", got, gens[1])
	}

	// Rolled forward again, and once the rollback window has passed, the server's reclaimer
	// releases the previous snapshot and the store comes down to the one generation it serves.
	if _, err := store.Rollback(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Reclaim(t.Context(), c, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	limit = empty + one + one/2
	final = storecontract.SettledDirBytes(t, db, limit, 30*time.Second)
	t.Logf("settled after the rollback window: %d bytes (limit %d)", final, limit)
	if final > limit {
		t.Errorf("after the rollback window the store holds %d bytes, above %d (one generation of %d and a margin)", final, limit, one)
	}
	if listed, err := c.Generations(t.Context()); err != nil || !slices.Equal(listed, gens[2:]) {
		t.Errorf("generations %v (%v), want %v, the one served", listed, err, gens[2:])
	}
}
