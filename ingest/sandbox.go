package ingest

import (
	"context"

	"providerdir/catalog"
	"providerdir/store"
	"providerdir/stored"
)

// buildSandbox picks the sandbox subset: the active individual providers with the smallest NPIs.
// The rule is deterministic, so the subset only moves when the registry itself changes there,
// and individuals with the richest records (taxonomies, licenses) are the ones a newcomer tries.
func buildSandbox(ctx context.Context, p *Projection) error {
	gen, err := p.Generation(ctx, catalog.RegistryProviders)
	if err != nil || gen == "" {
		return err
	}
	page, err := p.Store().Find(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: gen, Limit: catalog.SandboxSize,
		Where: []store.Condition{
			{Param: stored.KeyEntity, Values: []string{"individual"}},
			{Param: stored.KeyActive, Values: []string{"true"}},
		}})
	if err != nil {
		return err
	}
	for _, d := range page.Docs {
		doc := store.Document{ID: d.ID, Body: []byte(`{}`), Keys: []store.Key{{Param: stored.KeyNPI, Value: d.ID}}}
		if err := p.Emit(ctx, catalog.SandboxNPIs, doc); err != nil {
			return err
		}
	}
	return nil
}
