// Package carecompare reads the Care Compare provider data files that CMS publishes on the
// Provider Data Catalog (data.cms.gov/provider-data), one reader per file kind, all yielding the
// same Facility record:
//
//	Hospital     Hospital_General_Information.csv (38 columns)
//	NursingHome  NH_ProviderInfo_<MonYYYY>.csv
//	Dialysis     DFC_FACILITY.csv
//	HomeHealth   HH_Provider_<MonYYYY>.csv
//	Hospice      Hospice_General-Information_<MonYYYY>.csv
//	ASC          ASC_Facility.csv (ambulatory surgical center quality measures)
//
// plus the long-format hospice files (Provider_CAHPS_Hospice_Survey_Data, Hospice_Provider_Data:
// one row per facility and measure, the CAHPS rows carrying star ratings), read with OpenMeasures.
//
// Layouts are those of each dataset's data dictionary; older column names that later releases
// renamed are accepted as aliases. Star ratings and measure values are nil when CMS suppresses
// them ("Not Available", "Not Applicable", too few cases...), never zero. The facility id is the
// CCN (the ten-character supplier number for ASCs) and must pass ident.ValidateCCN.
package carecompare

import (
	"fmt"
	"io"
	"strings"

	"providerdir/source"
)

// Kind is the kind of facility file.
type Kind uint8

// File kinds.
const (
	Hospital Kind = iota + 1
	NursingHome
	Dialysis
	HomeHealth
	Hospice
	ASC
)

var kindNames = [...]string{Hospital: "hospital", NursingHome: "nursing home", Dialysis: "dialysis facility",
	HomeHealth: "home health agency", Hospice: "hospice", ASC: "ambulatory surgical center"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "unknown"
}

// Measure is one measure column of a wide file.
type Measure struct {
	Name     string   // the column header as published, e.g. "Health Inspection Rating", "ASC-9 Rate*"
	Value    *float64 // nil when suppressed
	Footnote string   // the measure's footnote code(s), as published
}

// Facility is one row of a facility file.
type Facility struct {
	Kind         Kind
	CCN          string
	Name         string
	Address      string
	Address2     string
	City         string
	State        string
	ZIP          string
	County       string
	Phone        string
	Ownership    string   // as published, e.g. "Voluntary non-profit - Private", "For profit - Corporation"
	FacilityType string   // e.g. "Acute Care Hospitals" (Hospital Type), "Medicare and Medicaid" (Provider Type)
	NPI          string   // ASC files only
	OverallStar  *float64 // overall star rating, 1-5 (halves for home health); nil when suppressed or absent
	StarFootnote string
	Certified    source.Date // certification or first-approval date, where published
	AsOf         source.Date // processing date, where published (nursing homes)
	Period       Period      // measurement period, where the file states one per row
	Measures     []Measure   // the file's measure columns, in file order
}

// layout is the column map of one file kind.
type layout struct {
	kind                                             Kind
	schema                                           *source.Schema
	ccn, name, addr, addr2, city, state, zip, county source.Col
	phone, ownership, ftype, npi, star, starNote     source.Col
	certified, asOf, period, periodStart, periodEnd  source.Col
	measures                                         source.Group
	footnote                                         func(measure string) []string
}

// names lists a column's header and its aliases; an empty list means the layout lacks it.
type names []string

func opt(s *source.Schema, n names) source.Col {
	if len(n) == 0 {
		return source.NoCol
	}
	return s.Optional(n[0], n[1:]...)
}

func req(s *source.Schema, n names) source.Col { return s.Required(n[0], n[1:]...) }

var (
	ccnNames   = names{"CMS Certification Number (CCN)", "Federal Provider Number", "Provider Number", "Provider ID"}
	cityNames  = names{"City/Town", "City", "Provider City"}
	zipNames   = names{"ZIP Code", "Zip", "Provider Zip Code"}
	phoneNames = names{"Telephone Number", "Phone Number", "Provider Phone Number"}
	countyName = names{"County/Parish", "County Name", "County", "Provider County Name"}
	// A row's measurement period: one range column, or a start and an end column.
	periodNames = names{"Measure Date Range", "Measure Period"}
	startNames  = names{"Measure Start Date", "Start Date"}
	endNames    = names{"Measure End Date", "End Date"}
)

var layouts = map[Kind]*layout{}

func init() {
	hospital := source.NewSchema("Care Compare Hospital_General_Information")
	layouts[Hospital] = &layout{kind: Hospital, schema: hospital,
		ccn: req(hospital, names{"Facility ID", "Provider ID"}), name: req(hospital, names{"Facility Name", "Hospital Name"}),
		addr: opt(hospital, names{"Address"}), addr2: source.NoCol, city: opt(hospital, cityNames),
		state: req(hospital, names{"State"}), zip: opt(hospital, zipNames), county: opt(hospital, countyName),
		phone: opt(hospital, phoneNames), ownership: opt(hospital, names{"Hospital Ownership"}),
		ftype: opt(hospital, names{"Hospital Type"}), npi: source.NoCol,
		star: req(hospital, names{"Hospital overall rating"}), starNote: opt(hospital, names{"Hospital overall rating footnote"}),
		certified: source.NoCol, asOf: source.NoCol,
		period: opt(hospital, periodNames), periodStart: opt(hospital, startNames), periodEnd: opt(hospital, endNames),
		measures: hospital.Group(func(n string) bool {
			k := source.HeaderKey(n)
			return strings.HasPrefix(k, "count of ") || strings.HasSuffix(k, " measure count")
		}),
		footnote: hospitalFootnote,
	}

	nh := source.NewSchema("Care Compare NH_ProviderInfo")
	layouts[NursingHome] = &layout{kind: NursingHome, schema: nh,
		ccn: req(nh, ccnNames), name: req(nh, names{"Provider Name"}), addr: opt(nh, names{"Provider Address"}),
		addr2: source.NoCol, city: opt(nh, cityNames), state: req(nh, names{"State", "Provider State"}),
		zip: opt(nh, zipNames), county: opt(nh, countyName), phone: opt(nh, phoneNames),
		ownership: opt(nh, names{"Ownership Type"}), ftype: opt(nh, names{"Provider Type"}), npi: source.NoCol,
		star: req(nh, names{"Overall Rating"}), starNote: opt(nh, names{"Overall Rating Footnote"}),
		certified: opt(nh, names{"Date First Approved to Provide Medicare and Medicaid Services"}),
		asOf:      opt(nh, names{"Processing Date"}),
		period:    opt(nh, periodNames), periodStart: opt(nh, startNames), periodEnd: opt(nh, endNames),
		measures: nh.Group(func(n string) bool {
			k := source.HeaderKey(n)
			return strings.HasSuffix(k, " rating") && k != "overall rating"
		}),
		footnote: func(m string) []string { return []string{m + " Footnote"} },
	}

	dfc := source.NewSchema("Care Compare DFC_FACILITY")
	layouts[Dialysis] = &layout{kind: Dialysis, schema: dfc,
		ccn: req(dfc, ccnNames), name: req(dfc, names{"Facility Name"}), addr: opt(dfc, names{"Address Line 1"}),
		addr2: opt(dfc, names{"Address Line 2"}), city: opt(dfc, cityNames), state: req(dfc, names{"State"}),
		zip: opt(dfc, zipNames), county: opt(dfc, countyName), phone: opt(dfc, phoneNames),
		ownership: opt(dfc, names{"Profit or Non-Profit"}), ftype: source.NoCol, npi: source.NoCol,
		star: req(dfc, names{"Five Star"}), starNote: opt(dfc, names{"Five Star Data Availability Code"}),
		certified: opt(dfc, names{"Certification Date"}), asOf: source.NoCol,
		period: opt(dfc, names{"Five Star Date"}), periodStart: source.NoCol, periodEnd: source.NoCol,
		measures: dfc.Group(func(n string) bool { return strings.HasSuffix(source.HeaderKey(n), "(facility)") }),
		footnote: func(m string) []string {
			base := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(m, "(Facility)"), "(facility)"))
			return []string{base + " Footnote (Facility)", base + " (Facility) Footnote"}
		},
	}

	hh := source.NewSchema("Care Compare HH_Provider")
	layouts[HomeHealth] = &layout{kind: HomeHealth, schema: hh,
		ccn: req(hh, ccnNames), name: req(hh, names{"Provider Name"}), addr: opt(hh, names{"Address"}),
		addr2: source.NoCol, city: opt(hh, cityNames), state: req(hh, names{"State"}), zip: opt(hh, zipNames),
		county: source.NoCol, phone: opt(hh, append(names{}, append(phoneNames, "Phone")...)),
		ownership: opt(hh, names{"Type of Ownership"}), ftype: source.NoCol, npi: source.NoCol,
		star:      req(hh, names{"Quality of patient care star rating"}),
		starNote:  opt(hh, names{"Footnote for quality of patient care star rating"}),
		certified: opt(hh, names{"Certification Date"}), asOf: source.NoCol,
		period: opt(hh, periodNames), periodStart: opt(hh, startNames), periodEnd: opt(hh, endNames),
		measures: hh.Group(func(n string) bool {
			k := source.HeaderKey(n)
			return strings.HasPrefix(k, "how often") || strings.Contains(k, "risk-standardized rate")
		}),
		footnote: func(m string) []string { return []string{"Footnote for " + m, "Footnote " + m} },
	}

	hospice := source.NewSchema("Care Compare Hospice_General-Information")
	layouts[Hospice] = &layout{kind: Hospice, schema: hospice,
		ccn: req(hospice, ccnNames), name: req(hospice, names{"Facility Name"}),
		addr: opt(hospice, names{"Address Line 1", "Address"}), addr2: opt(hospice, names{"Address Line 2"}),
		city: opt(hospice, cityNames), state: req(hospice, names{"State"}), zip: opt(hospice, zipNames),
		county: opt(hospice, countyName), phone: opt(hospice, phoneNames),
		ownership: opt(hospice, names{"Ownership Type"}), ftype: source.NoCol, npi: source.NoCol,
		star:      opt(hospice, names{"Quality of Patient Care Star Rating"}),
		starNote:  opt(hospice, names{"Quality of Patient Care Star Rating Footnote", "Footnote for Quality of Patient Care Star Rating"}),
		certified: opt(hospice, names{"Certification Date"}), asOf: source.NoCol,
		period: opt(hospice, periodNames), periodStart: opt(hospice, startNames), periodEnd: opt(hospice, endNames),
		measures: hospice.Group(func(string) bool { return false }),
	}

	asc := source.NewSchema("Care Compare ASC_Facility")
	layouts[ASC] = &layout{kind: ASC, schema: asc,
		ccn: req(asc, names{"Facility ID"}), name: req(asc, names{"Facility Name"}), addr: source.NoCol,
		addr2: source.NoCol, city: opt(asc, cityNames), state: req(asc, names{"State"}), zip: opt(asc, zipNames),
		county: source.NoCol, phone: source.NoCol, ownership: source.NoCol, ftype: source.NoCol,
		npi: opt(asc, names{"NPI"}), star: source.NoCol, starNote: source.NoCol, certified: source.NoCol,
		asOf: source.NoCol, period: opt(asc, names{"Year"}), periodStart: source.NoCol, periodEnd: source.NoCol,
		measures: asc.Group(func(n string) bool {
			k := source.HeaderKey(n)
			return strings.HasPrefix(k, "asc-") && (strings.HasSuffix(k, " rate*") || strings.HasSuffix(k, " rate"))
		}),
		footnote: func(m string) []string {
			id, _, _ := strings.Cut(m, " ")
			return []string{id + " Footnote"}
		},
	}
}

// hospitalFootnote maps a measure-count column of Hospital_General_Information to its group's
// footnote column: "Count of Facility MORT Measures" -> "MORT Group Footnote".
func hospitalFootnote(m string) []string {
	g := m
	for _, p := range []string{"Count of Facility ", "Count of "} {
		if strings.HasPrefix(g, p) {
			g = g[len(p):]
			break
		}
	}
	for _, sep := range []string{" Group", " Measure"} {
		if i := strings.Index(g, sep); i > 0 {
			g = g[:i]
			break
		}
	}
	return []string{g + " Group Footnote"}
}

// measureCol is a measure column resolved in one file: its index, header and footnote index.
type measureCol struct {
	index, footnote int
	name            string
}

func (l *layout) prepare(h *source.Header) source.Decoder[Facility] {
	var cols []measureCol
	for _, i := range h.Group(l.measures) {
		if strings.Contains(source.HeaderKey(h.NameAt(i)), "footnote") {
			continue // a measure's footnote, read with the measure
		}
		mc := measureCol{index: i, footnote: -1, name: h.NameAt(i)}
		if l.footnote != nil {
			for _, f := range l.footnote(mc.name) {
				if j := h.Index(f); j >= 0 {
					mc.footnote = j
					break
				}
			}
		}
		cols = append(cols, mc)
	}
	return func(r *source.Row) (Facility, bool) { return l.decode(r, cols), true }
}

func (l *layout) decode(r *source.Row, cols []measureCol) Facility {
	f := Facility{
		Kind:         l.kind,
		CCN:          r.CCN(l.ccn),
		Name:         r.Required(l.name),
		Address:      r.Str(l.addr),
		Address2:     r.Str(l.addr2),
		City:         r.Str(l.city),
		State:        r.Str(l.state),
		ZIP:          r.Code(l.zip, 5),
		County:       r.Str(l.county),
		Phone:        r.Str(l.phone),
		Ownership:    r.Str(l.ownership),
		FacilityType: r.Str(l.ftype),
		NPI:          r.OptionalNPI(l.npi),
		OverallStar:  star(r, l.star),
		StarFootnote: r.Str(l.starNote),
		Certified:    r.Date(l.certified),
		AsOf:         r.Date(l.asOf),
		Period:       period(r, l.period, l.periodStart, l.periodEnd),
	}
	if len(cols) > 0 {
		f.Measures = make([]Measure, len(cols))
		values := make([]float64, len(cols))
		for i, c := range cols {
			f.Measures[i] = Measure{Name: c.name, Value: measure(r, c.index, &values[i]), Footnote: r.At(c.footnote)}
		}
	}
	return f
}

// Open opens a facility file of the given kind.
func Open(kind Kind, path string, opts ...source.Option) (*source.Reader[Facility], error) {
	l, err := layoutOf(kind)
	if err != nil {
		return nil, err
	}
	return source.OpenPrepared(path, l.schema, l.prepare, opts...)
}

// NewReader reads a facility file of the given kind from r, named name in reports.
func NewReader(kind Kind, r io.Reader, name string, opts ...source.Option) (*source.Reader[Facility], error) {
	l, err := layoutOf(kind)
	if err != nil {
		return nil, err
	}
	return source.NewPreparedReader(r, name, l.schema, l.prepare, opts...)
}

// Kinds lists the facility file kinds, in a fixed order.
func Kinds() []Kind { return []Kind{Hospital, NursingHome, Dialysis, HomeHealth, Hospice, ASC} }

func layoutOf(k Kind) (*layout, error) {
	l, ok := layouts[k]
	if !ok {
		return nil, fmt.Errorf("carecompare: unknown file kind %d", k)
	}
	return l, nil
}
