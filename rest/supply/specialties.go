package supply

import (
	"errors"
	"net/http"

	"providerdir/mapping/study"
	"providerdir/rest"
)

// SpecialtyListItem is one entry of GET /v1/specialties.
type SpecialtyListItem struct {
	Slug          string   `json:"slug"`
	DisplayName   string   `json:"display_name"`
	TaxonomyCodes []string `json:"taxonomy_codes"`
	StudyURL      string   `json:"study_url"`
	ReleaseDate   string   `json:"release_date"`
}

// specialties serves GET /v1/specialties: the registered specialties whose study the serving
// snapshot holds, in slug order. Display names are the NUCC display names of their parent codes;
// the release date is the snapshot date of the registry the study was computed from.
func (a *API) specialties(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v, err := a.view(ctx)
	if err != nil {
		fail(w, r, "specialties: read the serving snapshot", err)
		return
	}
	items := []SpecialtyListItem{}
	for _, sp := range study.Specialties() {
		st, err := v.study(ctx, sp.Slug, "")
		if errors.Is(err, errNoStudy) {
			continue
		}
		if err != nil {
			fail(w, r, "specialties: read a study", err)
			return
		}
		items = append(items, SpecialtyListItem{Slug: sp.Slug, DisplayName: st.DisplayName, TaxonomyCodes: sp.Codes,
			StudyURL: a.studyURL(sp.Slug), ReleaseDate: st.ReleaseDate})
	}
	meta, err := a.meta(ctx, r, v, studyFamilies, a.methodologyPage())
	if err != nil {
		fail(w, r, "specialties: read the manifests", err)
		return
	}
	meta.Pagination = wholeSet(len(items))
	rest.WriteV1(w, r, http.StatusOK, items, meta)
}
