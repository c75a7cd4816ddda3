// Package sam reads the GSA System for Award Management (SAM.gov) exclusions public extract: the
// daily CSV of every party with an active exclusion (debarment, suspension, proposed debarment,
// voluntary exclusion and the like) recorded by any federal agency, HHS OIG's reciprocal
// exclusions among them. The extract is published at sam.gov (Data Services, Exclusions) and
// through the GSA Extracts Download API (open.gsa.gov, "SAM Entity/Exclusions Extracts API") as
// SAM_Exclusions_Public_Extract_V2_YYDDD.ZIP, dated by its Julian day, holding one CSV.
//
// Two header layouts are read into one record. The V2 layout, published since SAM moved from the
// DUNS number to its own Unique Entity ID in April 2022:
//
//	Classification, Name, Prefix, First, Middle, Last, Suffix, Address 1, Address 2, Address 3,
//	Address 4, City, State / Province, Country, Zip Code, Open Data Flag, Blank (Deprecated),
//	Unique Entity ID, Exclusion Program, Excluding Agency, CT Code, Exclusion Type,
//	Additional Comments, Active Date, Termination Date, Record Status, Cross-Reference,
//	SAM Number, CAGE, NPI, Creation_Date
//
// and the older layout of SAM_Exclusions_Public_Extract_YYDDD (no V2), which has DUNS where V2
// has Open Data Flag, Blank (Deprecated) and Unique Entity ID, and no Creation_Date.
//
// Every field is quoted and lines end in CRLF. Active and termination dates are MM/DD/YYYY, and a
// termination date of "Indefinite" means the exclusion has no end: it reads as absent, with
// Indefinite set. Creation_Date is YYYY-MM-DD. The NPI column is blank for most records (only
// some health-care exclusions carry one); a value given must pass its check digit.
package sam

import (
	"io"
	"strings"

	"providerdir/source"
)

// Exclusion is one record of the extract.
type Exclusion struct {
	// Classification is the excluded party's kind: Individual, Firm, Special Entity Designation
	// or Vessel.
	Classification string
	// Name is the name of a firm, special entity or vessel; individuals have First, Middle, Last.
	Name                        string
	Prefix, First, Middle, Last string
	Suffix                      string
	Address1, Address2          string
	Address3, Address4          string
	City, State, Country, ZIP   string
	UEI                         string // SAM Unique Entity ID (V2 layout)
	DUNS                        string // DUNS number (older layout)
	Program                     string // Exclusion Program: Reciprocal, NonProcurement, Procurement
	Agency                      string // Excluding Agency, e.g. HHS, OPM, TREAS-OFAC
	CTCode                      string // cause and treatment code
	Type                        string // Exclusion Type, e.g. "Ineligible (Proceedings Completed)"
	Comments                    string
	ActiveDate                  source.Date
	TerminationDate             source.Date // absent when Indefinite is true or none is given
	Indefinite                  bool        // the termination date reads "Indefinite"
	RecordStatus                string
	CrossReference              string
	SAMNumber                   string
	CAGE                        string
	NPI                         string // "" when the record carries none
	CreationDate                source.Date
}

// Individual reports whether the record names a person.
func (e *Exclusion) Individual() bool { return strings.EqualFold(e.Classification, "Individual") }

// indefinite is the termination date of an exclusion without an end.
const indefinite = "Indefinite"

var (
	schema        = source.NewSchema("SAM.gov exclusions public extract")
	colClass      = schema.Required("Classification")
	colName       = schema.Required("Name")
	colPrefix     = schema.Required("Prefix")
	colFirst      = schema.Required("First")
	colMiddle     = schema.Required("Middle")
	colLast       = schema.Required("Last")
	colSuffix     = schema.Required("Suffix")
	colAddress1   = schema.Required("Address 1")
	colAddress2   = schema.Optional("Address 2")
	colAddress3   = schema.Optional("Address 3")
	colAddress4   = schema.Optional("Address 4")
	colCity       = schema.Required("City")
	colState      = schema.Required("State / Province")
	colCountry    = schema.Required("Country")
	colZIP        = schema.Required("Zip Code")
	colUEI        = schema.Optional("Unique Entity ID")
	colDUNS       = schema.Optional("DUNS")
	colProgram    = schema.Required("Exclusion Program")
	colAgency     = schema.Required("Excluding Agency")
	colCTCode     = schema.Required("CT Code")
	colType       = schema.Required("Exclusion Type")
	colComments   = schema.Required("Additional Comments")
	colActive     = schema.Required("Active Date")
	colTerminates = schema.Required("Termination Date")
	colStatus     = schema.Required("Record Status")
	colCrossRef   = schema.Required("Cross-Reference")
	colSAMNumber  = schema.Required("SAM Number")
	colCAGE       = schema.Required("CAGE")
	colNPI        = schema.Required("NPI")
	colCreated    = schema.Optional("Creation_Date")
)

func decode(r *source.Row) (Exclusion, bool) {
	e := Exclusion{
		Classification: r.Required(colClass),
		Name:           r.Str(colName),
		Prefix:         r.Str(colPrefix),
		First:          r.Str(colFirst),
		Middle:         r.Str(colMiddle),
		Last:           r.Str(colLast),
		Suffix:         r.Str(colSuffix),
		Address1:       r.Str(colAddress1),
		Address2:       r.Str(colAddress2),
		Address3:       r.Str(colAddress3),
		Address4:       r.Str(colAddress4),
		City:           r.Str(colCity),
		State:          r.Str(colState),
		Country:        r.Str(colCountry),
		ZIP:            r.Str(colZIP),
		UEI:            r.Str(colUEI),
		DUNS:           r.Str(colDUNS),
		Program:        r.Str(colProgram),
		Agency:         r.Str(colAgency),
		CTCode:         r.Str(colCTCode),
		Type:           r.Required(colType),
		Comments:       r.Str(colComments),
		ActiveDate:     r.Date(colActive),
		RecordStatus:   r.Str(colStatus),
		CrossReference: r.Str(colCrossRef),
		SAMNumber:      r.Str(colSAMNumber),
		CAGE:           r.Str(colCAGE),
		NPI:            r.OptionalNPI(colNPI),
		CreationDate:   r.Date(colCreated),
	}
	if strings.EqualFold(strings.TrimSpace(r.Raw(colTerminates)), indefinite) {
		e.Indefinite = true
	} else {
		e.TerminationDate = r.Date(colTerminates)
	}
	if e.Name == "" && e.Last == "" && !r.Failed() {
		r.Fail(colName, "neither Name nor Last given", "")
	}
	if e.ActiveDate.IsZero() && !r.Failed() {
		r.Fail(colActive, "missing value", "")
	}
	return e, true
}

// Open opens an extract file.
func Open(path string, opts ...source.Option) (*source.Reader[Exclusion], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads an extract from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Exclusion], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}
