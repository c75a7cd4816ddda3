package ingest

import (
	"context"
	"slices"
	"time"

	"providerdir/catalog"
	"providerdir/store"
)

// projection derives collections from other collections after the families of a run have
// loaded: FHIR resources joined across the registry, enrollment and facility files; supply
// figures per specialty and state. A projection runs when any of its inputs was loaded in the
// run (or its outputs have never been built), reads its inputs from the newest generation that
// holds them, and writes its outputs into the run's generation, so they switch with the data
// they were derived from.
type projection struct {
	name    string
	inputs  []string
	outputs []string
	run     func(ctx context.Context, p *Projection) error
	// outdated, when set, reports whether the serving outputs were built by rules this build no
	// longer applies (a study method whose version changed): an ingest then rebuilds them even
	// when no input changed, so that an upgrade takes effect on the next ingest.
	outdated func(ctx context.Context, st store.Store, serving store.Snapshot) (bool, error)
	// delta, when set, updates the serving outputs after a weekly NPPES delta (see delta.go)
	// instead of rebuilding them, when the delta is the only input the run changed.
	delta func(ctx context.Context, p *Projection) error
}

// projections are the derived collections' builders in the order they run: a projection comes
// after every projection whose outputs it reads (the FHIR resources mark the sandbox subset).
// The supply studies come before the FHIR resources because they count the registry the
// NPPES family held in memory, which they then let go: the FHIR projection is the one that needs
// memory most. This table is the one place a projection is added.
var projections = []*projection{
	{name: "sandbox", inputs: []string{catalog.RegistryProviders}, outputs: []string{catalog.SandboxNPIs}, run: buildSandbox},
	{name: "supply", inputs: []string{catalog.RegistryProviders, catalog.CensusStates, catalog.NUCCTaxonomy}, outputs: []string{catalog.SupplyStudies},
		run: buildSupply, outdated: studiesOutdated, delta: updateSupply},
	{name: "fhir", inputs: fhirInputs, outputs: append(slices.Clip(FHIRCollections), catalog.FHIRTags), run: buildFHIR, delta: updateFHIR},
}

// Projection is what a running projection may do: read any collection at the generation it
// should be read at, and write its own outputs.
type Projection struct {
	run     *runState
	outputs []string
	step    string // the phase the run reported the projection as
}

// Advance reports how far the projection has come: done of total units (total 0 when unknown).
// A projection that takes minutes at national scale calls it every few hundred units, so that
// the operator sees it move.
func (p *Projection) Advance(done, total int64, unit string) {
	p.run.opts.Progress.PhaseUpdate(p.step, done, total, unit)
}

// Store is the store being loaded.
func (p *Projection) Store() store.Store { return p.run.opts.Store }

// Generation returns the generation to read a collection at: this run's when the run wrote it
// (flushed first), else the serving one; "" when the collection has never been loaded.
func (p *Projection) Generation(ctx context.Context, collection string) (string, error) {
	return p.run.readGeneration(ctx, collection)
}

// Emit writes one document into one of the projection's outputs.
func (p *Projection) Emit(ctx context.Context, collection string, d store.Document) error {
	if !slices.Contains(p.outputs, collection) {
		panic("ingest: projection writes " + collection + ", which is not one of its outputs")
	}
	if p.run.writer == nil {
		return nil
	}
	return p.run.writer.add(ctx, collection, d)
}

// Stack makes one of the projection's outputs the top of a stack over its serving generation:
// what the projection emits into it, and into its mask (store.MaskCollection), is laid over the
// serving documents.
func (p *Projection) Stack(collection string) {
	if !slices.Contains(p.outputs, collection) {
		panic("ingest: projection stacks " + collection + ", which is not one of its outputs")
	}
	p.run.stacked[collection] = true
}

// EmitMask writes one entry of the mask of a stacked output (see Stack).
func (p *Projection) EmitMask(ctx context.Context, collection string, d store.Document) error {
	if !p.run.stacked[collection] {
		panic("ingest: projection masks " + collection + ", which it does not stack")
	}
	if p.run.writer == nil {
		return nil
	}
	return p.run.writer.add(ctx, store.MaskCollection(collection), d)
}

// Compared tells the change set of a stacked output what the projection found comparing a
// document it emits into it with the serving document of the same id it replaces: whether their
// records are the same (sameRecord). Recording the change set then need not read that document
// below again. A projection that already read the serving documents to mask them calls it.
func (p *Projection) Compared(collection, id string, same bool) {
	if !p.run.stacked[collection] {
		panic("ingest: projection compares in " + collection + ", which it does not stack")
	}
	p.run.compare(collection, id, same)
}

// Recycle hands the body of each document later emitted into collection to release once it is
// written, so that the projection can reuse the memory it built the body in.
func (p *Projection) Recycle(collection string, release func(body []byte)) {
	if !slices.Contains(p.outputs, collection) {
		panic("ingest: projection recycles " + collection + ", which is not one of its outputs")
	}
	if p.run.writer != nil {
		p.run.writer.recycle(collection, release)
	}
}

// outdatedProjection reports whether a projection's serving outputs were built by rules this
// build no longer applies (see projection.outdated).
func outdatedProjection(ctx context.Context, st store.Store, serving store.Snapshot) (bool, error) {
	for _, p := range projections {
		if p.outdated == nil {
			continue
		}
		if old, err := p.outdated(ctx, st, serving); old || err != nil {
			return old, err
		}
	}
	return false, nil
}

// runProjections runs every projection whose inputs changed in this run, or whose outputs are
// missing or outdated, and returns the collections they wrote.
func (r *runState) runProjections(ctx context.Context) ([]string, error) {
	var wrote []string
	for _, pr := range projections {
		stale := false
		for _, c := range pr.inputs {
			stale = stale || r.written[c]
		}
		for _, c := range pr.outputs {
			stale = stale || r.serving.Generation(c) == ""
		}
		if !stale && pr.outdated != nil {
			old, err := pr.outdated(ctx, r.opts.Store, r.serving)
			if err != nil {
				return nil, err
			}
			stale = old
		}
		if !stale {
			continue
		}
		began := time.Now()
		build, what := pr.run, "building"
		if r.deltaOnly(ctx, pr, wrote) {
			build, what = pr.delta, "updating"
		}
		step := what + " the " + pr.name + " projection"
		r.opts.Progress.Phase(step)
		if err := build(ctx, &Projection{run: r, outputs: pr.outputs, step: step}); err != nil {
			return nil, err
		}
		r.opts.Log.Info("projection built", "projection", pr.name, "elapsed", time.Since(began).Round(time.Millisecond))
		for _, c := range pr.outputs {
			r.written[c] = r.writer != nil
			wrote = append(wrote, c)
		}
	}
	return wrote, nil
}

// deltaOnly reports whether a projection can update its serving outputs from a weekly NPPES
// delta rather than rebuild them: it has a delta builder, its outputs are all serving and up to
// date, and every input the run wrote is the top of a stack or the output of an earlier
// projection of the run (derived, in turn, from the delta).
func (r *runState) deltaOnly(ctx context.Context, pr *projection, projected []string) bool {
	if pr.delta == nil || r.delta == nil || r.writer == nil {
		return false
	}
	for _, c := range pr.inputs {
		if r.written[c] && !r.stacked[c] && !slices.Contains(projected, c) {
			return false
		}
	}
	for _, c := range pr.outputs {
		if r.serving.Generation(c) == "" {
			return false
		}
	}
	if pr.outdated != nil {
		if old, err := pr.outdated(ctx, r.opts.Store, r.serving); old || err != nil {
			return false // rebuilt in full; an error there is the full build's to report
		}
	}
	return true
}

// incompleteProjection reports whether the serving snapshot has some of a projection's outputs
// and not the others: it was written by an earlier version of the service whose projection
// wrote fewer collections (the FHIR resources, before their tag sets were stored apart), and
// serves data this version cannot read. An ingest then rebuilds the projection even though no
// file changed; runProjections finds it stale for its missing outputs.
func incompleteProjection(serving store.Snapshot) bool {
	for _, p := range projections {
		built := slices.IndexFunc(p.outputs, func(c string) bool { return serving.Generation(c) != "" }) >= 0
		missing := slices.IndexFunc(p.outputs, func(c string) bool { return serving.Generation(c) == "" }) >= 0
		if built && missing {
			return true
		}
	}
	return false
}
