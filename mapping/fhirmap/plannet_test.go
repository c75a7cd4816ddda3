package fhirmap_test

import (
	"encoding/json"
	"slices"
	"testing"

	"providerdir/mapping/fhirmap"
)

// Each resource that meets its type's Plan-Net profile claims it after the US Core one and is
// found by _profile; one that does not (inactive) claims US Core alone. Locations, organizations
// and roles carry the codes Plan-Net binds their types to, found by their search parameters.
func TestPlanNetProfilesAndCodes(t *testing.T) {
	ind, _ := fhirmap.BuildIndividual(individual(), tax)
	org, _ := fhirmap.BuildOrganization(organization(), tax)
	fac, _ := fhirmap.BuildFacility(facility())
	all := built(t, slices.Concat(ind, org, fac), nil)

	tests := []struct {
		ref     string
		planNet bool
		param   string // a coded element's search parameter, and the system|code it holds
		code    string
	}{
		{"Practitioner/1234567893", true, "", ""},
		{"PractitionerRole/1234567893-1987654328", true, "role", fhirmap.SystemProviderRole + "|ph"},
		{"PractitionerRole/1234567893-1987654328", true, "role", fhirmap.SystemNUCC + "|207R00000X"},
		{"Organization/1987654328", true, "type", fhirmap.SystemPlanNetOrgType + "|fac"},
		{"Organization/1987654328", true, "type", fhirmap.SystemOrganizationType + "|prov"},
		{"Organization/ccn-175001", false, "type", fhirmap.SystemPlanNetOrgType + "|fac"},
		{"Location/1987654328", true, "type", fhirmap.SystemRoleCode + "|HOSP"},
		{"Location/ccn-170001", true, "type", fhirmap.SystemRoleCode + "|HOSP"},
		{"Location/ccn-175001", false, "type", fhirmap.SystemRoleCode + "|SNF"},
		{"Location/1234567893", true, "", ""},
		{"HealthcareService/1987654328", false, "service-category", fhirmap.SystemServiceCategory + "|hosp"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			r, ok := all[tt.ref]
			if !ok {
				t.Fatalf("%s not built", tt.ref)
			}
			var res struct {
				Meta struct{ Profile []string }
			}
			if err := json.Unmarshal(served(t, r, fhirmap.TagSystemPrefix), &res); err != nil {
				t.Fatal(err)
			}
			want := []string{fhirmap.Profiles[r.Type]}
			if tt.planNet {
				want = append(want, fhirmap.PlanNetProfiles[r.Type])
			}
			if !slices.Equal(res.Meta.Profile, want) {
				t.Errorf("meta.profile %v, want %v", res.Meta.Profile, want)
			}
			if p := fhirmap.PlanNetProfiles[r.Type]; p != "" && hasKey(r.Doc, fhirmap.KeyProfile, p) != tt.planNet {
				t.Errorf("_profile key of %s: %v, want %v", p, !tt.planNet, tt.planNet)
			}
			if tt.param != "" && !findsKey(r.Doc, tt.param, tt.code) {
				t.Errorf("%s=%s does not find it", tt.param, tt.code)
			}
		})
	}
}
