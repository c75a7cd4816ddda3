// Package specialty holds the registered specialties of the supply data API
// (docs/contracts/supply-api.md §2): the twelve slugs and the NUCC taxonomy codes each one counts.
// It is a leaf of domain facts that the supply studies (mapping/study) and the synthetic generator
// (source/synth) both read, so the list exists once.
package specialty

import "slices"

// Specialty is one registered specialty with its NUCC taxonomy codes.
type Specialty struct {
	// Slug is the path `code` of /v1/specialties/{code}/...
	Slug string
	// Codes are the registered taxonomy codes in the order docs/contracts/supply-api.md lists them;
	// Codes[0] is the parent (or only) code. A provider belongs to the specialty when its taxonomy
	// list contains any of them; each code is also a valid subspecialty filter.
	Codes []string
}

// Registered is docs/contracts/supply-api.md §2, "Subspecialty codes", in slug order. Oncology and
// psychiatry list one code that docs/contracts/supply-api.md does not call a parent; it is still
// their parent for the filter rules (rule 3: a filter equal to the only code matches).
var Registered = []Specialty{
	{"cardiology", []string{"207RC0000X"}},
	{"dermatology", []string{"207N00000X", "207ND0900X", "207NI0002X", "207NP0225X", "207NS0135X"}},
	{"gastroenterology", []string{"207RG0100X"}},
	{"neurology", []string{"2084N0400X"}},
	{"obgyn", []string{"207V00000X", "207VX0000X", "207VG0400X"}},
	{"oncology", []string{"207RX0202X"}},
	{"ophthalmology", []string{"207W00000X"}},
	{"orthopedic", []string{"207X00000X"}},
	{"otolaryngology", []string{"207Y00000X"}},
	{"pediatrics", []string{"208000000X", "2080A0000X", "2080P0006X", "2080P0008X", "2080N0001X",
		"2080P0202X", "2080P0203X", "2080P0204X", "2080P0205X", "2080P0206X", "2080P0207X",
		"2080P0208X", "2080P0210X", "2080P0214X", "2080P0216X", "2080I0007X", "2080S0010X",
		"2080S0012X", "2080T0002X", "2080H0002X"}},
	{"psychiatry", []string{"2084P0800X"}},
	{"urology", []string{"208800000X"}},
}

// Chiropractor has an export dataset of its own (chiropractor-supply) though it is not one of the
// twelve studies.
var Chiropractor = Specialty{"chiropractor", []string{"111N00000X"}}

// StudySuffix turns a specialty slug into its study's dataset slug ("cardiology-supply"), the
// slug of its methodology and of its export.
const StudySuffix = "-supply"

// Study is the dataset slug of the specialty's supply study.
func (s Specialty) Study() string { return s.Slug + StudySuffix }

// Parent is the specialty's parent (or only) code.
func (s Specialty) Parent() string { return s.Codes[0] }

// Supports reports whether code is registered for the specialty, and so a valid subspecialty
// filter of it (docs/contracts/supply-api.md §4 rules 3 and 4). Codes compare exactly: NUCC codes
// are uppercase as published.
func (s Specialty) Supports(code string) bool { return slices.Contains(s.Codes, code) }
