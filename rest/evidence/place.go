package evidence

import (
	"regexp"
	"slices"
	"strings"

	"providerdir/ident"
	"providerdir/stored"
)

// A question that names a place none of the 51 is refused, never answered with the national
// figure or another state's: unplaced finds such places where a question says where it asks
// about ("in X", "the state of X", "state=X").

// placeLeads are the words after which a question names where it asks about.
var placeLeads = []string{"in", "within", "across", "throughout", "inside"}

// slotSkip are the words between a lead and a place's name ("in the state of Narnia").
var slotSkip = []string{"the", "a", "an", "state", "states", "of", "commonwealth"}

// maxPlaceWords bounds the words of one place a refusal quotes, and maxPlaces the places.
const (
	maxPlaceWords = 3
	maxPlaces     = 3
	maxWordRunes  = 30
)

// notPlaces are words that follow "in" without naming a place: the vocabulary of figures,
// specialties and the nation, function words and the words of a question about the data itself
// ("in total", "in each state", "in the registry", "in 2024").
var notPlaces = func() map[string]bool {
	m := map[string]bool{}
	lists := [][]string{countWords, densityWords, rankWords, lowestWords, underservedWords, supplyWords, nationWords, plainWords}
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
	plain := func(k int) bool { return used[k] || words[k] == "" || notPlaces[words[k]] || isDigits(words[k]) }
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
			for k < len(words) && k-j < maxPlaceWords && !plain(k) {
				k++
			}
			if k > j {
				add(shown[j:k])
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
	for _, m := range keyedPlace.FindAllStringSubmatch(q.raw, -1) {
		if v := strings.Fields(stored.NormalizeText(m[1])); len(v) > 0 && !namesPlace(v) {
			add(strings.Fields(m[1]))
		}
	}
	return out
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
