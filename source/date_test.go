package source

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means an error
	}{
		{"05/23/2005", "2005-05-23"},
		{"5/3/2005", "2005-05-03"},
		{"12/31/1999", "1999-12-31"},
		{"02/29/2024", "2024-02-29"},
		{"02/29/2023", ""},
		{"02/29/1900", ""},
		{"02/29/2000", "2000-02-29"},
		{"2025-06-08", "2025-06-08"},
		{"20250608", "2025-06-08"},
		{"19660701", "1966-07-01"},
		{"00000000", ""},
		{"13/01/2020", ""},
		{"04/31/2020", ""},
		{"00/10/2020", ""},
		{"01/00/2020", ""},
		{"01/01/20", ""},
		{"01/01/02020", ""},
		{"1/1/2020 ", ""},
		{"2025-6-8", ""},
		{"2025/06/08", ""},
		{"17991231", ""},
		{"22000101", ""},
		{"", ""},
		{"//", ""},
		{"1//2020", ""},
		{"abcdefgh", ""},
	}
	for _, tt := range tests {
		d, err := ParseDate(tt.in)
		got := d.String()
		if err != nil {
			got = ""
		}
		if got != tt.want {
			t.Errorf("ParseDate(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if (err == nil) == (tt.want == "") {
			t.Errorf("ParseDate(%q) error %v", tt.in, err)
		}
	}
}

func TestDateAbsent(t *testing.T) {
	var d Date
	if !d.IsZero() || d.String() != "" || !d.Time().IsZero() {
		t.Errorf("zero Date not absent: %q %v", d, d.Time())
	}
	d = Date{2024, time.March, 5}
	if d.Time() != time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC) {
		t.Errorf("Time() = %v", d.Time())
	}
	if !(Date{}).Before(d) || d.Before(d) || !d.Before(Date{2024, time.March, 6}) {
		t.Error("Before is wrong")
	}
	b, _ := d.MarshalText()
	var e Date
	if err := e.UnmarshalText(b); err != nil || e != d {
		t.Errorf("round trip %q -> %v, %v", b, e, err)
	}
	if err := e.UnmarshalText(nil); err != nil || !e.IsZero() {
		t.Errorf("empty text -> %v, %v", e, err)
	}
	if err := e.UnmarshalText([]byte("2024-02-30")); err == nil {
		t.Error("impossible date accepted")
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"05/23/2005", "2025-06-08", "20250608", "1/1/2000", "00000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			if !d.IsZero() {
				t.Fatalf("error with non-zero date %v", d)
			}
			return
		}
		tm := d.Time()
		if tm.Year() != d.Year || tm.Month() != d.Month || tm.Day() != d.Day {
			t.Fatalf("%q parsed to impossible %v", s, d)
		}
		back, err := ParseDate(d.String())
		if err != nil || back != d {
			t.Fatalf("%q: %v does not round-trip", s, d)
		}
	})
}
