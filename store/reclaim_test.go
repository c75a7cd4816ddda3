package store_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/internal/testing/backends"
	"providerdir/store"
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
