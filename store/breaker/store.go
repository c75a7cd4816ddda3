package breaker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// Store is a store.Store whose calls go through a circuit breaker. It is also a store.Loader,
// forwarding bulk loads when the wrapped store can load.
type Store struct {
	s store.Store
	b *Breaker
}

var (
	_ store.Store  = (*Store)(nil)
	_ store.Loader = (*Store)(nil)
)

// Wrap puts the circuit b in front of s. Close is passed through untouched.
func Wrap(s store.Store, b *Breaker) *Store { return &Store{s: s, b: b} }

// outcome reads a call's result for the circuit.
func outcome(ctx context.Context, err error) Outcome {
	switch {
	case err == nil:
		return Answered
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return Unknown
	case errors.Is(err, store.ErrUnavailable):
		return Unavailable
	}
	return Answered
}

// call runs f if the circuit admits it and records how it ended.
func call[T any](w *Store, ctx context.Context, f func() (T, error)) (T, error) {
	probe, err := w.b.Allow()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f()
	w.b.Done(probe, outcome(ctx, err))
	return v, err
}

// run is call for operations that return only an error.
func run(w *Store, ctx context.Context, f func() error) error {
	_, err := call(w, ctx, func() (struct{}, error) { return struct{}{}, f() })
	return err
}

func (w *Store) Put(ctx context.Context, generation, collection string, docs []store.Document) error {
	return run(w, ctx, func() error { return w.s.Put(ctx, generation, collection, docs) })
}

func (w *Store) Get(ctx context.Context, generation, collection, id string) (store.Document, error) {
	return call(w, ctx, func() (store.Document, error) { return w.s.Get(ctx, generation, collection, id) })
}

func (w *Store) GetMany(ctx context.Context, generation, collection string, ids []string, arena *store.Arena) ([]store.Document, error) {
	return call(w, ctx, func() ([]store.Document, error) { return w.s.GetMany(ctx, generation, collection, ids, arena) })
}

func (w *Store) GetBodies(ctx context.Context, generation, collection string, ids []string, arena *store.Arena) ([]store.Document, error) {
	return call(w, ctx, func() ([]store.Document, error) { return w.s.GetBodies(ctx, generation, collection, ids, arena) })
}

func (w *Store) Find(ctx context.Context, q store.Query) (store.Page, error) {
	return call(w, ctx, func() (store.Page, error) { return w.s.Find(ctx, q) })
}

func (w *Store) Count(ctx context.Context, q store.Query) (int64, error) {
	return call(w, ctx, func() (int64, error) { return w.s.Count(ctx, q) })
}

func (w *Store) Generations(ctx context.Context) ([]string, error) {
	return call(w, ctx, func() ([]string, error) { return w.s.Generations(ctx) })
}

func (w *Store) DropGeneration(ctx context.Context, generation string) error {
	return run(w, ctx, func() error { return w.s.DropGeneration(ctx, generation) })
}

func (w *Store) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	return call(w, ctx, func() (store.Record, error) { return w.s.GetRecord(ctx, kind, id) })
}

func (w *Store) PutRecord(ctx context.Context, r store.Record) (store.Record, error) {
	return call(w, ctx, func() (store.Record, error) { return w.s.PutRecord(ctx, r) })
}

func (w *Store) DeleteRecord(ctx context.Context, kind, id string, version int64) error {
	return run(w, ctx, func() error { return w.s.DeleteRecord(ctx, kind, id, version) })
}

func (w *Store) ListRecords(ctx context.Context, kind, after string, limit int) ([]store.Record, error) {
	return call(w, ctx, func() ([]store.Record, error) { return w.s.ListRecords(ctx, kind, after, limit) })
}

func (w *Store) Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error) {
	return call(w, ctx, func() (int64, error) { return w.s.Incr(ctx, name, delta, expiresAt) })
}

// Load starts a bulk load on the wrapped store through the circuit; the load's own calls go to
// the wrapped store directly.
func (w *Store) Load(ctx context.Context, generation, collection string) (store.Loading, error) {
	l, ok := w.s.(store.Loader)
	if !ok {
		return nil, fmt.Errorf("breaker: the wrapped store cannot bulk-load: %w", errors.ErrUnsupported)
	}
	return call(w, ctx, func() (store.Loading, error) { return l.Load(ctx, generation, collection) })
}

// Close closes the wrapped store.
func (w *Store) Close() error { return w.s.Close() }
