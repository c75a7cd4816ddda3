package carecompare

import (
	"io"
	"strings"

	"providerdir/source"
)

// MeasureRow is one row of a long-format file (Provider_CAHPS_Hospice_Survey_Data,
// Hospice_Provider_Data): one measure of one facility.
type MeasureRow struct {
	CCN         string
	Name        string // facility name
	State       string
	Code        string // e.g. "CAHPS_SUMMARY_STAR_RATING"
	MeasureName string
	Score       *float64 // nil when suppressed
	Star        *float64 // star rating of the row, 1-5; nil when suppressed or not a star row
	Footnote    string
	Period      Period
}

// Summary reports whether the row is a facility's summary (overall) star rating: a CAHPS star
// row whose measure code names the summary rating.
func (m *MeasureRow) Summary() bool {
	return strings.Contains(strings.ToUpper(m.Code), "SUMMARY_STAR")
}

// Survey is one facility's rows of a long-format file, gathered: the summary star, the other
// rows as measures in file order, and the period the rows state.
type Survey struct {
	Star     *float64
	Measures []Measure
	Period   Period
}

// Add takes one row of the facility. A measure row's value is its score, or its star where the
// row is a star row (the score "Not Applicable"); nil when both are suppressed. The period is
// the span of the rows' periods.
func (s *Survey) Add(m MeasureRow) {
	switch {
	case m.Summary():
		if m.Star != nil {
			s.Star = m.Star
		}
	default:
		v := m.Score
		if v == nil {
			v = m.Star
		}
		s.Measures = append(s.Measures, Measure{Name: m.Code, Value: v, Footnote: m.Footnote})
	}
	s.Period = s.Period.span(m.Period)
}

// Join gives a general-information row what its facility's survey publishes and the row does
// not: the overall star, the survey's measures after the row's own, and the period.
func (f *Facility) Join(s *Survey) {
	if f.OverallStar == nil {
		f.OverallStar = s.Star
	}
	f.Measures = append(f.Measures, s.Measures...)
	if !f.Period.Dated() {
		f.Period = s.Period
	}
}

var (
	longSchema   = source.NewSchema("Care Compare hospice measures (long format)")
	lCCN         = longSchema.Required(ccnNames[0], ccnNames[1:]...)
	lName        = longSchema.Optional("Facility Name")
	lState       = longSchema.Optional("State")
	lCode        = longSchema.Required("Measure Code")
	lMeasureName = longSchema.Optional("Measure Name")
	lScore       = longSchema.Optional("Score")
	lStar        = longSchema.Optional("Star Rating")
	lFootnote    = longSchema.Optional("Footnote")
	lPeriod      = longSchema.Optional("Measure Date Range", "Date", "Measure Period")
	lStart       = longSchema.Optional("Measure Start Date", "Start Date")
	lEnd         = longSchema.Optional("Measure End Date", "End Date")
)

func decodeMeasure(r *source.Row) (MeasureRow, bool) {
	m := MeasureRow{
		CCN:         r.CCN(lCCN),
		Name:        r.Str(lName),
		State:       r.Str(lState),
		Code:        r.Required(lCode),
		MeasureName: r.Str(lMeasureName),
		Star:        star(r, lStar),
		Footnote:    r.Str(lFootnote),
		Period:      period(r, lPeriod, lStart, lEnd),
	}
	if i := r.Header().Column(lScore); i >= 0 {
		m.Score = measure(r, i, new(float64))
	}
	return m, true
}

// OpenMeasures opens a long-format hospice measure file.
func OpenMeasures(path string, opts ...source.Option) (*source.Reader[MeasureRow], error) {
	return source.Open(path, longSchema, decodeMeasure, opts...)
}

// NewMeasureReader reads a long-format hospice measure file from r, named name in reports.
func NewMeasureReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[MeasureRow], error) {
	return source.NewReader(r, name, longSchema, decodeMeasure, opts...)
}
