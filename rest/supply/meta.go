package supply

import (
	"context"
	"net/http"
	"providerdir/catalog"
	"slices"

	"providerdir/rest"
	"providerdir/rest/internal/records"
)

// Source families each kind of response is drawn from; meta.data_freshness has one entry for
// each of them that is loaded.
var (
	studyFamilies    = []string{"nppes", "census", "nucc"}
	registryFamilies = []string{"nppes"}
	resolveFamilies  = []string{"nppes", "leie", "pecos", "openpayments", "qpp", "sam"}
)

// meta builds a response's ResponseMeta: freshness of the families the response draws on,
// links to its methodology, the limitations page and the interface description.
func (a *API) meta(ctx context.Context, r *http.Request, v view, families []string, methodologyURL string) (rest.V1Meta, error) {
	ms, err := v.Manifests(ctx)
	if err != nil {
		return rest.V1Meta{}, err
	}
	meta := rest.NewV1Meta(r, familyFreshness(ms, families), methodologyURL, a.limitationsPage())
	meta.DocumentationURL = a.documentationURL()
	return meta, nil
}

// familyFreshness is one DataFreshness entry per manifest of the given families.
func familyFreshness(ms []catalog.Manifest, families []string) []rest.DataFreshness {
	var fresh []rest.DataFreshness
	for _, m := range ms {
		if slices.Contains(families, m.Family) {
			fresh = append(fresh, rest.Freshness(records.SourceName(m), m.FinishedAt, m.Cadence))
		}
	}
	return fresh
}

// SubspecialtyFilter is meta.subspecialty_filter.
type SubspecialtyFilter struct {
	AppliedCode        string `json:"applied_code"`
	DisplayName        string `json:"display_name"`
	MatchedRecordCount int64  `json:"matched_record_count"`
}

// wholeSet is the pagination of a list served in one page.
func wholeSet(n int) *rest.Pagination {
	return &rest.Pagination{Total: int64(n), Page: 1, PerPage: n}
}
