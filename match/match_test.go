package match

import (
	"slices"
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"José Núñez", "jose nunez"},
		{"O'BRIEN, Mary-Ann", "obrien mary ann"},
		{"  Smith\t\tJones  ", "smith jones"},
		{"ﬁnn", "finn"},         // ligature, NFKD
		{"ＡＢＣ", "abc"},          // full-width, NFKD
		{"D\xffavid", "d avid"}, // invalid byte is a break
		{"", ""},
	} {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOneEdit(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"ashford", "ashford", false},
		{"ashford", "ashfrd", true},   // deletion
		{"ashford", "ashfordd", true}, // insertion
		{"ashford", "asxford", true},  // substitution
		{"ashford", "ahsford", true},  // transposition
		{"ashford", "ahsfrod", false}, // two edits
		{"ab", "ba", true},
		{"abc", "cab", false},
		{"é", "e", true},
	} {
		if got := OneEdit(tt.a, tt.b); got != tt.want {
			t.Errorf("OneEdit(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// The symmetric-deletion keys meet exactly when two tokens are within one edit: what the index
// finds is what OneEdit accepts.
func TestDeletionKeysMeetWithinOneEdit(t *testing.T) {
	for _, tt := range []struct{ q, rec string }{
		{"ashfrod", "ashford"}, {"ashfod", "ashford"}, {"ashfordd", "ashford"}, {"asxford", "ashford"},
		{"ami", "amy"}, {"jhon", "john"}, {"jo", "joe"},
	} {
		l := Expand(tt.q, false)
		toks := RecordTokens(tt.rec)
		found := intersects(l.Tokens, toks)
		for _, w := range toks {
			found = found || InLexicon(w) && intersects(l.Deletions, Deletions(w))
		}
		if !found {
			t.Errorf("query %q does not find record token %q (lookup %+v, record %v)", tt.q, tt.rec, l, toks)
		}
	}
}

func intersects(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

func TestRecordTokens(t *testing.T) {
	for _, tt := range []struct {
		parts []string
		want  []string
	}{
		{[]string{"Mary", "A", "Smith-Jones"}, []string{"mary", "a", "smith", "jones", "smithjones"}},
		{[]string{"Anne", "", "Anne"}, []string{"anne"}},
		{[]string{"", "  "}, nil},
		{[]string{"St. Mary's Clinic", "Saint Marys"}, []string{"st", "marys", "clinic", "stmarysclinic", "saint", "saintmarys"}},
	} {
		if got := RecordTokens(tt.parts...); !slices.Equal(got, tt.want) {
			t.Errorf("RecordTokens(%q) = %q, want %q", tt.parts, got, tt.want)
		}
	}
}

func TestInLexicon(t *testing.T) {
	for _, tt := range []struct {
		token string
		want  bool
	}{{"al", false}, {"amy", true}, {"zoë", true}, {"zö", false}} {
		if got := InLexicon(tt.token); got != tt.want {
			t.Errorf("InLexicon(%q) = %v, want %v", tt.token, got, tt.want)
		}
		if got := len(Deletions(tt.token)) > 0; got != tt.want {
			t.Errorf("%q has deletions %v, in the lexicon %v", tt.token, got, tt.want)
		}
	}
}

func TestNicknames(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"bill", "william", true},
		{"william", "bill", true}, // both directions
		{"liz", "elizabeth", true},
		{"bob", "robert", true},
		{"john", "mary", false},
		{"john", "john", false},
	} {
		if got := Related(tt.a, tt.b); got != tt.want {
			t.Errorf("Related(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestQueryTokens(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"Dr. Jane Doe, MD", []string{"jane", "doe"}},
		{"DR", []string{"dr"}},
		{"", nil},
	} {
		if got := QueryTokens(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("QueryTokens(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestScore(t *testing.T) {
	john := Candidate{First: "JOHN", Middle: "A", Last: "ASHFORD"}
	for _, tt := range []struct {
		name string
		q    string
		c    Candidate
		want float64
	}{
		// 0.70 query words + 0.25 core words + 0.03 all words (middle included) + 0.02 order
		{"exact", "John Ashford", john, 0.7 + 0.25 + 0.03*2/3 + 0.02},
		{"word order", "Ashford, John", john, 0.7 + 0.25 + 0.03*2/3},
		{"with middle", "John A Ashford", john, 1},
		{"nickname", "Jack Ashford", john, 0.7*(0.9+1)/2 + 0.25*(0.9+1)/2 + 0.03*(0.9+1)/3 + 0.02},
		{"typo", "Jhon Ashford", john, 0.7*(0.8+1)/2 + 0.25*(0.8+1)/2 + 0.03*(0.8+1)/3 + 0.02},
		{"initials", "J A Ashford", john, 0.7*(0.7+1+1)/3 + 0.25*(0.7+1)/2 + 0.03*(0.7+1+1)/3 + 0.02},
		// A's initial comes before the first name's: it names a first name A, so the middle A
		// counts as an initial beginning a word, not exactly.
		{"initials out of order", "A J Ashford", john, 0.7*(0.7+0.7+1)/3 + 0.25*(0.7+1)/2 + 0.03*(0.7+0.7+1)/3 + 0.02*2/3},
		{"middle initial without a first name", "A Ashford", john, 0.7*(0.7+1)/2 + 0.25*1/2 + 0.03*(0.7+1)/3 + 0.02},
		{"last name only", "Ashford", john, 0.7 + 0.25*0.5 + 0.03/3 + 0.02},
		{"no match", "Mary Smith", john, 0},
		{"hyphen joined", "Mary Smithjones", Candidate{First: "MARY", Last: "SMITH-JONES"}, 1},
		{"organization", "Ashford Family Medicine", Candidate{Org: "ASHFORD FAMILY MEDICINE LLC"}, 0.7 + 0.25*0.75 + 0.03*0.75 + 0.02},
	} {
		got := Score(QueryTokens(tt.q), tt.c)
		if diff := got - round4(tt.want); diff > 1e-9 || diff < -1e-9 {
			t.Errorf("%s: Score(%q) = %v, want %v", tt.name, tt.q, got, round4(tt.want))
		}
	}
}

func round4(f float64) float64 { return float64(int64(f*1e4+0.5)) / 1e4 }

// A query's initials name the first name before the middle one: the record whose first name
// the first initial begins ranks above one whose middle initial it is.
func TestScoreInitialsByRole(t *testing.T) {
	for _, c := range []struct {
		q             string
		better, worse Candidate
	}{
		{"S. Morowski", Candidate{First: "SARAH", Last: "MOROWSKI"}, Candidate{First: "JOHN", Middle: "S", Last: "MOROWSKI"}},
		{"H. B. Salmont", Candidate{First: "HARRY", Middle: "BRUCE", Last: "SALMONT"}, Candidate{First: "BARBARA", Middle: "H", Last: "SALMONT"}},
		{"H. B. Salmont", Candidate{First: "HARRY", Middle: "B", Last: "SALMONT"}, Candidate{First: "BARBARA", Middle: "H", Last: "SALMONT"}},
		{"John A. Ashford", Candidate{First: "JOHN", Middle: "A", Last: "ASHFORD"}, Candidate{First: "JOHN", Middle: "ALAN", Last: "ASHFORD"}},
		{"John A. Ashford", Candidate{First: "JOHN", Middle: "A", Last: "ASHFORD"}, Candidate{First: "JOHN", Last: "ASHFORD"}},
	} {
		b, w := Score(QueryTokens(c.q), c.better), Score(QueryTokens(c.q), c.worse)
		if b <= w {
			t.Errorf("%q: %+v scores %v, not above %+v's %v", c.q, c.better, b, c.worse, w)
		}
	}
}

// A better-matching candidate never scores below a worse one.
func TestScoreOrdersDeformations(t *testing.T) {
	c := Candidate{First: "WILLIAM", Middle: "B", Last: "MARWOOD"}
	order := []string{"William B Marwood", "Bill B Marwood", "Wiliam B Marwood", "W B Marwood", "Marwood"}
	prev := 2.0
	for _, q := range order {
		s := Score(QueryTokens(q), c)
		if s > prev {
			t.Errorf("%q scores %v, above the better match before it (%v)", q, s, prev)
		}
		prev = s
	}
}

func FuzzScore(f *testing.F) {
	f.Add("John A Ashford", "JOHN", "A", "ASHFORD", "")
	f.Add("bill o'brien", "WILLIAM", "", "O'BRIEN", "")
	f.Add("ＡＢ é", "", "", "", "AB E CLINIC")
	f.Fuzz(func(t *testing.T, q, first, middle, last, org string) {
		c := Candidate{First: first, Middle: middle, Last: last, Org: org}
		s := Score(QueryTokens(q), c)
		if s < 0 || s > 1 {
			t.Fatalf("score %v out of [0, 1]", s)
		}
		var keys []string
		for _, w := range RecordTokens(first, middle, last, org) {
			keys = append(append(keys, w), Deletions(w)...)
		}
		for _, k := range keys {
			if k == "" || strings.ContainsAny(k, " \x00") {
				t.Fatalf("bad key %q", k)
			}
		}
		for _, qt := range QueryTokens(q) {
			l := Expand(qt, false)
			if k := Expand(qt, true); len(k.Deletions) != 0 {
				t.Fatalf("known token %q has deletion lookups", qt)
			}
			if l.Prefix == "" && len(l.Tokens) == 0 {
				t.Fatalf("token %q expands to nothing", qt)
			}
		}
	})
}

func TestCoversAndSelective(t *testing.T) {
	john := Candidate{First: "JOHN", Middle: "A", Last: "ASHFORD"}
	for _, tt := range []struct {
		q    string
		want bool
	}{
		{"J A Ashford", true}, {"Jack Ashfrod", true}, {"John B Ashford", false}, {"Mary Ashford", false},
	} {
		if got := Covers(QueryTokens(tt.q), john); got != tt.want {
			t.Errorf("Covers(%q) = %v, want %v", tt.q, got, tt.want)
		}
	}
	if got := Selective([]string{"j", "ann", "ashford", "b"}); !slices.Equal(got, []string{"ann", "ashford"}) {
		t.Errorf("Selective = %v", got)
	}
	if got := Selective([]string{"j", "b"}); !slices.Equal(got, []string{"j", "b"}) {
		t.Errorf("Selective of initials = %v", got)
	}
}

// Candidates the main parts leave equal are ordered by the small ones: the record whose every
// word the query names, and the record naming them in the query's order.
func TestScoreBreaksTies(t *testing.T) {
	q := QueryTokens("William Janby")
	if a, b := Score(q, Candidate{First: "WILLIAM", Last: "JANBY"}), Score(q, Candidate{First: "WILLIAM", Middle: "M", Last: "JANBY"}); a <= b {
		t.Errorf("the record without a middle name scores %v, the one with %v", a, b)
	}
	q = QueryTokens("Janby William")
	if a, b := Score(q, Candidate{First: "JANBY", Last: "WILLIAM"}), Score(q, Candidate{First: "WILLIAM", Last: "JANBY"}); a <= b {
		t.Errorf("the record in the query's order scores %v, the other %v", a, b)
	}
}

// TestDeletions: every distinct single-character deletion, once each, on both paths (bytes for
// ASCII, runes otherwise).
func TestDeletions(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"jo", nil},
		{"joe", []string{"oe", "je", "jo"}},
		{"anna", []string{"nna", "ana", "ann"}},
		{"aaa", []string{"aa"}},
		{"josé", []string{"osé", "jsé", "joé", "jos"}},
		{"zoë", []string{"oë", "zë", "zo"}},
		{"éé", nil},
	} {
		if got := Deletions(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Deletions(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzDeletions holds the ASCII path to the rune path it stands in for.
func FuzzDeletions(f *testing.F) {
	for _, s := range []string{"ashford", "aab", "abba", "x", "mississippi"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isASCII(s) {
			return
		}
		if a, r := asciiDeletions(s), runeDeletions(s); !slices.Equal(a, r) {
			t.Fatalf("ASCII path %q, rune path %q", a, r)
		}
	})
}

// Pair keys: a person's typo-tolerant tokens (joined forms too) with the initials of the other
// parts' words; an organization's words with the initials of the words beside them.
func TestInitialPairs(t *testing.T) {
	for _, tt := range []struct {
		name string
		got  []string
		want []string
	}{
		{"person", PersonInitialPairs("William", "B", "Marwood"), []string{"william|b", "william|m", "marwood|w", "marwood|b"}},
		{"no middle", PersonInitialPairs("Jo", "", "Smith-Jones"), []string{"smith|j", "jones|j", "smithjones|j"}},
		{"accents fold", PersonInitialPairs("Élodie", "", "Ñúñez"), []string{"elodie|n", "nunez|e"}},
		{"organization", OrgInitialPairs("Ashford Family Medicine LLC"), []string{"ashford|f", "family|a", "family|m", "medicine|f", "medicine|l", "llc|m"}},
		{"one word", OrgInitialPairs("Ashford"), nil},
	} {
		if !slices.Equal(tt.got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
