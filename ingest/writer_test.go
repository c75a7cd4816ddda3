package ingest

import "testing"

func TestCommitStep(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"sandbox_npis"}, "committing sandbox_npis"},
		{[]string{"open_payments", "qpp_mips_scores", "sam_exclusions"}, "committing open_payments, qpp_mips_scores, sam_exclusions"},
		{[]string{"fhir_Endpoint", "fhir_Location", "fhir_Organization", "manifests"}, "committing fhir_Endpoint and 3 more collections"},
	} {
		if got := commitStep(tc.names); got != tc.want {
			t.Errorf("commitStep(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
