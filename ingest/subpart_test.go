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
	"unicode"

	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
	"providerdir/source/reference"
	"providerdir/store"
	"providerdir/testing/backends"
)

// TestFHIRSubpartParents: an organization the registry file marks a subpart is part of the one
// organization, not itself a subpart, whose legal business name is the subpart's Parent
// Organization LBN (case, punctuation and spacing aside), and its partOf states that rule and its
// confidence; where two organizations have the name, or none, it names no parent. The
// expectation is read from the drop's npidata file itself. The synthetic drop holds subparts of
// each kind.
func TestFHIRSubpartParents(t *testing.T) {
	base := drops(t).Base
	type row struct{ npi, lbn, parent string }
	var orgs, subparts []row
	for _, r := range npidataRows(t, base) {
		if r["Entity Type Code"] != "2" || r["Provider Organization Name (Legal Business Name)"] == "" {
			continue
		}
		x := row{npi: r["NPI"], lbn: nameKey(r["Provider Organization Name (Legal Business Name)"]), parent: nameKey(r["Parent Organization LBN"])}
		if r["Is Organization Subpart"] == "Y" {
			subparts = append(subparts, x)
		} else {
			orgs = append(orgs, x)
		}
	}

	s := backends.Embedded(t)
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: base, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	snap, _ := store.Serving(ctx, s)
	read := func(id string) map[string]any {
		m, _ := readFHIR(t, s, snap, fhirmap.TypeOrganization, id)
		return m
	}

	kinds := map[string]int{}
	for _, sp := range subparts {
		org := read(sp.npi)
		if org == nil {
			continue
		}
		var named []string
		for _, o := range orgs {
			if o.lbn == sp.parent && o.npi != sp.npi {
				named = append(named, o.npi)
			}
		}
		partOf, _ := org["partOf"].(map[string]any)
		ref, _ := partOf["reference"].(string)
		ext, _ := partOf["extension"].([]any)
		switch {
		case sp.parent == "":
			kinds["no parent name"]++
		case len(named) == 1 && read(named[0]) != nil:
			kinds["matched"]++
			if ref != "Organization/"+named[0] || len(ext) != 1 || !strings.Contains(mustJSON(t, ext), `"url":"confidence","valueDecimal":0.9`) ||
				!strings.Contains(mustJSON(t, ext), fhirmap.ExtLinkMatch) {
				t.Errorf("subpart %s, parent %q is Organization/%s alone: partOf %v", sp.npi, sp.parent, named[0], partOf)
			}
		default:
			if len(named) > 1 {
				kinds["ambiguous"]++
			} else {
				kinds["unmatched"]++
			}
			if len(ext) > 0 {
				t.Errorf("subpart %s, parent %q names %d organizations: partOf %v, want none by name", sp.npi, sp.parent, len(named), partOf)
			}
		}
	}
	for _, k := range []string{"matched", "ambiguous", "unmatched"} {
		if kinds[k] == 0 {
			t.Errorf("the drop has no %s subpart (%v)", k, kinds)
		}
	}
	t.Logf("subparts: %v", kinds)
}

// nameKey is a legal name with case, punctuation and spacing set aside.
func nameKey(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToUpper(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		} else {
			space = true
		}
	}
	return b.String()
}

// npidataRows reads the drop's NPPES registry file as rows by column name.
func npidataRows(t *testing.T, dir string) []map[string]string {
	return dropFileRows(t, dir, "npidata_pfile_*.csv")
}

// dropFileRows reads the one file of the drop matching glob (its _fileheader.csv companion
// aside) as rows by column name, skipping the drop's deliberately bad rows.
func dropFileRows(t *testing.T, dir, glob string) []map[string]string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, glob))
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasSuffix(n, "_fileheader.csv") })
	if len(names) != 1 {
		t.Fatalf("%s files %v", glob, names)
	}
	f, err := os.Open(names[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		if len(r) != len(recs[0]) {
			continue // the drop's deliberately bad rows
		}
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
