package fhir

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"providerdir/store"
)

// countCache remembers exact search totals. A generation never changes once written, so the
// total of a query against one generation is a fact that can be kept: a broad search (every
// cardiology role of a national snapshot) is counted once, not on every first page. Entries
// for generations that stop serving simply stop being asked for; the cache is cleared whole when
// it reaches its bound, which keeps it small and needs no eviction order.
type countCache struct {
	mu      sync.Mutex
	entries map[string]int64
}

const (
	countCacheEntries = 10_000
	countCacheKeyMax  = 4096 // queries carrying long chain results are counted, not cached
)

func (c *countCache) count(ctx context.Context, st store.Store, q store.Query) (int64, error) {
	key, ok := countKey(q)
	if ok {
		c.mu.Lock()
		n, hit := c.entries[key]
		c.mu.Unlock()
		if hit {
			return n, nil
		}
	}
	n, err := st.Count(ctx, q)
	if err != nil || !ok {
		return n, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= countCacheEntries {
		c.entries = make(map[string]int64)
	}
	c.entries[key] = n
	c.mu.Unlock()
	return n, nil
}

// countKey encodes what a count depends on: generation, collection and conditions, in order.
func countKey(q store.Query) (string, bool) {
	var b strings.Builder
	b.WriteString(q.Generation)
	b.WriteByte(0)
	b.WriteString(q.Collection)
	for _, c := range q.Where {
		b.WriteByte(0)
		b.WriteString(strconv.Itoa(int(c.Match)))
		for _, t := range c.Terms() {
			b.WriteByte(0)
			b.WriteString(t.Param)
			b.WriteByte(0)
			b.WriteString(strconv.Itoa(len(t.Values)))
			for _, v := range t.Values {
				b.WriteByte(0)
				b.WriteString(strconv.Itoa(len(v)))
				b.WriteByte(':')
				b.WriteString(v)
			}
		}
		if b.Len() > countCacheKeyMax {
			return "", false
		}
	}
	return b.String(), true
}
