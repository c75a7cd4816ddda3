package supply

import (
	"context"

	"providerdir/rest"
)

// StudyFreshness is meta.data_freshness of a response built on a study: one entry per loaded
// family the studies are computed from (the registry, the Census estimates, the taxonomy), as
// the by-state endpoint reports them.
func (a *API) StudyFreshness(ctx context.Context) ([]rest.DataFreshness, error) {
	v, err := a.view(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := v.Manifests(ctx)
	if err != nil {
		return nil, err
	}
	return familyFreshness(ms, studyFamilies), nil
}
