package carecompare

import (
	"strconv"
	"strings"

	"providerdir/source"
)

// Period is the measurement period a file or row states. Text keeps the published wording;
// Start and End are set when it has a recognised form, and are absent otherwise.
type Period struct {
	Start, End source.Date
	Text       string
}

// Dated reports whether the period has both its dates.
func (p Period) Dated() bool { return !p.Start.IsZero() && !p.End.IsZero() }

// span returns the period from the earlier start to the later end of p and q, taking the dated
// one when only one is; the published text is kept while q does not widen p.
func (p Period) span(q Period) Period {
	switch {
	case !q.Dated():
		return p
	case !p.Dated():
		return q
	}
	out := p
	if q.Start.Before(p.Start) {
		out.Start = q.Start
	}
	if p.End.Before(q.End) {
		out.End = q.End
	}
	if out != p {
		out.Text = out.Start.String() + " - " + out.End.String()
	}
	return out
}

// suppressed lists the published ways of saying "no value" (compared case-insensitively):
// too few cases, not reported, not applicable. They read as nil, never as zero.
var suppressed = []string{
	"", "Not Available", "Not Applicable", "N/A", "NA", "-", "--", "*", "Too Few to Report",
	"Not Enough Data", "Not Reported", "Number of Cases Too Small", "No Data", "Not Calculated",
}

func isSuppressed(v string) bool {
	for _, m := range suppressed {
		if len(m) == len(v) && strings.EqualFold(m, v) {
			return true
		}
	}
	return false
}

// parseMeasure reads a measure value: a decimal number, possibly with thousands separators or
// a trailing percent sign, or a suppression marker (present false). Any other text is an error
// (ok false), so a new marker in a release shows up in the report instead of becoming zero.
func parseMeasure(v string) (f float64, present, ok bool) {
	if v != "" && (v[0] >= '0' && v[0] <= '9' || v[0] == '-' || v[0] == '.') { // numbers first: most values are
		n := strings.TrimSuffix(v, "%")
		if strings.IndexByte(n, ',') >= 0 {
			n = strings.ReplaceAll(n, ",", "")
		}
		f, err := strconv.ParseFloat(n, 64)
		if err == nil && f == f && f <= 1e15 && f >= -1e15 { // f == f: not NaN
			return f, true, true
		}
	}
	if isSuppressed(v) {
		return 0, false, true
	}
	return 0, false, false
}

// measure reads file column i as a measure into *slot, returning slot, or nil when the value is
// suppressed or unreadable (which rejects the row). Callers pass slots of one per-row array so a
// wide row costs one allocation, not one per measure.
func measure(r *source.Row, i int, slot *float64) *float64 {
	v := r.At(i)
	f, present, ok := parseMeasure(v)
	if !ok {
		r.FailAt(i, "bad measure value", v)
	}
	if !present {
		return nil
	}
	*slot = f
	return slot
}

// star reads a star rating: 1 to 5 in steps of a half (home health ratings have half stars),
// or nil when suppressed.
func star(r *source.Row, c source.Col) *float64 {
	v := r.Str(c)
	if isSuppressed(v) {
		return nil
	}
	n, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil:
		r.Fail(c, "bad star rating", v)
		return nil
	case n < 1 || n > 5 || n*2 != float64(int(n*2)):
		r.Fail(c, "star rating not 1 to 5 in half steps", v)
		return nil
	}
	return &n
}

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// parseDay reads one end of a period: any source.ParseDate form, or DDMonYYYY ("01Jan2019").
func parseDay(s string) (source.Date, bool) {
	s = strings.TrimSpace(s)
	if d, err := source.ParseDate(s); err == nil {
		return d, true
	}
	if len(s) == 9 {
		if m, ok := months[strings.ToLower(s[2:5])]; ok {
			if d, err := source.ParseDate(s[5:9] + "-" + strconv.Itoa(100 + m)[1:] + "-" + s[0:2]); err == nil {
				return d, true
			}
		}
	}
	return source.Date{}, false
}

// parsePeriod recognises "A - B" and "A-B" ranges of parseDay dates, and a bare year (the whole
// calendar year). Anything else keeps only its text.
func parsePeriod(text string) Period {
	p := Period{Text: text}
	if len(text) == 4 {
		if y, err := strconv.Atoi(text); err == nil && y >= 1900 && y < 2200 {
			p.Start = source.Date{Year: y, Month: 1, Day: 1}
			p.End = source.Date{Year: y, Month: 12, Day: 31}
		}
		return p
	}
	// Split at the dash between the two dates: the one not inside an ISO date.
	for i := 0; i < len(text); i++ {
		if text[i] != '-' {
			continue
		}
		a, okA := parseDay(text[:i])
		b, okB := parseDay(text[i+1:])
		if okA && okB && !b.Before(a) {
			p.Start, p.End = a, b
			return p
		}
	}
	return p
}

// period reads a period from a range column, or from separate start and end columns. A blank
// or a suppression marker ("Not Available", "N/A", "-") states no period, or no end of it.
func period(r *source.Row, text, start, end source.Col) Period {
	if t := r.Str(text); !isSuppressed(t) {
		return parsePeriod(t)
	}
	a, b := r.Str(start), r.Str(end)
	if isSuppressed(a) {
		a = ""
	}
	if isSuppressed(b) {
		b = ""
	}
	p := Period{Start: dateOf(r, start, a), End: dateOf(r, end, b)}
	if a != "" || b != "" {
		p.Text = a + " - " + b
	}
	return p
}

// dateOf reads v, column c's value, as one end of a period: any parseDay form; anything else
// rejects the row.
func dateOf(r *source.Row, c source.Col, v string) source.Date {
	if v == "" {
		return source.Date{}
	}
	d, ok := parseDay(v)
	if !ok {
		r.Fail(c, "bad date", v)
	}
	return d
}
