package fhir

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// tagSets serves the provenance tags of stored resources. A stored resource names its tag set
// (catalog.FHIRTags) instead of carrying the codings; a snapshot has a handful of them.
// Each is read and rendered under this server's base once: its id is the digest of its codings,
// so what was read under an id holds for every snapshot and nothing is ever stale.
type tagSets struct {
	st   store.Store
	base string       // "<fhir base>/provenance/"
	m    sync.Map     // id to the rendered `"tag":[...]`
	n    atomic.Int64 // entries of m, which is cleared whole at maxTagSets
}

// maxTagSets bounds the rendered tag sets kept. A snapshot has one per dataset and confidence
// level, and a server sees a few snapshots in its life.
const maxTagSets = 4096

// get returns tag set id rendered, reading it from generation gen of the tag sets on first use.
func (t *tagSets) get(ctx context.Context, gen, id string) ([]byte, error) {
	if b, ok := t.m.Load(id); ok {
		return b.([]byte), nil
	}
	if gen == "" {
		return nil, fmt.Errorf("fhir: resource names tag set %s, and the snapshot has no tag sets", id)
	}
	d, err := t.st.Get(ctx, gen, catalog.FHIRTags, id)
	if err != nil {
		// Not wrapped: a resource whose tag set is missing is a broken snapshot, not a 404.
		return nil, fmt.Errorf("fhir: tag set %s of generation %s: %v", id, gen, err)
	}
	b, err := fhirmap.RenderTags(d.Body, t.base)
	if err != nil {
		return nil, err
	}
	if t.n.Add(1) > maxTagSets {
		t.m.Clear()
		t.n.Store(1)
	}
	t.m.Store(id, b)
	return b, nil
}

// served appends a stored resource as it is served, its tags in its meta.
func (t *tagSets) served(ctx context.Context, dst []byte, gen string, st fhirmap.Stored) ([]byte, error) {
	tags, err := t.get(ctx, gen, st.Tags)
	if err != nil {
		return nil, err
	}
	return st.AppendServed(dst, tags), nil
}
