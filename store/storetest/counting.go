package storetest

import (
	"context"
	"sync/atomic"

	"providerdir/store"
)

// Counting passes every call to the Store it wraps and counts the document reads, so that a
// test can hold a surface to a bounded number of store calls per request.
type Counting struct {
	store.Store
	Gets, GetManys, GetBodiesCalls, Finds atomic.Int64
}

func (c *Counting) Get(ctx context.Context, gen, coll, id string) (store.Document, error) {
	c.Gets.Add(1)
	return c.Store.Get(ctx, gen, coll, id)
}

func (c *Counting) GetMany(ctx context.Context, gen, coll string, ids []string) ([]store.Document, error) {
	c.GetManys.Add(1)
	return c.Store.GetMany(ctx, gen, coll, ids)
}

func (c *Counting) GetBodies(ctx context.Context, gen, coll string, ids []string) ([]store.Document, error) {
	c.GetBodiesCalls.Add(1)
	return c.Store.GetBodies(ctx, gen, coll, ids)
}

func (c *Counting) Find(ctx context.Context, q store.Query) (store.Page, error) {
	c.Finds.Add(1)
	return c.Store.Find(ctx, q)
}
