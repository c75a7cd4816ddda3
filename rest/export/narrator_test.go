package export_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"providerdir/rest/dataset"
	"providerdir/rest/export"
)

// narratorFunc is a Narrator in a function, standing for a language model.
type narratorFunc func(draft string) (string, error)

func (f narratorFunc) Narrate(_ context.Context, _ *dataset.Figures, draft string) (string, error) {
	return f(draft)
}

// A narrator may reword the narrative but never state a number the figures do not: its text
// is then discarded for the template's, as it is when the narrator fails or says nothing.
func TestNarrator(t *testing.T) {
	const reworded = "In short: see the figures."
	for _, tt := range []struct {
		name     string
		narrator narratorFunc
		template bool
	}{
		{"rewording without numbers", func(string) (string, error) { return reworded, nil }, false},
		{"rewording with the draft's numbers", func(d string) (string, error) { return "Restated. " + d, nil }, false},
		{"an invented number", func(d string) (string, error) { return d + " About 12345 more are expected.", nil }, true},
		{"a changed decimal", func(d string) (string, error) { return strings.Replace(d, "Methodology", "Methodology 0.999", 1), nil }, true},
		{"an error", func(string) (string, error) { return "", errors.New("model unreachable") }, true},
		{"nothing", func(string) (string, error) { return "  ", nil }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := demo(t, export.Options{Narrator: tt.narrator})
			key := e.Key(t)
			// Each case writes its own narrative: the cache is per (slug, version), so clear it.
			_ = e.Store.DeleteRecord(context.Background(), "export_narrative", "otolaryngology-supply:"+mustLookup(t, "otolaryngology-supply").MethodologyVersion(), 0)
			r := e.Get(t, "/v1/exports/otolaryngology-supply/llm-ready?format=ndjson", key)
			got := narrative(t, r.Raw)
			isTemplate := strings.HasPrefix(got, "Otolaryngology supply by state: ")
			if isTemplate != tt.template {
				t.Errorf("narrative %q: template %v, want %v", got, isTemplate, tt.template)
			}
		})
	}
}
