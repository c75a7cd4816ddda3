// Package nucc reads the NUCC Health Care Provider Taxonomy code set as published in CSV
// (nucc_taxonomy_<version>.csv, columns Code, Grouping, Classification, Specialization,
// Definition, Notes, Display Name, Section; layout of version 25.1). NPPES records carry these
// codes; the service shows their display names, which the NUCC terms require to be shown as
// published, so values are kept exactly as read (surrounding spaces aside).
package nucc

import (
	"io"
	"io/fs"

	"providerdir/source"
)

// File is the path of the code set in a reference set (see source/reference).
const File = "nucc/nucc_taxonomy_251.csv"

// Taxonomy is one code of the set.
type Taxonomy struct {
	Code           string // e.g. "207RC0000X"
	Grouping       string // e.g. "Allopathic & Osteopathic Physicians"
	Classification string // e.g. "Internal Medicine"
	Specialization string // e.g. "Cardiovascular Disease"; "" for a classification-level code
	Definition     string
	Notes          string
	DisplayName    string // e.g. "Cardiovascular Disease Physician"
	Section        string // "Individual" or "Non-Individual"
}

var (
	schema            = source.NewSchema("NUCC taxonomy")
	colCode           = schema.Required("Code")
	colGrouping       = schema.Required("Grouping")
	colClassification = schema.Required("Classification")
	colSpecialization = schema.Required("Specialization")
	colDefinition     = schema.Optional("Definition")
	colNotes          = schema.Optional("Notes")
	colDisplayName    = schema.Optional("Display Name") // added to the CSV in version 21.0
	colSection        = schema.Optional("Section")
)

func decode(r *source.Row) (Taxonomy, bool) {
	t := Taxonomy{
		Grouping:       r.Required(colGrouping),
		Classification: r.Required(colClassification),
		Specialization: r.Str(colSpecialization),
		Definition:     r.Str(colDefinition),
		Notes:          r.Str(colNotes),
		DisplayName:    r.Str(colDisplayName),
		Section:        r.Str(colSection),
	}
	if t.Code = r.Taxonomy(colCode); t.Code == "" && !r.Failed() {
		r.Fail(colCode, "missing value", "")
	}
	return t, true
}

// Open opens a taxonomy CSV.
func Open(path string, opts ...source.Option) (*source.Reader[Taxonomy], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads a taxonomy CSV from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Taxonomy], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}

// Load reads the whole code set from the file name in fsys (File in a reference set), failing
// on any bad row.
func Load(fsys fs.FS, name string) ([]Taxonomy, error) {
	return source.LoadFS(fsys, name, NewReader)
}

// ByCode indexes a code set by code.
func ByCode(set []Taxonomy) map[string]Taxonomy {
	m := make(map[string]Taxonomy, len(set))
	for _, t := range set {
		m[t.Code] = t
	}
	return m
}
