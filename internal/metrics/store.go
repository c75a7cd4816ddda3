package metrics

import (
	"context"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// Outcome classifies a store error for the outcome label. Not-found and conflict are normal
// answers of the contract, not failures, so they are told apart from errors.
func Outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, store.ErrNotFound):
		return "not_found"
	case errors.Is(err, store.ErrConflict):
		return "conflict"
	}
	return "error"
}

// Store wraps s so that every operation is timed into the store histogram, whichever backend s
// is. The wrapper adds no behaviour; Unwrap returns s. With a nil m it returns s itself.
func (m *Metrics) Store(s store.Store) store.Store {
	if m == nil {
		return s
	}
	return &timedStore{s: s, m: m}
}

type timedStore struct {
	s store.Store
	m *Metrics
}

// Unwrap returns the wrapped store, for code that needs a backend's own extra methods.
func (t *timedStore) Unwrap() store.Store { return t.s }

func (t *timedStore) observe(op string, start time.Time, err error) {
	t.m.ObserveStore(op, Outcome(err), time.Since(start))
}

// Load forwards a bulk load to the wrapped store, so that an ingest through a running server
// (over store/remote) loads as fast as one on the store directly. A load is counted in the
// documents-written metric when it commits.
func (t *timedStore) Load(ctx context.Context, generation, collection string) (store.Loading, error) {
	l, ok := t.s.(store.Loader)
	if !ok {
		return nil, fmt.Errorf("metrics: the wrapped store cannot bulk-load: %w", errors.ErrUnsupported)
	}
	start := time.Now()
	ld, err := l.Load(ctx, generation, collection)
	t.observe("load", start, err)
	if err != nil {
		return nil, err
	}
	return &timedLoading{Loading: ld, t: t, collection: collection}, nil
}

type timedLoading struct {
	store.Loading
	t          *timedStore
	collection string
	docs       int
}

func (l *timedLoading) Add(ctx context.Context, docs []store.Document) error {
	err := l.Loading.Add(ctx, docs)
	if err == nil {
		l.docs += len(docs)
	}
	return err
}

func (l *timedLoading) Commit(ctx context.Context) error {
	start := time.Now()
	err := l.Loading.Commit(ctx)
	l.t.observe("load_commit", start, err)
	if err == nil {
		l.t.m.DocumentsWritten(l.collection, l.docs)
	}
	return err
}

func (t *timedStore) Put(ctx context.Context, generation, collection string, docs []store.Document) error {
	start := time.Now()
	err := t.s.Put(ctx, generation, collection, docs)
	t.observe("put", start, err)
	if err == nil {
		t.m.DocumentsWritten(collection, len(docs))
	}
	return err
}

func (t *timedStore) Get(ctx context.Context, generation, collection, id string) (store.Document, error) {
	start := time.Now()
	d, err := t.s.Get(ctx, generation, collection, id)
	t.observe("get", start, err)
	return d, err
}

func (t *timedStore) GetMany(ctx context.Context, generation, collection string, ids []string, arena *store.Arena) ([]store.Document, error) {
	start := time.Now()
	d, err := t.s.GetMany(ctx, generation, collection, ids, arena)
	t.observe("get_many", start, err)
	return d, err
}

func (t *timedStore) GetBodies(ctx context.Context, generation, collection string, ids []string, arena *store.Arena) ([]store.Document, error) {
	start := time.Now()
	d, err := t.s.GetBodies(ctx, generation, collection, ids, arena)
	t.observe("get_bodies", start, err)
	return d, err
}

func (t *timedStore) Find(ctx context.Context, q store.Query) (store.Page, error) {
	start := time.Now()
	p, err := t.s.Find(ctx, q)
	t.observe("find", start, err)
	return p, err
}

func (t *timedStore) Count(ctx context.Context, q store.Query) (int64, error) {
	start := time.Now()
	n, err := t.s.Count(ctx, q)
	t.observe("count", start, err)
	return n, err
}

func (t *timedStore) Generations(ctx context.Context) ([]string, error) {
	start := time.Now()
	g, err := t.s.Generations(ctx)
	t.observe("generations", start, err)
	return g, err
}

func (t *timedStore) DropGeneration(ctx context.Context, generation string) error {
	start := time.Now()
	err := t.s.DropGeneration(ctx, generation)
	t.observe("drop_generation", start, err)
	return err
}

func (t *timedStore) GetRecord(ctx context.Context, kind, id string) (store.Record, error) {
	start := time.Now()
	r, err := t.s.GetRecord(ctx, kind, id)
	t.observe("get_record", start, err)
	return r, err
}

func (t *timedStore) PutRecord(ctx context.Context, r store.Record) (store.Record, error) {
	start := time.Now()
	out, err := t.s.PutRecord(ctx, r)
	t.observe("put_record", start, err)
	return out, err
}

func (t *timedStore) DeleteRecord(ctx context.Context, kind, id string, version int64) error {
	start := time.Now()
	err := t.s.DeleteRecord(ctx, kind, id, version)
	t.observe("delete_record", start, err)
	return err
}

func (t *timedStore) ListRecords(ctx context.Context, kind, after string, limit int) ([]store.Record, error) {
	start := time.Now()
	r, err := t.s.ListRecords(ctx, kind, after, limit)
	t.observe("list_records", start, err)
	return r, err
}

func (t *timedStore) Incr(ctx context.Context, name string, delta int64, expiresAt time.Time) (int64, error) {
	start := time.Now()
	n, err := t.s.Incr(ctx, name, delta, expiresAt)
	t.observe("incr", start, err)
	return n, err
}

func (t *timedStore) Close() error {
	return t.s.Close()
}
