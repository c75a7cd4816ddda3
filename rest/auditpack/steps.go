package auditpack

import (
	"fmt"
	"strconv"
	"strings"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/rest/dataset"
	"providerdir/stored"
)

// Reproducibility is how to recompute the published figures from the public files: the files
// with their hashes, and steps an auditor (or a test) follows over them.
type Reproducibility struct {
	Files []SourceFile `json:"files"`
	Steps []Step       `json:"steps"`
}

// SourceFile is one published file the figures are computed from, as the serving snapshot
// read it.
type SourceFile struct {
	Name      string `json:"name"`
	SHA256    string `json:"sha256,omitempty"`
	Rows      int64  `json:"rows,omitempty"`
	Publisher string `json:"publisher"`
	URL       string `json:"url"`
	Snapshot  string `json:"snapshot"`
}

// Step operations. A step reads a file, keeps the rows a filter matches, counts or reads a
// column per group, or computes a figure; a note is prose only.
const (
	OpRead          = "read"
	OpKeep          = "keep"
	OpCountDistinct = "count_distinct"
	OpValue         = "value"
	OpCompute       = "compute"
	OpNote          = "note"
)

// Filter rules of a keep step.
const (
	// RuleIn keeps a row when any of Columns holds one of Values.
	RuleIn = "in"
	// RuleNotIn keeps a row when none of Columns holds one of Values.
	RuleNotIn = "not_in"
	// RuleActiveNPI keeps a row whose NPI is active: Columns are the deactivation and the
	// reactivation date (MM/DD/YYYY); the row is kept when the first is empty, or the second is
	// set and not before the first.
	RuleActiveNPI = "active_npi"
)

// Step is one reproducibility step.
type Step struct {
	Step   int    `json:"step"`
	Op     string `json:"op"`
	Action string `json:"action"`
	// File is the file a read step opens, by its published name.
	File string `json:"file,omitempty"`
	// Keep is a keep step's filter.
	Keep *Filter `json:"keep,omitempty"`
	// Column is the column counted (count_distinct) or read (value); GroupBy the column
	// grouped by; Output the figure produced.
	Column  string `json:"column,omitempty"`
	GroupBy string `json:"group_by,omitempty"`
	Output  string `json:"output,omitempty"`
	// Formula is a compute step's formula over earlier outputs.
	Formula string `json:"formula,omitempty"`
}

// Details are a step's structured parts in words, beside its action: the file it reads, its
// filter (long value and column lists shortened), the column it reads and the formula.
func (s Step) Details() []string {
	var detail []string
	if s.File != "" {
		detail = append(detail, "file "+s.File)
	}
	if s.Keep != nil {
		values := strings.Join(s.Keep.Values, ", ")
		if len(s.Keep.Values) > 8 {
			values = strings.Join(s.Keep.Values[:8], ", ") + ", ... (" + strconv.Itoa(len(s.Keep.Values)) + " values)"
		}
		cols := s.Keep.Columns[0]
		if len(s.Keep.Columns) > 1 {
			cols = strings.Join(s.Keep.Columns[:min(2, len(s.Keep.Columns))], ", ")
			if len(s.Keep.Columns) > 2 {
				cols += ", ... (" + strconv.Itoa(len(s.Keep.Columns)) + " columns)"
			}
		}
		detail = append(detail, "keep "+s.Keep.Rule+" ["+values+"] on "+cols)
	}
	if s.Column != "" {
		detail = append(detail, "column "+s.Column+" by "+s.GroupBy)
	}
	if s.Formula != "" {
		detail = append(detail, s.Output+" = "+s.Formula)
	}
	return detail
}

// Filter is a keep step's condition on the current rows.
type Filter struct {
	Columns []string `json:"columns"`
	Rule    string   `json:"rule"`
	Values  []string `json:"values,omitempty"`
}

// RejectsCommand is the command that lists the rows the ingest rejects, which the read steps
// name; an action sets a command between backticks.
const RejectsCommand = "providerctl ingest --dry-run --rejects rejects.csv DIR"

// Segment is a run of a step's action: prose, or a command (Code) that the action sets between
// backticks.
type Segment struct {
	Text string
	Code bool
}

// Segments splits an action at its backticks into prose and commands, in order, leaving out
// the backticks and empty runs; an unpaired backtick is kept as prose.
func Segments(action string) []Segment {
	var out []Segment
	add := func(text string, code bool) {
		if text != "" {
			out = append(out, Segment{Text: text, Code: code})
		}
	}
	for rest := action; ; {
		open := strings.IndexByte(rest, '`')
		if open < 0 {
			add(rest, false)
			return out
		}
		closing := strings.IndexByte(rest[open+1:], '`')
		if closing < 0 {
			add(rest, false)
			return out
		}
		add(rest[:open], false)
		add(rest[open+1:open+1+closing], true)
		rest = rest[open+2+closing:]
	}
}

// Per100kFormula is the density formula of every study, in the compute step's notation.
var Per100kFormula = "round_half_away_from_zero(count * 100000 / population_2024, " + strconv.Itoa(study.Per100kDecimals) + ")"

// NPPES and Census columns the steps name, as the files publish them.
const (
	colNPI          = "NPI"
	colEntity       = "Entity Type Code"
	colDeactivation = "NPI Deactivation Date"
	colReactivation = "NPI Reactivation Date"
	colPracticeSt   = "Provider Business Practice Location Address State Name"
	colTaxonomy     = "Healthcare Provider Taxonomy Code_"
	colSumlev       = "SUMLEV"
	colStateFIPS    = "STATE"
	colName         = "NAME"
	colPopulation   = "POPESTIMATE2024"
	colCCN          = "CMS Certification Number (CCN)"
	colState        = "State"
	// fipsPuertoRico is the one state-level row of the Census file outside the 51.
	fipsPuertoRico = "72"
	sumlevState    = "040"
)

// qualityFilePrefix is the published file name's start of each facility type.
var qualityFilePrefix = map[string]string{
	"nursing-home": "NH_ProviderInfo_", "dialysis": "DFC_FACILITY", "home-health": "HH_Provider_", "hospice": "Hospice_General-Information_",
}

// fileOf picks the file of a family's manifest whose name starts with prefix (after any
// directory), skipping the NPPES header-only file.
func fileOf(m catalog.Manifest, ds stored.Dataset, prefix string) SourceFile {
	for _, f := range m.Files {
		base := f.Name[strings.LastIndex(f.Name, "/")+1:]
		if strings.HasPrefix(base, prefix) && !strings.Contains(base, "_fileheader") {
			return SourceFile{Name: base, SHA256: f.SHA256, Rows: f.Rows, Publisher: ds.Source, URL: ds.SourceURL, Snapshot: m.Snapshot}
		}
	}
	return SourceFile{Name: prefix + "*.csv", Publisher: ds.Source, URL: ds.SourceURL, Snapshot: m.Snapshot}
}

func reproducibility(f *dataset.Figures, ms []catalog.Manifest) Reproducibility {
	d := f.Dataset
	fam := familyFiles(ms)
	census := fileOf(fam["census"], stored.Census, "NST-EST")
	var files []SourceFile
	var steps []Step
	add := func(s Step) { s.Step = len(steps) + 1; steps = append(steps, s) }
	if d.Kind == dataset.FacilityQuality {
		file := fileOf(fam["carecompare"], d.Quality.Dataset, qualityFilePrefix[d.Quality.Slug])
		files = append(files, file)
		add(Step{Op: OpRead, File: file.Name, Action: "Read the Care Compare file. Leave out the rows the ingest rejects as malformed (an invalid CCN or value): `" + RejectsCommand + "` lists each with its file, line, column and reason."})
		add(Step{Op: OpKeep, Keep: &Filter{Columns: []string{colState}, Rule: RuleIn, Values: the51(f)}, Action: "Keep the facilities whose State is one of the 50 states and DC."})
		add(Step{Op: OpCountDistinct, Column: colCCN, GroupBy: colState, Output: "count", Action: "Count the distinct CCNs per state: the facilities."})
	} else {
		file := fileOf(fam["nppes"], stored.NPPES, "npidata_pfile_")
		files = append(files, file)
		var cols []string
		for i := 1; i <= 15; i++ {
			cols = append(cols, colTaxonomy+strconv.Itoa(i))
		}
		add(Step{Op: OpRead, File: file.Name, Action: "Read the NPPES full replacement file. Leave out the rows the ingest rejects as malformed (a wrong NPI check digit, a date that does not exist, an invalid taxonomy code): `" + RejectsCommand + "` lists each with its file, line, column and reason."})
		add(Step{Op: OpKeep, Keep: &Filter{Columns: []string{colDeactivation, colReactivation}, Rule: RuleActiveNPI}, Action: "Keep the active NPIs: no deactivation date, or a reactivation date not before it."})
		add(Step{Op: OpKeep, Keep: &Filter{Columns: []string{colEntity}, Rule: RuleIn, Values: []string{"1"}}, Action: "Keep individuals (entity type 1); organizations are left out."})
		add(Step{Op: OpKeep, Keep: &Filter{Columns: cols, Rule: RuleIn, Values: d.Specialty.Codes}, Action: "Keep the providers any of whose 15 taxonomy slots holds one of the dataset's codes."})
		add(Step{Op: OpKeep, Keep: &Filter{Columns: []string{colPracticeSt}, Rule: RuleIn, Values: the51(f)}, Action: "Keep the providers whose primary practice location is in one of the 50 states and DC."})
		add(Step{Op: OpCountDistinct, Column: colNPI, GroupBy: colPracticeSt, Output: "count", Action: "Count the distinct NPIs per practice state: the active providers."})
	}
	files = append(files, census)
	add(Step{Op: OpRead, File: census.Name, Action: "Read the Census Bureau state population estimates (Vintage 2024)."})
	add(Step{Op: OpKeep, Keep: &Filter{Columns: []string{colSumlev}, Rule: RuleIn, Values: []string{sumlevState}}, Action: "Keep the state rows (summary level 040)."})
	add(Step{Op: OpKeep, Keep: &Filter{Columns: []string{colStateFIPS}, Rule: RuleNotIn, Values: []string{fipsPuertoRico}}, Action: "Leave out Puerto Rico (FIPS 72): the studies cover the 50 states and DC."})
	add(Step{Op: OpValue, Column: colPopulation, GroupBy: colName, Output: "population_2024", Action: "Read each state's July 1, 2024 estimate; the state name matches figures.states[].state_name."})
	add(Step{Op: OpCompute, Output: "per_100k", Formula: Per100kFormula, Action: "Divide each state's count by its population, times 100,000, rounded half away from zero to 4 decimals."})
	for _, field := range []string{study.FieldRank, study.FieldQuartile, study.FieldUnderserved} {
		add(Step{Op: OpNote, Output: field, Action: study.Rules[field]})
	}
	if d.Kind == dataset.FacilityQuality {
		add(Step{Op: OpNote, Output: "mean_star_rating", Action: "Average the published overall star ratings of each state's facilities, suppressed ratings left out, rounded to 2 decimals."})
	}
	return Reproducibility{Files: files, Steps: steps}
}

// the51 are the state codes of the figures.
func the51(f *dataset.Figures) []string {
	out := make([]string, len(f.Rows))
	for i, r := range f.Rows {
		out[i] = r.StateCode
	}
	return out
}

func provenance(f *dataset.Figures) map[string]FieldProvenance {
	one := 1.0
	read := func(p stored.Provenance, column, derivation string) FieldProvenance {
		return FieldProvenance{Source: p.Source, SourceURL: p.SourceURL, DatasetID: p.DatasetID, Snapshot: p.Snapshot,
			LastChecked: p.LastChecked, License: p.License, Column: column, Derivation: derivation, Confidence: &one}
	}
	computed := func(derivation string) FieldProvenance {
		return FieldProvenance{Source: "computed", Derivation: derivation}
	}
	d := f.Dataset
	out := map[string]FieldProvenance{
		study.FieldStateCode:  read(f.Census, colStateFIPS, "USPS code of the Census state row's FIPS code."),
		study.FieldStateName:  read(f.Census, colName, "As published by the Census Bureau."),
		study.FieldPopulation: read(f.Census, colPopulation, "July 1, 2024 resident population estimate."),
		study.FieldPer100k:    computed(Per100kFormula),
		study.FieldRank:       computed(study.Rules["rank_density"]),
		study.FieldQuartile:   computed(study.Rules["quartile"]),
		study.FieldUnderserved: computed(fmt.Sprintf("per_100k below %d/%d of the national density of the 51, compared exactly.",
			study.UnderservedNumerator, study.UnderservedDenominator)),
	}
	if d.Kind == dataset.FacilityQuality {
		out["count"] = read(f.Primary, colCCN, "Distinct CCNs of the Care Compare file with the state's address.")
		out["rated_facilities"] = read(f.Primary, "overall star rating", "Facilities of the state with a published overall star rating.")
		out["mean_star_rating"] = computed("Mean of the published overall star ratings, rounded to 2 decimals.")
		return out
	}
	out["count"] = read(f.Primary, colNPI, "Distinct active individual NPIs with a matching taxonomy code, by primary practice state.")
	for field, p := range out {
		name := field
		if field == "count" {
			name = study.FieldActiveProviders
		}
		p.Limitation = study.FieldLimitation(name, d.Specialty, "", f.National.Per100k)
		out[field] = p
	}
	return out
}

// compliance is the Q&A every pack answers.
func compliance(d dataset.Dataset) []QA {
	what := "registry providers"
	if d.Kind == dataset.FacilityQuality {
		what = "Medicare-certified facilities"
	}
	return []QA{
		{"Does the dataset contain personal data?", "No. It publishes counts of " + what + " per state and figures computed from them; no name, identifier or address of a person appears in it."},
		{"Under what terms may the figures be reused?", "The source files are works of the US federal government, in the public domain (17 U.S.C. 105); the figures may be reused with the citation given."},
		{"Can the figures be reproduced independently?", "Yes. The reproducibility steps name the public files (with their SHA-256 hashes), the filters, the columns and the formulas; following them over the files gives the published figures."},
		{"How current are the figures?", "They are recomputed whenever a source is ingested; snapshot_date is the primary source's snapshot and last_refreshed the latest ingest. The publisher refreshes the source " + d.Cadence() + "."},
		{"Do the figures certify or rate any provider?", "No. They describe supply per population and are not an endorsement, a credentialing decision or a measure of any one provider's quality."},
		{"What changes when the methodology version changes?", "A rule of the method changed meaning; the version history says which. Figures of different versions are not comparable without reading that change."},
	}
}
