package supply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/rest/internal/records"
	"providerdir/store"
)

// errNoStudy: the serving snapshot holds no study of that id (no registry or Census loaded).
var errNoStudy = errors.New("supply: no study computed")

// view is one request's reading of the serving snapshot: every read of the request goes to the
// generations this pointer names, so a response never mixes two snapshots.
type view struct {
	api *API
	records.View
}

func (a *API) view(ctx context.Context) (view, error) {
	rv, err := a.records.Serving(ctx)
	return view{api: a, View: rv}, err
}

// study returns a computed study, decoded once per generation: generations never change once
// served, so the decoded study can be shared by every request reading that generation.
func (v view) study(ctx context.Context, slug, code string) (*study.Study, error) {
	gen := v.Snap.Generation(catalog.SupplyStudies)
	if gen == "" {
		return nil, errNoStudy
	}
	id := study.ID(slug, code)
	key := gen + "/" + id
	if st, ok := v.api.studies.Get(key); ok {
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
	v.api.studies.Put(key, st)
	return st, nil
}
