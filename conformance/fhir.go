package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The profiles each served type claims (US Core 6.1.0, Plan-Net 1.2.0, the R4 base profile of
// Endpoint, whose Plan-Net profile only active Endpoints claim).
var profiles = map[string]string{
	"Practitioner":      "http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner",
	"PractitionerRole":  "http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitionerrole",
	"Organization":      "http://hl7.org/fhir/us/core/StructureDefinition/us-core-organization",
	"Location":          "http://hl7.org/fhir/us/core/StructureDefinition/us-core-location",
	"HealthcareService": "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/plannet-HealthcareService",
	"Endpoint":          "http://hl7.org/fhir/StructureDefinition/Endpoint",
}

var servedTypes = []string{"Practitioner", "PractitionerRole", "Organization", "Location", "HealthcareService", "Endpoint"}

// provenanceKeys are the 14 keys of the provenance contract (seed 001), carried in meta.tag
// and in each resolver source block.
var provenanceKeys = []string{
	"_source", "_source_url", "_dataset_id", "_snapshot", "_methodology", "_last_checked",
	"_confidence", "_data_availability", "_pipeline_version", "_doi", "_license",
	"_coverage_period_start", "_coverage_period_end", "_slsa_provenance_url",
}

// fhirChecks hold the FHIR facade to R4, US Core 6.1.0 and Plan-Net 1.2.0.
func fhirChecks() []Check {
	const f = "fhir"
	checks := []Check{{f, "CapabilityStatement", checkCapabilityStatement}}
	for _, typ := range servedTypes {
		checks = append(checks, Check{f, "read " + typ + ": profile and mandatory elements", readCheck(typ)})
	}
	for _, typ := range servedTypes {
		if planNetProfiles[typ] != "" {
			checks = append(checks, Check{f, "Plan-Net " + typ + ": who claims the profile meets it; _profile finds them", planNetCheck(typ)})
		}
	}
	for _, typ := range servedTypes {
		if len(mustSupport[typ]) > 0 {
			checks = append(checks, Check{f, "must support " + typ + ": each element in served data", mustSupportCheck(typ)})
		}
	}
	checks = append(checks,
		Check{f, "provenance: the 14 keys in meta.tag", checkProvenanceTags},
		Check{f, "read with If-None-Match of the ETag is 304", checkConditionalRead},
		Check{f, "vread of meta.versionId is the read; the ETag names that version", checkVread},
		Check{f, "unsupported _format is 406", checkFormat},
	)
	for _, s := range shallSearches {
		checks = append(checks, Check{f, "search " + s.typ + "?" + s.param, searchCheck(s)})
	}
	checks = append(checks, nearChecks()...)
	return append(checks,
		Check{f, "Plan-Net Endpoint.managingOrganization found by the affiliation's name: the rule stated, the Organization of that name", checkEndpointAffiliation},
		Check{f, "Plan-Net Location.endpoint: _revinclude=Location:endpoint, each named Endpoint served", checkLocationEndpoints},
		Check{f, "Plan-Net parameters without data answer, under handling=strict", checkNoDataSearches},
		Check{f, "_has:PractitionerRole:practitioner:specialty", checkHas},
		Check{f, "GET and POST _search agree", checkPostSearch},
		Check{f, "paging to the end by next links matches total", checkPaging},
		Check{f, "_include=PractitionerRole:practitioner", checkInclude},
		Check{f, "_revinclude=PractitionerRole:practitioner", checkRevinclude},
		Check{f, "unknown id is 404 OperationOutcome", checkUnknownID},
		Check{f, "unknown parameter under handling=strict is 400 OperationOutcome", checkStrict},
		Check{f, "bulk $export: kick-off, manifest, NDJSON file, cancel", checkBulkExport},
	)
}

func checkCapabilityStatement(ctx context.Context, e *Env) error {
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/metadata", http.Header{"Accept": {"application/fhir+json"}}, nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusOK {
		return fmt.Errorf("%d, want 200", res.status)
	}
	var cs struct {
		ResourceType        string   `json:"resourceType"`
		FHIRVersion         string   `json:"fhirVersion"`
		ImplementationGuide []string `json:"implementationGuide"`
		Rest                []struct {
			Mode     string `json:"mode"`
			Resource []struct {
				Type             string   `json:"type"`
				SupportedProfile []string `json:"supportedProfile"`
				Interaction      []struct {
					Code string `json:"code"`
				} `json:"interaction"`
				SearchParam []struct {
					Name       string `json:"name"`
					Type       string `json:"type"`
					Definition string `json:"definition"`
				} `json:"searchParam"`
			} `json:"resource"`
		} `json:"rest"`
	}
	if err := res.json(&cs); err != nil {
		return err
	}
	var problems []string
	if cs.ResourceType != "CapabilityStatement" || cs.FHIRVersion != "4.0.1" {
		problems = append(problems, fmt.Sprintf("%s fhirVersion %q, want a CapabilityStatement of 4.0.1", cs.ResourceType, cs.FHIRVersion))
	}
	for _, ig := range []string{"http://hl7.org/fhir/us/core/ImplementationGuide/hl7.fhir.us.core", "http://hl7.org/fhir/us/davinci-pdex-plan-net/ImplementationGuide/hl7.fhir.us.davinci-pdex-plan-net"} {
		if !slices.ContainsFunc(cs.ImplementationGuide, func(s string) bool { return strings.HasPrefix(s, ig) }) {
			problems = append(problems, "implementationGuide lacks "+ig)
		}
	}
	if len(cs.Rest) != 1 || cs.Rest[0].Mode != "server" {
		return joinProblems(append(problems, "want one rest entry of mode server"))
	}
	params := map[string][]string{}
	served := map[string]bool{}
	for _, r := range cs.Rest[0].Resource {
		served[r.Type] = true
		for _, p := range r.SearchParam {
			params[r.Type] = append(params[r.Type], p.Name)
			switch {
			case p.Definition == "":
				problems = append(problems, fmt.Sprintf("%s searchParam %s has no definition", r.Type, p.Name))
			case strings.HasPrefix(p.Definition, e.fhirBase()+"/"):
				if err := e.ownDefinition(ctx, p.Definition, r.Type, p.Name, p.Type); err != nil {
					problems = append(problems, err.Error())
				}
			}
		}
		for _, want := range []string{profiles[r.Type], planNetProfiles[r.Type]} {
			if want != "" && !slices.Contains(r.SupportedProfile, want) {
				problems = append(problems, fmt.Sprintf("%s supportedProfile %v lacks %s", r.Type, r.SupportedProfile, want))
			}
		}
		var interactions []string
		for _, in := range r.Interaction {
			interactions = append(interactions, in.Code)
		}
		// the directory's types; Subscription (create, read, delete) is held by subscriptionChecks
		if slices.Contains(servedTypes, r.Type) && (!slices.Contains(interactions, "read") || !slices.Contains(interactions, "search-type")) {
			problems = append(problems, fmt.Sprintf("%s interactions %v lack read or search-type", r.Type, interactions))
		}
	}
	for _, typ := range servedTypes {
		if !served[typ] {
			problems = append(problems, "no rest.resource for "+typ)
		}
	}
	for _, s := range shallSearches {
		if !slices.Contains(params[s.typ], strings.SplitN(s.param, ".", 2)[0]) {
			problems = append(problems, fmt.Sprintf("%s does not list search parameter %s", s.typ, s.param))
		}
	}
	return joinProblems(problems)
}

// ownDefinition reads a SearchParameter the server defines, at the canonical its
// CapabilityStatement names and without a token, as the statement is read: it must be the
// definition of the parameter it is named for.
func (e *Env) ownDefinition(ctx context.Context, canonical, typ, name, kind string) error {
	res, err := e.do(ctx, http.MethodGet, canonical, http.Header{"Accept": {"application/fhir+json"}}, nil)
	if err != nil {
		return err
	}
	var sp struct {
		ResourceType, URL, Code, Type string
		Base                          []string
	}
	if res.status != http.StatusOK {
		return fmt.Errorf("%s searchParam %s: its definition %s answers %d without a token, want 200", typ, name, canonical, res.status)
	}
	if err := res.json(&sp); err != nil {
		return err
	}
	if sp.ResourceType != "SearchParameter" || sp.URL != canonical || sp.Code != name || sp.Type != kind || !slices.Equal(sp.Base, []string{typ}) {
		return fmt.Errorf("%s searchParam %s (%s): %s is a %s of url %s, code %s, base %v, type %s", typ, name, kind, canonical, sp.ResourceType, sp.URL, sp.Code, sp.Base, sp.Type)
	}
	return nil
}

// readCheck reads a served resource of typ by id and holds it to its profile's mandatory
// elements.
func readCheck(typ string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		s, err := e.sampleOf(ctx, typ)
		if err != nil {
			return err
		}
		res, err := e.fhirGet(ctx, fmt.Sprintf("%s/%v", typ, s["id"]), nil)
		if err != nil {
			return err
		}
		if res.status != http.StatusOK {
			return fmt.Errorf("%s: %d, want 200", res.url, res.status)
		}
		if res.header.Get("ETag") == "" {
			return fmt.Errorf("%s: no ETag", res.url)
		}
		var r map[string]any
		if err := res.json(&r); err != nil {
			return err
		}
		if r["resourceType"] != typ || r["id"] != s["id"] {
			return fmt.Errorf("%s: answered %v/%v", res.url, r["resourceType"], r["id"])
		}
		var problems []string
		if prof, _ := path(r, "meta", "profile").([]any); !slices.Contains(prof, any(profiles[typ])) {
			problems = append(problems, fmt.Sprintf("meta.profile %v lacks %s", prof, profiles[typ]))
		}
		for _, m := range mandatory[typ] {
			if err := m(r); err != nil {
				problems = append(problems, err.Error())
			}
		}
		return joinProblems(problems)
	}
}

// mandatory are the rules each profile makes of an element's presence or value.
var mandatory = map[string][]func(map[string]any) error{
	"Practitioner": {
		present("identifier"), present("name"),
		func(r map[string]any) error {
			for _, n := range list(r["name"]) {
				if path(n, "family") != nil {
					return nil
				}
			}
			return fmt.Errorf("no name has a family")
		},
		npiSlice,
	},
	"PractitionerRole": {
		func(r map[string]any) error { // pd-1
			if r["telecom"] == nil && r["endpoint"] == nil {
				return fmt.Errorf("pd-1: neither telecom nor endpoint")
			}
			return nil
		},
		func(r map[string]any) error { // us-core-13
			for _, k := range []string{"practitioner", "organization", "healthcareService", "location"} {
				if r[k] != nil {
					return nil
				}
			}
			return fmt.Errorf("us-core-13: none of practitioner, organization, healthcareService, location")
		},
	},
	"Organization":      {present("active"), present("name")},
	"Location":          {present("name")},
	"HealthcareService": {equals("active", true)},
	"Endpoint":          {present("status"), present("connectionType"), present("address"), present("payloadType")},
}

func present(field string) func(map[string]any) error {
	return func(r map[string]any) error {
		if r[field] == nil {
			return fmt.Errorf("no %s", field)
		}
		return nil
	}
}

func equals(field string, want any) func(map[string]any) error {
	return func(r map[string]any) error {
		if r[field] != want {
			return fmt.Errorf("%s is %v, want %v", field, r[field], want)
		}
		return nil
	}
}

// npiSlice holds a Practitioner's NPI identifiers to ten digits with a valid check digit.
func npiSlice(r map[string]any) error {
	for _, id := range list(r["identifier"]) {
		if path(id, "system") != npiSystem {
			continue
		}
		v, _ := path(id, "value").(string)
		if !validNPI(v) {
			return fmt.Errorf("NPI identifier %q is not ten digits with a valid check digit", v)
		}
		return nil
	}
	return fmt.Errorf("no identifier of system %s", npiSystem)
}

const npiSystem = "http://hl7.org/fhir/sid/us-npi"

// validNPI applies the Luhn check over the prefix 80840 the NPI standard defines.
func validNPI(s string) bool {
	if len(s) != 10 {
		return false
	}
	sum := 24 // the digits of 80840, doubled as their places require
	for i := 8; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			return false
		}
		d := int(c - '0')
		if (8-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return s[9] >= '0' && s[9] <= '9' && (sum+int(s[9]-'0'))%10 == 0
}

func checkProvenanceTags(ctx context.Context, e *Env) error {
	r, err := e.sampleOf(ctx, "Practitioner")
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range list(path(r, "meta", "tag")) {
		sys, _ := path(t, "system").(string)
		if i := strings.LastIndex(sys, "/provenance/"); i >= 0 {
			seen[sys[i+len("/provenance/"):]] = true
		}
	}
	var missing []string
	for _, k := range provenanceKeys {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("meta.tag lacks the provenance keys %v", missing)
	}
	return nil
}

func checkUnknownID(ctx context.Context, e *Env) error {
	res, err := e.fhirGet(ctx, "Practitioner/no-such-id-"+randomJTI()[:8], nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusNotFound {
		return fmt.Errorf("%d, want 404", res.status)
	}
	return operationOutcome(res)
}

func checkStrict(ctx context.Context, e *Env) error {
	res, err := e.fhirGet(ctx, "Practitioner?no-such-parameter=1", http.Header{"Prefer": {"handling=strict"}})
	if err != nil {
		return err
	}
	if res.status != http.StatusBadRequest {
		return fmt.Errorf("%d, want 400", res.status)
	}
	return operationOutcome(res)
}

// operationOutcome holds an error's body to an OperationOutcome with at least one issue.
func operationOutcome(res response) error {
	var oo struct {
		ResourceType string `json:"resourceType"`
		Issue        []struct {
			Severity string `json:"severity"`
			Code     string `json:"code"`
		} `json:"issue"`
	}
	if err := res.json(&oo); err != nil {
		return err
	}
	if oo.ResourceType != "OperationOutcome" || len(oo.Issue) == 0 || oo.Issue[0].Severity == "" || oo.Issue[0].Code == "" {
		return fmt.Errorf("%s: body is not an OperationOutcome with an issue: %.200s", res.url, res.body)
	}
	return nil
}

// path walks nested JSON objects; nil when a step is missing.
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// list is v as a JSON array, or nil.
func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// mustSupport are the must-support elements of each US Core profile (FHIR-REQUIREMENTS.md).
// Like Inferno, the suite asks that each be shown by at least one served resource of the
// sample page: a server that never fills an element cannot show it supports it.
var mustSupport = map[string][]string{
	"Practitioner":     {"identifier", "name", "telecom", "address"},
	"PractitionerRole": {"practitioner", "organization", "code", "specialty", "location", "telecom", "endpoint"},
	"Organization":     {"identifier", "active", "name", "telecom", "address"},
	"Location":         {"status", "name", "telecom", "address", "managingOrganization"},
}

func mustSupportCheck(typ string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		rs, err := e.samplesOf(ctx, typ)
		if err != nil {
			return err
		}
		var missing []string
		for _, el := range mustSupport[typ] {
			if !slices.ContainsFunc(rs, func(r map[string]any) bool { return r[el] != nil }) {
				missing = append(missing, el)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("none of %d served %s resources has %v", len(rs), typ, missing)
		}
		return nil
	}
}

// readSample reads a served resource of typ, returning its path and the answer.
func readSample(ctx context.Context, e *Env, typ string) (string, response, error) {
	r, err := e.sampleOf(ctx, typ)
	if err != nil {
		return "", response{}, err
	}
	p := fmt.Sprintf("%s/%v", typ, r["id"])
	res, err := e.fhirGet(ctx, p, nil)
	return p, res, err
}

func checkConditionalRead(ctx context.Context, e *Env) error {
	p, res, err := readSample(ctx, e, "Practitioner")
	if err != nil {
		return err
	}
	tag := res.header.Get("ETag")
	if res.status != http.StatusOK || tag == "" {
		return fmt.Errorf("%s: %d with ETag %q", p, res.status, tag)
	}
	again, err := e.fhirGet(ctx, p, http.Header{"If-None-Match": {tag}})
	if err != nil {
		return err
	}
	if again.status != http.StatusNotModified {
		return fmt.Errorf("%s with If-None-Match %s: %d, want 304", p, tag, again.status)
	}
	return nil
}

// checkVread reads a resource, then vreads the version its meta.versionId names, as Inferno's
// US Core vread test does: the same resource, and (R4's version-aware updates rest on it) an
// ETag of W/"<versionId>" on both.
func checkVread(ctx context.Context, e *Env) error {
	p, res, err := readSample(ctx, e, "Practitioner")
	if err != nil {
		return err
	}
	var read map[string]any
	if err := res.json(&read); err != nil {
		return err
	}
	vid, _ := path(read, "meta", "versionId").(string)
	if res.status != http.StatusOK || vid == "" {
		return fmt.Errorf("%s: %d with meta.versionId %q", p, res.status, vid)
	}
	want := `W/"` + vid + `"`
	if tag := res.header.Get("ETag"); tag != want {
		return fmt.Errorf("%s: ETag %s, meta.versionId %s", p, tag, vid)
	}
	v, err := e.fhirGet(ctx, p+"/_history/"+vid, nil)
	if err != nil {
		return err
	}
	var vread map[string]any
	if v.status != http.StatusOK {
		return fmt.Errorf("%s/_history/%s: %d, want 200", p, vid, v.status)
	}
	if err := v.json(&vread); err != nil {
		return err
	}
	if got, _ := path(vread, "meta", "versionId").(string); vread["id"] != read["id"] || got != vid || v.header.Get("ETag") != want {
		return fmt.Errorf("%s/_history/%s: answered id %v, versionId %q, ETag %s", p, vid, vread["id"], got, v.header.Get("ETag"))
	}
	return nil
}

func checkFormat(ctx context.Context, e *Env) error {
	res, err := e.fhirGet(ctx, "Practitioner?_format=application/fhir%2Bxml&_count=1", nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusNotAcceptable {
		return fmt.Errorf("_format=application/fhir+xml: %d, want 406 from a JSON-only server", res.status)
	}
	return operationOutcome(res)
}

// checkBulkExport runs a system-level export of Practitioners as the Bulk Data Access IG 2.0
// has a client do it: the kick-off with Prefer: respond-async answers 202 and a status URL,
// the status (polled while it answers 202) a manifest, each file NDJSON of resources of its
// type (kept for the validator), and a DELETE of the status URL ends the job. A kick-off
// without the Prefer header, without an Accept header, or with a _since later than now is a
// 400 OperationOutcome, as the SMART bulk data tester expects.
func checkBulkExport(ctx context.Context, e *Env) error {
	if err := checkExportRefusals(ctx, e); err != nil {
		return err
	}
	status, err := kickOffExport(ctx, e)
	if err != nil {
		return err
	}
	m, err := awaitManifest(ctx, e, status)
	if err != nil {
		return err
	}
	for _, o := range m.Output {
		if err := checkExportFile(ctx, e, o); err != nil {
			return err
		}
	}
	return cancelExport(ctx, e, status)
}

// exportKickOff is the kick-off of an export of Practitioners.
const exportKickOff = "$export?_type=Practitioner"

// checkExportRefusals checks that a kick-off without Prefer: respond-async, without Accept or
// with a _since in the future is a 400 OperationOutcome.
func checkExportRefusals(ctx context.Context, e *Env) error {
	async := http.Header{"Prefer": {"respond-async"}}
	for _, bad := range []struct {
		what, query string
		header      http.Header
	}{
		{"without Prefer: respond-async", "", nil},
		{"without Accept", "", http.Header{"Prefer": {"respond-async"}, "Accept": nil}},
		{"with _since in the future", "&_since=" + time.Now().UTC().AddDate(1, 0, 0).Format("2006-01-02T15:04:05Z"), async},
	} {
		res, err := e.fhirGet(ctx, exportKickOff+bad.query, bad.header)
		if err != nil {
			return err
		}
		if res.status != http.StatusBadRequest {
			return fmt.Errorf("kick-off %s: %d, want 400", bad.what, res.status)
		}
		if err := operationOutcome(res); err != nil {
			return fmt.Errorf("kick-off %s: %w", bad.what, err)
		}
	}
	return nil
}

// kickOffExport starts the export and returns its status URL.
func kickOffExport(ctx context.Context, e *Env) (string, error) {
	res, err := e.fhirGet(ctx, exportKickOff, http.Header{"Prefer": {"respond-async"}})
	if err != nil {
		return "", err
	}
	status := res.header.Get("Content-Location")
	if res.status != http.StatusAccepted || status == "" {
		return "", fmt.Errorf("kick-off: %d with Content-Location %q, want 202 and a status URL", res.status, status)
	}
	return status, nil
}

// exportManifest is the part of a completed export's manifest the check reads.
type exportManifest struct {
	TransactionTime     string         `json:"transactionTime"`
	Request             string         `json:"request"`
	RequiresAccessToken *bool          `json:"requiresAccessToken"`
	Output              []exportOutput `json:"output"`
	Error               []any          `json:"error"`
}

// exportOutput is one file of a manifest.
type exportOutput struct {
	Type  string `json:"type"`
	URL   string `json:"url"`
	Count *int   `json:"count"`
}

// awaitManifest polls the status URL while it answers 202, for at most ten seconds, and reads
// the manifest it then answers with.
func awaitManifest(ctx context.Context, e *Env, status string) (exportManifest, error) {
	var m exportManifest
	var res response
	var err error
	for polls := 0; ; polls++ {
		if res, err = e.fhirGet(ctx, status, nil); err != nil {
			return m, err
		}
		if res.status != http.StatusAccepted || polls == 10 {
			break
		}
		time.Sleep(time.Second)
	}
	if res.status != http.StatusOK {
		return m, fmt.Errorf("status %s: %d, want 200 with the manifest", status, res.status)
	}
	if err := res.json(&m); err != nil {
		return m, err
	}
	if m.TransactionTime == "" || m.Request == "" || m.RequiresAccessToken == nil || m.Error == nil || len(m.Output) == 0 {
		return m, fmt.Errorf("manifest lacks transactionTime, request, requiresAccessToken, error or any output: %.300s", res.body)
	}
	return m, nil
}

// checkExportFile downloads one file of the manifest and checks that it is NDJSON of
// Practitioners, as many as the manifest counts; its lines go to the validator.
func checkExportFile(ctx context.Context, e *Env, o exportOutput) error {
	if o.Type != "Practitioner" {
		return fmt.Errorf("manifest: a %s file in an export of _type=Practitioner", o.Type)
	}
	file, err := e.fhirGet(ctx, o.URL, http.Header{"Accept": {"application/fhir+ndjson"}})
	if err != nil {
		return err
	}
	if file.status != http.StatusOK || !strings.HasPrefix(file.header.Get("Content-Type"), "application/fhir+ndjson") {
		return fmt.Errorf("%s: %d %q, want 200 application/fhir+ndjson", o.URL, file.status, file.header.Get("Content-Type"))
	}
	lines := bytes.Split(bytes.TrimSuffix(file.body, []byte("\n")), []byte("\n"))
	for i, line := range lines {
		var r struct {
			ResourceType string `json:"resourceType"`
		}
		if err := json.Unmarshal(line, &r); err != nil || r.ResourceType != o.Type {
			return fmt.Errorf("%s line %d is not a %s: %.100s", o.URL, i+1, o.Type, line)
		}
		e.collect(line)
	}
	if o.Count != nil && *o.Count != len(lines) {
		return fmt.Errorf("%s: %d lines, the manifest counts %d", o.URL, len(lines), *o.Count)
	}
	return nil
}

// cancelExport deletes the export's status URL (202) and checks that the status is then 404.
func cancelExport(ctx context.Context, e *Env, status string) error {
	res, err := e.fhirDo(ctx, http.MethodDelete, status, nil, "")
	if err != nil {
		return err
	}
	if res.status != http.StatusAccepted {
		return fmt.Errorf("DELETE %s: %d, want 202", status, res.status)
	}
	if res, err = e.fhirGet(ctx, status, nil); err != nil {
		return err
	}
	if res.status != http.StatusNotFound {
		return fmt.Errorf("status of a cancelled export: %d, want 404", res.status)
	}
	return nil
}
