package evidence_test

import (
	"context"
	"testing"

	"providerdir/conformance"
)

// The conformance suite's evidence checks pass against the server, and they are all there: an
// answer, a county answer, the six 400s and eight refusals.
func TestConformance(t *testing.T) {
	e := demoEnv(t, nil)
	rep := conformance.Run(context.Background(), conformance.Options{
		Credentials: conformance.Credentials{BaseURL: e.URL, SupplyKey: e.key(t)},
		Only:        []string{"evidence"},
	})
	if len(rep.Results) != 16 {
		t.Errorf("%d evidence checks ran, want 16", len(rep.Results))
	}
	for _, r := range rep.Results {
		if r.Status != conformance.Pass {
			t.Errorf("%s: %s %s", r.Name, r.Status, r.Reason)
		}
	}
}
