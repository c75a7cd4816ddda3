package fhir

import (
	"errors"
	"fmt"
	"time"
)

// Dates are searched through prefixes. A resource's _lastUpdated key is its date, YYYY-MM-DD
// (the sources date their records by the day, and meta.lastUpdated is midnight UTC of it), so a
// set of days is a set of key prefixes: whole centuries ("20"), decades ("202"), years
// ("2024"), months ("2024-06") and days ("2024-06-04"). Any range of days becomes a few dozen
// prefixes at most, which the store ORs; comparisons need no range operator in the store.

// Comparisons reach from 1900 through 2099: the sources date nothing outside it, and bounding
// open ranges keeps their prefix lists short.
var (
	minDay = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDay = time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC)
)

// dateCondition returns the key prefixes of the days a date parameter value selects, given as
// [prefix]value with prefix eq (default), gt, ge, lt, le, sa or eb. No prefixes means no day
// can match.
func dateCondition(v string) ([]string, error) {
	op := "eq"
	if len(v) > 2 && v[0] >= 'a' && v[0] <= 'z' {
		op, v = v[:2], v[2:]
	}
	start, end, err := dateRange(v)
	if err != nil {
		return nil, err
	}
	lo, hi := minDay, maxDay.AddDate(0, 0, 1)
	switch op {
	case "eq":
		lo, hi = ceilDay(start), ceilDay(end)
	case "ge":
		lo = ceilDay(start)
	case "gt", "sa":
		lo = ceilDay(end)
	case "lt", "eb":
		hi = ceilDay(start)
	case "le":
		hi = ceilDay(end)
	case "ne", "ap":
		return nil, fmt.Errorf("prefix %s is not supported (eq, gt, ge, lt, le, sa, eb are)", op)
	default:
		return nil, fmt.Errorf("unknown prefix %q", op)
	}
	lo, hi = later(lo, minDay), earlier(hi, maxDay.AddDate(0, 0, 1))
	return dayPrefixes(lo, hi), nil
}

// dateRange parses a FHIR date or dateTime into the interval [start, end) it stands for at its
// precision. A value without a zone is taken as UTC.
func dateRange(v string) (start, end time.Time, err error) {
	layouts := []struct {
		layout string
		step   func(time.Time) time.Time
	}{
		{"2006", func(t time.Time) time.Time { return t.AddDate(1, 0, 0) }},
		{"2006-01", func(t time.Time) time.Time { return t.AddDate(0, 1, 0) }},
		{"2006-01-02", func(t time.Time) time.Time { return t.AddDate(0, 0, 1) }},
		{"2006-01-02T15:04Z07:00", func(t time.Time) time.Time { return t.Add(time.Minute) }},
		{"2006-01-02T15:04:05Z07:00", func(t time.Time) time.Time { return t.Add(time.Second) }},
		{"2006-01-02T15:04:05.999999999Z07:00", func(t time.Time) time.Time { return t.Add(time.Millisecond) }},
		{"2006-01-02T15:04:05", func(t time.Time) time.Time { return t.Add(time.Second) }},
	}
	for _, l := range layouts {
		if t, err := time.Parse(l.layout, v); err == nil {
			t = t.UTC()
			return t, l.step(t), nil
		}
	}
	return time.Time{}, time.Time{}, errors.New("not a date (YYYY, YYYY-MM, YYYY-MM-DD or a dateTime with a zone)")
}

// ceilDay is the first midnight UTC at or after t.
func ceilDay(t time.Time) time.Time {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	if d.Before(t) {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// dayPrefixes covers the days [lo, hi) with the fewest key prefixes.
func dayPrefixes(lo, hi time.Time) []string {
	var out []string
	fits := func(next time.Time) bool { return !next.After(hi) }
	for d := lo; d.Before(hi); {
		y, m, day := d.Date()
		jan1 := m == time.January && day == 1
		switch {
		case jan1 && y%100 == 0 && fits(d.AddDate(100, 0, 0)):
			out = append(out, fmt.Sprintf("%02d", y/100))
			d = d.AddDate(100, 0, 0)
		case jan1 && y%10 == 0 && fits(d.AddDate(10, 0, 0)):
			out = append(out, fmt.Sprintf("%03d", y/10))
			d = d.AddDate(10, 0, 0)
		case jan1 && fits(d.AddDate(1, 0, 0)):
			out = append(out, fmt.Sprintf("%04d", y))
			d = d.AddDate(1, 0, 0)
		case day == 1 && fits(d.AddDate(0, 1, 0)):
			out = append(out, fmt.Sprintf("%04d-%02d", y, m))
			d = d.AddDate(0, 1, 0)
		default:
			out = append(out, d.Format("2006-01-02"))
			d = d.AddDate(0, 0, 1)
		}
	}
	return out
}
