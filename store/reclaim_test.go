package store_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/backends"
)

// The reclaimer a server runs releases a previous snapshot past its window and drops its
// generation without anyone else calling it, and stops with its context.
func TestReclaimEvery(t *testing.T) {
	s := backends.Embedded(t)
	ctx := t.Context()
	snap := store.Snapshot{}
	var gens []string
	for range 2 {
		g, err := store.NewGeneration(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, g, "p", []store.Document{{ID: "x", Body: []byte(`{}`)}}); err != nil {
			t.Fatal(err)
		}
		if snap, err = store.Switch(ctx, s, snap, map[string]string{"p": g}, "step"); err != nil {
			t.Fatal(err)
		}
		gens = append(gens, g)
	}
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	var rounds atomic.Int32
	go func() {
		defer close(done)
		store.ReclaimEvery(run, s, 0, 10*time.Millisecond, func([]string, error) { rounds.Add(1) })
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		listed, err := s.Generations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(listed, gens[1:]) && rounds.Load() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("generations %v, want %v; %d rounds reported", listed, gens[1:], rounds.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
}

// A hold keeps the generations of its mapping and every newer one from collection, so that two
// switches made after it leave the first one's generation; a hold not written again within
// store.MaxHoldAge holds nothing.
func TestCollectGenerationsHeld(t *testing.T) {
	for _, c := range []struct {
		name   string
		heldAt time.Time
		kept   int // of the four generations, the last kept
	}{
		{"live", time.Now(), 4},
		{"expired", time.Now().Add(-store.MaxHoldAge - time.Minute), 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := backends.Embedded(t)
			ctx := t.Context()
			snap := store.Snapshot{}
			var gens []string
			for i := range 4 {
				g, err := store.NewGeneration(ctx, s)
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Put(ctx, g, "p", []store.Document{{ID: "x", Body: []byte(`{}`)}}); err != nil {
					t.Fatal(err)
				}
				if snap, err = store.Switch(ctx, s, snap, map[string]string{"p": g}, "step"); err != nil {
					t.Fatal(err)
				}
				gens = append(gens, g)
				if i == 0 {
					if err := store.Hold(ctx, s, "reader", snap.Collections, c.heldAt); err != nil {
						t.Fatal(err)
					}
				}
			}
			if _, err := store.CollectGenerations(ctx, s); err != nil {
				t.Fatal(err)
			}
			listed, err := s.Generations(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if want := gens[len(gens)-c.kept:]; !slices.Equal(listed, want) {
				t.Errorf("generations %v, want %v", listed, want)
			}
		})
	}
}
