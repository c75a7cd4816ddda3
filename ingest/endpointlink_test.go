package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/fhirvalidate"
)

// TestFHIREndpointLinks: an Endpoint whose endpoint file row says it is affiliated elsewhere is
// managed by the one organization, not itself a subpart, whose legal business name is the row's
// Affiliation Legal Business Name (case, punctuation and spacing aside), the reference stating
// that rule and its confidence; where two organizations have the name, or none, it references
// none and names the affiliation by display. A practice Location names exactly the Endpoints of
// its NPI whose row gives its address (lines, city and state with case, punctuation and spacing
// aside; the ZIP's first five digits). Every expectation is read from the drop's files; the
// synthetic drop holds each kind, messy rows included, and every resource read validates.
func TestFHIREndpointLinks(t *testing.T) {
	base := drops(t).Base
	legal := map[string][]string{} // organizations not subparts, by legal name key
	lbn := map[string]string{}     // their legal names as written, by NPI
	for _, r := range npidataRows(t, base) {
		if r["Entity Type Code"] == "2" && r["Is Organization Subpart"] != "Y" {
			if k := nameKey(r["Provider Organization Name (Legal Business Name)"]); k != "" {
				legal[k] = append(legal[k], r["NPI"])
				lbn[r["NPI"]] = r["Provider Organization Name (Legal Business Name)"]
			}
		}
	}
	rows := endpointRows(t, base)

	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.Serving(ctx, s)
	endpoints := servedAll(t, s, snap, fhirmap.TypeEndpoint)
	locations := servedAll(t, s, snap, fhirmap.TypeLocation)

	// The row of each Endpoint: its NPI (the id's prefix) and its address, where one row has them.
	type rowKey struct{ npi, address string }
	byKey := map[rowKey][]map[string]string{}
	for _, r := range rows {
		k := rowKey{r["NPI"], r["Endpoint"]}
		byKey[k] = append(byKey[k], r)
	}
	rowOf := map[string]map[string]string{} // Endpoint id -> its row
	unknown := map[string]bool{}            // NPIs with an Endpoint whose row is not told apart
	for id, ep := range endpoints {
		k := rowKey{strings.SplitN(id, ".", 2)[0], ep["address"].(string)}
		if len(byKey[k]) == 1 {
			rowOf[id] = byKey[k][0]
		} else {
			unknown[k.npi] = true
		}
	}

	kinds := map[string]int{}
	for id, row := range rowOf {
		if row["Affiliation"] != "Y" || row["Affiliation Legal Business Name"] == "" {
			continue
		}
		m, _ := endpoints[id]["managingOrganization"].(map[string]any)
		ref, _ := m["reference"].(string)
		ext, _ := m["extension"].([]any)
		named := legal[nameKey(row["Affiliation Legal Business Name"])]
		switch {
		case len(named) == 1 && servedOne(t, s, snap, named[0]):
			kinds["resolved"]++
			if lbn[named[0]] != row["Affiliation Legal Business Name"] {
				kinds["resolved from a name written another way"]++
			}
			if ref != "Organization/"+named[0] || len(ext) != 1 || !strings.Contains(mustJSON(t, ext), `"url":"confidence","valueDecimal":0.9`) ||
				!strings.Contains(mustJSON(t, ext), fhirmap.ExtLinkMatch) {
				t.Errorf("Endpoint/%s, affiliation %q is Organization/%s alone: managingOrganization %v", id, row["Affiliation Legal Business Name"], named[0], m)
			}
		default:
			if len(named) > 1 {
				kinds["ambiguous"]++
			} else {
				kinds["no such organization"]++
			}
			if ref != "" || len(ext) > 0 || m["display"] != row["Affiliation Legal Business Name"] {
				t.Errorf("Endpoint/%s, affiliation %q names %d organizations: managingOrganization %v, want the name by display only",
					id, row["Affiliation Legal Business Name"], len(named), m)
			}
		}
	}

	for id, loc := range locations {
		if strings.HasPrefix(id, "ccn-") {
			continue
		}
		npi := strings.SplitN(id, ".", 2)[0]
		if unknown[npi] {
			continue
		}
		a, _ := loc["address"].(map[string]any)
		var lines []string
		for _, l := range list(a["line"]) {
			lines = append(lines, l.(string))
		}
		city, _ := a["city"].(string)
		state, _ := a["state"].(string)
		zip, _ := a["postalCode"].(string)
		here := placeOf(strings.Join(lines, " "), city, state, zip)
		var want []string
		messy := false
		for epID, row := range rowOf {
			if strings.HasPrefix(epID, npi+".") && here != "" &&
				placeOf(row["Affiliation Address Line One"]+" "+row["Affiliation Address Line Two"], row["Affiliation Address City"],
					row["Affiliation Address State"], row["Affiliation Address Postal Code"]) == here {
				want = append(want, "Endpoint/"+epID)
				messy = messy || row["Affiliation Address City"] != city || row["Affiliation Address State"] != state ||
					strings.TrimSpace(row["Affiliation Address Line One"]) != lines[0] || len(row["Affiliation Address Postal Code"]) != len(strings.ReplaceAll(zip, "-", ""))
			}
		}
		var got []string
		for _, e := range list(loc["endpoint"]) {
			got = append(got, e.(map[string]any)["reference"].(string))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Location/%s at %q names %v, want %v", id, here, got, want)
		}
		if len(want) > 0 {
			kinds["location with endpoints"]++
			if messy {
				kinds["location matched by a row written another way"]++
			}
		}
	}
	for _, k := range []string{"resolved", "resolved from a name written another way", "ambiguous", "no such organization",
		"location with endpoints", "location matched by a row written another way"} {
		if kinds[k] == 0 {
			t.Errorf("the drop has no case of %s (%v)", k, kinds)
		}
	}
	t.Logf("cases: %v", kinds)
}

// placeOf is an address with case, punctuation and spacing aside in its lines and city, the
// state in capitals and the ZIP's first five digits; "" when a part is missing.
func placeOf(lines, city, state, zip string) string {
	zip = strings.ReplaceAll(strings.TrimSpace(zip), "-", "")
	if len(zip) != 5 && len(zip) != 9 {
		return ""
	}
	l, c, s := nameKey(lines), nameKey(city), strings.ToUpper(strings.TrimSpace(state))
	if l == "" || c == "" || s == "" {
		return ""
	}
	return l + "|" + c + "|" + s + "|" + zip[:5]
}

// servedOne reports whether the Organization of an NPI is served.
func servedOne(t *testing.T, s store.Store, snap store.Snapshot, npi string) bool {
	m, _ := readFHIR(t, s, snap, fhirmap.TypeOrganization, npi)
	return m != nil
}

// servedAll reads every resource of a type as served, each validated, by id.
func servedAll(t *testing.T, s store.Store, snap store.Snapshot, typ string) map[string]map[string]any {
	t.Helper()
	ctx := t.Context()
	coll := catalog.FHIRCollection(typ)
	out := map[string]map[string]any{}
	err := store.EachDocument(ctx, s, store.Query{Collection: coll, Generation: snap.Generation(coll)}, func(d *store.Document) error {
		b, err := fhirvalidate.Stored(ctx, s, snap.Generation(catalog.FHIRTags), *d)
		if err != nil {
			return err
		}
		if err := fhirvalidate.Validate(b, fhirmap.TagSystemPrefix); err != nil {
			t.Error(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		out[d.ID] = m
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// endpointRows reads the drop's endpoint file as rows by column name, NPPES's <UNAVAIL>
// placeholder read as empty.
func endpointRows(t *testing.T, dir string) []map[string]string {
	rows := dropFileRows(t, dir, "endpoint_pfile_*.csv")
	for _, m := range rows {
		for h, v := range m {
			m[h] = strings.ReplaceAll(v, "<UNAVAIL>", "")
		}
	}
	return rows
}

func list(v any) []any { l, _ := v.([]any); return l }

// TestFHIRSandboxAffiliate: the sandbox stays closed under references when a sandbox
// practitioner's endpoint is affiliated with an organization outside it: that organization,
// found by its legal name, joins the sandbox with its resources.
func TestFHIRSandboxAffiliate(t *testing.T) {
	base := drops(t).Base
	ctx := context.Background()
	first := backends.Embedded(t)
	if _, err := ingest.Run(ctx, ingest.Options{Store: first, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.Serving(ctx, first)
	inSandbox := func(s store.Store, snap store.Snapshot, typ, id string) bool {
		coll := catalog.FHIRCollection(typ)
		d, err := s.Get(ctx, snap.Generation(coll), coll, id)
		if err != nil {
			t.Fatalf("%s/%s: %v", typ, id, err)
		}
		return slices.Contains(d.Keys, store.Key{Param: fhirmap.KeySandbox, Value: "1"})
	}
	legal := map[string][]string{} // organizations not subparts, by legal name key
	var names []string
	for _, r := range npidataRows(t, base) {
		if r["Entity Type Code"] == "2" && r["Is Organization Subpart"] != "Y" {
			n := r["Provider Organization Name (Legal Business Name)"]
			if legal[nameKey(n)] = append(legal[nameKey(n)], r["NPI"]); len(legal[nameKey(n)]) == 1 {
				names = append(names, n)
			}
		}
	}
	var sandboxNPI, org, orgName string
	err := store.EachDocument(ctx, first, store.Query{Collection: catalog.SandboxNPIs, Generation: snap.Generation(catalog.SandboxNPIs)}, func(d *store.Document) error {
		if sandboxNPI == "" {
			if _, err := readFHIR(t, first, snap, fhirmap.TypePractitioner, d.ID); err == nil {
				sandboxNPI = strings.Clone(d.ID)
			}
		}
		return nil
	})
	if err != nil || sandboxNPI == "" {
		t.Fatalf("no sandbox practitioner: %v", err)
	}
	for _, n := range names {
		if npis := legal[nameKey(n)]; len(npis) == 1 {
			if m, err := readFHIR(t, first, snap, fhirmap.TypeOrganization, npis[0]); err == nil && m != nil && !inSandbox(first, snap, fhirmap.TypeOrganization, npis[0]) {
				org, orgName = npis[0], n
				break
			}
		}
	}
	if org == "" {
		t.Fatal("no organization of a unique legal name outside the sandbox")
	}

	dir := t.TempDir()
	entries, err := os.ReadDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(base, e.Name()))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	const address = "https://hie.affiliate.example.org/fhir"
	rewriteCSV(t, dir, "endpoint_pfile_", func(header []string, rows [][]string) [][]string {
		row := make([]string, len(header))
		for i, h := range header {
			switch h {
			case "NPI":
				row[i] = sandboxNPI
			case "Endpoint Type":
				row[i] = "FHIR"
			case "Endpoint":
				row[i] = address
			case "Affiliation":
				row[i] = "Y"
			case "Affiliation Legal Business Name":
				row[i] = strings.ToLower(orgName)
			}
		}
		return append(rows, row)
	})
	s := backends.Embedded(t)
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	snap, _ = store.Serving(ctx, s)
	eps := servedAll(t, s, snap, fhirmap.TypeEndpoint)
	var managed string
	for id, ep := range eps {
		if strings.HasPrefix(id, sandboxNPI+".") && ep["address"] == address {
			m, _ := ep["managingOrganization"].(map[string]any)
			managed, _ = m["reference"].(string)
			if !inSandbox(s, snap, fhirmap.TypeEndpoint, id) {
				t.Errorf("Endpoint/%s of sandbox practitioner %s is outside the sandbox", id, sandboxNPI)
			}
		}
	}
	if managed != "Organization/"+org {
		t.Fatalf("the affiliated endpoint of %s is managed by %q, want Organization/%s (%q)", sandboxNPI, managed, org, orgName)
	}
	if !inSandbox(s, snap, fhirmap.TypeOrganization, org) {
		t.Errorf("Organization/%s, which a sandbox Endpoint names, is outside the sandbox", org)
	}
}
