package supply

import (
	"context"

	"providerdir/mapping/study"
	"providerdir/rest"
)

// ErrNoStudy is the error of Figures when the serving snapshot holds no study of the specialty
// (no registry or Census figures loaded).
var ErrNoStudy = errNoStudy

// Figures is one specialty's whole study as GET /v1/specialties/{code}/by-state serves it, with
// what a response built on it needs besides: the freshness of the families it is computed from
// and the absolute URL of its methodology.
type Figures struct {
	Study          *study.Study
	Freshness      []rest.DataFreshness
	MethodologyURL string
}

// Figures reads a registered specialty's unfiltered study through the same snapshot view and
// decoded-study cache as the by-state handler, so that another surface answering from it (the
// evidence query) states exactly the figures by-state serves. slug must be registered.
func (a *API) Figures(ctx context.Context, slug string) (Figures, error) {
	v, err := a.view(ctx)
	if err != nil {
		return Figures{}, err
	}
	st, err := v.study(ctx, slug, "")
	if err != nil {
		return Figures{}, err
	}
	ms, err := v.Manifests(ctx)
	if err != nil {
		return Figures{}, err
	}
	return Figures{Study: st, Freshness: familyFreshness(ms, studyFamilies), MethodologyURL: a.MethodologyURL(st.Dataset)}, nil
}
