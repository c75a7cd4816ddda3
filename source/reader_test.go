package source_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"providerdir/source"
	"providerdir/testing/readercheck"
)

// A toy file kind exercising every shared accessor.
type rec struct {
	NPI    string
	Name   string
	Sex    string
	Date   source.Date
	Code   string
	Count  int64
	HasCnt bool
	Flag   bool
	CCN    string
}

var (
	toy      = source.NewSchema("toy")
	colNPI   = toy.Required("NPI")
	colName  = toy.Required("Provider Last Name (Legal Name)")
	colSex   = toy.Optional("Provider Sex Code", "Provider Gender Code")
	colDate  = toy.Required("Date")
	colCode  = toy.Optional("Code")
	colCount = toy.Optional("Count")
	colFlag  = toy.Optional("Flag")
	colCCN   = toy.Optional("CCN")
	colAddr2 = toy.Optional("Provider Secondary Practice Location Address-  Address Line 2")
)

func decodeToy(r *source.Row) (rec, bool) {
	v := rec{
		NPI:  r.NPI(colNPI),
		Name: r.Required(colName),
		Sex:  r.Str(colSex),
		Date: r.Date(colDate, "00000000"),
		Code: r.Code(colCode, 2),
		CCN:  r.OptionalCCN(colCCN),
	}
	v.Count, v.HasCnt = r.Int(colCount)
	v.Flag, _ = r.Flag(colFlag).Bool()
	if v.Name == "SKIP" {
		return v, false
	}
	return v, true
}

func newToy(in string, opts ...source.Option) (*source.Reader[rec], error) {
	return source.NewReader(strings.NewReader(in), "toy.csv", toy, decodeToy, opts...)
}

func TestReaderGood(t *testing.T) {
	in := "\xef\xbb\xbf NPI ,provider last name (legal name),Provider Gender Code,DATE,Code,Count,Flag,CCN\r\n" +
		`"1234567893","M` + "\xfc" + `ller","F","05/23/2005","1","1,234","Y","010001"` + "\r\n" +
		`"1245319599","Smith, ""Jr""","","00000000","","","N",""` + "\r\n" +
		"\r\n" + // blank lines are not rows
		`1234567893,"Two` + "\r\n" + `Lines",M,2024-02-29,07,12,,05SA26` + "\n" +
		`1234567893,SKIP,M,2024-02-29,07,12,,05SA26` + "\n"
	r, err := newToy(in)
	if err != nil {
		t.Fatal(err)
	}
	got, rep := readercheck.Drain(t, r)
	want := []rec{
		{NPI: "1234567893", Name: "Müller", Sex: "F", Date: source.Date{Year: 2005, Month: 5, Day: 23}, Code: "01", Count: 1234, HasCnt: true, Flag: true, CCN: "010001"},
		{NPI: "1245319599", Name: `Smith, "Jr"`},
		{NPI: "1234567893", Name: "Two\nLines", Sex: "M", Date: source.Date{Year: 2024, Month: 2, Day: 29}, Code: "07", Count: 12, HasCnt: true, CCN: "05SA26"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("records\n got %+v\nwant %+v", got, want)
	}
	if rep.Rows != 4 || rep.Records != 3 || rep.Rejected != 0 || rep.Skipped() != 1 {
		t.Errorf("report %s", rep)
	}
	if rep.Encoding != "ISO-8859-1" || rep.Bytes != int64(len(in)) {
		t.Errorf("encoding %s, %d bytes", rep.Encoding, rep.Bytes)
	}
	h := r.Header()
	if !h.Has(colSex) || h.Name(colSex) != "Provider Gender Code" || h.Has(colAddr2) || h.Len() != 8 {
		t.Errorf("header: sex %v %q, addr2 %v, len %d", h.Has(colSex), h.Name(colSex), h.Has(colAddr2), h.Len())
	}
}

func TestReaderBadRows(t *testing.T) {
	in := "NPI,Provider Last Name (Legal Name),Date,Count,Flag,CCN,Provider Secondary Practice Location Address- Address Line 2\n" +
		"1234567893,Good,01/01/2020,1,Y,010001,\n" + // line 2
		"1234567890,BadCheck,01/01/2020,1,Y,010001,\n" + // line 3
		"1234567893,BadDate,02/30/2020,1,Y,010001,\n" + // line 4
		"1234567893,Short,01/01/2020\n" + // line 5
		"1234567893,\"Multi\nLine\",13/13/2020,1,Y,010001,\n" + // lines 6-7, bad date on line 7
		"1234567893,BadCCN,01/01/2020,1,Y,98X001,\n" + // line 8
		"1234567893,Bad\"Quote,01/01/2020,1,Y,010001,\n" + // line 9
		",NoNPI,01/01/2020,1,Y,010001,\n" + // line 10
		"1234567893,,01/01/2020,1,Y,010001,\n" + // line 11
		"1234567893,BadCount,01/01/2020,12a,Y,010001,\n" + // line 12
		"1234567893,BadFlag,01/01/2020,1,maybe,010001,\n" + // line 13
		"1234567893,TwoProblems,99/99/9999,x,Y,010001,\n" + // line 14: first problem only
		"1234567893,Good,01/01/2020,1,Y,010001,\n" // line 15
	r, err := newToy(in)
	if err != nil {
		t.Fatal(err)
	}
	got, rep := readercheck.Drain(t, r)
	if len(got) != 2 || rep.Rows != 13 || rep.Rejected != 11 {
		t.Fatalf("%d records; report %s", len(got), rep)
	}
	want := []source.RowError{
		{"toy.csv", 3, "NPI", "invalid NPI: bad check digit", "1234567890"},
		{"toy.csv", 4, "Date", "bad date", "02/30/2020"},
		{"toy.csv", 5, "", "wrong column count", "3 columns, header has 7"},
		{"toy.csv", 7, "Date", "bad date", "13/13/2020"},
		{"toy.csv", 8, "CCN", "invalid CCN: unknown state code", "98X001"},
		{"toy.csv", 9, "", "malformed CSV: bare \" in non-quoted-field", "byte 15 of the line"},
		{"toy.csv", 10, "NPI", "missing value", ""},
		{"toy.csv", 11, "Provider Last Name (Legal Name)", "missing value", ""},
		{"toy.csv", 12, "Count", "bad number", "12a"},
		{"toy.csv", 13, "Flag", "bad yes/no flag", "maybe"},
		{"toy.csv", 14, "Date", "bad date", "99/99/9999"},
	}
	for i, w := range want {
		if i >= len(rep.Errors) || rep.Errors[i] != w {
			var g any = "nothing"
			if i < len(rep.Errors) {
				g = rep.Errors[i]
			}
			t.Errorf("error %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if rep.Reasons["bad date"] != 3 || rep.Reasons["missing value"] != 2 {
		t.Errorf("reasons %v", rep.Reasons)
	}
	if s := rep.Errors[0].Error(); s != `toy.csv:3: column "NPI": invalid NPI: bad check digit ("1234567890")` {
		t.Errorf("message %s", s)
	}
	if s := rep.String(); !strings.Contains(s, "13 rows, 2 records, 11 rejected (bad date: 3,") {
		t.Errorf("summary %s", s)
	}
	// The double-space header resolved: the column exists.
	if !r.Header().Has(colAddr2) {
		t.Error("double-space header not matched")
	}
}

func TestReaderErrorsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("NPI,Provider Last Name (Legal Name),Date\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "1234567890,N%d,01/01/2020\n", i)
	}
	r, err := newToy(b.String(), source.MaxErrors(5))
	if err != nil {
		t.Fatal(err)
	}
	_, rep := readercheck.Drain(t, r)
	if rep.Rejected != 1000 || len(rep.Errors) != 5 || rep.Errors[4].Line != 6 {
		t.Errorf("report %s, %d errors kept", rep, len(rep.Errors))
	}
}

func TestReaderFileErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "toy.csv: empty file, no toy header"},
		{"bom only", "\xef\xbb\xbf", "toy.csv: empty file"},
		{"mis-headed", "LASTNAME,FIRSTNAME,MIDNAME,BUSNAME,GENERAL,SPECIALTY\n1,2,3,4,5,6\n",
			`toy.csv: header does not match toy: missing "NPI", "Provider Last Name (Legal Name)", "Date" (the header has 6 columns: "LASTNAME", "FIRSTNAME", "MIDNAME", "BUSNAME", "GENERAL"...)`},
		{"bad header quote", "\"NPI,Date\n", "toy.csv: reading toy header"},
	}
	for _, tt := range tests {
		_, err := newToy(tt.in)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %s", tt.name, err, tt.want)
		}
	}
	_, err := newToy("NPI,Date\n")
	var he *source.HeaderError
	if !errors.As(err, &he) || len(he.Missing) != 1 || he.Missing[0] != "Provider Last Name (Legal Name)" {
		t.Errorf("HeaderError %#v", err)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	_, err := source.Open(filepath.Join(dir, "missing.csv"), toy, decodeToy)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.csv") {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "npidata_pfile.csv")
	if err := os.WriteFile(path, []byte("NPI,Provider Last Name (Legal Name),Date\n1234567893,A,01/01/2001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := source.Open(path, toy, decodeToy)
	if err != nil {
		t.Fatal(err)
	}
	all, err := source.ReadAll(r)
	if err != nil || len(all) != 1 || r.Report().File != "npidata_pfile.csv" {
		t.Errorf("ReadAll: %v, %v, %s", all, err, r.Report())
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	if err := r.Close(); err != nil {
		t.Error("second Close:", err)
	}
}

// OpenFS and LoadFS read a file of any fs.FS (a directory, or files built into the binary) as
// Open reads a path: reports name the file by its base name, a missing file is fs.ErrNotExist,
// and LoadFS fails on a bad row.
func TestOpenFS(t *testing.T) {
	const header = "NPI,Provider Last Name (Legal Name),Date\n"
	files := fstest.MapFS{
		"sub/good.csv": {Data: []byte(header + "1234567893,A,01/01/2001\n")},
		"sub/bad.csv":  {Data: []byte(header + "1234567890,A,01/01/2001\n")},
		"sub/nohead":   {Data: []byte("x,y\n")},
	}
	newToyFS := func(r io.Reader, name string, opts ...source.Option) (*source.Reader[rec], error) {
		return source.NewReader(r, name, toy, decodeToy, opts...)
	}
	tests := []struct {
		name     string
		rows     int
		wantErr  string
		notExist bool
	}{
		{"sub/good.csv", 1, "", false},
		{"sub/bad.csv", 0, "bad.csv: 1 rows rejected", false},
		{"sub/nohead", 0, "nohead: header does not match toy", false},
		{"sub/missing.csv", 0, "missing.csv", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := source.LoadFS(files, tt.name, newToyFS)
			if tt.wantErr == "" {
				if err != nil || len(got) != tt.rows {
					t.Fatalf("LoadFS: %d records, %v", len(got), err)
				}
				r, err := source.OpenFS(files, tt.name, newToyFS)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if r.Report().File != "good.csv" {
					t.Errorf("report names %q", r.Report().File)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.Is(err, fs.ErrNotExist) != tt.notExist {
				t.Errorf("LoadFS: %v, want %q (not-exist %v)", err, tt.wantErr, tt.notExist)
			}
		})
	}
}

func TestRecordTooLong(t *testing.T) {
	// An unbalanced quote would make encoding/csv buffer the rest of the file as one field.
	in := "NPI,Provider Last Name (Legal Name),Date\n1234567893,A,01/01/2001\n1234567893,\"never closed,01/01/2001\n" +
		strings.Repeat("1234567893,B,01/01/2001\n", 200_000)
	r, err := newToy(in, source.MaxRecordBytes(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err = r.Next()
	if err == nil || !strings.Contains(err.Error(), "unbalanced quote") || !strings.Contains(err.Error(), "after line 2") {
		t.Fatalf("got %v", err)
	}
	if _, again := r.Next(); again != err {
		t.Errorf("error not sticky: %v", again)
	}
	if rep := r.Report(); rep.Bytes >= int64(len(in)) {
		t.Errorf("read %d of %d bytes before giving up", rep.Bytes, len(in))
	}
}

type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk on fire")
	}
	f.n--
	return copy(p, "NPI,Provider Last Name (Legal Name),Date\n"), nil
}

func TestReadError(t *testing.T) {
	r, err := source.NewReader(&failingReader{n: 1}, "toy.csv", toy, decodeToy)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("got %v", err)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("NPI,Provider Last Name (Legal Name),Date,Count,Flag,CCN\n1234567893,A,01/01/2001,1,Y,010001\n1234567890,A,x,y,z,w\n"))
	f.Add([]byte("\xef\xbb\xbfnpi,provider last name (legal name),date\r\n\"1234567893\",\"M\xfcller\",\"20200101\"\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := readercheck.Fuzz(t, data, func(r io.Reader, name string, _ ...source.Option) (*source.Reader[rec], error) {
			return source.NewReader(r, name, toy, decodeToy, source.MaxRecordBytes(4096))
		})
		for _, v := range recs {
			if v.NPI == "" || v.Name == "" || bytes.ContainsRune([]byte(v.Name), 0xFFFD) && !bytes.Contains(data, []byte("\xef\xbf\xbd")) {
				t.Fatalf("bad record %+v", v)
			}
		}
	})
}
