package evidence

import (
	"providerdir/stored"
	"strings"
	"unicode"

	unorm "golang.org/x/text/unicode/norm"
)

// question is a query in the forms the screening and the classifier read it in.
type question struct {
	// raw is the text as sent, with invisible format characters (zero-width spaces, joiners,
	// direction marks) removed: they only ever serve to split a word a signature would match.
	raw string
	// lower is raw in lower case, punctuation kept (role markers and query syntax are punctuation).
	lower string
	// norm is raw folded by stored.NormalizeText: lower case, accents removed, punctuation turned
	// to single spaces. The classifier reads its words.
	norm  string
	words []string
	// cased are the words with their letters' case as written, one for each of words (nil in the
	// rare text whose folding splits words differently): "IN" the code and "in" the word.
	cased []string
	// opens marks, one for each of cased, the words that begin a sentence (the first word, and a
	// word after . ! ? or a line break), whose capital says nothing of a proper noun. A colon
	// opens none: what follows it is a name ("per 100k: Narnia") or a question word the
	// classifier reads ("Quick question: How many").
	opens []bool
	// compact is lower with look-alike digits read as letters and everything but letters dropped,
	// so that "I g n o r e   p r e v i o u s" and "1gn0re_prev1ous" read as "ignoreprevious".
	compact string
}

func newQuestion(text string) question {
	raw := strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, text)
	// Apostrophes separate words, so that a possessive keeps its word whole ("Ohio's" reads
	// "ohio s"); NormalizeText alone would join them ("ohios").
	q := question{raw: raw, lower: strings.ToLower(raw), norm: stored.NormalizeText(apostrophes.Replace(raw))}
	q.words = strings.Fields(q.norm)
	q.cased, q.opens = casedWords(apostrophes.Replace(raw), len(q.words))
	q.compact = compactLetters(q.norm)
	return q
}

// casedWords splits text into words as stored.NormalizeText does (letters and digits, accents
// dropped), keeping each letter's case, and marks the words that open a sentence; nil when that
// does not give n words.
func casedWords(text string, n int) ([]string, []bool) {
	out, opens := make([]string, 0, n), make([]bool, 0, n)
	var b strings.Builder
	open := true
	flush := func() {
		if b.Len() > 0 {
			out, opens = append(out, b.String()), append(opens, open)
			b.Reset()
			open = false
		}
	}
	for _, r := range unorm.NFD.String(strings.ToValidUTF8(text, " ")) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			flush()
			if strings.ContainsRune(sentenceEnds, r) {
				open = true
			}
		}
	}
	flush()
	if len(out) != n {
		return nil, nil
	}
	return out, opens
}

// sentenceEnds are the characters after which a word opens a sentence.
const sentenceEnds = ".!?\n"

var apostrophes = strings.NewReplacer("'", " ", "’", " ", "ʼ", " ")

// leet reads digits and symbols commonly written for letters as those letters.
var leet = map[rune]rune{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', '$': 's', '!': 'i'}

func compactLetters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if l, ok := leet[r]; ok {
			r = l
		}
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// distance is the optimal string alignment distance of a and b (Levenshtein with adjacent
// transpositions counted as one edit): "texsa" is one edit from "texas".
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// tolerance is how many edits a word of n letters may be from a registered name and still be
// read as it: none below 5 letters (short words collide: "main" and "Maine"), one up to 8, two
// from 9.
func tolerance(n int) int {
	switch {
	case n < 5:
		return 0
	case n < 9:
		return 1
	}
	return 2
}

// closest returns the candidate nearest to word within tol of the word's length; ok is false when
// none is that near or two are equally near (a guess between two names is no reading).
func closest(word string, candidates []string, tol func(int) int) (best string, ok bool) {
	limit := tol(len([]rune(word)))
	if limit == 0 {
		return "", false
	}
	bestD, ties := limit+1, 0
	for _, c := range candidates {
		if abs(len(c)-len(word)) > limit {
			continue
		}
		switch d := distance(word, c); {
		case d < bestD:
			best, bestD, ties = c, d, 1
		case d == bestD && c != best:
			ties++
		}
	}
	return best, bestD <= limit && ties == 1
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
