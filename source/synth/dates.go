package synth

import "time"

// date is a civil date as days since 1970-01-01. Generated records carry many dates; a plain
// integer keeps them cheap to draw, compare and format.
type date int32

func dateOf(t time.Time) date {
	y, m, d := t.Date()
	return date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func ymd(y int, m time.Month, d int) date { return dateOf(time.Date(y, m, d, 0, 0, 0, 0, time.UTC)) }

func (d date) time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

func (d date) civil() (int, int, int) {
	y, m, dd := d.time().Date()
	return y, int(m), dd
}

// The formats of the federal files: NPPES and Open Payments MM/DD/YYYY, LEIE and POS YYYYMMDD.
func (d date) mdy() string {
	if d == 0 {
		return ""
	}
	y, m, dd := d.civil()
	b := make([]byte, 10)
	put2(b[0:], m)
	b[2] = '/'
	put2(b[3:], dd)
	b[5] = '/'
	put4(b[6:], y)
	return string(b)
}

func (d date) compact() string {
	y, m, dd := d.civil()
	b := make([]byte, 8)
	put4(b[0:], y)
	put2(b[4:], m)
	put2(b[6:], dd)
	return string(b)
}

func (d date) iso() string { return d.time().Format("2006-01-02") }

func put2(b []byte, n int) { b[0], b[1] = byte('0'+n/10%10), byte('0'+n%10) }
func put4(b []byte, n int) {
	b[0], b[1], b[2], b[3] = byte('0'+n/1000%10), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10)
}

// between draws a date uniformly in [lo, hi]; hi before lo yields lo.
func (r *rng) between(lo, hi date) date {
	if hi <= lo {
		return lo
	}
	return lo + date(r.Int64N(int64(hi-lo)+1))
}

// monYYYY is the month tag of Care Compare file names, e.g. "Jun2025".
func (d date) monYYYY() string { return d.time().Format("Jan2006") }

// nppesEpoch is the first day of NPI enumeration, the start date in every npidata file name.
var nppesEpoch = ymd(2005, time.May, 23)

// addMonths returns the same day n months later, clamped to the month's end.
func (d date) addMonths(n int) date {
	y, m, dd := d.civil()
	first := time.Date(y, time.Month(m)+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	if dd > last {
		dd = last
	}
	return dateOf(time.Date(first.Year(), first.Month(), dd, 0, 0, 0, 0, time.UTC))
}

// parseISO parses YYYY-MM-DD.
func parseISO(s string) (date, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, err
	}
	return dateOf(t), nil
}
