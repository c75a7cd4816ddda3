// Package queryset owns the labelled query set that measures provider search: registry names
// deformed the ways people write them (initials, nicknames, accents, punctuation, word order,
// one-edit typos; and, searched nationwide without a state, typos in two words, a title with
// initials and a typo, a name split by a space, two names run together), each labelled with the
// NPI it should find, and the two measures of a search over it, precision@1 and recall@10.
//
// A set is drawn from a drop's NPPES file (Build), written beside the drop's files as JSON
// lines (FileName), and run against any search (Evaluate), such as a running resolver over HTTP
// (HTTPSearch). Only unambiguous labels are drawn, since a query with more than one right answer
// measures nothing: a provider whose undeformed name is shared by another record of the same
// state is left out, and a nationwide query is left out when another record anywhere fits the
// words it means at least as well as the labelled one (ambiguous).
package queryset

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"providerdir/match"
	"providerdir/source/nppes"
)

// FileName is the labelled query set's name in a drop directory.
const FileName = "search_queries.jsonl"

// Deformations, in the order Build assigns them.
const (
	Initials    = "initials"
	Nickname    = "nickname"
	Accents     = "accents"
	Punctuation = "punctuation"
	WordOrder   = "word_order"
	Typo        = "typo"
	// The nationwide deformations: their queries give no state.
	TwoTypos         = "two_typos"          // one edit in each of two words
	TitleInitialTypo = "title_initial_typo" // "Dr." and initials before a last name with one edit
	SplitName        = "split_name"         // a word split in two by a space
	JoinedNames      = "joined_names"       // two words run together
)

// Kinds lists the deformations.
var Kinds = []string{Initials, Nickname, Accents, Punctuation, WordOrder, Typo, TwoTypos, TitleInitialTypo, SplitName, JoinedNames}

// Nationwide reports whether queries of the deformation are searched without a state (or a
// taxonomy): by the name alone.
func Nationwide(kind string) bool {
	switch kind {
	case TwoTypos, TitleInitialTypo, SplitName, JoinedNames:
		return true
	}
	return false
}

// Query is one labelled query: the search parameters and the NPI it should find first.
type Query struct {
	Q           string `json:"q"`
	State       string `json:"state,omitempty"`
	Taxonomy    string `json:"taxonomy,omitempty"`
	NPI         string `json:"npi"`
	Deformation string `json:"deformation"`
}

// Name is the registered name a query is deformed from: an individual's parts, or an
// organization's name.
type Name struct {
	First, Middle, Last string
	Org                 string
}

// words is the name's words in the registry's order.
func (n Name) words() []string {
	if n.Org != "" {
		return strings.Fields(n.Org)
	}
	return strings.Fields(strings.Join([]string{n.First, n.Middle, n.Last}, " "))
}

// Deform writes n the way kind says; false when kind does not apply (a nickname for a name the
// table does not know, initials of an organization).
func Deform(kind string, n Name, r *rand.Rand) (string, bool) {
	switch kind {
	case Initials:
		if n.Org != "" || len(n.First) < 2 {
			return "", false
		}
		parts := []string{n.First[:1] + "."}
		if n.Middle != "" {
			parts = append(parts, n.Middle[:1]+".")
		}
		return strings.Join(append(parts, n.Last), " "), true
	case Nickname:
		nicks := match.Nicknames(match.Fold(n.First))
		if n.Org != "" || len(nicks) == 0 {
			return "", false
		}
		return strings.Join(strings.Fields(nicks[r.IntN(len(nicks))]+" "+n.Middle+" "+n.Last), " "), true
	case Accents:
		w := n.words()
		i := longest(w)
		accented, ok := accent(w[i], r)
		if !ok {
			return "", false
		}
		w[i] = accented
		return strings.Join(w, " "), true
	case Punctuation:
		w := n.words()
		seps := []string{", ", ". ", " - ", "; ", " / "}
		var b strings.Builder
		for i, x := range w {
			if i > 0 {
				b.WriteString(seps[r.IntN(len(seps))])
			}
			if i == longest(w) && len(x) > 3 {
				at := 1 + r.IntN(len(x)-2)
				x = x[:at] + "'" + x[at:]
			}
			b.WriteString(x)
		}
		return b.String() + ".", true
	case WordOrder:
		w := n.words()
		if len(w) < 2 {
			return "", false
		}
		if n.Org == "" {
			return strings.Join(append([]string{n.Last + ","}, strings.Fields(n.First+" "+n.Middle)...), " "), true
		}
		r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		return strings.Join(w, " "), true
	case Typo:
		w := n.words()
		i := longest(w)
		if len(w[i]) < match.MinTypoLen+1 {
			return "", false
		}
		w[i] = typo(w[i], r)
		return strings.Join(w, " "), true
	case TwoTypos:
		w, i, j := n.words(), 0, 0
		if n.Org == "" {
			i, j = 0, len(w)-1 // the first and the last name
		} else if len(w) > 1 {
			i = longest(w)
			j = longest(slices.Delete(slices.Clone(w), i, i+1))
			if j >= i {
				j++
			}
		}
		if i == j || len(w[i]) < match.MinTypoLen+1 || len(w[j]) < match.MinTypoLen+1 {
			return "", false
		}
		w[i], w[j] = typo(w[i], r), typo(w[j], r)
		return strings.Join(w, " "), true
	case TitleInitialTypo:
		if n.Org != "" || len(n.Last) < match.MinTypoLen+1 {
			return "", false
		}
		parts := []string{titles[r.IntN(len(titles))], n.First[:1] + "."}
		if n.Middle != "" {
			parts = append(parts, n.Middle[:1]+".")
		}
		return strings.Join(append(parts, typo(n.Last, r)), " "), true
	case SplitName:
		w := n.words()
		i := len(w) - 1 // an individual's last name
		if n.Org != "" {
			i = longest(w)
		}
		const part = 3 // the fewest letters on each side of the space
		if len(w[i]) < 2*part || strings.ContainsAny(w[i], "-'") {
			return "", false
		}
		at := part + r.IntN(len(w[i])-2*part+1)
		w[i] = w[i][:at] + " " + w[i][at:]
		return strings.Join(w, " "), true
	case JoinedNames:
		w := n.words()
		if len(w) < 2 {
			return "", false
		}
		i := r.IntN(len(w) - 1)
		return strings.Join(slices.Concat(w[:i], []string{w[i] + w[i+1]}, w[i+2:]), " "), true
	}
	return "", false
}

// titles are the courtesy titles a TitleInitialTypo query begins with.
var titles = []string{"Dr.", "Dr", "DR."}

// meaning is the folded words a query of the deformation stands for, by which its label is
// judged ambiguous: the query's own words, but the name's words for a split or joined word.
func meaning(kind string, n Name, q string) []string {
	if kind == SplitName || kind == JoinedNames {
		return match.QueryTokens(strings.Join(n.words(), " "))
	}
	return match.QueryTokens(q)
}

// longest is the index of the longest word (the first of equals): the one a deformation
// changes, so that it changes a name word rather than an initial or a legal suffix.
func longest(w []string) int {
	best := 0
	for i, x := range w {
		if len(x) > len(w[best]) {
			best = i
		}
	}
	return best
}

var accented = map[byte][]string{
	'A': {"Á", "À", "Ä", "Â"}, 'E': {"É", "È", "Ë", "Ê"}, 'I': {"Í", "Ï"}, 'O': {"Ó", "Ö", "Ô"},
	'U': {"Ú", "Ü"}, 'N': {"Ñ"}, 'C': {"Ç"},
}

// accent replaces one or two letters of an upper-case ASCII word with accented forms.
func accent(x string, r *rand.Rand) (string, bool) {
	var at []int
	for i := 0; i < len(x); i++ {
		if accented[x[i]] != nil {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return "", false
	}
	r.Shuffle(len(at), func(i, j int) { at[i], at[j] = at[j], at[i] })
	at = at[:min(2, len(at))]
	var b strings.Builder
	for i := 0; i < len(x); i++ {
		if slicesContains(at, i) {
			forms := accented[x[i]]
			b.WriteString(forms[r.IntN(len(forms))])
			continue
		}
		b.WriteByte(x[i])
	}
	return b.String(), true
}

func slicesContains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// typo makes one edit to an ASCII word: a deletion, insertion, substitution or transposition of
// adjacent letters, never leaving it unchanged.
func typo(x string, r *rand.Rand) string {
	letter := func(not byte) string {
		for {
			c := byte('A' + r.IntN(26))
			if c != not {
				return string(c)
			}
		}
	}
	i := r.IntN(len(x) - 1)
	switch r.IntN(4) {
	case 0:
		return x[:i] + x[i+1:]
	case 1:
		return x[:i] + letter(0) + x[i:]
	case 2:
		return x[:i] + letter(x[i]) + x[i+1:]
	default:
		if x[i] == x[i+1] {
			return x[:i] + letter(x[i]) + x[i+1:]
		}
		return x[:i] + string(x[i+1]) + string(x[i]) + x[i+2:]
	}
}

// entry is one provider of the NPPES file as the set sees it.
type entry struct {
	npi, state, taxonomy string
	name                 Name
}

// key is what makes a label unambiguous: the folded name and the state.
func (e entry) key() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s|%s|%s|%s|%s", match.Fold(e.name.First), match.Fold(e.name.Middle), match.Fold(e.name.Last), match.Fold(e.name.Org), e.state)
	return h.Sum64()
}

func entryOf(p *nppes.Provider) (entry, bool) {
	if p.Deactivated() || p.Practice.State == "" {
		return entry{}, false
	}
	e := entry{npi: p.NPI, state: p.Practice.State}
	if t, ok := p.PrimaryTaxonomy(); ok {
		e.taxonomy = t.Code
	}
	switch p.EntityType {
	case nppes.EntityIndividual:
		e.name = Name{First: p.Name.First, Middle: p.Name.Middle, Last: p.Name.Last}
		return e, e.name.First != "" && e.name.Last != ""
	case nppes.EntityOrganization:
		e.name = Name{Org: p.OrgName}
		return e, e.name.Org != ""
	}
	return entry{}, false
}

// Build draws up to n labelled queries from the NPPES file of the drop in dir, deterministic
// for a seed: a uniform sample of the active providers with a practice state (read once), less
// those whose name and state another record shares (read twice), each deformed by the next
// kind that applies to it, a nationwide kind applying only where its label is not ambiguous
// (rivals). Every third query of a kind searched in a state is narrowed by the provider's
// primary taxonomy too.
func Build(dir string, n int, seed uint64) ([]Query, error) {
	path, err := npidata(dir)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x5ea7c4))
	var sample []entry
	seen := 0
	if err := each(path, func(e entry) {
		seen++
		if len(sample) < n {
			sample = append(sample, e)
		} else if j := r.IntN(seen); j < n {
			sample[j] = e
		}
	}); err != nil {
		return nil, err
	}
	drawn := make([][]*draw, len(sample))
	var nationwide []*draw
	for i, e := range sample {
		nationwideOnly := false
		for k := range Kinds {
			kind := Kinds[(i+k)%len(Kinds)]
			if nationwideOnly && !Nationwide(kind) {
				continue
			}
			q, ok := Deform(kind, e.name, r)
			if !ok {
				continue
			}
			d := &draw{q: Query{Q: q, NPI: e.npi, Deformation: kind}}
			drawn[i] = append(drawn[i], d)
			if Nationwide(kind) {
				d.means = meaning(kind, e.name, q)
				d.fit = fit(d.means, recordTokens(e.name))
				d.anchor = len(d.means) - 1 // an individual's last name, rarer than the first
				if e.name.Org != "" {
					d.anchor = longest(d.means)
				}
				nationwide = append(nationwide, d)
				// The next nationwide kind stands in when this label proves ambiguous; one
				// searched in a state would draw the names common in the nation, which
				// are the ambiguous ones in a state too.
				nationwideOnly = true
				continue
			}
			d.q.State = e.state
			if i%3 == 0 {
				d.q.Taxonomy = e.taxonomy
			}
			break
		}
	}
	counts := make(map[uint64]int, len(sample))
	for _, e := range sample {
		counts[e.key()] = 0
	}
	rv := newRivals(nationwide)
	if err := each(path, func(e entry) {
		if c, ok := counts[e.key()]; ok {
			counts[e.key()] = c + 1
		}
		rv.judge(e)
	}); err != nil {
		return nil, err
	}
	var out []Query
	for i, e := range sample {
		if counts[e.key()] != 1 {
			continue
		}
		for _, d := range drawn[i] {
			if !d.ambiguous {
				out = append(out, d.q)
				break
			}
		}
	}
	return out, nil
}

// draw is a query drawn for a sampled provider. A nationwide one carries the words it means,
// how well its label fits each of them, the word its rivals are looked up by (anchor), and
// whether another record fits them all as well.
type draw struct {
	q         Query
	means     []string
	fit       []float64
	anchor    int
	ambiguous bool
}

// recordTokens are the folded name tokens of a registry name, as the search indexes them.
func recordTokens(n Name) []string {
	if n.Org != "" {
		return match.RecordTokens(n.Org)
	}
	return match.RecordTokens(n.First, n.Middle, n.Last)
}

// fit is, for each word, its best similarity to any of the record tokens (match.Similarity).
func fit(words, tokens []string) []float64 {
	out := make([]float64, len(words))
	for i, w := range words {
		for _, t := range tokens {
			out[i] = max(out[i], match.Similarity(w, t))
		}
	}
	return out
}

// rivals finds, over the records of a file, the nationwide draws whose label another record
// fits at least as well on every word the query means: such a query has more than one right
// answer. A rival must fit a draw's anchor word, so the draws are indexed by the keys that
// reach it from a record token within one edit (the word and its deletions, as the
// symmetric-deletion scheme of package match) or by nickname. (An initial cannot rival: a
// label fits each word it is drawn from within one edit, better than an initial does.)
type rivals struct {
	byKey map[string][]*draw
}

func newRivals(ds []*draw) rivals {
	rv := rivals{byKey: map[string][]*draw{}}
	for _, d := range ds {
		a := d.means[d.anchor]
		keys := slices.Concat([]string{a}, match.Deletions(a), match.Nicknames(a))
		for _, k := range keys {
			if !slices.Contains(rv.byKey[k], d) {
				rv.byKey[k] = append(rv.byKey[k], d)
			}
		}
	}
	return rv
}

// judge marks the draws of other providers that record e rivals.
func (rv rivals) judge(e entry) {
	if len(rv.byKey) == 0 {
		return
	}
	tokens := recordTokens(e.name)
	var reached []*draw
	for _, t := range tokens {
		for _, k := range append([]string{t}, match.Deletions(t)...) {
			reached = append(reached, rv.byKey[k]...)
		}
	}
	for _, d := range reached {
		if d.ambiguous || d.q.NPI == e.npi {
			continue
		}
		d.ambiguous = dominates(fit(d.means, tokens), d.fit)
	}
}

// dominates reports whether fit a is at least fit b on every word.
func dominates(a, b []float64) bool {
	for i := range a {
		if a[i] < b[i] {
			return false
		}
	}
	return true
}

// npidata finds the drop's NPPES provider file.
func npidata(dir string) (string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "npidata_pfile_*.csv"))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("queryset: no npidata_pfile_*.csv in %s", dir)
	}
	return m[0], nil
}

// each calls f for every provider of the file a query may be drawn for.
func each(path string, f func(entry)) error {
	rd, err := nppes.Open(path)
	if err != nil {
		return fmt.Errorf("queryset: %w", err)
	}
	defer rd.Close()
	for {
		p, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("queryset: %w", err)
		}
		if e, ok := entryOf(&p); ok {
			f(e)
		}
	}
}

// Write writes the set to dir/FileName, one JSON object a line, replacing it whole.
func Write(dir string, qs []Query) error {
	tmp, err := os.CreateTemp(dir, ".queries-*")
	if err != nil {
		return fmt.Errorf("queryset: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	enc := json.NewEncoder(w)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			tmp.Close()
			return fmt.Errorf("queryset: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("queryset: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("queryset: %w", err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("queryset: %w", err)
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, FileName))
}

// Read reads a set written by Write.
func Read(path string) ([]Query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("queryset: %w", err)
	}
	defer f.Close()
	var out []Query
	dec := json.NewDecoder(f)
	for {
		var q Query
		err := dec.Decode(&q)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("queryset: %s: query %d: %w", path, len(out)+1, err)
		}
		out = append(out, q)
	}
}
