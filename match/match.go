// Package match owns provider-name entity resolution: how a name is folded into tokens, which
// search keys ingest writes so that a query finds a record despite initials, nicknames, accents,
// punctuation, word order and one-edit typos, and how a candidate record is scored against a
// query (_match_score of the resolver's search).
//
// Retrieval and scoring are split. Ingest writes, per registry record, its folded name tokens
// (ParamToken, and ParamStateToken qualified by the practice state), its tokens paired with
// the initials of its other words (ParamTokenInitial, which narrows a search without a state
// as the state narrows one with it), and once per distinct
// token of three or more characters in the whole registry, a word of the name lexicon keyed by
// its single-character deletions (ParamDeletion). A query token q then finds a record token t
// within one edit (insertion, deletion, substitution or adjacent transposition) when {q} and
// q's deletions meet {t} and t's deletions: the symmetric-deletion scheme, which turns typo
// tolerance into exact key lookups. The lexicon answers which words are within one edit of q,
// and the words' token keys which records hold them: the deletions are written once per word
// rather than once per record that holds it. Nicknames and initials are expanded on the query
// side only (Expand), so the index holds no nickname keys. Score then ranks the bounded
// candidate set the keys select.
package match

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Search-key params written on registry records for provider search.
const (
	// ParamToken holds each folded name token and the joined form of a multi-word name part.
	ParamToken = "rtok"
	// ParamStateToken holds the same tokens qualified by the practice state (InState), so that
	// a search narrowed by state reads only that state's postings.
	ParamStateToken = "rtoks"
	// ParamDeletion holds, on a word of the name lexicon, each of its single-character
	// deletions (Deletions).
	ParamDeletion = "del"
	// ParamTokenInitial holds name tokens paired with the initial of another word of the name
	// (PersonInitialPairs, OrgInitialPairs), so that a search without a state reads the
	// records holding a word and a word beginning with a letter, a posting list a few dozen
	// times shorter than the word's own.
	ParamTokenInitial = "rtoki"
)

// InitialPair is the ParamTokenInitial value of token beside a word beginning with initial.
func InitialPair(token, initial string) string { return token + "|" + initial }

// initial is the first character of a folded word.
func initial(w string) string {
	_, n := utf8.DecodeRuneInString(w)
	return w[:n]
}

// PersonInitialPairs returns the ParamTokenInitial values of a person's name parts (first,
// middle, last): each token of a part (RecordTokens) that tolerates a typo, paired with the
// initial of each word of the other parts.
func PersonInitialPairs(parts ...string) []string {
	var out []string
	for i, p := range parts {
		for _, t := range RecordTokens(p) {
			if !InLexicon(t) {
				continue
			}
			for j, o := range parts {
				if j == i {
					continue
				}
				for _, w := range Tokens(o) {
					if v := InitialPair(t, initial(w)); !slices.Contains(out, v) {
						out = append(out, v)
					}
				}
			}
		}
	}
	return out
}

// OrgInitialPairs returns the ParamTokenInitial values of an organization's names: each word
// that tolerates a typo paired with the initials of the words beside it (every pair of an
// organization's many words would multiply its keys for little).
func OrgInitialPairs(names ...string) []string {
	var out []string
	for _, n := range names {
		ws := Tokens(n)
		for i, t := range ws {
			if !InLexicon(t) {
				continue
			}
			for _, j := range []int{i - 1, i + 1} {
				if j < 0 || j >= len(ws) {
					continue
				}
				if v := InitialPair(t, initial(ws[j])); !slices.Contains(out, v) {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// Initials returns the distinct initials of words.
func Initials(words []string) []string {
	var out []string
	for _, w := range words {
		if w == "" {
			continue
		}
		if i := initial(w); !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

// InState qualifies key values by a state ("NJ|ashford"); nil when the state is empty or holds
// the separator (a malformed state gets no qualified keys, and a search in it finds nothing by
// them).
func InState(state string, values []string) []string {
	if state == "" || strings.Contains(state, "|") {
		return nil
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = state + "|" + v
	}
	return out
}

// MinTypoLen is the shortest token that tolerates a typo: shorter ones ("al", "li") would match
// nearly every other short token within one edit.
const MinTypoLen = 3

// MaxTokenLen bounds the tokens a query or a record contributes keys for; nothing in a name is
// longer, and the bound keeps a hostile query from producing huge keys.
const MaxTokenLen = 40

// Fold normalizes text for matching: compatibility-decomposed (NFKD, so ligatures and
// full-width forms become plain letters), combining marks dropped, lower-cased; letters and
// digits kept, apostrophes dropped (O'Brien meets OBrien), everything else a word break, runs of
// breaks collapsed to one space.
func Fold(s string) string {
	s = norm.NFKD.String(strings.ToValidUTF8(s, " "))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteRune(unicode.ToLower(r))
		case r == '\'' || r == '\u2019':
		default:
			space = true
		}
	}
	return b.String()
}

// Tokens folds s and splits it into words, dropping words longer than MaxTokenLen.
func Tokens(s string) []string {
	var out []string
	for _, t := range strings.Fields(Fold(s)) {
		if len(t) <= MaxTokenLen {
			out = append(out, t)
		}
	}
	return out
}

// Deletions returns every distinct string made by deleting one character of t; none for a token
// shorter than MinTypoLen.
func Deletions(t string) []string {
	if isASCII(t) {
		return asciiDeletions(t)
	}
	return runeDeletions(t)
}

// asciiDeletions is Deletions of an ASCII token, which names nearly always are: slicing bytes
// rather than converting runes.
func asciiDeletions(t string) []string {
	if len(t) < MinTypoLen {
		return nil
	}
	out := make([]string, 0, len(t))
	for i := range len(t) {
		if i > 0 && t[i] == t[i-1] { // doubled letters give the same deletion
			continue
		}
		out = append(out, t[:i]+t[i+1:])
	}
	return out
}

func runeDeletions(t string) []string {
	r := []rune(t)
	if len(r) < MinTypoLen {
		return nil
	}
	out := make([]string, 0, len(r))
	for i := range r {
		d := string(r[:i]) + string(r[i+1:])
		if len(out) == 0 || out[len(out)-1] != d { // doubled letters give the same deletion
			out = append(out, d)
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// RecordTokens returns the ParamToken values of a record whose name parts are parts (first,
// middle, last; or an organization's names): each part's tokens, and the part's words joined
// when it has several (Smith-Jones is also smithjones), each once.
func RecordTokens(parts ...string) []string {
	var tokens []string
	add := func(vs ...string) {
		for _, v := range vs {
			if v != "" && !slices.Contains(tokens, v) {
				tokens = append(tokens, v)
			}
		}
	}
	for _, p := range parts {
		ts := Tokens(p)
		add(ts...)
		if len(ts) > 1 {
			if j := strings.Join(ts, ""); len(j) <= MaxTokenLen {
				add(j)
			}
		}
	}
	return tokens
}

// InLexicon reports whether a record token is a word of the name lexicon: whether it is long
// enough to tolerate a typo, and so has deletions to be found by.
func InLexicon(token string) bool { return utf8.RuneCountInString(token) >= MinTypoLen }

// stopwords are courtesy titles, generational suffixes and credentials: a query may carry them
// ("Dr. Jane Doe MD") but the registry keeps them apart from the name, so they do not select.
var stopwords = map[string]bool{
	"dr": true, "mr": true, "mrs": true, "ms": true, "miss": true, "prof": true,
	"jr": true, "sr": true, "ii": true, "iii": true, "iv": true,
	"md": true, "do": true, "phd": true, "np": true, "rn": true, "dds": true, "dmd": true, "od": true,
	"dpm": true, "pharmd": true, "aprn": true, "lpn": true, "facp": true,
}

// MaxQueryTokens is the most tokens of a query that select candidates; later ones are ignored
// for selection and still scored.
const MaxQueryTokens = 6

// QueryTokens folds a query into the tokens that select and score: stopwords dropped unless the
// query holds nothing else.
func QueryTokens(q string) []string {
	all := Tokens(q)
	var out []string
	for _, t := range all {
		if !stopwords[t] {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// Lookup is what one query token is searched for: exact token values (itself, its nicknames,
// its deletions when it may carry an extra character), a prefix when the token is an initial,
// and, for typos, the ParamDeletion values (itself and its deletions) that find the words of
// the name lexicon within one edit of it.
type Lookup struct {
	Tokens    []string
	Prefix    string
	Deletions []string
}

// Expand returns the lookup of one folded query token. known says whether the token is itself
// a name word of some record: then it is looked up as it is and by its nicknames, since a
// correctly written word needs no typo tolerance, and its deletions would find every record
// holding it once per deletion. A word no record holds is looked up within one edit.
func Expand(q string, known bool) Lookup {
	r := []rune(q)
	if len(r) == 1 {
		return Lookup{Prefix: q}
	}
	// Not q's initial: every record with that middle initial would be a candidate. A record
	// whose name is an initial is found by the query's other words and scored as one.
	l := Lookup{Tokens: append([]string{q}, Nicknames(q)...)}
	if known {
		return l
	}
	if len(r) == MinTypoLen-1 {
		l.Deletions = []string{q} // q may be a record token with a character left out
	}
	if len(r) >= MinTypoLen {
		dels := Deletions(q)
		if len(r) > MinTypoLen {
			l.Tokens = append(l.Tokens, dels...) // q has one character more than the record
		}
		l.Deletions = append([]string{q}, dels...)
	}
	l.Tokens = dedupe(l.Tokens)
	return l
}

func dedupe(vs []string) []string {
	seen := make(map[string]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// OneEdit reports whether a and b differ by exactly one insertion, deletion, substitution or
// transposition of adjacent characters (the optimal string alignment distance is 1).
func OneEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	if len(x) < len(y) {
		x, y = y, x
	}
	switch len(x) - len(y) {
	case 0:
		i := 0
		for i < len(x) && x[i] == y[i] {
			i++
		}
		if i == len(x) {
			return false
		}
		if string(x[i+1:]) == string(y[i+1:]) {
			return true // substitution
		}
		return i+1 < len(x) && x[i] == y[i+1] && x[i+1] == y[i] && string(x[i+2:]) == string(y[i+2:])
	case 1:
		i := 0
		for i < len(y) && x[i] == y[i] {
			i++
		}
		return string(x[i+1:]) == string(y[i:])
	}
	return false
}
