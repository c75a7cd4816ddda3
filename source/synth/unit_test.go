package synth

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/ident"
	refset "providerdir/source/reference"
	"providerdir/source/zcta"
)

func TestBadValuesAreRejectedByIdent(t *testing.T) {
	tests := []struct {
		name   string
		value  string
		check  func(string) error
		reason ident.Reason
	}{
		{"bad NPI check digit", badNPI("1234567893"), ident.ValidateNPI, ident.ReasonCheckDigit},
		{"bad NPI check digit, 9 wraps to 0", badNPI("1000000009"), ident.ValidateNPI, ident.ReasonCheckDigit},
		{"CCN cut short", invalidCCN("050123", 0), ident.ValidateCCN, ident.ReasonLength},
		{"CCN with unknown state code", invalidCCN("050123", 1), ident.ValidateCCN, ident.ReasonUnknownState},
		{"CCN with a dash", invalidCCN("050123", 2), ident.ValidateCCN, ident.ReasonBadCharacter},
		{"ASC CCN cut short", invalidCCN("05C0001234", 0), ident.ValidateCCN, ident.ReasonLength},
		{"ASC CCN with unknown state code", invalidCCN("05C0001234", 1), ident.ValidateCCN, ident.ReasonUnknownState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *ident.Error
			if err := tt.check(tt.value); !errors.As(err, &e) || e.Reason != tt.reason {
				t.Fatalf("%q: %v, want reason %q", tt.value, err, tt.reason)
			}
		})
	}
	if err := ident.ValidateNPI("1234567893"); err != nil {
		t.Fatalf("the valid NPI the bad one is made from: %v", err)
	}
}

func TestBadDatesDoNotExist(t *testing.T) {
	for _, v := range []string{badDateMDY(2019), badDateCompact(2019)} {
		layout := "01/02/2006"
		if !strings.Contains(v, "/") {
			layout = "20060102"
		}
		if _, err := time.Parse(layout, v); err == nil {
			t.Errorf("%s parses", v)
		}
	}
}

func TestUnusedCCNsAreValidAndOutsideTheRanges(t *testing.T) {
	for k := 0; k < 200; k++ {
		c := unusedCCN("05", k)
		if err := ident.ValidateCCN(c); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ch := range c[2:] {
			n = n*10 + int(ch-'0')
		}
		for _, fk := range facilityKinds {
			for _, r := range fk.ranges {
				if fk.slug != "asc" && n >= r[0] && n <= r[1] {
					t.Fatalf("%s is in the %s range %v", c, fk.slug, r)
				}
			}
		}
		for _, h := range hospitalSubtypes {
			if n >= h.lo && n <= h.hi {
				t.Fatalf("%s is in a hospital range", c)
			}
		}
	}
}

func TestPermutationIsABijection(t *testing.T) {
	tests := []struct {
		name string
		m    uint64
	}{{"small prime", 101}, {"power of two", 1024}, {"mixed", 2 * 3 * 5 * 7 * 11}, {"NPI bodies", 200_000_000}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPermutation(42, 7, tt.m)
			n := min(tt.m, 20000)
			seen := map[uint64]bool{}
			for i := uint64(0); i < n; i++ {
				v := p.at(i)
				if v >= tt.m || seen[v] {
					t.Fatalf("at(%d) = %d repeats or leaves [0, %d)", i, v, tt.m)
				}
				seen[v] = true
			}
		})
	}
}

func TestCumulative(t *testing.T) {
	c := newCumulative([]float64{1, 0, 3})
	tests := []struct {
		u    uint64
		want int
	}{{0, 0}, {1 << 61, 0}, {1<<62 - 1<<20, 0}, {1 << 62, 2}, {math.MaxUint64, 2}}
	for _, tt := range tests {
		if got := c.at(tt.u); got != tt.want {
			t.Errorf("at(%#x) = %d, want %d", tt.u, got, tt.want)
		}
	}
	// The R2 sequence fills a distribution evenly: 1000 points over weights 1:2:7 land within
	// one or two of 100, 200, 700.
	c = newCumulative([]float64{1, 2, 7})
	var n [3]int
	for k := int64(0); k < 1000; k++ {
		u, _ := r2(5, 1, k)
		n[c.at(u)]++
	}
	for i, want := range []int{100, 200, 700} {
		if d := n[i] - want; d < -3 || d > 3 {
			t.Errorf("outcome %d: %d of 1000, want %d", i, n[i], want)
		}
	}
}

func TestDateFormats(t *testing.T) {
	d := ymd(2025, time.June, 8)
	tests := []struct{ got, want string }{
		{d.mdy(), "06/08/2025"}, {d.compact(), "20250608"}, {d.iso(), "2025-06-08"}, {d.monYYYY(), "Jun2025"},
		{date(0).mdy(), ""}, {ymd(2025, time.January, 31).addMonths(1).iso(), "2025-02-28"},
		{d.addMonths(1).iso(), "2025-07-08"}, {ymd(2024, time.December, 8).addMonths(1).iso(), "2025-01-08"},
		{pecosDate(d).iso(), "2025-04-01"}, {posName(d), "Hospital_and_other.DATA.Q2_2025.csv"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestProgramYear(t *testing.T) {
	tests := []struct {
		snap      date
		year      int
		published string
		file      string
	}{
		{ymd(2025, time.June, 8), 2023, "2024-06-30", "OP_DTL_GNRL_PGY2023_P06302024.csv"},
		{ymd(2025, time.July, 1), 2024, "2025-06-30", "OP_DTL_GNRL_PGY2024_P06302025.csv"},
		{ymd(2025, time.June, 30), 2024, "2025-06-30", "OP_DTL_GNRL_PGY2024_P06302025.csv"},
	}
	for _, tt := range tests {
		y, p := programYear(tt.snap)
		if y != tt.year || p.iso() != tt.published || opName(y, p) != tt.file {
			t.Errorf("%s: program year %d published %s (%s), want %d %s %s", tt.snap.iso(), y, p.iso(), opName(y, p), tt.year, tt.published, tt.file)
		}
	}
}

func TestMainCCNFirst(t *testing.T) {
	tests := []struct {
		in   []string
		want string
	}{
		{[]string{"00", "03", "D9"}, "03,00,D9"},
		{[]string{"05", "55", "75", "92", "A0", "A1", "B2"}, "05,55,75,92,A0,A1,B2"},
		{[]string{"E2", "97", "74", "67", "45", "A9", "E3"}, "45,67,74,97,A9,E2,E3"},
	}
	for _, tt := range tests {
		if got := strings.Join(mainCCNFirst(tt.in), ","); got != tt.want {
			t.Errorf("mainCCNFirst(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestCareCompareCounty(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Autauga County", "AUTAUGA"}, {"Orleans Parish", "ORLEANS"}, {"Juneau City and Borough", "JUNEAU"},
		{"Capitol Planning Region", "CAPITOL"}, {"District of Columbia", "DISTRICT OF COLUMBIA"}, {"Doña Ana County", "DOÑA ANA"},
	}
	for _, tt := range tests {
		if got := careCompareCounty(tt.in); got != tt.want {
			t.Errorf("careCompareCounty(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEnrollmentIDsAreUnique(t *testing.T) {
	w := worldForTest(t)
	seen := map[string]bool{}
	for _, i := range []int64{0, 1, 999_999, 1_000_000, 1_000_001, 5_999_999, 11_999_999, phantomBase, phantomBase + 4} {
		for e := 0; e < 2; e++ {
			for _, org := range []bool{false, true} {
				id := w.enrollmentID(i, e, org, nppesEpoch)
				if len(id) != 15 || seen[id] {
					t.Fatalf("enrollment id %q of %d/%d repeats or is malformed", id, i, e)
				}
				seen[id] = true
			}
		}
	}
	// An id depends on the seed and the record only: another world of the seed agrees.
	if w.enrollmentID(7, 0, false, nppesEpoch) != worldForTest(t).enrollmentID(7, 0, false, nppesEpoch) {
		t.Fatal("enrollment id not deterministic")
	}
}

func TestQuotingHelpers(t *testing.T) {
	tests := []struct {
		v    string
		q    quoting
		want string
	}{
		{"", quoteAll, `""`},
		{"A, B", quoteMinimal, `"A, B"`},
		{"PLAIN", quoteMinimal, `PLAIN`},
		{`SAY "HI"`, quoteAll, `"SAY ""HI"""`},
		{`"`, quoteMinimal, `""""`},
	}
	for _, tt := range tests {
		if got := string(appendField(nil, tt.v, tt.q)); got != tt.want {
			t.Errorf("appendField(%q) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

// TestRecordsAreRecomputable checks the property evolve mode relies on: a record derived alone
// equals the same record derived in sequence with others.
func TestRecordsAreRecomputable(t *testing.T) {
	w := worldForTest(t)
	r := newRNG()
	var seq []*provider
	for i := int64(0); i < 50; i++ {
		seq = append(seq, w.provider(r, i))
	}
	for _, i := range []int64{49, 3, 17, 0} {
		p := w.provider(newRNG(), i)
		if p.npi != seq[i].npi || p.last != seq[i].last || p.practice != seq[i].practice || len(p.taxonomies) != len(seq[i].taxonomies) {
			t.Errorf("record %d differs when derived alone", i)
		}
	}
}

// TestNationalScaleFacilities builds the world of a national-size drop (no files): its facility
// table must fit every CCN into its state's codes and ranges, uniquely.
func TestNationalScaleFacilities(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12-million-provider world")
	}
	ref, err := loadReference(refset.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWorld(3, maxProviders, ref, baseSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.facilities); n < maxProviders/facilitiesPer-1 {
		t.Fatalf("%d facilities", n)
	}
	seen := map[string]bool{}
	for _, f := range w.facilities {
		if err := ident.ValidateCCN(f.ccn); err != nil {
			t.Fatal(err)
		}
		if st, _ := ident.CCNState(f.ccn[:2]); st != w.ref.states[f.state].Code || seen[f.ccn] {
			t.Fatalf("CCN %s: state %s, facility in %s, repeated %v", f.ccn, st, w.ref.states[f.state].Code, seen[f.ccn])
		}
		seen[f.ccn] = true
	}
}

// Cities' ZIPs are in their state's range; most are real ZCTAs (with a position), about one in
// noZCTAEvery is not (without one).
func TestCityZIPsAreRealAndSomeHaveNoZCTA(t *testing.T) {
	ref, err := loadReference(refset.Embedded())
	if err != nil {
		t.Fatal(err)
	}
	w, err := newWorld(7, 100_000, ref, baseSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	centroids, err := zcta.Load(refset.Embedded(), zcta.File)
	if err != nil {
		t.Fatal(err)
	}
	real := map[string]bool{}
	for _, c := range centroids {
		real[c.ZCTA] = true
	}
	var with, without int
	for s, st := range ref.states {
		for j := range w.citiesIn(s) {
			z := w.cityZip(s, j)
			if p, err := strconv.Atoi(z[:3]); err != nil || len(z) != 5 || p < st.ZipLo || p > st.ZipHi {
				t.Errorf("%s city %d: ZIP %s outside %03d-%03d", st.Code, j, z, st.ZipLo, st.ZipHi)
			}
			if real[z] {
				with++
			} else {
				without++
			}
		}
	}
	if share := float64(without) / float64(with+without); share < 0.5/noZCTAEvery || share > 2.0/noZCTAEvery {
		t.Errorf("%d of %d city ZIPs have no ZCTA", without, with+without)
	}
}
