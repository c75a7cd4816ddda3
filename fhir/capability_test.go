package fhir_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"providerdir/fhir"
)

// capability is the part of the CapabilityStatement these tests read.
type capability struct {
	ImplementationGuide []string `json:"implementationGuide"`
	Rest                []struct {
		Security struct {
			CORS        bool   `json:"cors"`
			Description string `json:"description"`
		} `json:"security"`
		Resource []struct {
			Type        string `json:"type"`
			SearchParam []struct {
				Name          string `json:"name"`
				Type          string `json:"type"`
				Definition    string `json:"definition"`
				Documentation string `json:"documentation"`
			} `json:"searchParam"`
		} `json:"resource"`
	} `json:"rest"`
}

func metadata(t *testing.T, base string) capability {
	t.Helper()
	r := get(t, base+"/metadata", "X-Test-Grant", "none")
	if r.status != http.StatusOK {
		t.Fatalf("metadata: %d %s", r.status, r.body)
	}
	var cs capability
	if err := json.Unmarshal(r.body, &cs); err != nil || len(cs.Rest) != 1 {
		t.Fatalf("metadata: %v %.300s", err, r.body)
	}
	return cs
}

// TestCapabilityDefinitions checks that the CapabilityStatement names the guides it follows and
// the SearchParameter canonical of every search parameter: US Core's where US Core defines one
// for the type, else Plan-Net's, else base R4's; only the parameters this server defines itself
// have none, and their documentation says so.
func TestCapabilityDefinitions(t *testing.T) {
	e := sharedEnv(t)
	cs := metadata(t, e.base)
	for _, ig := range []string{
		"http://hl7.org/fhir/us/core/ImplementationGuide/hl7.fhir.us.core|6.1.0",
		"http://hl7.org/fhir/us/davinci-pdex-plan-net/ImplementationGuide/hl7.fhir.us.davinci-pdex-plan-net|1.2.0",
	} {
		if !slices.Contains(cs.ImplementationGuide, ig) {
			t.Errorf("implementationGuide %v lacks %s", cs.ImplementationGuide, ig)
		}
	}
	const (
		usCore  = "http://hl7.org/fhir/us/core/SearchParameter/"
		planNet = "http://hl7.org/fhir/us/davinci-pdex-plan-net/SearchParameter/"
		base    = "http://hl7.org/fhir/SearchParameter/"
	)
	want := map[string]string{
		"Practitioner._id":                   base + "Resource-id",
		"Practitioner._lastUpdated":          base + "Resource-lastUpdated",
		"Practitioner.name":                  usCore + "us-core-practitioner-name",
		"Practitioner.identifier":            usCore + "us-core-practitioner-identifier",
		"Practitioner.family":                planNet + "practitioner-family-name",
		"Practitioner.given":                 planNet + "practitioner-given-name",
		"Practitioner.address":               base + "individual-address",
		"Practitioner.phone":                 base + "individual-phone",
		"PractitionerRole.specialty":         usCore + "us-core-practitionerrole-specialty",
		"PractitionerRole.organization":      planNet + "practitionerrole-organization",
		"PractitionerRole.active":            base + "PractitionerRole-active",
		"Organization.address":               usCore + "us-core-organization-address",
		"Organization.address-city":          base + "Organization-address-city",
		"Organization.partof":                planNet + "organization-partof",
		"Location.address-postalcode":        usCore + "us-core-location-address-postalcode",
		"Location.organization":              planNet + "location-organization",
		"Location.status":                    base + "Location-status",
		"HealthcareService.name":             planNet + "healthcareservice-name",
		"HealthcareService.service-category": planNet + "healthcareservice-service-category",
		"HealthcareService.active":           base + "HealthcareService-active",
		"HealthcareService.identifier":       base + "HealthcareService-identifier",
		"Organization.phone":                 e.base + "/SearchParameter/Organization-phone",
		"Location.phone":                     e.base + "/SearchParameter/Location-phone",
		"HealthcareService.phone":            e.base + "/SearchParameter/HealthcareService-phone",
	}
	seen := 0
	for _, res := range cs.Rest[0].Resource {
		for _, p := range res.SearchParam {
			key := res.Type + "." + p.Name
			w, listed := want[key]
			switch {
			case listed && p.Definition != w:
				t.Errorf("%s: definition %q, want %q", key, p.Definition, w)
			case !listed && !strings.HasPrefix(p.Definition, "http://hl7.org/fhir/"):
				t.Errorf("%s: definition %q is no HL7 canonical", key, p.Definition)
			case strings.HasPrefix(p.Definition, e.base):
				if !strings.Contains(p.Documentation, "defined by this server") {
					t.Errorf("%s: the documentation does not say the server defines it: %q", key, p.Documentation)
				}
				checkOwnDefinition(t, p.Definition, res.Type, p.Name, p.Type)
			}
			if listed {
				seen++
			}
		}
	}
	// served whether or not subscriptions are offered; the statement names it on Basic when they are
	checkOwnDefinition(t, e.base+"/SearchParameter/Basic-url", "Basic", "url", "uri")
	if r := get(t, e.base+"/SearchParameter/no-such-parameter", "X-Test-Grant", "none"); r.status != http.StatusNotFound {
		t.Errorf("an unknown SearchParameter: %d, want 404", r.status)
	}
	if seen != len(want) {
		t.Errorf("%d of the %d parameters checked are in the statement", seen, len(want))
	}
}

// checkOwnDefinition reads a SearchParameter the server defines, at its canonical and without
// a grant, as the CapabilityStatement is read: it states the parameter it is named for.
func checkOwnDefinition(t *testing.T, canonical, typ, name, kind string) {
	t.Helper()
	r := get(t, canonical, "X-Test-Grant", "none")
	var sp struct {
		ResourceType, URL, Code, Type, Expression string
		Base                                      []string
	}
	if r.status != http.StatusOK || json.Unmarshal(r.body, &sp) != nil {
		t.Fatalf("%s: %d %.200s", canonical, r.status, r.body)
	}
	if sp.ResourceType != "SearchParameter" || sp.URL != canonical || sp.Code != name || sp.Type != kind ||
		!slices.Equal(sp.Base, []string{typ}) || !strings.HasPrefix(sp.Expression, typ+".") {
		t.Errorf("%s: %+v, want the SearchParameter of %s.%s (%s)", canonical, sp, typ, name, kind)
	}
}

// TestCORS checks that the CapabilityStatement states the CORS the server is configured with,
// and that a browser on an allowed origin can search the FHIR surface: its preflight is answered
// and the Bundle is readable by it. Without origins there is no CORS, and the statement says so.
func TestCORS(t *testing.T) {
	const app = "https://app.example"
	tests := []struct {
		name    string
		origins []string
		cors    bool
		allow   string // Access-Control-Allow-Origin of a search from app
	}{
		{"no origins", nil, false, ""},
		{"one origin", []string{app}, true, app},
		{"any origin", []string{"*"}, true, "*"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := sharedEnv(t)
			if tt.origins != nil {
				e = freshEnv(t, fhir.Config{CORSOrigins: tt.origins})
			}
			sec := metadata(t, e.base).Rest[0].Security
			if sec.CORS != tt.cors || !strings.Contains(sec.Description, "CORS") ||
				tt.origins != nil && tt.origins[0] != "*" && !strings.Contains(sec.Description, app) {
				t.Errorf("security.cors %v, description %q; want cors %v naming the origins", sec.CORS, sec.Description, tt.cors)
			}
			pre := do(t, http.MethodOptions, e.url("/Practitioner"), nil, "Origin", app,
				"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "authorization, prefer")
			if tt.cors && (pre.status != http.StatusNoContent || !strings.Contains(pre.header.Get("Access-Control-Allow-Methods"), "GET") ||
				!strings.Contains(strings.ToLower(pre.header.Get("Access-Control-Allow-Headers")), "authorization")) {
				t.Errorf("preflight: %d %v", pre.status, pre.header)
			}
			if !tt.cors && (pre.status != http.StatusMethodNotAllowed || pre.header.Get("Access-Control-Allow-Origin") != "") {
				t.Errorf("preflight without CORS: %d %v", pre.status, pre.header)
			}
			r := get(t, e.url("/Practitioner", "_count", "1"), "Origin", app)
			e.checkBundle(t, r)
			if got := r.header.Get("Access-Control-Allow-Origin"); got != tt.allow {
				t.Errorf("Access-Control-Allow-Origin %q, want %q", got, tt.allow)
			}
		})
	}
}
