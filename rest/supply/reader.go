package supply

import (
	"context"

	"providerdir/mapping/study"
	"providerdir/rest"
)

// ErrNoStudy is Study's error when the serving snapshot holds no study of the specialty (no
// registry or Census figures loaded).
var ErrNoStudy = errNoStudy

// Study returns the study GET /v1/specialties/{slug}/by-state serves for a registered slug and
// a registered code ("" for the whole specialty), with the rows that response carries, read from
// the serving snapshot through the same per-generation cache. The web pages show these figures,
// so a page and the API cannot disagree.
func (a *API) Study(ctx context.Context, slug, code string) (*study.Study, []study.Row, error) {
	v, err := a.view(ctx)
	if err != nil {
		return nil, nil, err
	}
	st, err := v.study(ctx, slug, code)
	if err != nil {
		return nil, nil, err
	}
	if noMatch(st) {
		return st, nil, nil
	}
	return st, st.Rows, nil
}

// noMatch reports whether a filtered study's code is held by no provider: its response has no
// rows (rule 3), not 51 rows of zeros.
func noMatch(st *study.Study) bool {
	return st.Filter != nil && st.National.ActiveProviders == 0
}

// Freshness is meta.data_freshness of GET /v1/health: one entry per loaded source family.
func (a *API) Freshness(ctx context.Context) ([]rest.DataFreshness, error) {
	ms, err := a.manifests(ctx)
	if err != nil {
		return nil, err
	}
	return freshness(ms), nil
}
