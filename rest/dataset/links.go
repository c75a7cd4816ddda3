package dataset

import (
	"context"
	"net/http"
	"path"
	"strings"

	"providerdir/rest"
	"providerdir/rest/internal/records"
)

// MethodologyURL is the absolute URL of the dataset's method: the supply API's methodology
// resource for the twelve studies it serves, the published document for the others.
func (d Dataset) MethodologyURL(baseURL string) string {
	if isStudy(d) {
		return baseURL + "/v1/methodology/" + d.Slug
	}
	return baseURL + rest.PathMethodologyPage + "/" + strings.TrimSuffix(path.Base(d.MethodologyDocument()), ".md")
}

// Meta is the supply API's ResponseMeta of a response about one dataset: one freshness entry per
// loaded source family, the dataset's methodology link and the limitations page.
func (s *Source) Meta(ctx context.Context, r *http.Request, d Dataset, baseURL string) (rest.V1Meta, error) {
	ms, err := s.Freshness(ctx, d)
	if err != nil {
		return rest.V1Meta{}, err
	}
	var fresh []rest.DataFreshness
	for _, m := range ms {
		fresh = append(fresh, rest.Freshness(records.SourceName(m), m.FinishedAt, m.Cadence))
	}
	meta := rest.NewV1Meta(r, fresh, d.MethodologyURL(baseURL), baseURL+rest.PathLimitationsPage)
	meta.DocumentationURL = baseURL + "/v1/openapi.json"
	return meta, nil
}
