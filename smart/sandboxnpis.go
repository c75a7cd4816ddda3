package smart

import (
	"context"
	"reflect"
	"sync"

	"providerdir/catalog"
	"providerdir/store"
)

// sandboxCache keeps the subset of the latest generation seen per store: the set changes only
// when an ingest switches the collection, so each FHIR request costs one read of the serving
// pointer, not 200 document reads.
var sandboxCache struct {
	mu      sync.Mutex
	entries map[any]sandboxEntry
}

type sandboxEntry struct {
	generation string
	npis       map[string]bool
}

// SandboxNPIs returns the NPIs a sandbox grant may see: the document ids of the serving
// sandbox_npis collection. Before any ingest it is empty (the sandbox sees nothing). The map is
// shared; callers must not modify it.
func SandboxNPIs(ctx context.Context, st store.Store) (map[string]bool, error) {
	snap, err := store.Serving(ctx, st)
	if err != nil {
		return nil, err
	}
	gen := snap.Generation(catalog.SandboxNPIs)
	if gen == "" {
		return map[string]bool{}, nil
	}
	// A store of a type that cannot be a map key (none of ours) is simply not cached.
	cacheable := reflect.TypeOf(st).Comparable()
	if cacheable {
		sandboxCache.mu.Lock()
		e, ok := sandboxCache.entries[st]
		sandboxCache.mu.Unlock()
		if ok && e.generation == gen {
			return e.npis, nil
		}
	}
	npis := map[string]bool{}
	q := store.Query{Collection: catalog.SandboxNPIs, Generation: gen, Limit: 1000}
	for {
		page, err := st.Find(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Docs {
			npis[d.ID] = true
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	if cacheable {
		sandboxCache.mu.Lock()
		if sandboxCache.entries == nil {
			sandboxCache.entries = map[any]sandboxEntry{}
		}
		sandboxCache.entries[st] = sandboxEntry{generation: gen, npis: npis}
		sandboxCache.mu.Unlock()
	}
	return npis, nil
}
