package dataset_test

import (
	"regexp"
	"slices"
	"testing"

	"providerdir/rest/dataset"
)

// The registry is docs/contracts/supply-api.md's list of seventeen export slugs, in its order;
// sixteen have audit packs (twelve supply studies, four facility studies).
func TestRegistry(t *testing.T) {
	want := []string{"dermatology-supply", "psychiatry-supply", "cardiology-supply", "obgyn-supply", "pediatrics-supply",
		"neurology-supply", "oncology-supply", "orthopedic-supply", "ophthalmology-supply", "gastroenterology-supply",
		"urology-supply", "otolaryngology-supply", "chiropractor-supply", "nursing-home-quality", "dialysis-quality",
		"home-health-quality", "hospice-availability"}
	if got := dataset.Slugs(); !slices.Equal(got, want) {
		t.Fatalf("slugs %v\nwant %v", got, want)
	}
	packs := map[dataset.Kind]int{}
	for _, d := range dataset.All() {
		if d.AuditPack {
			packs[d.Kind]++
		}
		if d.DisplayName == "" || d.OneLiner == "" || d.Cadence() == "" || len(d.Families) != 2 || len(d.Limitations()) == 0 {
			t.Errorf("%s: %+v", d.Slug, d)
		}
		if h := d.History(); h[len(h)-1].Version != d.MethodologyVersion() {
			t.Errorf("%s: the version history ends at %s, the method is %s", d.Slug, h[len(h)-1].Version, d.MethodologyVersion())
		}
		if d.Kind == dataset.FacilityQuality && (d.Quality.Slug == "" || d.Primary.ID != d.Quality.Dataset.ID) {
			t.Errorf("%s: facility type %+v", d.Slug, d.Quality)
		}
	}
	if packs[dataset.SpecialtySupply] != 12 || packs[dataset.FacilityQuality] != 4 {
		t.Errorf("audit packs per kind %v", packs)
	}
	if _, ok := dataset.Lookup("cardiology"); ok {
		t.Error("a specialty slug is not a dataset slug")
	}
	if !regexp.MustCompile(`^v[0-9]{4}\.[0-9]{2}\.[1-9][0-9]*$`).MatchString(dataset.QualityMethodologyVersion) {
		t.Error("no facility methodology version")
	}
}

func TestGrouped(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {5157699, "5,157,699"}, {-1234567, "-1,234,567"}, {340110988, "340,110,988"}} {
		if got := dataset.Grouped(tt.n); got != tt.want {
			t.Errorf("Grouped(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
