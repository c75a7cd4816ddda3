package llm

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckGrounded holds a model's text to what a rewording of source may be, and returns why the
// text fails, or nil. A model told to reword figures may have been told otherwise by the text it
// read, so the rules are structural rather than a list of every bad answer:
//
//   - every sentence (or line) states a figure of source, as source writes it: a sentence
//     without one is not a rewording of the figures, whatever it says instead;
//   - every number it writes is one source writes, so no figure is invented;
//   - it carries no e-mail address, no link and no domain name, which a reader could be sent to;
//   - it carries no instruction to the reader (instructionWords), which an injected sentence
//     stating a figure would still need;
//   - it holds only graphic characters and ordinary white space: no control characters, no
//     bidirectional or zero-width format characters, nothing that shows other than it reads.
func CheckGrounded(text, source string) error {
	if !utf8.ValidString(text) {
		return errors.New("bytes that are not UTF-8")
	}
	if i := strings.IndexFunc(text, hidden); i >= 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return fmt.Errorf("the character %U", r)
	}
	if strings.ContainsAny(text, "@\uff20\ufe6b") {
		return errors.New("an e-mail address")
	}
	if link.MatchString(dots.Replace(text)) {
		return errors.New("a link or domain name")
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, cue := range instructionWords {
		if containsPhrase(words, strings.Fields(cue)) {
			return fmt.Errorf("an instruction (%q)", cue)
		}
	}
	stated := figures(source)
	for _, n := range figures(text) {
		if !slices.Contains(stated, n) {
			return fmt.Errorf("the number %s, which the source does not state", n)
		}
	}
	said := Sentences(text)
	if len(said) == 0 {
		return errors.New("no sentence")
	}
	for _, s := range said {
		if len(figures(s)) == 0 {
			return errors.New("a sentence stating no figure")
		}
	}
	return nil
}

// hidden reports whether r is neither graphic (a letter, mark, number, punctuation, symbol or
// space) nor a tab or line break: control, format (bidirectional controls, zero-width
// characters), private-use, surrogate, unassigned code points and the line and paragraph
// separators.
func hidden(r rune) bool {
	return !unicode.IsGraphic(r) && r != '\t' && r != '\n' && r != '\r'
}

// dots reads the full stops of other scripts and widths as the ASCII one, as resolvers and
// browsers do in domain names.
var dots = strings.NewReplacer("\u3002", ".", "\uff0e", ".", "\uff61", ".")

// link matches a URL scheme or a domain-like token: a letter or digit, a dot and two letters
// ("example.org", "www.evil.co"). Abbreviations of single letters ("U.S.", "D.C.") and
// decimals do not match.
var link = regexp.MustCompile(`://|[\pL\pN]\.\pL\pL`)

// instructionWords are the words with which a text tells its reader to act rather than states
// figures: to set the answer aside, to reach someone or something, or to hand over a secret.
// Words of the text are compared in lower case, split at anything but letters and digits
// ("e-mail" is "e mail").
var instructionWords = []string{
	"ignore", "disregard", "forget",
	"email", "e mail", "send", "click", "visit", "contact", "call", "reply",
	"password", "passwords", "credentials", "api key", "api keys",
}

// containsPhrase reports whether the words of phrase stand consecutively in words.
func containsPhrase(words, phrase []string) bool {
	for i := 0; i+len(phrase) <= len(words); i++ {
		if slices.Equal(words[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// number matches a figure as prose writes it: digits with optional thousands separators and
// decimals ("12,345", "3.75").
var number = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// figures returns the numbers text states, as written (a comma that ends the sentence's clause
// dropped), in order.
func figures(text string) []string {
	found := number.FindAllString(text, -1)
	for i, n := range found {
		found[i] = strings.TrimRight(n, ",")
	}
	return found
}

// sentenceEnd ends a sentence: a full stop, question or exclamation mark followed by space or
// the end of the text, or a line break.
var sentenceEnd = regexp.MustCompile(`[.!?]+(?:\s+|$)|[\r\n]+`)

// Sentences splits text into its sentences, blank ones dropped.
func Sentences(text string) []string {
	var out []string
	for _, s := range sentenceEnd.Split(text, -1) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
