package supply_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"providerdir/mapping/study"
	"providerdir/rest/apikey"
	"providerdir/stored"
	"providerdir/testing/apiclient"
)

var versionShape = regexp.MustCompile(`^v\d{4}\.(0[1-9]|1[0-2])\.[1-9]\d*$`)

// The methodology of every study is served with its version, rules and the serving figures.
func TestStudyMethodology(t *testing.T) {
	if !versionShape.MatchString(study.MethodologyVersion) {
		t.Fatalf("methodology version %q is not v<YYYY>.<MM>.<n>", study.MethodologyVersion)
	}
	e := demoEnv(t)
	key := e.Key(t, apikey.TierPilot)
	for _, sp := range study.Specialties() {
		r := e.get(t, "/v1/methodology/"+sp.Study(), apiclient.Bearer(key)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d", sp.Study(), r.Status)
		}
		d := r.data()
		if d["methodology_version"] != study.MethodologyVersion || d["specialty"] != sp.Slug || d["kind"] != "specialty_supply_study" ||
			d["document"] != study.MethodologyDocument || d["national"] == nil || d["release_date"] == nil {
			t.Errorf("%s: %v", sp.Study(), d)
		}
		rules := d["rules"].(map[string]any)
		for _, k := range []string{"rank_density", "quartile", "underserved", "subspecialty_filter", "counted"} {
			if rules[k] == "" || rules[k] == nil {
				t.Errorf("%s: no %s rule", sp.Study(), k)
			}
		}
		var ids []string
		for _, s := range d["sources"].([]any) {
			ids = append(ids, s.(map[string]any)["dataset_id"].(string))
		}
		if strings.Join(ids, ",") != "nppes,census_pep_v2024,nucc_taxonomy" {
			t.Errorf("%s: sources %v", sp.Study(), ids)
		}
		if r.meta()["methodology_url"] != e.URL+"/v1/methodology/"+sp.Study() {
			t.Errorf("methodology_url %v", r.meta()["methodology_url"])
		}
	}
	ds := e.get(t, "/v1/methodology/"+stored.LEIE.ID, apiclient.Bearer(key)...).data()
	if ds["loaded"] != true || ds["methodology"] != stored.LEIE.Methodology || ds["snapshot"] == nil {
		t.Errorf("LEIE methodology %v", ds)
	}
	nf := e.get(t, "/v1/methodology/chiropractor-supply", apiclient.Bearer(key)...)
	if nf.Status != 404 || nf.ErrorCode() != "methodology_not_found" {
		t.Errorf("chiropractor-supply: %d %q", nf.Status, nf.ErrorCode())
	}
}

// docs/methodology states the same version, thresholds and codes as the code.
func TestMethodologyDocumentAgreesWithCode(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), study.MethodologyDocument))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		"# Specialty supply studies: methodology " + study.MethodologyVersion,
		"`" + study.MethodologyVersion + "`",
		"below 3/4 of the national density",
		"rounded half away from zero to 4 decimal places",
		"standard competition ranking (1-2-2-4)",
		"`ceil(4 * n / 51)`",
		"Quartile 1 is the highest-density quarter",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("%s does not say %q", study.MethodologyDocument, want)
		}
	}
	if study.UnderservedNumerator != 3 || study.UnderservedDenominator != 4 || study.Per100kDecimals != 4 {
		t.Error("the code's thresholds changed: update the document and the version")
	}
	for _, sp := range study.Specialties() {
		if !strings.Contains(doc, "| "+sp.Slug+" | "+strings.Join(sp.Codes, ", ")+" |") {
			t.Errorf("the document's code table lacks %s as registered", sp.Slug)
		}
	}
}
