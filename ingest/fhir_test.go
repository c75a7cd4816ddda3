package ingest_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/stored"
	"providerdir/testing/backends"
	"providerdir/testing/fhirvalidate"
)

// TestFHIRSnapshot validates every FHIR resource of the demo snapshot with google/fhir/go and
// the US Core rules, checks that no reference dangles, and that the resources agree with the
// registry they were built from.
func TestFHIRSnapshot(t *testing.T) {
	base := drops(t).Base
	s := backends.Embedded(t)
	ctx := context.Background()
	res, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ingest.FHIRCollections {
		if sum, ok := res.Projections[c]; !ok || sum.Added == 0 {
			t.Errorf("projection %s: %+v", c, sum)
		}
	}
	snap, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}

	ids := map[string]bool{}      // "Type/id" of every resource
	refs := map[string][]string{} // reference -> resources making it
	docs := map[string]store.Document{}
	for _, typ := range fhirmap.Types {
		coll := catalog.FHIRCollection(typ)
		q := store.Query{Collection: coll, Generation: snap.Generation(coll), Limit: 1000}
		for {
			page, err := s.Find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Docs {
				ref := fhirmap.Ref(typ, d.ID)
				ids[ref] = true
				docs[ref] = d
				resource, err := fhirvalidate.Stored(ctx, s, snap.Generation(catalog.FHIRTags), d)
				if err != nil {
					t.Fatalf("%s: %v", ref, err)
				}
				if err := fhirvalidate.Validate(resource, fhirmap.TagSystemPrefix); err != nil {
					t.Errorf("%v", err)
				}
				rs, err := fhirvalidate.References(resource)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rs {
					refs[r] = append(refs[r], ref)
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	for r, from := range refs {
		if !ids[r] {
			t.Errorf("%s is referenced by %v but does not exist", r, from)
		}
	}

	// Every registry individual with a family name is a Practitioner, every named organization
	// an Organization, and the counts of the projection say so.
	var individuals, organizations int
	q := store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: 1000}
	page, err := s.Find(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range page.Docs {
		b, err := stored.DecodeBody[stored.RegistryRecord](d)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case fhirmap.HasPractitioner(&b.Record):
			individuals++
			if !ids["Practitioner/"+d.ID] {
				t.Errorf("individual %s has no Practitioner", d.ID)
			}
		case fhirmap.HasOrganization(&b.Record):
			organizations++
			// An inactive organization has no HealthcareService (Plan-Net fixes active to true).
			if !ids["Organization/"+d.ID] || ids["HealthcareService/"+d.ID] != b.Record.Active {
				t.Errorf("organization %s (active %v): Organization %v, HealthcareService %v", d.ID, b.Record.Active,
					ids["Organization/"+d.ID], ids["HealthcareService/"+d.ID])
			}
		default:
			if ids["Practitioner/"+d.ID] || ids["Organization/"+d.ID] {
				t.Errorf("blank record %s has a resource", d.ID)
			}
		}
	}
	if individuals == 0 || organizations == 0 {
		t.Fatalf("%d individuals, %d organizations", individuals, organizations)
	}

	// The joins found something to join: roles with organizations (PECOS reassignment),
	// organizations with a CCN (the hospital enrollment bridge), facilities of their own.
	count := func(pred func(ref string, d store.Document) bool) int {
		n := 0
		for ref, d := range docs {
			if pred(ref, d) {
				n++
			}
		}
		return n
	}
	has := func(d store.Document, param, prefix string) bool {
		return slices.ContainsFunc(d.Keys, func(k store.Key) bool { return k.Param == param && strings.HasPrefix(k.Value, prefix) })
	}
	checks := []struct {
		what string
		pred func(ref string, d store.Document) bool
	}{
		{"roles with an organization", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "PractitionerRole/") && has(d, fhirmap.KeyOrganization, "Organization/")
		}},
		{"NPI organizations with a CCN", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Organization/") && !strings.Contains(ref, "ccn-") && has(d, fhirmap.KeyIdentifier, fhirmap.SystemCCN+"|")
		}},
		{"facility organizations", func(ref string, d store.Document) bool { return strings.HasPrefix(ref, "Organization/ccn-") }},
		{"secondary locations", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Location/") && strings.Contains(ref, ".")
		}},
		{"sandbox practitioners", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Practitioner/") && has(d, fhirmap.KeySandbox, "1")
		}},
		{"sandbox organizations", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Organization/") && has(d, fhirmap.KeySandbox, "1")
		}},
		{"roles naming endpoints", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "PractitionerRole/") && has(d, fhirmap.KeyEndpoint, "Endpoint/")
		}},
		{"organizations naming endpoints", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Organization/") && has(d, fhirmap.KeyEndpoint, "Endpoint/")
		}},
		{"endpoints managed by their organization", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Endpoint/") && has(d, fhirmap.KeyOrganization, "Organization/")
		}},
		{"FHIR endpoints", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Endpoint/") && has(d, fhirmap.KeyConnectionType, fhirmap.SystemConnectionType+"|hl7-fhir-rest")
		}},
		{"sandbox endpoints", func(ref string, d store.Document) bool {
			return strings.HasPrefix(ref, "Endpoint/") && has(d, fhirmap.KeySandbox, "1")
		}},
	}
	for _, c := range checks {
		if n := count(c.pred); n == 0 {
			t.Errorf("no %s", c.what)
		} else {
			t.Logf("%d %s", n, c.what)
		}
	}

	// The sandbox is closed under references: whatever a sandbox resource points at is in the
	// sandbox too, so a sandbox client's includes and reads resolve.
	for ref, d := range docs {
		if !has(d, fhirmap.KeySandbox, "1") {
			continue
		}
		st, _ := fhirmap.Open(d.Body)
		rs, _ := fhirvalidate.References(st.Resource)
		for _, r := range rs {
			if !has(docs[r], fhirmap.KeySandbox, "1") {
				t.Errorf("sandbox %s points at %s, outside the sandbox", ref, r)
			}
		}
	}
	sandbox := count(func(ref string, d store.Document) bool {
		return strings.HasPrefix(ref, "Practitioner/") && has(d, fhirmap.KeySandbox, "1")
	})
	if want := min(catalog.SandboxSize, individuals); sandbox > want {
		t.Errorf("%d sandbox practitioners, at most %d", sandbox, want)
	}
}

// TestFHIRPartOf exercises the joins the synthetic drop does not produce on its own: two
// organization NPIs enrolled under one hospital CCN (each is part of the hospital, which keeps an
// Organization of its own), and a facility whose POS row names a related provider.
func TestFHIRPartOf(t *testing.T) {
	base := drops(t).Base
	dir := t.TempDir()
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(base, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var hospCCN, firstNPI, otherNPI, related string
	rewriteCSV(t, dir, "Hospital_Enrollments_", func(header []string, rows [][]string) [][]string {
		npi, ccn := slices.Index(header, "NPI"), slices.Index(header, "CCN")
		var good [][]string // rows a reader accepts (the drop holds deliberately bad ones)
		for _, r := range rows {
			if len(r) == len(header) && ident.ValidateNPI(r[npi]) == nil && ident.ValidateCCN(r[ccn]) == nil {
				good = append(good, r)
			}
		}
		// A second organization NPI (another hospital's) enrolled under the first one's CCN.
		extra := slices.Clone(good[0])
		extra[npi] = good[1][npi]
		hospCCN, firstNPI, otherNPI = good[0][ccn], good[0][npi], good[1][npi]
		return append(rows, extra)
	})
	rewriteCSV(t, dir, "Hospital_and_other", func(header []string, rows [][]string) [][]string {
		num, rel := slices.Index(header, "PRVDR_NUM"), slices.Index(header, "RELATED_PROVIDER_NUMBER")
		for _, r := range rows {
			if len(r) == len(header) && r[num] != hospCCN && ident.ValidateCCN(r[num]) == nil {
				r[rel], related = hospCCN, r[num]
				break
			}
		}
		return rows
	})

	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.Serving(ctx, s)
	read := func(typ, id string) map[string]any {
		t.Helper()
		m, err := readFHIR(t, s, snap, typ, id)
		if err != nil {
			t.Fatalf("%s/%s: %v", typ, id, err)
		}
		return m
	}
	partOf := func(m map[string]any) string {
		p, _ := m["partOf"].(map[string]any)
		s, _ := p["reference"].(string)
		return s
	}
	hospital := fhirmap.FacilityID(hospCCN)
	read("Organization", hospital) // the CCN is no longer one NPI's: the facility stands alone
	for _, npi := range []string{firstNPI, otherNPI} {
		if got := partOf(read("Organization", npi)); got != "Organization/"+hospital {
			t.Errorf("Organization/%s partOf %q, want Organization/%s", npi, got, hospital)
		}
	}
	if got := partOf(read("Organization", fhirmap.FacilityID(related))); got != "Organization/"+hospital {
		t.Errorf("facility %s partOf %q, want Organization/%s", related, got, hospital)
	}
}

// rewriteCSV rewrites the drop file whose name starts with prefix.
func rewriteCSV(t *testing.T, dir, prefix string, edit func(header []string, rows [][]string) [][]string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	if len(matches) != 1 {
		t.Fatalf("%s: %v", prefix, matches)
	}
	f, err := os.Open(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rows := edit(recs[0], recs[1:])
	w, err := os.Create(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(append([][]string{recs[0]}, rows...)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readFHIR reads the resource typ/id of snap as served: its stored document with the tags
// added back, checked by the FHIR validator, decoded. The error is the store's, when snap
// holds no such resource.
func readFHIR(t *testing.T, s store.Store, snap store.Snapshot, typ, id string) (map[string]any, error) {
	t.Helper()
	coll := catalog.FHIRCollection(typ)
	d, err := s.Get(t.Context(), snap.Generation(coll), coll, id)
	if err != nil {
		return nil, err
	}
	resource, err := fhirvalidate.Stored(t.Context(), s, snap.Generation(catalog.FHIRTags), d)
	if err != nil {
		t.Fatal(err)
	}
	if err := fhirvalidate.Validate(resource, fhirmap.TagSystemPrefix); err != nil {
		t.Error(err)
	}
	var m map[string]any
	_ = json.Unmarshal(resource, &m)
	return m, nil
}
