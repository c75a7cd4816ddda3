package ingest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/source/nucc"
	"providerdir/store"
	"providerdir/stored"
)

// FHIRCollections are the collections of the FHIR resources, one per resource type
// (fhir_Practitioner, ...). They are derived from the source collections by the "fhir"
// projection and switch with them, together with the tag sets the resources name
// (catalog.FHIRTags).
var FHIRCollections = func() []string {
	out := make([]string, len(fhirmap.Types))
	for i, t := range fhirmap.Types {
		out[i] = catalog.FHIRCollection(t)
	}
	return out
}()

// fhirInputs are the collections the FHIR resources are built from.
var fhirInputs = []string{catalog.RegistryProviders, catalog.RegistryLocations, catalog.RegistryOtherNames, catalog.RegistryEndpoints, catalog.Enrollments, catalog.HospitalEnrollments,
	catalog.Reassignments, catalog.Facilities, catalog.NUCCTaxonomy, catalog.SandboxNPIs}

// fhirPage is how many registry documents a worker builds at a time.
const fhirPage = 256

// buildFHIR derives the FHIR resources. The registry is read once in NPI order, merged with the
// secondary locations, other names and endpoints read in the same order, and split among workers (one per
// CPU) that build each provider's resources; this goroutine alone writes them, as the batch
// writer wants. Small reference tables (NUCC display names, the sandbox subset, the hospital
// enrollment bridge) and the PECOS employer join are read into memory first.
// Facilities of the Provider of Services file that no organization NPI stands for follow.
func buildFHIR(ctx context.Context, p *Projection) error {
	start := time.Now()
	j, err := newJoiner(ctx, p)
	if err != nil || (j.gen[catalog.RegistryProviders] == "" && j.gen[catalog.Facilities] == "") {
		return err
	}
	for _, c := range FHIRCollections {
		p.Recycle(c, stored.Recycle)
	}
	stats := map[string]int64{}
	tags := map[string]store.Document{} // the tag sets the resources name, by id
	emit := func(res []fhirmap.Resource) error {
		for _, r := range res {
			if err := p.Emit(ctx, catalog.FHIRCollection(r.Type), r.Doc); err != nil {
				return err
			}
			stats[r.Type]++
			t := r.Tags.Document()
			tags[t.ID] = t // an id is the digest of its codings: the same id, the same set
		}
		return nil
	}
	if gen := j.gen[catalog.RegistryProviders]; gen != "" {
		total, err := p.Store().Count(ctx, store.Query{Collection: catalog.RegistryProviders, Generation: gen})
		if err != nil {
			return fmt.Errorf("fhir: count the registry's providers: %w", err)
		}
		advance := func(done int64) { p.Advance(done, total, "providers") }
		if err := j.buildProviders(ctx, emit, advance, stats); err != nil {
			return err
		}
	}
	if j.gen[catalog.Facilities] != "" {
		if err := j.buildFacilities(ctx, emit, stats); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(tags)) {
		if err := p.Emit(ctx, catalog.FHIRTags, tags[id]); err != nil {
			return err
		}
	}
	p.run.opts.Log.Info("FHIR resources built", "practitioners", stats[fhirmap.TypePractitioner],
		"roles", stats[fhirmap.TypePractitionerRole], "organizations", stats[fhirmap.TypeOrganization],
		"locations", stats[fhirmap.TypeLocation], "services", stats[fhirmap.TypeHealthcareService], "endpoints", stats[fhirmap.TypeEndpoint],
		"records_without_resource", stats["skipped"], "tag_sets", len(tags), "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// buildProviders builds every registry provider's resources on a pool of workers, and emits
// them in registry (NPI) order: pages are numbered and their results put back in order, so that
// each resource collection is written in id order, which the store loads fastest, and the
// output does not depend on which worker finished first. After each page it calls advance with
// the providers emitted so far.
func (j *joiner) buildProviders(ctx context.Context, emit func([]fhirmap.Resource) error, advance func(done int64), stats map[string]int64) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	type numbered[T any] struct {
		n    int
		item T
	}
	pages := make(chan numbered[[]providerInput], 2)
	type built struct {
		resources []fhirmap.Resource
		providers int // the page's providers, whether or not they made resources
	}
	results := make(chan numbered[built], 4)
	var wg sync.WaitGroup
	skipped := make([]int64, runtime.GOMAXPROCS(0))
	for w := range skipped {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for page := range pages {
				var out []fhirmap.Resource
				for i := range page.item {
					res, err := j.provider(ctx, &page.item[i])
					if errors.Is(err, fhirmap.ErrNoResource) {
						skipped[w]++
						continue
					}
					if err != nil {
						cancel(err)
						return
					}
					out = append(out, res...)
				}
				select {
				case results <- numbered[built]{page.n, built{out, len(page.item)}}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(pages)
		sc := newScan(j.st, catalog.RegistryProviders, j.gen[catalog.RegistryProviders])
		locations := newNPIGroups(j.st, catalog.RegistryLocations, j.gen[catalog.RegistryLocations])
		otherNames := newNPIGroups(j.st, catalog.RegistryOtherNames, j.gen[catalog.RegistryOtherNames])
		endpoints := newNPIGroups(j.st, catalog.RegistryEndpoints, j.gen[catalog.RegistryEndpoints])
		page := make([]providerInput, 0, fhirPage)
		pageNo := 0
		for {
			d, err := sc.next(ctx)
			if err != nil {
				cancel(err)
				return
			}
			if d != nil {
				in := providerInput{doc: *d}
				if in.locations, err = locations.take(ctx, d.ID); err == nil {
					in.otherNames, err = otherNames.take(ctx, d.ID)
				}
				if err == nil {
					in.endpoints, err = endpoints.take(ctx, d.ID)
				}
				if err != nil {
					cancel(err)
					return
				}
				page = append(page, in)
			}
			if len(page) == fhirPage || (d == nil && len(page) > 0) {
				select {
				case pages <- numbered[[]providerInput]{pageNo, page}:
				case <-ctx.Done():
					return
				}
				pageNo++
				page = make([]providerInput, 0, fhirPage)
			}
			if d == nil {
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	// At most a handful of pages wait here: a worker holds one result until it is sent, and
	// the channels hold a few.
	waiting := map[int]built{}
	next := 0
	var done int64
	for res := range results {
		waiting[res.n] = res.item
		for out, ok := waiting[next]; ok; out, ok = waiting[next] {
			delete(waiting, next)
			next++
			if err := emit(out.resources); err != nil {
				cancel(err)
				for range results { // let the workers finish
				}
				return err
			}
			done += int64(out.providers)
			advance(done)
		}
	}
	for _, n := range skipped {
		stats["skipped"] += n
	}
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// buildFacilities builds the Provider of Services facilities that are not merged into an
// organization NPI.
func (j *joiner) buildFacilities(ctx context.Context, emit func([]fhirmap.Resource) error, stats map[string]int64) error {
	return j.each(ctx, catalog.Facilities, func(d *store.Document) error {
		if _, merged := j.mergedCCN[d.ID]; merged {
			return nil
		}
		res, err := j.facilityResources(ctx, d)
		if errors.Is(err, fhirmap.ErrNoResource) {
			stats["skipped"]++
			return nil
		}
		if err != nil {
			return err
		}
		return emit(res)
	})
}

// facilityResources builds the resources of a Provider of Services facility that is not merged
// into an organization NPI.
func (j *joiner) facilityResources(ctx context.Context, d *store.Document) ([]fhirmap.Resource, error) {
	body, err := stored.DecodeBody[stored.FacilityRecord](*d)
	if err != nil {
		return nil, fmt.Errorf("fhir: facility %s: %w", d.ID, err)
	}
	f := &fhirmap.Facility{Record: body.Record, Provenance: body.Provenance}
	parent, err := j.parentOf(ctx, fhirmap.FacilityID(d.ID))
	if err != nil {
		return nil, err
	}
	f.PartOf = parent.id
	f.Sandbox = j.sandboxOrgs[fhirmap.FacilityID(d.ID)]
	return fhirmap.BuildFacility(f)
}

// taxonomies reads the NUCC display names.
func taxonomies(ctx context.Context, st store.Store, gen string) (fhirmap.Taxonomies, error) {
	out := fhirmap.Taxonomies{}
	if gen == "" {
		return out, nil
	}
	err := store.EachDocument(ctx, st, store.Query{Collection: catalog.NUCCTaxonomy, Generation: gen, BodiesOnly: true}, func(d *store.Document) error {
		body, err := stored.DecodeBody[nucc.Taxonomy](*d)
		if err != nil {
			return fmt.Errorf("fhir: taxonomy %s: %w", d.ID, err)
		}
		out[body.Record.Code] = body.Record.DisplayName
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
