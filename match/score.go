package match

import (
	"math"
	"slices"
	"unicode/utf8"
)

// Token similarities: how well one query token matches one record token.
const (
	SimExact    = 1.0 // the same folded token
	SimNickname = 0.9 // related by the nickname table
	SimTypo     = 0.8 // one edit apart, both at least MinTypoLen long
	SimInitial  = 0.7 // one of them is a single letter that begins the other
)

// Weights of the score's parts; they sum to 1, so a score is in [0, 1]. The last two are
// small: they only order candidates the first two leave equal, such as a record with a middle
// name the query does not give against one without, or initials given in another order.
const (
	WeightQuery    = 0.7
	WeightRecord   = 0.25
	WeightComplete = 0.03
	WeightOrder    = 0.02
)

// Candidate is a record's name as scored: an individual's first, middle and last name, or an
// organization's name (Org) with no person name.
type Candidate struct {
	First, Middle, Last string
	Org                 string
}

// recordToken is one token of a candidate: core tokens (first and last name words, organization
// words) count towards the record's coverage; parts are the core tokens a joined form stands for;
// role says which part of a person's name the token is in.
type recordToken struct {
	text  string
	core  bool
	parts []int
	role  role
}

// role is the part of a person's name a record token belongs to.
type role int

const (
	roleOther role = iota // an organization's word
	roleFirst
	roleMiddle
	roleLast
)

// tokens lists a candidate's tokens: each part's words and, for a part of several words, their
// joined form (which stands for all of them).
func (c Candidate) tokens() []recordToken {
	var out []recordToken
	add := func(part string, core bool, r role) {
		ts := Tokens(part)
		first := len(out)
		for _, t := range ts {
			out = append(out, recordToken{text: t, core: core, role: r})
		}
		if len(ts) > 1 {
			parts := make([]int, len(ts))
			for i := range parts {
				parts[i] = first + i
			}
			out = append(out, recordToken{text: joinTokens(ts), parts: parts, role: r})
		}
	}
	if c.Org != "" && c.First == "" && c.Last == "" {
		add(c.Org, true, roleOther)
		return out
	}
	add(c.First, true, roleFirst)
	add(c.Middle, false, roleMiddle)
	add(c.Last, true, roleLast)
	return out
}

func joinTokens(ts []string) string {
	n := 0
	for _, t := range ts {
		n += len(t)
	}
	b := make([]byte, 0, n)
	for _, t := range ts {
		b = append(b, t...)
	}
	return string(b)
}

// Similarity is how well query token q matches record token t (both folded): SimExact,
// SimNickname, SimTypo, SimInitial or 0.
func Similarity(q, t string) float64 {
	switch {
	case q == t:
		return SimExact
	case Related(q, t):
		return SimNickname
	case len(q) >= MinTypoLen && len(t) >= MinTypoLen && OneEdit(q, t):
		return SimTypo
	case initialOf(q, t) || initialOf(t, q):
		return SimInitial
	}
	return 0
}

// Covers reports whether every query token matches some name token of the candidate
// (Similarity above 0): what the search keys of a record matching all the tokens promise.
func Covers(q []string, c Candidate) bool {
	rt := c.tokens()
	for _, qt := range q {
		if !slices.ContainsFunc(rt, func(r recordToken) bool { return Similarity(qt, r.text) > 0 }) {
			return false
		}
	}
	return true
}

// Selective returns the query tokens to select candidates by: the whole words, not the
// initials. An initial matches every name word that begins with its letter, so a key lookup for
// it reads a large part of the index and narrows little; it is checked on the candidates the
// words select (Covers). A query of initials only selects by all of them.
func Selective(q []string) []string {
	var s []string
	for _, t := range q {
		if len([]rune(t)) > 1 {
			s = append(s, t)
		}
	}
	if len(s) == 0 {
		return q
	}
	return s
}

// initialOf reports whether a is a single letter that begins the longer b.
func initialOf(a, b string) bool {
	return len(a) == 1 && len(b) > 1 && b[0] == a[0]
}

// Score is the _match_score of a candidate for the query tokens q (QueryTokens):
//
//	score = 0.70 * (sum of each query token's similarity) / (number of query tokens)
//	      + 0.25 * (sum of each matched core record token's similarity) / (core tokens)
//	      + 0.03 * (sum of each matched record token's similarity) / (all record tokens)
//	      + 0.02 * (share of pairs of matched tokens that the query and the record name in the
//	               same order; 1 with one matched, 0 with none)
//
// Query and record tokens are paired one to one, best similarity first (ties by position). A
// joined record token ("smithjones") stands for all its words. Core tokens are the first and
// last name's words of an individual, every word of an organization's name; a middle name
// counts only in the third part, so that its absence from the query costs little, and word
// order only in the fourth. A query initial that is exactly a middle initial counts as one
// initial beginning another (SimInitial) unless a query word before it is paired with the first
// name: "S Morowski" names a first name S, not John S Morowski's middle one, and "A B Tarford"
// an A first. The score is in [0, 1], rounded to 4 decimals; 1 means every query token is
// exactly a name token, every name token was named, in the record's order.
func Score(q []string, c Candidate) float64 {
	rt := c.tokens()
	if len(q) == 0 || len(rt) == 0 {
		return 0
	}
	matched, rSim := pairTokens(q, rt, nil)
	if stray := strayInitials(q, rt, matched); len(stray) > 0 {
		matched, rSim = pairTokens(q, rt, stray)
	}
	var qSum float64
	for _, p := range matched {
		qSum += p.sim
	}
	var core, coreSum, words, wordSum float64
	for i, r := range rt {
		if r.parts != nil {
			continue // a joined form: its words count
		}
		words++
		wordSum += rSim[i]
		if r.core {
			core++
			coreSum += rSim[i]
		}
	}
	s := WeightQuery * qSum / float64(len(q))
	if core > 0 {
		s += WeightRecord * coreSum / core
	}
	if words > 0 {
		s += WeightComplete * wordSum / words
	}
	s += WeightOrder * inOrder(matched, func(p pair) (int, int) { return p.qi, firstPart(rt, p.ri) })
	return math.Round(s*1e4) / 1e4
}

// pair is a query token (qi) paired with a record token (ri) at a similarity.
type pair struct {
	qi, ri int
	sim    float64
}

// pairTokens pairs query and record tokens one to one, best similarity first (ties by
// position), the pairs in demoted counted as SimInitial; it returns the pairs made and each
// record token's similarity (a joined form's words take its).
func pairTokens(q []string, rt []recordToken, demoted []pair) ([]pair, []float64) {
	var pairs []pair
	for qi, qt := range q {
		for ri, r := range rt {
			if s := Similarity(qt, r.text); s > 0 {
				if slices.ContainsFunc(demoted, func(d pair) bool { return d.qi == qi && d.ri == ri }) {
					s = SimInitial
				}
				pairs = append(pairs, pair{qi, ri, s})
			}
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		}
		return 0
	})
	qUsed := make([]bool, len(q))
	rSim := make([]float64, len(rt))
	rUsed := make([]bool, len(rt))
	var matched []pair
	for _, p := range pairs {
		if qUsed[p.qi] || rUsed[p.ri] || anyUsed(rUsed, rt[p.ri].parts) || joinedUsed(rt, rUsed, p.ri) {
			continue
		}
		qUsed[p.qi], rUsed[p.ri] = true, true
		matched = append(matched, p)
		for _, i := range rt[p.ri].parts {
			rSim[i] = p.sim
		}
		rSim[p.ri] = p.sim
	}
	return matched, rSim
}

// strayInitials are the pairs of a query initial exactly matching a middle initial with no
// query word before it paired with the first name.
func strayInitials(q []string, rt []recordToken, matched []pair) []pair {
	var out []pair
	for _, p := range matched {
		if p.sim != SimExact || rt[p.ri].role != roleMiddle || utf8.RuneCountInString(q[p.qi]) != 1 {
			continue
		}
		if !slices.ContainsFunc(matched, func(o pair) bool { return o.qi < p.qi && rt[o.ri].role == roleFirst }) {
			out = append(out, p)
		}
	}
	return out
}

// inOrder is the share of pairs of matches whose query positions and record positions agree in
// order: 1 when the query names the words in the record's order or matches one word, 0 when it
// matches none.
func inOrder[P any](m []P, pos func(P) (int, int)) float64 {
	if len(m) < 2 {
		return float64(len(m))
	}
	agree, all := 0, 0
	for i := range m {
		for j := i + 1; j < len(m); j++ {
			qi, ri := pos(m[i])
			qj, rj := pos(m[j])
			all++
			if (qi < qj) == (ri < rj) {
				agree++
			}
		}
	}
	return float64(agree) / float64(all)
}

// firstPart is the position of a record token, a joined form standing at its first word's.
func firstPart(rt []recordToken, i int) int {
	if len(rt[i].parts) > 0 {
		return rt[i].parts[0]
	}
	return i
}

// anyUsed reports whether any of the token indexes is already paired.
func anyUsed(used []bool, idx []int) bool {
	for _, i := range idx {
		if used[i] {
			return true
		}
	}
	return false
}

// joinedUsed reports whether token ri is a word of a joined token that is already paired.
func joinedUsed(rt []recordToken, used []bool, ri int) bool {
	for j, r := range rt {
		if used[j] && slices.Contains(r.parts, ri) {
			return true
		}
	}
	return false
}

func sortStrings(s []string) { slices.Sort(s) }
