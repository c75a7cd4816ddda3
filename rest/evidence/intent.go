package evidence

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"providerdir/ident"
	"providerdir/mapping/study"
)

// Kinds of figure an answer gives: the whitelist an intent is held to.
const (
	KindDensity     = "density"          // per_100k of a state, or of the 51 together
	KindCount       = "count"            // active_providers of a state, or of the 51
	KindRank        = "rank"             // rank_density of a state, or the first or last state
	KindCompare     = "compare_states"   // per_100k (or active_providers) of two or more states
	KindUnderserved = "underserved_list" // the underserved states, or one state's flag
)

// Kinds lists the whitelisted kinds.
var Kinds = []string{KindDensity, KindCount, KindRank, KindCompare, KindUnderserved}

// maxStates bounds the states one comparison looks up.
const maxStates = 10

// Intent is what a question asks, in registered values only: the only input the look-ups take.
type Intent struct {
	Kind string `json:"kind"`
	// Dataset is a registered study slug ("cardiology-supply").
	Dataset string `json:"dataset_slug"`
	// States are codes of the 51, none for the 51 together.
	States []string `json:"states"`
	// County is the county named in the question, as written; it is matched against the Census
	// county list of the one state before it is used.
	County string `json:"county,omitempty"`
	// Lowest asks a rank without a state for the last state instead of the first.
	Lowest bool `json:"lowest,omitempty"`
	// ByCount ranks or compares by active providers instead of density.
	ByCount bool `json:"by_count,omitempty"`
}

// validate holds an intent, whoever proposed it, to the whitelist: a registered study, codes of
// the 51, a known kind and the number of states that kind takes. It returns the specialty.
func (in Intent) validate() (study.Specialty, error) {
	sp, ok := study.LookupStudy(in.Dataset)
	if !ok {
		return sp, fmt.Errorf("dataset %q is not a registered study", in.Dataset)
	}
	if !slices.Contains(Kinds, in.Kind) {
		return sp, fmt.Errorf("kind %q is not whitelisted", in.Kind)
	}
	seen := map[string]bool{}
	for _, c := range in.States {
		s, ok := ident.LookupState(c)
		if !ok || !s.InThe51() || seen[c] {
			return sp, fmt.Errorf("state %q is not one of the 51 or is repeated", c)
		}
		seen[c] = true
	}
	n := len(in.States)
	switch {
	case in.Kind == KindCompare && (n < 2 || n > maxStates):
		return sp, fmt.Errorf("a comparison takes 2 to %d states, not %d", maxStates, n)
	case in.Kind != KindCompare && n > 1:
		return sp, fmt.Errorf("kind %s takes at most one state", in.Kind)
	case in.County != "" && n != 1:
		return sp, fmt.Errorf("a county needs its state")
	}
	return sp, nil
}

// classify reads a screened question into an intent with the local, deterministic classifier:
// vocabulary and state names matched word by word, misspellings within a few edits of a
// registered name. A question it cannot read is a refusal: out_of_scope when it is not about the
// studies' subject or asks what they do not hold, classification_failed when it is but names no
// registered specialty, or two, or a place it cannot resolve (the message then quotes its words),
// or neither a state nor the nation.
func classify(q question) (Intent, *Refusal) {
	words := slices.Clone(q.words)
	county := takeCounty(words)
	if namesTerritory(words) {
		return Intent{}, refusal(RefuseOutOfScope)
	}
	sp, found := findSpecialties(words)
	switch {
	case hasAny(words, adviceWords) || hasAny(words, otherClinicians) || hasAny(words, facilities) || hasAny(withoutDenominator(words), notHeld):
		return Intent{}, refusal(RefuseOutOfScope)
	case len(found) == 0 && hasAny(words, notStudied):
		return Intent{}, refusal(RefuseOutOfScope)
	case len(found) == 0 && (hasAny(words, supplyWords) || county != ""):
		return Intent{}, refusal(RefuseClassificationFailed)
	case len(found) == 0:
		return Intent{}, refusal(RefuseOutOfScope)
	case len(found) > 1:
		return Intent{}, refusal(RefuseClassificationFailed)
	case hasAny(words, historyWords):
		return Intent{}, refusal(RefuseOutOfScope)
	}
	states, used := findStates(words, q.cased, allUpper(q.raw))
	if places := unplaced(q, words, used); len(places) > 0 {
		return Intent{}, unplacedRefusal(places)
	}
	if len(states) == 0 && county == "" && !hasAny(words, nationWords) && !hasAny(words, figureWords) {
		return Intent{}, refusal(RefuseClassificationFailed)
	}
	in := Intent{Dataset: sp.Study(), States: states, County: county,
		Lowest: hasAny(words, lowestWords), ByCount: hasAny(words, countWords) && !hasAny(words, densityWords)}
	in.Kind = kindOf(words, len(states))
	if _, err := in.validate(); err != nil {
		return Intent{}, refusal(RefuseClassificationFailed)
	}
	return in, nil
}

// namesTerritory reports a place of territories in the words, not after "new".
func namesTerritory(words []string) bool {
	for _, t := range territories {
		for _, at := range phraseAt(words, strings.Fields(t)) {
			if at == 0 || words[at-1] != "new" {
				return true
			}
		}
	}
	return false
}

var (
	countWords       = []string{"how many", "number of", "number", "count", "counts", "total", "totals", "most", "fewest", "more", "fewer", "largest number", "smallest number", "active providers"}
	densityWords     = []string{"density", "densities", "per capita", "per 100 000", "per 100000", "per 100k", "per resident", "per residents", "per person", "per population", "concentration", "concentrated", "densest", "ratio", "rate", "per 100 thousand", "relative to population", "adjusted for population"}
	rankWords        = []string{"rank", "ranks", "ranked", "ranking", "rankings", "position", "highest", "lowest", "most", "fewest", "top", "bottom", "best", "worst", "least", "quartile", "first", "last", "leads", "lead", "largest", "biggest", "greatest", "smallest", "number one", "number 1", "no 1", "is 1", "1st"}
	lowestWords      = []string{"lowest", "fewest", "least", "bottom", "worst", "last", "smallest", "lower"}
	underservedWords = []string{"underserved", "under served", "shortage", "shortages", "short of", "lack", "lacking", "enough", "too few", "below the threshold", "below three quarters", "deficit", "scarce", "scarcity"}
	extremeWords     = []string{"highest", "lowest", "most", "fewest", "least", "top", "bottom", "best", "worst", "largest", "smallest", "greatest", "biggest"}
	whichState       = []string{"which state", "what state", "which states", "what states", "where"}
	historyWords     = []string{"trend", "trends", "over time", "history", "historical", "historically", "changed", "growth rate", "since 2010", "since 2015", "since 2020", "last year", "years ago", "decade ago"}
)

// withoutDenominator returns the words without the people a density is "per" ("per 100,000
// women and men"), which name no fact about providers.
func withoutDenominator(words []string) []string {
	out := slices.Clone(words)
	for i := 0; i < len(out); i++ {
		if out[i] != "per" {
			continue
		}
		j := i + 1
		for j < len(out) && isDigits(out[j]) {
			j++
		}
		for ; j < len(out) && slices.Contains(denominators, out[j]); j++ {
			out[j] = ""
		}
	}
	return out
}

// denominators are the people a density may be given per.
var denominators = []string{"women", "men", "woman", "man", "and", "people", "persons", "residents", "population",
	"adults", "children", "kids", "inhabitants", "females", "males", "capita"}

// figureWords are every word that asks for a figure of the studies; a question naming no place
// is answered with the national figure only when it asks for one.
var figureWords = slices.Concat(countWords, densityWords, rankWords, underservedWords, supplyWords)

// kindOf picks the kind a question asks for, given how many states it names.
func kindOf(words []string, states int) string {
	switch {
	case states >= 2:
		return KindCompare
	case states == 0 && hasAny(words, whichState) && hasAny(words, extremeWords):
		return KindRank
	case hasAny(words, underservedWords):
		return KindUnderserved
	case hasAny(words, rankWords) && !(states == 1 && hasAny(words, []string{"how many", "number of"})):
		return KindRank
	case hasAny(words, densityWords):
		return KindDensity
	case hasAny(words, countWords):
		return KindCount
	}
	return KindDensity
}

// findSpecialties returns the registered specialties the words name: exact terms first, and only
// when there are none, single words within a few edits of a term.
func findSpecialties(words []string) (study.Specialty, []string) {
	var found []string
	for slug, t := range terms {
		if hasAny(words, t.words) {
			found = append(found, slug)
		}
	}
	if len(found) == 0 {
		for _, w := range words {
			if slug, ok := misspelledSpecialty(w); ok && !slices.Contains(found, slug) {
				found = append(found, slug)
			}
		}
	}
	sort.Strings(found)
	if len(found) != 1 {
		return study.Specialty{}, found
	}
	sp, _ := study.Lookup(found[0])
	return sp, found
}

// singleTerms are the specialty terms of one word long enough to be matched within a few edits,
// sorted, and termOwner the specialty of each.
var singleTerms, termOwner = func() ([]string, map[string]string) {
	var single []string
	owner := map[string]string{}
	for slug, t := range terms {
		for _, w := range t.words {
			if !strings.Contains(w, " ") && len(w) >= 6 {
				single = append(single, w)
				owner[w] = slug
			}
		}
	}
	sort.Strings(single)
	return single, owner
}()

// misspelledSpecialty returns the specialty a word not in the vocabulary is a misspelling of.
func misspelledSpecialty(w string) (string, bool) {
	if known(w) {
		return "", false
	}
	return nearestOwner(w, singleTerms, termOwner)
}

// nearestOwner returns the specialty whose terms are nearest to w within specialtyTolerance,
// when one specialty alone is that near ("neurologits" is an edit from both "neurologist" and
// "neurologists", which are one specialty).
func nearestOwner(w string, terms []string, owner map[string]string) (string, bool) {
	limit := specialtyTolerance(len([]rune(w)))
	best, owners := limit+1, map[string]bool{}
	for _, t := range terms {
		if abs(len(t)-len(w)) > limit {
			continue
		}
		switch d := distance(w, t); {
		case d < best:
			best, owners = d, map[string]bool{owner[t]: true}
		case d == best:
			owners[owner[t]] = true
		}
	}
	if best > limit || len(owners) != 1 {
		return "", false
	}
	for slug := range owners {
		return slug, true
	}
	return "", false
}

// findStates returns the codes of the 51 the question names, in the order named, and which of
// the words named them. Names are matched whole (longest first, so "west virginia" is not also
// "virginia"), then within a few edits; a code counts only as written in capitals in a question
// not written all in capitals ("IN" is Indiana, "in" is a word), and a code that is also an
// English word or a common abbreviation ("OR", "ME", "OK", "MD") only where a place stands.
func findStates(words, cased []string, shouting bool) ([]string, []bool) {
	type hit struct {
		pos  int
		code string
	}
	var hits []hit
	used := make([]bool, len(words))
	names := make([]string, 0, len(stateNames))
	for n := range stateNames {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := strings.Count(names[i], " "), strings.Count(names[j], " "); a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	mark := func(pos, n int, code string) {
		for k := pos; k < pos+n; k++ {
			used[k] = true
		}
		hits = append(hits, hit{pos, code})
	}
	for _, n := range names {
		p := strings.Fields(n)
		for _, at := range phraseAt(words, p) {
			if !anyUsed(used, at, len(p)) && !(n == "dc" && at > 0 && words[at-1] == "washington") {
				mark(at, len(p), stateNames[n])
			}
		}
	}
	// Misspelled names: windows of one to three unused words against names of as many words.
	for size := 3; size >= 1; size-- {
		var cands []string
		for _, n := range names {
			if strings.Count(n, " ")+1 == size && len(n) >= 5 {
				cands = append(cands, n)
			}
		}
		for at := 0; at+size <= len(words); at++ {
			if anyUsed(used, at, size) || isCommon(words[at:at+size]) || slices.Contains(words[at:at+size], "") {
				continue
			}
			if c, ok := closest(strings.Join(words[at:at+size], " "), cands, tolerance); ok {
				mark(at, size, stateNames[c])
			}
		}
	}
	if cased != nil && !shouting {
		for i, w := range cased {
			if used[i] || !isCode(w) || wordCodes[w] && !placeAt(words, cased, i) {
				continue
			}
			if s, ok := ident.LookupState(w); ok && s.InThe51() {
				mark(i, 1, w)
			}
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].pos < hits[j].pos })
	var out []string
	for _, h := range hits {
		if !slices.Contains(out, h.code) {
			out = append(out, h.code)
		}
	}
	return out, used
}

// isCode reports two capital letters: a USPS code as people write it.
func isCode(w string) bool {
	return len(w) == 2 && 'A' <= w[0] && w[0] <= 'Z' && 'A' <= w[1] && w[1] <= 'Z'
}

// wordCodes are the codes that are also words or abbreviations of their own in a question about
// doctors ("OK", "ME", "MD", "PA" the physician assistant, "CT" the scan).
var wordCodes = map[string]bool{"AL": true, "CO": true, "CT": true, "DE": true, "GA": true, "HI": true, "ID": true,
	"IN": true, "LA": true, "MA": true, "MD": true, "ME": true, "MO": true, "MS": true, "MT": true, "ND": true,
	"NE": true, "OH": true, "OK": true, "OR": true, "PA": true, "SC": true, "VA": true}

// placeBefore are the words after which a place stands; listSeparators also join places.
var (
	placeBefore    = []string{"in", "within", "across", "throughout", "inside", "for", "of", "from", "at", "to", "than", "state", "code", "vs", "versus", "and", "or", ""}
	listSeparators = []string{"vs", "versus", "and", "or", "compared"}
)

// placeAt reports whether the word at i stands where a place does: after a word that leads to
// one, last in the question, before a word that joins places, or beside another code.
func placeAt(words, cased []string, i int) bool {
	switch {
	case i == len(words)-1:
		return true
	case i > 0 && (slices.Contains(placeBefore, words[i-1]) || isCode(cased[i-1]) && !wordCodes[cased[i-1]]):
		return true
	case i+1 < len(words) && (slices.Contains(listSeparators, words[i+1]) || isCode(cased[i+1]) && !wordCodes[cased[i+1]]):
		return true
	}
	return false
}

// allUpper reports a question written in capitals, where a two-letter word is not a code.
func allUpper(s string) bool {
	letters, upper := 0, 0
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			letters++
			if r <= 'Z' {
				upper++
			}
		}
	}
	return letters > 0 && upper*10 >= letters*8
}

// common are words that sit within an edit of a state name but mean something else.
var common = map[string]bool{"texts": true, "mains": true, "indian": true, "indians": true, "george": true, "origin": true}

func isCommon(window []string) bool { return len(window) == 1 && common[window[0]] }

// countyKinds are the words that follow a county's name.
var countyKinds = []string{"county", "parish", "borough", "counties"}

// takeCounty finds a county named in the words and blanks its words, so that "Washington County,
// Oregon" names Oregon only. It returns the county's name as written without its kind word.
func takeCounty(words []string) string {
	for i, w := range words {
		if !slices.Contains(countyKinds, w) || i == 0 {
			continue
		}
		start := i
		for start > 0 && i-start < 3 && !slices.Contains(countyStop, words[start-1]) && !isSpecialtyWord(words[start-1]) {
			start--
		}
		if start == i {
			return ""
		}
		name := strings.Join(words[start:i], " ")
		for k := start; k <= i; k++ {
			words[k] = ""
		}
		return name
	}
	return ""
}

// countyStop are words that end a county's name when read backwards from "county".
var countyStop = []string{"in", "of", "for", "at", "from", "the", "is", "are", "what", "how", "many", "within",
	"inside", "across", "around", "near", "by", "does", "do", "has", "have", "and", "or", "s"}

func isSpecialtyWord(w string) bool {
	for _, t := range terms {
		if slices.Contains(t.words, w) {
			return true
		}
	}
	return slices.Contains(supplyWords, w)
}

// hasAny reports whether the words contain any of the phrases.
func hasAny(words []string, phrases []string) bool {
	for _, p := range phrases {
		if len(phraseAt(words, strings.Fields(p))) > 0 {
			return true
		}
	}
	return false
}

// phraseAt returns where the words of phrase stand consecutively in words.
func phraseAt(words, phrase []string) []int {
	var out []int
	if len(phrase) == 0 {
		return nil
	}
	for i := 0; i+len(phrase) <= len(words); i++ {
		if slices.Equal(words[i:i+len(phrase)], phrase) {
			out = append(out, i)
		}
	}
	return out
}

func anyUsed(used []bool, at, n int) bool {
	return slices.Contains(used[at:at+n], true)
}

// specialtyTolerance is how far a word may be from a specialty term: terms are long and share
// endings ("-ologists"), so one edit below 12 letters and two from 12 ("opthamologist").
func specialtyTolerance(n int) int {
	switch {
	case n < 6:
		return 0
	case n < 12:
		return 1
	}
	return 2
}

// known reports a word the vocabulary reads as itself (another clinician, a facility, a supply
// word), which is never taken for a misspelled specialty: "radiologists" is two edits from
// "cardiologists".
func known(w string) bool {
	return slices.Contains(notStudied, w) || slices.Contains(supplyWords, w) || slices.Contains(otherClinicians, w)
}
