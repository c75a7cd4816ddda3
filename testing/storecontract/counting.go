package storecontract

import (
	"context"
	"sync/atomic"

	"providerdir/store"
)

// Counting passes every call to the Store it wraps and counts the document reads, so that a
// test can hold a surface to a bounded number of store calls per request.
type Counting struct {
	store.Store
	Gets, GetManys, GetBodiesCalls, Finds, Counts atomic.Int64
}

// Total is the number of reads counted since the last Reset, of every kind.
func (c *Counting) Total() int64 {
	return c.Gets.Load() + c.GetManys.Load() + c.GetBodiesCalls.Load() + c.Finds.Load() + c.Counts.Load()
}

// Reset sets every count back to zero.
func (c *Counting) Reset() {
	for _, n := range []*atomic.Int64{&c.Gets, &c.GetManys, &c.GetBodiesCalls, &c.Finds, &c.Counts} {
		n.Store(0)
	}
}

func (c *Counting) Get(ctx context.Context, gen, coll, id string) (store.Document, error) {
	c.Gets.Add(1)
	return c.Store.Get(ctx, gen, coll, id)
}

func (c *Counting) GetMany(ctx context.Context, gen, coll string, ids []string, arena *store.Arena) ([]store.Document, error) {
	c.GetManys.Add(1)
	return c.Store.GetMany(ctx, gen, coll, ids, arena)
}

func (c *Counting) GetBodies(ctx context.Context, gen, coll string, ids []string, arena *store.Arena) ([]store.Document, error) {
	c.GetBodiesCalls.Add(1)
	return c.Store.GetBodies(ctx, gen, coll, ids, arena)
}

func (c *Counting) Find(ctx context.Context, q store.Query) (store.Page, error) {
	c.Finds.Add(1)
	return c.Store.Find(ctx, q)
}

func (c *Counting) Count(ctx context.Context, q store.Query) (int64, error) {
	c.Counts.Add(1)
	return c.Store.Count(ctx, q)
}
