package supply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/store"
)

// errNoStudy: the serving snapshot holds no study of that id (no registry or Census loaded).
var errNoStudy = errors.New("supply: no study computed")

// view is one request's reading of the serving snapshot: every read of the request goes to the
// generations this pointer names, so a response never mixes two snapshots.
type view struct {
	api  *API
	snap store.Snapshot
}

func (a *API) view(ctx context.Context) (view, error) {
	snap, err := store.Serving(ctx, a.store)
	return view{api: a, snap: snap}, err
}

// study returns a computed study, decoded once per generation: generations never change once
// served, so the decoded study can be shared by every request reading that generation.
func (v view) study(ctx context.Context, slug, code string) (*study.Study, error) {
	gen := v.snap.Generation(catalog.SupplyStudies)
	if gen == "" {
		return nil, errNoStudy
	}
	id := study.ID(slug, code)
	key := gen + "/" + id
	if st, ok := v.api.studies.get(key); ok {
		return st, nil
	}
	d, err := v.api.store.Get(ctx, gen, catalog.SupplyStudies, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoStudy
	}
	if err != nil {
		return nil, err
	}
	st := new(study.Study)
	if err := json.Unmarshal(d.Body, st); err != nil {
		return nil, fmt.Errorf("supply: decode study %s: %w", id, err)
	}
	v.api.studies.put(key, st)
	return st, nil
}

// manifests returns the serving manifests, decoded once per generation.
func (v view) manifests(ctx context.Context) ([]catalog.Manifest, error) {
	gen := v.snap.Generation(catalog.ManifestCollection)
	if gen == "" {
		return nil, nil
	}
	if ms, ok := v.api.manifestCache.get(gen); ok {
		return ms, nil
	}
	ms, err := catalog.ManifestsAt(ctx, v.api.store, gen)
	if err != nil {
		return nil, err
	}
	v.api.manifestCache.put(gen, ms)
	return ms, nil
}

// manifest returns the serving manifest of one source family.
func (v view) manifest(ctx context.Context, family string) (catalog.Manifest, bool, error) {
	ms, err := v.manifests(ctx)
	if err != nil {
		return catalog.Manifest{}, false, err
	}
	for _, m := range ms {
		if m.Family == family {
			return m, true, nil
		}
	}
	return catalog.Manifest{}, false, nil
}

// cache holds values decoded from immutable generations. It is cleared whole when it grows past
// its bound: old generations stop being asked for after a switch, and the working set of one
// generation (49 studies, one manifest list) is far below the bound.
type cache[T any] struct {
	mu sync.RWMutex
	m  map[string]T
}

const cacheBound = 512

func (c *cache[T]) get(key string) (T, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *cache[T]) put(key string, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= cacheBound {
		c.m = map[string]T{}
	}
	c.m[key] = v
}
