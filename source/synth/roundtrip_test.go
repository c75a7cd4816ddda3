package synth

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"providerdir/source"
	"providerdir/source/carecompare"
	"providerdir/source/leie"
	"providerdir/source/nppes"
	"providerdir/source/openpayments"
	"providerdir/source/pecos"
	"providerdir/source/pos"
	"providerdir/source/qpp"
	"providerdir/source/sam"
)

// reading is one reader's view of one generated file.
type reading struct {
	records  int64
	rejected []int64 // lines of rejected rows
	report   *source.Report
}

func drainFile[T any](t *testing.T, open func(string, ...source.Option) (*source.Reader[T], error), path string) reading {
	t.Helper()
	r, err := open(path, source.MaxErrors(10000))
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(path), err)
	}
	defer r.Close()
	var n int64
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		n++
	}
	rep := r.Report()
	out := reading{records: n, report: rep}
	for _, e := range rep.Errors {
		out.rejected = append(out.rejected, int64(e.Line))
	}
	return out
}

// TestReadersRoundTrip reads every generated file that has a reader and checks that the reader
// accepts every good row and rejects exactly the rows the manifest lists as bad, in both drops.
func TestReadersRoundTrip(t *testing.T) {
	base, evolved, mb, me := drops(t)
	readers := []struct {
		prefix string
		read   func(t *testing.T, path string) reading
	}{
		{"npidata_pfile_", func(t *testing.T, p string) reading { return drainFile(t, nppes.Open, p) }},
		{"pl_pfile_", func(t *testing.T, p string) reading { return drainFile(t, nppes.OpenLocations, p) }},
		{"othername_pfile_", func(t *testing.T, p string) reading { return drainFile(t, nppes.OpenOtherNames, p) }},
		{"endpoint_pfile_", func(t *testing.T, p string) reading { return drainFile(t, nppes.OpenEndpoints, p) }},
		{"UPDATED.csv", func(t *testing.T, p string) reading { return drainFile(t, leie.Open, p) }},
		{"PPEF_Enrollment_Extract_", func(t *testing.T, p string) reading { return drainFile(t, pecos.Open, p) }},
		{"Hospital_Enrollments_", func(t *testing.T, p string) reading { return drainFile(t, pecos.OpenHospitals, p) }},
		{"Hospital_and_other.DATA.", func(t *testing.T, p string) reading { return drainFile(t, pos.Open, p) }},
		{"Hospital_General_Information.csv", careCompare(carecompare.Hospital)},
		{"NH_ProviderInfo_", careCompare(carecompare.NursingHome)},
		{"DFC_FACILITY.csv", careCompare(carecompare.Dialysis)},
		{"HH_Provider_", careCompare(carecompare.HomeHealth)},
		{"Hospice_General-Information_", careCompare(carecompare.Hospice)},
		{"ASC_Facility.csv", careCompare(carecompare.ASC)},
		{"Provider_CAHPS_Hospice_Survey_Data_", func(t *testing.T, p string) reading { return drainFile(t, carecompare.OpenMeasures, p) }},
		{"OP_DTL_GNRL_PGY2023_", func(t *testing.T, p string) reading { return drainFile(t, openpayments.Open, p) }},
		{"OP_DTL_GNRL_PGY2019_", func(t *testing.T, p string) reading { return drainFile(t, openpayments.Open, p) }},
		{"SAM_Exclusions_Public_Extract_", func(t *testing.T, p string) reading { return drainFile(t, sam.Open, p) }},
		{"ec_score_file_PY2023", func(t *testing.T, p string) reading { return drainFile(t, qpp.Open, p) }},
		{"ec_score_file_PY2019", func(t *testing.T, p string) reading { return drainFile(t, qpp.Open, p) }},
	}
	for _, drop := range []struct {
		dir string
		m   *Manifest
	}{{base, mb}, {evolved, me}} {
		for _, rd := range readers {
			var f FileInfo
			for _, x := range drop.m.Files {
				if strings.HasPrefix(x.Name, rd.prefix) {
					f = x
				}
			}
			if f.Name == "" {
				t.Fatalf("no file %s* in the drop", rd.prefix)
			}
			t.Run(filepath.Base(drop.dir)+"/"+f.Name, func(t *testing.T) {
				got := rd.read(t, filepath.Join(drop.dir, f.Name))
				var want []int64
				for _, b := range drop.m.BadRowsOf(f.Name) {
					want = append(want, b.Line)
				}
				if got.records != f.Rows-f.BadRows {
					t.Errorf("read %d records, want %d rows - %d bad", got.records, f.Rows, f.BadRows)
				}
				if !slices.Equal(got.rejected, want) {
					t.Errorf("rejected lines %v, want the listed bad rows %v (errors %+v)", got.rejected, want, got.report.Errors)
				}
			})
		}
	}
}

func careCompare(k carecompare.Kind) func(t *testing.T, path string) reading {
	return func(t *testing.T, path string) reading {
		return drainFile(t, func(p string, opts ...source.Option) (*source.Reader[carecompare.Facility], error) {
			return carecompare.Open(k, p, opts...)
		}, path)
	}
}
