package fhirmap_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/fhirvalidate"
)

var (
	doi   = "10.1234/example"
	prov  = stored.Provenance{Source: "CMS  NPPES", SourceURL: "https://download.cms.gov/nppes/NPI_Files.html", DatasetID: "nppes", Snapshot: "2025-06-08", Methodology: "nppes-registry/1.0.0", LastChecked: "2025-06-09T10:00:00Z", Confidence: 1, DataAvailability: []string{"present"}, PipelineVersion: "abc1234", License: stored.LicensePublicDomainUSGov, CoverageStart: "2005-05-23", CoverageEnd: "2025-06-08"}
	pecos = stored.Provenance{Source: "CMS PECOS", SourceURL: "https://data.cms.gov/pecos", DatasetID: "cms_pecos_ppef", Snapshot: "2025-04-01", Methodology: "pecos-enrollment/1.0.0", LastChecked: "2025-06-09T10:00:00Z", Confidence: 1, DataAvailability: []string{"present"}, PipelineVersion: "abc1234", License: stored.LicensePublicDomainUSGov, CoverageStart: "2025-04-01", CoverageEnd: "2025-04-01", DOI: &doi}
	tax   = fhirmap.Taxonomies{"207R00000X": "Internal Medicine Physician", "207RC0000X": "Cardiovascular Disease Physician", "282N00000X": "General Acute Care Hospital"}
)

func individual() *fhirmap.Provider {
	return &fhirmap.Provider{
		Record: stored.RegistryRecord{
			NPI: "1234567893", EntityType: "individual",
			Name:            &stored.PersonName{First: "José", Middle: "A", Last: "Núñez", Credential: "MD"},
			Sex:             "M",
			Taxonomies:      []stored.RegistryTaxonomy{{Code: "207R00000X", License: "MD1", LicenseState: "KS", Primary: true}, {Code: "207RC0000X", License: "MD1", LicenseState: "KS"}},
			PrimaryTaxonomy: "207R00000X",
			PracticeAddress: stored.Address{Line1: "1 MAIN ST", City: "WEST SPRINGS", State: "KS", PostalCode: "672081234", Country: "US", Phone: "5551234567"},
			MailingAddress:  stored.Address{Line1: "PO BOX 9", City: "WEST SPRINGS", State: "KS", PostalCode: "67208", Country: "US"},
			LastUpdated:     "2024-06-04", Active: true,
		},
		Provenance: prov,
		Secondary:  []fhirmap.SecondaryLocation{{ID: "1234567893.00aa11bb22cc33dd", Address: stored.Address{Line1: "9 ELM", City: "TOPEKA", State: "KS", PostalCode: "66601"}}},
		Employers:  []fhirmap.Employer{{OrgID: "1987654328", Name: "ACME CLINIC", Provenance: pecos, Snapshot: "2025-04-01"}},
		Endpoints: []fhirmap.EndpointInput{
			{ID: "1234567893.0011223344556677", Record: stored.EndpointRecord{NPI: "1234567893", Type: "DIRECT",
				TypeDescription: "Direct Messaging Address", Address: "jnunez@direct.example.org", Affiliated: "no", ContentType: "CSV"}},
			{ID: "1234567893.8899aabbccddeeff", Record: stored.EndpointRecord{NPI: "1234567893", Type: "SOAP",
				TypeDescription: "SOAP URL", Address: "https://hie.example.org/soap", Affiliated: "yes", AffiliationName: "KANSAS HIE, INC."}},
			{ID: "1234567893.ffffffffffffffff", Record: stored.EndpointRecord{NPI: "1234567893", Type: "FHIR", Address: "https://bad example"}},
		},
		Sandbox: true,
	}
}

func organization() *fhirmap.Provider {
	return &fhirmap.Provider{
		Record: stored.RegistryRecord{
			NPI: "1987654328", EntityType: "organization", OrganizationName: "ACME HOSPITAL", OtherName: "ACME",
			Taxonomies:         []stored.RegistryTaxonomy{{Code: "282N00000X", Primary: true}},
			PrimaryTaxonomy:    "282N00000X",
			PracticeAddress:    stored.Address{Line1: "5 HOSPITAL DR", City: "SALINA", State: "KS", PostalCode: "67401", Country: "US", Phone: "5550000000", Fax: "5550000001"},
			MailingAddress:     stored.Address{Line1: "5 HOSPITAL DR", City: "SALINA", State: "KS", PostalCode: "67401", Country: "US"},
			LastUpdated:        "2023-01-02",
			Active:             true,
			AuthorizedOfficial: &stored.Official{Name: stored.PersonName{First: "ANN", Last: "LEE"}, Title: "CEO", Phone: "5550000002"},
		},
		Provenance: prov,
		OtherNames: []string{"ACME MEDICAL CENTER", "acme"},
		Endpoints: []fhirmap.EndpointInput{{ID: "1987654328.0123456789abcdef", Record: stored.EndpointRecord{NPI: "1987654328",
			Type: "FHIR", TypeDescription: "FHIR URL", Address: "https://fhir.acme.example/r4", Description: "ACME patient access API", Affiliated: "no"}}},
		CCN: "170001",
		Facility: &fhirmap.Facility{Record: stored.FacilityRecord{CCN: "170001", Name: "ACME MEDICAL CENTER", CategoryCode: "01",
			Address: stored.Address{Line1: "5 HOSPITAL DR", City: "SALINA", State: "KS", PostalCode: "67401", Phone: "5550000000"}, Active: true}, Provenance: pecos},
	}
}

func facility() *fhirmap.Facility {
	return &fhirmap.Facility{
		Record: stored.FacilityRecord{CCN: "175001", Name: "PRAIRIE NURSING", CategoryCode: "04",
			Address: stored.Address{Line1: "7 OAK", City: "SALINA", State: "KS", PostalCode: "67401"}, Active: false},
		Provenance: prov, PartOf: "ccn-170001",
	}
}

// built indexes resources by "Type/id".
func built(t *testing.T, res []fhirmap.Resource, err error) map[string]fhirmap.Resource {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fhirmap.Resource{}
	for _, r := range res {
		out[fhirmap.Ref(r.Type, r.ID)] = r
		if err := fhirvalidate.Validate(served(t, r, fhirmap.TagSystemPrefix), fhirmap.TagSystemPrefix); err != nil {
			t.Errorf("%s", err)
		}
	}
	return out
}

// served is a built resource as the FHIR surface serves it, its tag systems under tagBase.
func served(t testing.TB, r fhirmap.Resource, tagBase string) []byte {
	t.Helper()
	st, err := fhirmap.Open(r.Doc.Body)
	if err != nil {
		t.Fatalf("%s/%s: %v", r.Type, r.ID, err)
	}
	if st.Tags != r.Tags.Document().ID {
		t.Fatalf("%s/%s names tag set %s, built with %s", r.Type, r.ID, st.Tags, r.Tags.Document().ID)
	}
	tags, err := fhirmap.RenderTags(r.Tags.Document().Body, tagBase)
	if err != nil {
		t.Fatalf("%s/%s: %v", r.Type, r.ID, err)
	}
	return st.AppendServed(nil, tags)
}

func hasKey(d store.Document, param, value string) bool {
	return slices.Contains(d.Keys, store.Key{Param: param, Value: value})
}

// stringParams are searched by prefix: a value is found when some key of the param starts
// with it (a word that begins a longer value is not stored on its own).
var stringParams = []string{"name", "family", "given", "address", "address-city", "address-state", "address-postalcode"}

// findsKey reports whether a search of param for value finds d, as the store matches it.
func findsKey(d store.Document, param, value string) bool {
	if systems := fhirmap.TokenSystems[param]; len(systems) > 0 && !strings.Contains(value, "|") {
		// a code of any system: the search looks it up under each of the param's systems
		return slices.ContainsFunc(systems, func(sys string) bool { return hasKey(d, param, sys+"|"+value) })
	}
	if !slices.Contains(stringParams, param) {
		return hasKey(d, param, value)
	}
	return slices.ContainsFunc(d.Keys, func(k store.Key) bool { return k.Param == param && strings.HasPrefix(k.Value, value) })
}

// TestStringKeysPruned: no value of a string param is a prefix of another value of that param,
// and every part and whole value of the names, and every form of a ZIP, is still found.
func TestStringKeysPruned(t *testing.T) {
	ind, _ := fhirmap.BuildIndividual(individual(), tax)
	for _, r := range ind {
		for _, k := range r.Doc.Keys {
			if !slices.Contains(stringParams, k.Param) {
				continue
			}
			for _, o := range r.Doc.Keys {
				if o.Param == k.Param && o.Value != k.Value && strings.HasPrefix(o.Value, k.Value) {
					t.Errorf("%s/%s: %s=%q is a prefix of %q", r.Type, r.ID, k.Param, k.Value, o.Value)
				}
			}
		}
	}
	prac := ind[slices.IndexFunc(ind, func(r fhirmap.Resource) bool { return r.Type == fhirmap.TypePractitioner })]
	for _, v := range []string{"jose", "jose a", "nunez", "a"} {
		if !findsKey(prac.Doc, "name", v) {
			t.Errorf("name %q not found", v)
		}
	}
	for _, v := range []string{"67208", "67208-1234", "672081234"} {
		if !findsKey(prac.Doc, "address-postalcode", fhirmap.PostalKey(v)) {
			t.Errorf("address-postalcode %q not found", v)
		}
	}
}

// TestInactiveEmployer checks that a role with an inactive organization names no
// HealthcareService: the organization has none.
func TestInactiveEmployer(t *testing.T) {
	for _, inactive := range []bool{false, true} {
		p := individual()
		p.Employers[0].Inactive = inactive
		res, err := fhirmap.BuildIndividual(p, tax)
		all := built(t, res, err)
		role := all["PractitionerRole/1234567893-1987654328"]
		st, err := fhirmap.Open(role.Doc.Body)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(st.Resource, []byte(`"healthcareService"`)); got == inactive {
			t.Errorf("inactive %v: healthcareService named %v", inactive, got)
		}
		if got := findsKey(role.Doc, "service", "HealthcareService/1987654328"); got == inactive {
			t.Errorf("inactive %v: service key %v", inactive, got)
		}
		if !findsKey(role.Doc, "organization", "Organization/1987654328") {
			t.Errorf("inactive %v: the role lost its organization", inactive)
		}
	}
}

func TestBuildResources(t *testing.T) {
	ind, _ := fhirmap.BuildIndividual(individual(), tax)
	org, _ := fhirmap.BuildOrganization(organization(), tax)
	fac, _ := fhirmap.BuildFacility(facility())
	all := built(t, slices.Concat(ind, org, fac), nil)

	want := []string{"Practitioner/1234567893", "Location/1234567893", "Location/1234567893.00aa11bb22cc33dd",
		"PractitionerRole/1234567893-1987654328", "Organization/1987654328", "Location/1987654328",
		"Location/ccn-170001", "HealthcareService/1987654328", "Organization/ccn-175001", "Location/ccn-175001",
		"Endpoint/1234567893.0011223344556677", "Endpoint/1234567893.8899aabbccddeeff", "Endpoint/1987654328.0123456789abcdef"}
	// The terminated facility keeps its Organization and Location, and has no HealthcareService:
	// Plan-Net fixes HealthcareService.active to true.
	for _, w := range want {
		if _, ok := all[w]; !ok {
			t.Errorf("missing %s", w)
		}
	}
	if len(all) != len(want) {
		t.Errorf("built %d resources, want %d", len(all), len(want))
	}

	keys := []struct {
		ref, param, value string
		want              bool
	}{
		{"Practitioner/1234567893", "identifier", "http://hl7.org/fhir/sid/us-npi|1234567893", true},
		{"Practitioner/1234567893", "identifier", "1234567893", true},
		{"Practitioner/1234567893", "family", "nunez", true},
		{"Practitioner/1234567893", "family:exact", "Núñez", true},
		{"Practitioner/1234567893", "given", "jose", true},
		{"Practitioner/1234567893", "name", "jose", true},
		{"Practitioner/1234567893", "address-postalcode", "67208", true},
		{"Practitioner/1234567893", "address-postalcode", "672081234", true},
		{"Practitioner/1234567893", "address-city", "west springs", true},
		{"Practitioner/1234567893", "address-city", "springs", false}, // a part matches from its start
		{"Practitioner/1234567893", "address", "1 main", true},
		{"Practitioner/1234567893", "address", "main", false},
		{"Practitioner/1234567893", "address", "us", true},            // the country
		{"Practitioner/1234567893", "address", "67208", false},        // ZIP, city and state are the keys of their own params,
		{"Practitioner/1234567893", "address", "west springs", false}, // which an address search looks in too
		{"Practitioner/1234567893", "address-postalcode", "67208", true},
		{"Location/1234567893", "name", "jose a nunez md - 1 main", true},
		{"Location/1234567893", "name", "nunez", false}, // a name matches from its start
		{"Location/1234567893", "name", "main", false},
		{"Location/1234567893", "address-city", "west springs", true},
		{"Practitioner/1234567893", "address-state", "ks", true},
		{"Practitioner/1234567893", "active", "true", true},
		{"Practitioner/1234567893", "_sandbox", "1", true},
		{"Practitioner/1234567893", "_lastUpdated", "2024-06-04", true},
		{"Practitioner/1234567893", "_id", "1234567893", true},
		{"PractitionerRole/1234567893-1987654328", "practitioner", "Practitioner/1234567893", true},
		{"PractitionerRole/1234567893-1987654328", "organization", "Organization/1987654328", true},
		{"PractitionerRole/1234567893-1987654328", "location", "Location/1234567893.00aa11bb22cc33dd", true},
		{"PractitionerRole/1234567893-1987654328", "service", "HealthcareService/1987654328", true},
		{"PractitionerRole/1234567893-1987654328", "specialty", "http://nucc.org/provider-taxonomy|207RC0000X", true},
		{"PractitionerRole/1234567893-1987654328", "specialty", "207RC0000X", true},
		{"PractitionerRole/1234567893-1987654328", "role", "207R00000X", true},
		{"PractitionerRole/1234567893-1987654328", "_lastUpdated", "2025-04-01", true},
		{"Organization/1987654328", "identifier", "http://terminology.hl7.org/NamingSystem/CCN|170001", true},
		{"Organization/1987654328", "name", "acme medical center", true},
		{"Organization/1987654328", "type", "prov", true},
		{"Organization/1987654328", "_sandbox", "1", false},
		{"Location/ccn-170001", "organization", "Organization/1987654328", true},
		{"Location/1234567893", "status", "active", true},
		{"HealthcareService/1987654328", "service-category", "hosp", true},
		{"HealthcareService/1987654328", "location", "Location/ccn-170001", true},
		{"HealthcareService/1987654328", "specialty", "282N00000X", true},
		{"Organization/ccn-175001", "partof", "Organization/ccn-170001", true},
		{"Organization/ccn-175001", "active", "false", true},
		{"Location/ccn-175001", "status", "inactive", true},
		// A name search also looks in the family and given keys, so the name keys hold the
		// text, prefixes and suffixes only.
		{"Practitioner/1234567893", "name:exact", "Núñez", false},
		{"Practitioner/1234567893", "given:exact", "José", true},
		{"Practitioner/1234567893", "given:exact", "A", true},
		{"Practitioner/1234567893", "name:exact", "MD", true}, // a suffix
		{"Practitioner/1234567893", "name:exact", "José A Núñez MD", true},
		{"Practitioner/1234567893", "name:exact", "José A Núñez", false}, // no part of the name
		{"Practitioner/1234567893", "name:exact", "nunez", false},
		{"Practitioner/1234567893", "name", "jose a nunez", true}, // given then family, for prefix search
		{"Practitioner/1234567893", "name", "md", true},
		{"Practitioner/1234567893", "name", "a", true},         // a given name
		{"Practitioner/1234567893", "name", "nunez md", false}, // no part starts so
	}
	for _, k := range keys {
		r, ok := all[k.ref]
		if !ok {
			continue
		}
		if got := findsKey(r.Doc, k.param, k.value); got != k.want {
			t.Errorf("%s key %s=%q: %v, want %v", k.ref, k.param, k.value, got, k.want)
		}
	}

	// The NUCC display names and the license state reach the resource.
	st, _ := fhirmap.Open(all["Practitioner/1234567893"].Doc.Body)
	for _, s := range []string{`"display":"Cardiovascular Disease Physician"`, `"State of KS"`, `"family":"Núñez"`, `"postalCode":"67208-1234"`} {
		if !bytes.Contains(st.Resource, []byte(s)) {
			t.Errorf("Practitioner lacks %s: %s", s, st.Resource)
		}
	}
	// Plan-Net's Location profile forbids mode (0..0): neither a practice's nor a facility's
	// Location has one.
	for _, ref := range []string{"Location/1234567893", "Location/ccn-170001"} {
		if st, _ := fhirmap.Open(all[ref].Doc.Body); bytes.Contains(st.Resource, []byte(`"mode"`)) {
			t.Errorf("%s has a mode: %s", ref, st.Resource)
		}
	}
	// The role's provenance is the enrollment's, whose DOI is set.
	role := served(t, all["PractitionerRole/1234567893-1987654328"], fhirmap.TagSystemPrefix)
	if !bytes.Contains(role, []byte(`"system":"urn:providerdir:provenance:_doi","code":"10.1234/example"`)) {
		t.Errorf("role provenance: %s", role)
	}
}

func TestNoResource(t *testing.T) {
	tests := []struct {
		name  string
		build func() ([]fhirmap.Resource, error)
	}{
		{"deactivated individual", func() ([]fhirmap.Resource, error) {
			return fhirmap.BuildIndividual(&fhirmap.Provider{Record: stored.RegistryRecord{NPI: "1234567893", EntityType: "unknown"}}, tax)
		}},
		{"individual without family name", func() ([]fhirmap.Resource, error) {
			return fhirmap.BuildIndividual(&fhirmap.Provider{Record: stored.RegistryRecord{NPI: "1234567893", EntityType: "individual", Name: &stored.PersonName{First: "A"}}}, tax)
		}},
		{"organization without name", func() ([]fhirmap.Resource, error) {
			return fhirmap.BuildOrganization(&fhirmap.Provider{Record: stored.RegistryRecord{NPI: "1234567893", EntityType: "organization"}}, tax)
		}},
		{"facility without name", func() ([]fhirmap.Resource, error) {
			return fhirmap.BuildFacility(&fhirmap.Facility{Record: stored.FacilityRecord{CCN: "170001"}})
		}},
	}
	for _, tt := range tests {
		if _, err := tt.build(); !errors.Is(err, fhirmap.ErrNoResource) {
			t.Errorf("%s: err %v, want ErrNoResource", tt.name, err)
		}
	}
}

func TestRoleNeedsTelecom(t *testing.T) {
	p := individual()
	p.Record.PracticeAddress.Phone = ""
	p.Secondary, p.Endpoints = nil, nil
	res, err := fhirmap.BuildIndividual(p, tax)
	all := built(t, res, err)
	for ref := range all {
		if strings.HasPrefix(ref, "PractitionerRole/") {
			t.Errorf("a practitioner without any number got role %s (pd-1)", ref)
		}
	}
	// A number at a secondary practice or the mailing address is enough.
	p.Record.MailingAddress.Phone = "5559999999"
	res, err = fhirmap.BuildIndividual(p, tax)
	if all = built(t, res, err); all["PractitionerRole/1234567893-1987654328"].ID == "" {
		t.Error("no role with a mailing phone")
	}
}

func TestRoleWithoutEmployer(t *testing.T) {
	p := individual()
	p.Employers = nil
	res, err := fhirmap.BuildIndividual(p, tax)
	all := built(t, res, err)
	r, ok := all["PractitionerRole/1234567893"]
	if !ok {
		t.Fatal("no role of the practitioner alone")
	}
	st, _ := fhirmap.Open(r.Doc.Body)
	if bytes.Contains(st.Resource, []byte(`"organization"`)) {
		t.Errorf("a role without a known employer names an organization: %s", st.Resource)
	}
}

func TestStoredDocument(t *testing.T) {
	res, err := fhirmap.BuildIndividual(individual(), tax)
	if err != nil {
		t.Fatal(err)
	}
	d := res[0].Doc
	st, err := fhirmap.Open(d.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Record   string          `json:"record"`
		ETag     string          `json:"etag"`
		Tags     string          `json:"tags"`
		TagAt    string          `json:"tagAt"`
		Resource json.RawMessage `json:"resource"`
	}
	if err := json.Unmarshal(d.Body, &body); err != nil {
		t.Fatalf("stored body is not JSON: %v", err)
	}
	if body.ETag != st.ETag || len(st.ETag) != 16 || body.Tags != st.Tags || len(st.Tags) != 16 || !bytes.Equal(body.Resource, st.Resource) {
		t.Errorf("Open disagrees with the JSON: %q %q, %q %q", st.ETag, body.ETag, st.Tags, body.Tags)
	}
	if !bytes.HasPrefix(st.Resource, []byte(`{"resourceType":"Practitioner","id":"1234567893","meta":{`)) {
		t.Errorf("resource head: %.80s", st.Resource)
	}
	if bytes.Contains(st.Resource, []byte(fhirmap.TagSystemPrefix)) || bytes.Contains(st.Resource, []byte(`"tag"`)) {
		t.Errorf("the stored resource carries its tags: %s", st.Resource)
	}
	meta := bytes.Index(st.Resource, []byte(`"meta":`))
	if end := meta + bytes.IndexByte(st.Resource[meta:], '}'); fmt.Sprintf("%08x", end) != body.TagAt {
		t.Errorf("tagAt %s, the meta ends at %d", body.TagAt, end)
	}

	// A new provenance stamp changes the etag and the tag set, not the record digest.
	p := individual()
	p.Provenance.LastChecked = "2025-07-01T00:00:00Z"
	res2, _ := fhirmap.BuildIndividual(p, tax)
	st2, _ := fhirmap.Open(res2[0].Doc.Body)
	var body2 struct {
		Record string `json:"record"`
	}
	_ = json.Unmarshal(res2[0].Doc.Body, &body2)
	if body2.Record != body.Record || st2.ETag == st.ETag || st2.Tags == st.Tags {
		t.Errorf("record %s -> %s, etag %s -> %s, tags %s -> %s", body.Record, body2.Record, st.ETag, st2.ETag, st.Tags, st2.Tags)
	}
	// A changed record changes the record digest and the etag, not the tag set.
	p = individual()
	p.Record.PracticeAddress.Phone = "5055550199"
	res3, _ := fhirmap.BuildIndividual(p, tax)
	st3, _ := fhirmap.Open(res3[0].Doc.Body)
	var body3 struct {
		Record string `json:"record"`
	}
	_ = json.Unmarshal(res3[0].Doc.Body, &body3)
	if body3.Record == body.Record || st3.ETag == st.ETag || st3.Tags != st.Tags {
		t.Errorf("after a phone change: record %s -> %s, etag %s -> %s, tags %s -> %s", body.Record, body3.Record, st.ETag, st3.ETag, st.Tags, st3.Tags)
	}

	good := string(d.Body)
	tagAt := strings.Index(good, `"tagAt":"`) + len(`"tagAt":"`)
	for _, bad := range []string{``, `{}`, `{"record":"x"}`,
		`{"record":"0123456789abcdef","etag":"0123456789abcdef","resourc":{}}`,
		// The head of the format before tag sets were stored apart.
		`{"record":"0123456789abcdef","etag":"0123456789abcdef","resource":{"resourceType":"Practitioner","id":"1","meta":{"profile":["p"],"tag":[]}}}`,
		good[:tagAt] + "0000zz00" + good[tagAt+8:], // not hex
		good[:tagAt] + "00000000" + good[tagAt+8:], // not the meta's end
		good[:tagAt] + "7fffffff" + good[tagAt+8:], // beyond the resource
	} {
		if _, err := fhirmap.Open([]byte(bad)); err == nil {
			t.Errorf("Open(%.120s) succeeded", bad)
		}
	}
}

func TestRenderTags(t *testing.T) {
	const base = "https://h/fhir/provenance/"
	tests := []struct{ stored, want string }{
		{`[]`, `"tag":[]`},
		{`[{"system":"urn:providerdir:provenance:_source","code":"x"}]`, `"tag":[{"system":"https://h/fhir/provenance/_source","code":"x"}]`},
		{`[{"system":"urn:providerdir:provenance:_a"},{"extension":[{"url":"u","valueCode":"not-applicable"}],"system":"urn:providerdir:provenance:_b"}]`,
			`"tag":[{"system":"https://h/fhir/provenance/_a"},{"extension":[{"url":"u","valueCode":"not-applicable"}],"system":"https://h/fhir/provenance/_b"}]`},
		// A code is a value, whatever it holds.
		{`[{"system":"urn:providerdir:provenance:_a","code":"x\"urn:providerdir:provenance:_b"}]`, `"tag":[{"system":"https://h/fhir/provenance/_a","code":"x\"urn:providerdir:provenance:_b"}]`},
	}
	for _, tt := range tests {
		got, err := fhirmap.RenderTags([]byte(tt.stored), base)
		if err != nil || string(got) != tt.want {
			t.Errorf("RenderTags(%s) = %s, %v; want %s", tt.stored, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `{}`, `[{"system":"http://other/_a","code":"x"}]`, `[{"code":"x"}]`} {
		if got, err := fhirmap.RenderTags([]byte(bad), base); err == nil {
			t.Errorf("RenderTags(%s) = %s, want an error", bad, got)
		}
	}
	res, _ := fhirmap.BuildIndividual(individual(), tax)
	if err := fhirvalidate.Validate(served(t, res[0], "https://dir.example/fhir/provenance/"), "https://dir.example/fhir/provenance/"); err != nil {
		t.Error(err)
	}
}

// BenchmarkBuildIndividual builds a practitioner's resources and recycles their bodies
// once done with them, as an ingest does once they are written. The records were last updated
// on any of 7,000 dates, about as many as a national registry's.
func BenchmarkBuildIndividual(b *testing.B) {
	p := individual()
	dates := make([]string, 7000)
	for i := range dates {
		dates[i] = time.Date(2007, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, i).Format(time.DateOnly)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Record.LastUpdated = dates[i%len(dates)]
		i += 13
		res, err := fhirmap.BuildIndividual(p, tax)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res {
			stored.Recycle(r.Doc.Body)
		}
	}
}

// BenchmarkServe is what serving a stored resource costs beyond the store read: opening the
// stored body and inserting its rendered tags.
func BenchmarkServe(b *testing.B) {
	res, _ := fhirmap.BuildIndividual(individual(), tax)
	tags, err := fhirmap.RenderTags(res[0].Tags.Document().Body, "https://dir.example/fhir/provenance/")
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 8192)
	b.SetBytes(int64(len(res[0].Doc.Body)))
	b.ReportAllocs()
	for b.Loop() {
		st, err := fhirmap.Open(res[0].Doc.Body)
		if err != nil {
			b.Fatal(err)
		}
		buf = st.AppendServed(buf[:0], tags)
	}
}

// BenchmarkGoogleFHIRParse is the cost the fast path avoids per resource: google/fhir/go parsing
// and validating one stored Practitioner.
func BenchmarkGoogleFHIRParse(b *testing.B) {
	res, _ := fhirmap.BuildIndividual(individual(), tax)
	resource := served(b, res[0], fhirmap.TagSystemPrefix)
	b.ReportAllocs()
	for b.Loop() {
		if err := fhirvalidate.Parse(resource); err != nil {
			b.Fatal(err)
		}
	}
}

// TestIDOfNPI holds the search surface's shortcut to what the resources are: every resource of
// a type IDOfNPI answers for has the id it gives for each NPI the resource carries.
func TestIDOfNPI(t *testing.T) {
	ind, _ := fhirmap.BuildIndividual(individual(), tax)
	org, _ := fhirmap.BuildOrganization(organization(), tax)
	fac, _ := fhirmap.BuildFacility(facility())
	checked := 0
	for _, r := range slices.Concat(ind, org, fac) {
		for _, k := range r.Doc.Keys {
			npi, isNPI := strings.CutPrefix(k.Value, fhirmap.SystemNPI+"|")
			if k.Param != fhirmap.KeyIdentifier || !isNPI {
				continue
			}
			if id, ok := fhirmap.IDOfNPI(r.Type, npi); ok {
				checked++
				if id != r.ID {
					t.Errorf("%s/%s carries NPI %s, IDOfNPI says %s", r.Type, r.ID, npi, id)
				}
			}
		}
	}
	if checked < 2 {
		t.Errorf("checked %d NPI identifiers, want the practitioner's and the organization's", checked)
	}
}

// TestTokenSystems: every coded key is "system|code" with a system its param lists, so that a
// search for a code alone, which looks it up under those systems, finds it.
func TestTokenSystems(t *testing.T) {
	ind, _ := fhirmap.BuildIndividual(individual(), tax)
	org, _ := fhirmap.BuildOrganization(organization(), tax)
	fac, _ := fhirmap.BuildFacility(facility())
	seen := map[string]bool{}
	for _, r := range slices.Concat(ind, org, fac) {
		for _, k := range r.Doc.Keys {
			systems, coded := fhirmap.TokenSystems[k.Param]
			if !coded {
				continue
			}
			seen[k.Param] = true
			sys, _, ok := strings.Cut(k.Value, "|")
			if !ok || !slices.Contains(systems, sys) {
				t.Errorf("%s/%s: %s=%q is not coded in one of %v", r.Type, r.ID, k.Param, k.Value, systems)
			}
		}
	}
	for param := range fhirmap.TokenSystems {
		if !seen[param] {
			t.Errorf("no resource built here has a %s key", param)
		}
	}
}

// TestEndpoints: each endpoint record with a usable address is a Plan-Net Endpoint, its
// connection type coded from the NPPES type, managed by the provider's own Organization or
// named by the affiliation's legal name, and named from the role, Organization and service.
func TestEndpoints(t *testing.T) {
	indRes, err := fhirmap.BuildIndividual(individual(), tax)
	ind := built(t, indRes, err)
	orgRes, err := fhirmap.BuildOrganization(organization(), tax)
	org := built(t, orgRes, err)
	type endpoint struct {
		Status         string
		ConnectionType fhirmap.Coding
		Name           string
		Managing       *fhirmap.Reference `json:"managingOrganization"`
		PayloadType    []fhirmap.CodeableConcept
		Mime           []string `json:"payloadMimeType"`
		Address        string
	}
	read := func(all map[string]fhirmap.Resource, ref string) (endpoint, bool) {
		r, ok := all[ref]
		if !ok {
			return endpoint{}, false
		}
		var e endpoint
		if err := json.Unmarshal(served(t, r, fhirmap.TagSystemPrefix), &e); err != nil {
			t.Fatal(err)
		}
		return e, true
	}
	na := []fhirmap.CodeableConcept{{Coding: []fhirmap.Coding{{System: fhirmap.SystemPlanNetPayloadType, Code: "NA", Display: "Not Applicable"}}}}
	tests := []struct {
		all  map[string]fhirmap.Resource
		ref  string
		want endpoint
	}{
		{ind, "Endpoint/1234567893.0011223344556677", endpoint{Status: "active", Name: "Direct Messaging Address",
			ConnectionType: fhirmap.Coding{System: fhirmap.SystemConnectionType, Code: "direct-project", Display: "Direct Project"},
			PayloadType:    na, Mime: []string{"text/csv"}, Address: "jnunez@direct.example.org"}},
		{ind, "Endpoint/1234567893.8899aabbccddeeff", endpoint{Status: "active", Name: "SOAP URL",
			ConnectionType: fhirmap.Coding{System: fhirmap.SystemNPPESEndpointType, Code: "SOAP", Display: "SOAP URL"},
			Managing:       &fhirmap.Reference{Display: "KANSAS HIE, INC."}, PayloadType: na, Address: "https://hie.example.org/soap"}},
		{org, "Endpoint/1987654328.0123456789abcdef", endpoint{Status: "active", Name: "ACME patient access API",
			ConnectionType: fhirmap.Coding{System: fhirmap.SystemConnectionType, Code: "hl7-fhir-rest", Display: "HL7 FHIR"},
			Managing:       &fhirmap.Reference{Reference: "Organization/1987654328", Display: "ACME HOSPITAL"}, PayloadType: na,
			Address: "https://fhir.acme.example/r4"}},
	}
	for _, tt := range tests {
		got, ok := read(tt.all, tt.ref)
		if !ok {
			t.Errorf("%s not built", tt.ref)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.ref, got, tt.want)
		}
	}
	if _, ok := ind["Endpoint/1234567893.ffffffffffffffff"]; ok {
		t.Error("an endpoint whose address holds a space was built")
	}
	refs := func(all map[string]fhirmap.Resource, ref string) []string {
		b := served(t, all[ref], fhirmap.TagSystemPrefix)
		var r struct{ Endpoint []fhirmap.Reference }
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range r.Endpoint {
			out = append(out, e.Reference)
		}
		if !hasKey(all[ref].Doc, "endpoint", strings.Join(out[:min(1, len(out))], "")) {
			t.Errorf("%s: no endpoint key for %v", ref, out)
		}
		return out
	}
	for _, c := range []struct {
		all  map[string]fhirmap.Resource
		ref  string
		want []string
	}{
		{ind, "PractitionerRole/1234567893-1987654328", []string{"Endpoint/1234567893.0011223344556677", "Endpoint/1234567893.8899aabbccddeeff"}},
		{org, "Organization/1987654328", []string{"Endpoint/1987654328.0123456789abcdef"}},
		{org, "HealthcareService/1987654328", []string{"Endpoint/1987654328.0123456789abcdef"}},
	} {
		if got := refs(c.all, c.ref); !slices.Equal(got, c.want) {
			t.Errorf("%s endpoints %v, want %v", c.ref, got, c.want)
		}
	}
}

// TestRoleWithEndpointOnly: a practitioner with no published number but an endpoint has a
// role (pd-1: telecom or endpoint).
func TestRoleWithEndpointOnly(t *testing.T) {
	p := individual()
	p.Record.PracticeAddress.Phone, p.Record.MailingAddress.Phone, p.Secondary = "", "", nil
	p.Employers = nil
	res, err := fhirmap.BuildIndividual(p, tax)
	if all := built(t, res, err); all["PractitionerRole/1234567893"].ID == "" {
		t.Error("no role for a practitioner with endpoints")
	}
}
