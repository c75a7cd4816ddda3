package nppes

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/ident"
	"providerdir/source"
	"providerdir/source/reference"
	"providerdir/testing/readercheck"
)

func date(y, m, d int) source.Date { return source.Date{Year: y, Month: time.Month(m), Day: d} }

func TestReferenceHeader(t *testing.T) {
	// The published 330-column header resolves, and the test files carry exactly that header.
	r, err := source.OpenFS(reference.Embedded(), HeaderFile, NewReader)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, rep := readercheck.Drain(t, r)
	if len(got) != 0 || rep.Rows != 0 || r.Header().Len() != 330 {
		t.Fatalf("header file: %d records, %s, %d columns", len(got), rep, r.Header().Len())
	}
	want := r.Header().Names()
	edge := readercheck.Open(t, Open, "npidata_edge.csv").Header().Names()
	if strings.Join(edge, "|") != strings.Join(want, "|") {
		t.Error("testdata/npidata_edge.csv header differs from the reference header")
	}
	gender := readercheck.Open(t, Open, "npidata_gender.csv").Header().Names()
	for i := range want {
		if gender[i] != want[i] && !(want[i] == "Provider Sex Code" && gender[i] == "Provider Gender Code") {
			t.Errorf("npidata_gender.csv column %d: %q, reference %q", i, gender[i], want[i])
		}
	}
}

func TestProviders(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "npidata_edge.csv")
	if len(got) != 4 || rep.Rows != 10 || rep.Rejected != 6 || rep.Encoding != "ISO-8859-1" {
		t.Fatalf("%d records, report %s", len(got), rep)
	}

	ind := got[0]
	if ind.NPI != "1234567893" || ind.EntityType != EntityIndividual ||
		ind.Name != (Name{Prefix: "DR.", First: "JOSÉ", Middle: "A", Last: "MUÑOZ", Credential: "M.D."}) ||
		ind.Sex != "M" || ind.Mailing.City != "ESPAÑOLA" || ind.Mailing.PostalCode != "875320012" ||
		ind.Practice.Line2 != `SUITE 2, "EAST" WING` || ind.Practice.State != "NM" ||
		ind.EnumerationDate != date(2005, 5, 23) || ind.LastUpdate != date(2007, 7, 8) ||
		ind.CertificationDate != date(2024, 1, 15) || !ind.DeactivationDate.IsZero() || ind.Deactivated() ||
		ind.SoleProprietor != source.Unset {
		t.Errorf("individual: %+v", ind)
	}
	if ind.Taxonomies[0] != (Taxonomy{Code: "207R00000X", License: "MD123", LicenseState: "NM"}) ||
		ind.Taxonomies[1] != (Taxonomy{Code: "207RC0000X", License: "MD123", LicenseState: "NM", Primary: true}) ||
		ind.Taxonomies[2] != (Taxonomy{}) {
		t.Errorf("taxonomies: %+v", ind.Taxonomies[:3])
	}
	if pt, ok := ind.PrimaryTaxonomy(); !ok || pt.Code != "207RC0000X" {
		t.Errorf("primary taxonomy %+v", pt)
	}
	if len(ind.OtherIdentifiers) != 1 || ind.OtherIdentifiers[0] != (OtherIdentifier{ID: "0012345", TypeCode: "05", State: "NM"}) {
		t.Errorf("other identifiers %+v", ind.OtherIdentifiers)
	}

	org := got[1]
	if org.EntityType != EntityOrganization || org.OrgName != `ACME "BEST" CLINIC, LLC` || org.EIN != "" ||
		org.OtherOrgName != "ACME CLINIC" || org.OtherOrgNameType != "3" || org.LastUpdate != date(2021, 2, 3) ||
		org.Official != (Official{Name: Name{Prefix: "MS.", First: "JANE", Last: "SMITH", Credential: "MBA"}, Title: "CEO", Phone: "6175550100"}) ||
		org.OrgSubpart != source.Yes || org.ParentOrgLBN != "ACME HOLDINGS" || org.ParentOrgTIN != "123456789" ||
		!org.CertificationDate.IsZero() || org.OtherIdentifiers != nil {
		t.Errorf("organization: %+v", org)
	}
	if pt, _ := org.PrimaryTaxonomy(); pt.Code != "261QM0801X" || !pt.Primary {
		t.Errorf("organization taxonomy %+v", pt)
	}

	deact := got[2]
	if deact.NPI != "1003000126" || deact.EntityType != EntityUnknown || deact.DeactivationDate != date(2019, 1, 10) ||
		!deact.Deactivated() || !deact.EnumerationDate.IsZero() {
		t.Errorf("deactivated: %+v", deact)
	}
	if _, ok := deact.PrimaryTaxonomy(); ok {
		t.Error("deactivated NPI has a taxonomy")
	}
	react := got[3]
	if react.DeactivationReason != "DT" || react.DeactivationDate != date(2010, 3, 1) || react.ReactivationDate != date(2010, 4, 1) || react.Deactivated() {
		t.Errorf("reactivated: %+v", react)
	}

	want := []source.RowError{
		{File: "npidata_edge.csv", Line: 6, Column: "NPI", Reason: "invalid NPI: bad check digit", Value: "1234567890"},
		{File: "npidata_edge.csv", Line: 7, Column: "Provider Enumeration Date", Reason: "bad date", Value: "02/30/2010"},
		{File: "npidata_edge.csv", Line: 8, Reason: "wrong column count", Value: "329 columns, header has 330"},
		{File: "npidata_edge.csv", Line: 9, Column: "Entity Type Code", Reason: "entity type not 1 or 2", Value: "3"},
		{File: "npidata_edge.csv", Line: 10, Column: "Healthcare Provider Taxonomy Code_3", Reason: "invalid taxonomy code: wrong length", Value: "207X"},
		{File: "npidata_edge.csv", Line: 11, Column: "Entity Type Code", Reason: "missing value"},
	}
	readercheck.RowErrors(t, rep, want)
}

func TestGenderHeader(t *testing.T) {
	got, rep := readercheck.DrainFile(t, Open, "npidata_gender.csv")
	if len(got) != 2 || rep.Rejected != 0 || rep.Encoding != "UTF-8" {
		t.Fatalf("report %s", rep)
	}
	if got[0].Sex != "F" || got[0].Name.Last != "Müller" || got[1].OrgName != "ÆON CARE" {
		t.Errorf("got %+v / %+v", got[0].Name, got[1].OrgName)
	}
	// NPPES's <UNAVAIL>, in any case, is no value: no EIN, no other name and so no name type.
	if org := got[1]; org.EIN != "" || org.OtherOrgName != "" || org.OtherOrgNameType != "" {
		t.Errorf("placeholders read as data: EIN %q, other name %q (type %q)", org.EIN, org.OtherOrgName, org.OtherOrgNameType)
	}
}

func TestLocations(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenLocations, "pl_edge.csv")
	want := []Location{
		{NPI: "1234567893", Address: Address{Line1: "3 OAK AVE", Line2: "FLOOR 2", City: "SANTA FE", State: "NM", PostalCode: "87501",
			Country: "US", Phone: "5055550101", Fax: "5055550102"}, Extension: "12"},
		{NPI: "1245319599", Address: Address{Line1: "1 RUE DE LA PAIX", City: "PARIS", PostalCode: "75002", Country: "FR"}},
	}
	readercheck.Equal(t, "record", got, want)
	if len(rep.Errors) != 2 || rep.Errors[0].Line != 3 || rep.Errors[0].Column != "NPI" ||
		rep.Errors[1].Line != 5 || rep.Errors[1].Reason != "wrong column count" {
		t.Errorf("errors %+v", rep.Errors)
	}
}

func TestOtherNames(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenOtherNames, "othername_edge.csv")
	if len(got) != 2 || got[1] != (OtherName{NPI: "1245319599", Name: "ACME OLD NAME", TypeCode: "4"}) {
		t.Errorf("got %+v", got)
	}
	if len(rep.Errors) != 2 || rep.Errors[0].Reason != "invalid NPI: wrong length" ||
		rep.Errors[1].Column != "Provider Other Organization Name" || rep.Errors[1].Reason != "missing value" {
		t.Errorf("errors %+v", rep.Errors)
	}
}

func TestFileErrors(t *testing.T) {
	_, err := Open(filepath.Join("testdata", "pl_edge.csv"))
	var he *source.HeaderError
	if !errors.As(err, &he) || he.What != "NPPES npidata_pfile" || he.Missing[0] != "Entity Type Code" ||
		!strings.Contains(err.Error(), `pl_edge.csv: header does not match NPPES npidata_pfile: missing "Entity Type Code", "Replacement NPI"`) {
		t.Errorf("pl_pfile read as npidata: %v", err)
	}
	_, err = OpenLocations(filepath.Join("testdata", "npidata_edge.csv"))
	readercheck.Refused(t, err, `missing "Provider Secondary Practice Location Address- Address Line 1"`)
	readercheck.Missing(t, OpenOtherNames)
}

func FuzzProviders(f *testing.F) {
	readercheck.FuzzFiles(f, "npidata_*.csv", NewReader, func(p Provider) bool {
		return ident.ValidateNPI(p.NPI) != nil || p.EntityType == EntityUnknown && p.DeactivationDate.IsZero()
	})
}

func FuzzLocations(f *testing.F) {
	readercheck.FuzzFiles(f, "pl_*.csv", NewLocationReader, func(l Location) bool {
		return ident.ValidateNPI(l.NPI) != nil
	})
}

func FuzzOtherNames(f *testing.F) {
	readercheck.FuzzFiles(f, "othername_*.csv", NewOtherNameReader, func(o OtherName) bool {
		return ident.ValidateNPI(o.NPI) != nil || o.Name == ""
	})
}

func FuzzEndpoints(f *testing.F) {
	readercheck.FuzzFiles(f, "endpoint_*.csv", NewEndpointReader, func(e Endpoint) bool {
		return ident.ValidateNPI(e.NPI) != nil || e.Type == "" || e.Address == ""
	})
}

// benchData repeats the four good rows of the edge-case file to 16 MB.
func benchData(b *testing.B) []byte { return readercheck.RepeatFile(b, "npidata_edge.csv", 4, 16<<20) }

func BenchmarkProviders(b *testing.B) {
	readercheck.BenchRead(b, benchData(b), NewReader)
}

func BenchmarkProvidersBareCSV(b *testing.B) { readercheck.BenchBareCSV(b, benchData(b)) }

func TestEndpoints(t *testing.T) {
	got, rep := readercheck.DrainFile(t, OpenEndpoints, "endpoint_edge.csv")
	want := []Endpoint{
		{NPI: "1234567893", Type: "DIRECT", TypeDescription: "Direct Messaging Address", Address: "jdoe@direct.example.org",
			Affiliated: source.No, Location: Address{Line1: "3 OAK AVE", City: "SANTA FE", State: "NM", Country: "US", PostalCode: "875011234"}},
		{NPI: "1245319599", Type: "FHIR", TypeDescription: "FHIR URL", Address: "https://fhir.example.org/r4", Affiliated: source.Yes,
			Description: "Patient access, R4", AffiliationName: "ACME HEALTH, INC.", UseCode: "OTHER", UseDescription: "Other",
			OtherUseDescription: "Provider directory", ContentType: "OTHER", ContentDescription: "Other",
			Location: Address{Line1: "1 MAIN ST", Line2: "SUITE 100", City: "ALBANY", State: "NY", Country: "US", PostalCode: "12207"}},
	}
	readercheck.Equal(t, "record", got, want)
	wantErrs := []struct {
		line   int
		column string
		reason string
	}{
		{4, "NPI", "invalid NPI: bad check digit"},
		{5, "Endpoint Type", "missing value"},
		{6, "Endpoint", "missing value"},
		{7, "Affiliation", "bad yes/no flag"},
		{8, "", "wrong column count"},
	}
	if len(rep.Errors) != len(wantErrs) {
		t.Fatalf("errors %+v", rep.Errors)
	}
	for i, w := range wantErrs {
		if e := rep.Errors[i]; e.Line != w.line || e.Column != w.column || e.Reason != w.reason {
			t.Errorf("error %d: %+v, want %+v", i, e, w)
		}
	}
}

// TestEndpointReadmeHeader reads a file whose last column is named as the Readme's layout names
// it, rather than as the published file does.
func TestEndpointReadmeHeader(t *testing.T) {
	const data = `NPI,Endpoint Type,Endpoint Type Description,Endpoint,Affiliation,Endpoint Description,Affiliation Legal Business Name,Use Code,Use Description,Other Use Description,Content Type,Content Description,Other Content Description,Affiliation Address Line One,Affiliation Address Line Two,Affiliation Address City,Affiliation Address State,Affiliation Address Country,Affiliation Address Line Postal Code
1234567893,FHIR,FHIR URL,https://x.example/fhir,N,,,,,,,,,,,,,,12345
`
	r, err := NewEndpointReader(strings.NewReader(data), "readme.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, _ := readercheck.Drain(t, r)
	if len(got) != 1 || got[0].Location.PostalCode != "12345" {
		t.Errorf("got %+v", got)
	}
}
