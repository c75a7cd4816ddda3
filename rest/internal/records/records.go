// Package records reads source records of the serving snapshot for the JSON APIs: the
// manifests, a registry record by NPI, every document of a source collection keyed by an NPI or
// a CCN, and the registry records near a place (the resolver's near search, the supply pages'
// providers near a ZIP code). The supply API and the resolver both read through it, so the two
// answer from the same records in the same way.
package records

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"providerdir/catalog"
	"providerdir/internal/buildinfo"
	"providerdir/store"
	"providerdir/stored"
)

// AvailabilityAbsent is the _data_availability flag of a search by an identifier the source
// publishes that found no record.
const AvailabilityAbsent = "absent"

// Reader reads one store. The manifests it decodes are cached per generation.
type Reader struct {
	store     store.Store
	manifests Cache[[]catalog.Manifest]
	// zipCounts holds the near searches' per-ZIP counts (View.zipCount).
	zipCounts Cache[int64]
	// serving is the snapshot read last, which every request shares until the pointer moves
	// (store.ServingSince); nil before the first read.
	serving atomic.Pointer[store.Snapshot]
}

// zipCountsCached bounds Reader.zipCounts: the ZIPs of a few hundred places and filters, a few
// megabytes.
const zipCountsCached = 100_000

// New returns a Reader over s.
func New(s store.Store) *Reader {
	return &Reader{store: s, zipCounts: Cache[int64]{Bound: zipCountsCached}}
}

// Store is the store the reader reads.
func (r *Reader) Store() store.Store { return r.store }

// View is one request's reading of the serving snapshot: every read of the request goes to the
// generations Snap names, so a response never mixes two snapshots.
type View struct {
	r    *Reader
	Snap store.Snapshot
}

// Serving returns a view of the snapshot being served now. The pointer is read on every call, so
// a switch shows at once, and decoded only when it has moved.
func (r *Reader) Serving(ctx context.Context) (View, error) {
	var last store.Snapshot
	if p := r.serving.Load(); p != nil {
		last = *p
	}
	snap, err := store.ServingSince(ctx, r.store, last)
	if err != nil {
		return View{r: r}, err
	}
	if snap.Version != last.Version {
		r.serving.Store(&snap)
	}
	return View{r: r, Snap: snap}, nil
}

// Manifests returns the serving manifests, decoded once per generation.
func (v View) Manifests(ctx context.Context) ([]catalog.Manifest, error) {
	gen := v.Snap.Generation(catalog.ManifestCollection)
	if gen == "" {
		return nil, nil
	}
	if ms, ok := v.r.manifests.Get(gen); ok {
		return ms, nil
	}
	ms, err := catalog.ManifestsAt(ctx, v.r.store, gen)
	if err != nil {
		return nil, err
	}
	v.r.manifests.Put(gen, ms)
	return ms, nil
}

// Manifest returns the serving manifest of one source family; false when it is not loaded.
func (v View) Manifest(ctx context.Context, family string) (catalog.Manifest, bool, error) {
	ms, err := v.Manifests(ctx)
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

// Registry reads one registry record. It is store.ErrNotFound when the registry holds no such
// NPI or no registry is loaded.
func (v View) Registry(ctx context.Context, npi string) (stored.RegistryRecord, stored.Provenance, error) {
	gen := v.Snap.Generation(catalog.RegistryProviders)
	if gen == "" {
		return stored.RegistryRecord{}, stored.Provenance{}, store.ErrNotFound
	}
	d, err := v.r.store.Get(ctx, gen, catalog.RegistryProviders, npi)
	if err != nil {
		return stored.RegistryRecord{}, stored.Provenance{}, err
	}
	b, err := stored.DecodeBody[stored.RegistryRecord](d)
	if err != nil {
		return stored.RegistryRecord{}, stored.Provenance{}, fmt.Errorf("decode registry record %s: %w", npi, err)
	}
	return b.Record, b.Provenance, nil
}

// Bodies reads the documents of a collection with the given ids, in the order of ids, without
// their search keys (store.Store.GetBodies): one store call for all of them. An id with no
// document is left out; all are when the collection is not in the serving snapshot.
func (v View) Bodies(ctx context.Context, collection string, ids []string) ([]store.Document, error) {
	gen := v.Snap.Generation(collection)
	if gen == "" {
		return nil, nil
	}
	return v.r.store.GetBodies(ctx, gen, collection, ids, nil)
}

// Keyed reads every document of a collection whose search key param has one of values, each
// with its ID and Body (Keys nil: the readers serve and decode bodies). It is nil when the
// collection is not in the serving snapshot.
func (v View) Keyed(ctx context.Context, collection, param string, values ...string) ([]store.Document, error) {
	gen := v.Snap.Generation(collection)
	if gen == "" {
		return nil, nil
	}
	q := store.Query{Collection: collection, Generation: gen, Limit: 1000, BodiesOnly: true,
		Where: []store.Condition{{Param: param, Values: values}}}
	var docs []store.Document
	for {
		page, err := v.r.store.Find(ctx, q)
		if err != nil {
			return nil, err
		}
		docs = append(docs, page.Docs...)
		if page.Next == "" {
			return docs, nil
		}
		q.After = page.Next
	}
}

// Searched is the provenance of a search by an identifier the source publishes that found
// nothing in an ingested snapshot: the snapshot's facts from its manifest, checked when the file
// had been read whole, with confidence 1 since the lookup is by the source's own key.
func Searched(m catalog.Manifest, sourceName string) stored.Provenance {
	return stored.Provenance{
		Source: sourceName, SourceURL: m.SourceURL, DatasetID: m.DatasetID,
		Snapshot: m.Snapshot, Methodology: m.Methodology, LastChecked: m.FinishedAt.UTC().Format(time.RFC3339),
		Confidence: 1, DataAvailability: []string{AvailabilityAbsent}, PipelineVersion: buildinfo.PipelineVersion(),
		License: m.License, CoverageStart: m.Coverage.Start, CoverageEnd: m.Coverage.End,
	}
}

// Cache holds values decoded from immutable generations. It is cleared whole when it grows past
// its bound: old generations stop being asked for after a switch, and the working set of one
// generation (49 studies, one manifest list) is far below the bound.
type Cache[T any] struct {
	// Bound is the most values held; 0 is cacheBound.
	Bound int
	mu    sync.RWMutex
	m     map[string]T
}

const cacheBound = 512

// Get returns the value cached under key.
func (c *Cache[T]) Get(key string) (T, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

// Put caches v under key.
func (c *Cache[T]) Put(key string, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= cmp.Or(c.Bound, cacheBound) {
		c.m = map[string]T{}
	}
	c.m[key] = v
}

// SourceName is the manifest's human source name, or its family when a manifest lacks one.
func SourceName(m catalog.Manifest) string {
	if m.Source != "" {
		return m.Source
	}
	return m.Family
}
