package source

import (
	"errors"
	"fmt"
	"time"
)

// Date is a calendar date with no time of day or zone, as the federal files publish them. The
// zero Date means "absent": a blank field, or a sentinel such as LEIE's 00000000. It is never a
// real date, so an absent deactivation date cannot pass for January 1 of year 1.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// IsZero reports whether the date is absent.
func (d Date) IsZero() bool { return d == Date{} }

// String returns the date as YYYY-MM-DD, or "" when absent.
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// Time returns midnight UTC of the date, or the zero time.Time when the date is absent.
func (d Date) Time() time.Time {
	if d.IsZero() {
		return time.Time{}
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC)
}

// Before reports whether d is earlier than e. Absent dates compare as earliest.
func (d Date) Before(e Date) bool {
	if d.Year != e.Year {
		return d.Year < e.Year
	}
	if d.Month != e.Month {
		return d.Month < e.Month
	}
	return d.Day < e.Day
}

// MarshalText renders the date as YYYY-MM-DD (empty when absent), so records encode cleanly.
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses YYYY-MM-DD; empty text is the absent date.
func (d *Date) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Date{}
		return nil
	}
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// errBadDate is the one error ParseDate returns; its text is the row-error reason.
var errBadDate = errors.New("bad date")

// ParseDate parses the date spellings the federal files use, told apart by shape:
//
//	MM/DD/YYYY or M/D/YYYY   NPPES, Open Payments, CMS provider data
//	YYYY-MM-DD               data.cms.gov API downloads
//	YYYYMMDD                 LEIE, POS
//
// The date must exist (no February 30). Years must lie in 1800..2199, which catches swapped
// fields and typed-in nonsense without rejecting a real date of birth. An empty string is an
// error here; callers decide whether blank means absent.
func ParseDate(s string) (Date, error) {
	var y, m, d int
	var ok bool
	switch {
	case len(s) == 8 && s[2] != '/' && s[1] != '/':
		y, ok = digits(s[0:4])
		if ok {
			m, ok = digits(s[4:6])
		}
		if ok {
			d, ok = digits(s[6:8])
		}
	case len(s) == 10 && s[4] == '-' && s[7] == '-':
		y, ok = digits(s[0:4])
		if ok {
			m, ok = digits(s[5:7])
		}
		if ok {
			d, ok = digits(s[8:10])
		}
	default:
		m, d, y, ok = slashed(s)
	}
	if !ok || y < 1800 || y > 2199 || m < 1 || m > 12 || d < 1 || d > daysIn(y, time.Month(m)) {
		return Date{}, errBadDate
	}
	return Date{Year: y, Month: time.Month(m), Day: d}, nil
}

// slashed parses M/D/YYYY with one- or two-digit month and day.
func slashed(s string) (m, d, y int, ok bool) {
	i := 0
	part := func(maxLen int) (int, bool) {
		start := i
		for i < len(s) && i-start < maxLen && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return 0, false
		}
		v, _ := digits(s[start:i])
		return v, true
	}
	if m, ok = part(2); !ok || i >= len(s) || s[i] != '/' {
		return 0, 0, 0, false
	}
	i++
	if d, ok = part(2); !ok || i >= len(s) || s[i] != '/' {
		return 0, 0, 0, false
	}
	i++
	start := i
	if y, ok = part(4); !ok || i-start != 4 || i != len(s) {
		return 0, 0, 0, false
	}
	return m, d, y, true
}

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(y int, m time.Month) int {
	switch m {
	case time.February:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}
