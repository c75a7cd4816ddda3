package evidence

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"providerdir/ident"
	"providerdir/stored"
)

// A question that names a place none of the 51 is refused, never answered with the national
// figure or another state's. unplaced finds such places where a question says where it asks
// about ("in X", "the state of X", "state=X"), and anywhere else a word the classifier does not
// read stands as a name does: capitalised inside a sentence ("urologists Narnia"), possessive
// ("Narnia's urologists"), the subject of "does X have", before a specialty at the start of a
// sentence ("Narnia urologist count") or last in the question after a specialty or a figure
// ("urologist count narnia").

// placeLeads are the words after which a question names where it asks about.
var placeLeads = []string{"in", "within", "across", "throughout", "inside", "around"}

// slotSkip are the words between a lead and a place's name ("in the state of Narnia").
var slotSkip = []string{"the", "a", "an", "state", "states", "of", "commonwealth"}

// maxPlaceWords bounds the words of one place a refusal quotes, and maxPlaces the places.
const (
	maxPlaceWords = 3
	maxPlaces     = 3
	maxWordRunes  = 30
)

// notPlaces are the words the classifier reads, none of which names a place: the vocabulary of
// figures, specialties, the nation and what the studies do not hold, function words, the words
// of a question about the data itself ("in total", "in each state", "in the registry", "in
// 2024") and ordinary words of asking. A word outside it that stands as a name does is a place
// the classifier cannot resolve.
var notPlaces = func() map[string]bool {
	m := map[string]bool{}
	lists := [][]string{countWords, densityWords, rankWords, lowestWords, underservedWords, supplyWords, nationWords, plainWords,
		ordinaryWords, notHeld, notStudied, facilities, otherClinicians, adviceWords, historyWords, whichState, extremeWords,
		denominators, countyKinds, countyStop, placeBefore, listSeparators, slotSkip, placeLeads}
	for _, t := range terms {
		lists = append(lists, t.words)
	}
	for _, list := range lists {
		for _, p := range list {
			for _, w := range strings.Fields(p) {
				m[w] = true
			}
		}
	}
	return m
}()

// ordinaryWords are words of asking that name neither a place nor anything the classifier
// reads: verbs and greetings that open a question, words of degree, the months, and the bodies
// whose figures a question may cite.
var ordinaryWords = []string{"tell", "give", "show", "get", "put", "return", "need", "want", "know", "like", "ask", "see",
	"look", "looks", "hi", "hello", "hey", "dear", "oh", "ok", "okay", "let", "here", "just", "sorry", "work", "works", "working",
	"exist", "hold", "holds", "stand", "stands", "fall", "falls", "come", "comes", "fare", "fares", "roughly",
	"approximately", "approx", "exactly", "precisely", "altogether", "combined", "alone", "anymore",
	"headcount", "licensed", "adult", "practising", "dense", "higher", "well", "supplied", "considered", "flagged", "access", "side", "line", "value",
	"metric", "query", "geography", "request", "call", "tool", "story", "reporter", "readers", "writing", "january",
	"february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december",
	"cms", "hrsa", "hhs", "aamc", "ama", "acs", "bls", "npi"}

// plainWords are function words and words about the data that end a place's name.
var plainWords = []string{"a", "about", "according", "active", "advance", "aggregate", "all", "also", "among", "an", "and",
	"another", "any", "are", "as", "ascending", "at", "based", "be", "been", "between", "both", "but", "by", "census", "code", "codes",
	"compare", "compared", "comparison", "current", "currently", "d", "data", "dataset", "descending", "detail",
	"details", "did", "do", "does", "each", "either", "english", "entire", "every", "figure", "figures", "for", "from",
	"general", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "latest", "list", "ll", "m", "me",
	"my", "no", "not", "now", "nppes", "numbers", "of", "on", "one", "only", "or", "order", "other", "our", "over",
	"particular", "people", "per", "place", "places", "plain", "please", "plus", "population", "practice",
	"practicing", "question", "re", "recent", "registered", "registry", "relative", "residents", "right", "s", "same",
	"sentence", "short", "so", "state", "states", "studies", "study", "summary", "t", "terms", "than", "thank",
	"thanks", "that", "the", "their", "then", "there", "these", "this", "those", "to", "today", "too", "under", "ve",
	"versus", "vs", "was", "we", "were", "what", "when", "where", "which", "who", "whole", "why", "with", "words",
	"year", "yes", "you", "your"}

// keyedPlace finds a place given as a key and value ("state=ZZ", "\"state\": \"NV\"").
var keyedPlace = regexp.MustCompile(`(?i)\b(?:state|location|geography|geo|region|place)"?\s*[=:]\s*"?([^"\s,;|{}()=:]+(?: [^"\s,;|{}()=:]+){0,2})`)

// unplaced returns the places the question names that are none of the 51 nor the nation, as
// written (letters and digits only), given the words (county words blanked) and which of them
// name a state.
func unplaced(q question, words []string, used []bool) []string {
	shown := q.cased
	if shown == nil {
		shown = q.words
	}
	var out []string
	quoted := make([]bool, len(words))
	add := func(ws []string) {
		if len(out) == maxPlaces {
			return
		}
		ws = slices.Clone(ws)
		for i, w := range ws {
			if r := []rune(w); len(r) > maxWordRunes {
				ws[i] = string(r[:maxWordRunes])
			}
		}
		if p := strings.Join(ws, " "); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	addSpan := func(j, k int) {
		add(shown[j:k])
		for i := j; i < k; i++ {
			quoted[i] = true
		}
	}
	unread := func(k int) bool {
		return !used[k] && words[k] != "" && !notPlaces[words[k]] && !isDigits(words[k]) && !wordCode(q, k) && !isTermWord(words[k])
	}
	for i, w := range words {
		lead := slices.Contains(placeLeads, w) || w == "of" && i > 0 && (words[i-1] == "state" || words[i-1] == "commonwealth")
		if !lead {
			continue
		}
		for j := i + 1; j < len(words); {
			for j < len(words) && slices.Contains(slotSkip, words[j]) {
				j++
			}
			k := j
			for k < len(words) && k-j < maxPlaceWords && unread(k) {
				k++
			}
			if k > j {
				addSpan(j, k)
			}
			for k < len(words) && (used[k] || words[k] == "") {
				k++
			}
			if k >= len(words) || !slices.Contains(listSeparators, words[k]) {
				break
			}
			j = k + 1
		}
	}
	for k := range words {
		if quoted[k] || !unread(k) || !standsAsName(q, words, k, unread) {
			continue
		}
		j, e := k, k+1
		for j > 0 && k-j < maxPlaceWords-1 && !quoted[j-1] && unread(j-1) {
			j--
		}
		for e < len(words) && e-j < maxPlaceWords && !quoted[e] && unread(e) {
			e++
		}
		addSpan(j, e)
	}
	for _, m := range keyedPlace.FindAllStringSubmatch(q.raw, -1) {
		if v := strings.Fields(stored.NormalizeText(m[1])); len(v) > 0 && !namesPlace(v) {
			add(strings.Fields(m[1]))
		}
	}
	return out
}

// standsAsName reports whether the word at k, one the classifier does not read, stands where a
// name does: written with a capital inside a sentence of a question whose case means something,
// possessive, between "does" and "have", before a specialty at the start of a sentence, or
// last in the question after a specialty or a figure; never a name right after a greeting.
func standsAsName(q question, words []string, k int, unread func(int) bool) bool {
	opens := k == 0
	if q.opens != nil {
		opens = q.opens[k]
	}
	switch {
	case k > 0 && slices.Contains(greetings, words[k-1]):
		return false // "Hi Sam, how many urologists"
	case q.cased != nil && !opens && caseMeansSomething(q) && unicode.IsUpper([]rune(q.cased[k])[0]):
		return true
	case k+1 < len(words) && words[k+1] == "s":
		return true
	case opens && k+1 < len(words) && isTermWord(words[k+1]):
		return true
	case k == len(words)-1 && k > 0 && (isTermWord(words[k-1]) || figureWordSet[words[k-1]]):
		return true
	}
	// "does Narnia have": unread words only between the two.
	j := k
	for j > 0 && unread(j-1) {
		j--
	}
	e := k + 1
	for e < len(words) && unread(e) {
		e++
	}
	return j > 0 && e < len(words) && slices.Contains(asksOf, words[j-1]) && slices.Contains(hasWords, words[e])
}

// figureWordSet are the words of figureWords' phrases ("per", "100k", "capita").
var figureWordSet = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range figureWords {
		for _, w := range strings.Fields(p) {
			m[w] = true
		}
	}
	return m
}()

// greetings are the words after which a name is the one the question is addressed to.
var greetings = []string{"hi", "hello", "hey", "dear", "thanks", "thank"}

// asksOf and hasWords frame the subject of "does X have", "do X have", "has X got".
var (
	asksOf   = []string{"does", "do", "did", "has"}
	hasWords = []string{"have", "has", "got"}
)

// caseMeansSomething reports a question written neither in capitals nor with every longer word
// capitalised, where a capital inside a sentence marks a name.
func caseMeansSomething(q question) bool {
	if allUpper(q.raw) {
		return false
	}
	long, capital := 0, 0
	for _, w := range q.cased {
		if r := []rune(w); len(r) >= 4 && unicode.IsLetter(r[0]) {
			long++
			if unicode.IsUpper(r[0]) {
				capital++
			}
		}
	}
	return long < 3 || capital < long
}

// wordCode reports a code of the 51 written in capitals that findStates left as a word ("Is it
// OK to ask").
func wordCode(q question, k int) bool {
	if q.cased == nil || !isCode(q.cased[k]) {
		return false
	}
	s, ok := ident.LookupState(q.cased[k])
	return ok && s.InThe51()
}

// isTermWord reports a word of a specialty's terms, or a misspelling of one.
func isTermWord(w string) bool {
	for _, t := range terms {
		if slices.Contains(t.words, w) {
			return true
		}
	}
	_, ok := misspelledSpecialty(w)
	return ok
}

// namesPlace reports whether a value given for a place names one of the 51 (by name, a near
// misspelling of one, or its code in either case) or the nation.
func namesPlace(v []string) bool {
	if s, ok := ident.LookupState(strings.ToUpper(v[0])); ok && s.InThe51() {
		return true
	}
	if hasAny(v, nationWords) {
		return true
	}
	var names []string
	for n := range stateNames {
		names = append(names, n)
	}
	slices.Sort(names)
	for n := min(len(v), 3); n >= 1; n-- {
		p := strings.Join(v[:n], " ")
		if _, ok := stateNames[p]; ok {
			return true
		}
		if _, ok := closest(p, names, tolerance); ok {
			return true
		}
	}
	return false
}

func isDigits(w string) bool {
	return w != "" && strings.Trim(w, "0123456789") == ""
}
