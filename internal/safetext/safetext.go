// Package safetext makes text that came from a client safe to echo back, store and print: it
// bounds how much of a value an error message repeats, finds the invisible characters that make
// text read differently from what it holds (bidirectional overrides, zero-width characters),
// and escapes what a terminal would interpret instead of showing.
//
// Every surface that quotes a client's value in an error, and every command that prints stored
// client text to an operator, goes through here, so the rules are the same everywhere.
package safetext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EchoRunes is how many characters of a client's value an error message repeats. It is enough to
// recognise the value; the rest is cut, so an error never grows with its input.
const EchoRunes = 100

// Ellipsis marks where Clip cut a value.
const Ellipsis = "…"

// Clip returns s cut to at most n characters, the last of them Ellipsis when anything was cut.
// It never splits a UTF-8 sequence; invalid bytes count as one character each and are kept as
// they are (the JSON encoder replaces them).
func Clip(s string, n int) string {
	if n < 1 {
		return ""
	}
	if len(s) <= n { // every character is at least one byte
		return s
	}
	count := 0
	for i := range s {
		if count == n-1 {
			if utf8.RuneCountInString(s[i:]) == 1 {
				return s // exactly n characters: nothing to cut
			}
			return s[:i] + Ellipsis
		}
		count++
	}
	return s
}

// Echo is Clip at EchoRunes: the form in which an error message repeats a client's value.
func Echo(s string) string { return Clip(s, EchoRunes) }

// EchoEscaped is Echo for a value that may hold anything, as a client's path or parameter may:
// Terminal's escapes, then Clip at EchoRunes. What it returns is valid UTF-8 of at most EchoRunes
// characters, whatever the value held: an invalid byte, a control character or a bidirectional
// override reads as its escape (\xff, \u202e) rather than reaching the reader raw, where it
// would corrupt a text/plain body or make the message read as something else.
func EchoEscaped(s string) string { return Clip(Terminal(s), EchoRunes) }

// Invisible reports whether r changes how the text around it is shown without being seen
// itself: the bidirectional embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069)
// and marks (U+200E, U+200F, U+061C), the zero-width space, word joiner and byte-order mark,
// and every other format character (Unicode category Cf) but the zero-width joiner and
// non-joiner, which some scripts and emoji need (see JoinerMisused).
func Invisible(r rune) bool {
	if r == zwnj || r == zwj {
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

const (
	zwnj = '\u200c'
	zwj  = '\u200d'
)

// JoinerMisused reports whether s holds a zero-width joiner or non-joiner anywhere but between
// two visible characters, where Persian, Indic scripts and emoji sequences use them. At the
// start or end of a value, next to a space or doubled, a joiner only hides something.
func JoinerMisused(s string) bool {
	runes := []rune(s)
	for i, r := range runes {
		if r != zwnj && r != zwj {
			continue
		}
		if i == 0 || i == len(runes)-1 || !visible(runes[i-1]) || !visible(runes[i+1]) {
			return true
		}
	}
	return false
}

func visible(r rune) bool {
	return unicode.IsGraphic(r) && !unicode.IsSpace(r) && r != zwnj && r != zwj
}

// Terminal returns s with everything a terminal would act on or hide written as a Go escape:
// control characters (escape sequences start with one), format characters such as the
// bidirectional overrides, spaces other than U+0020, and bytes that are not UTF-8. Letters,
// marks, digits, punctuation and symbols of every script are kept as they are.
func Terminal(s string) string {
	if strings.IndexFunc(s, unprintable) < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unprintable(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unprintable reports whether Terminal escapes r. An invalid byte decodes as U+FFFD, which is
// printable, so IndexFunc alone would miss it; Terminal's loop tells the two apart.
func unprintable(r rune) bool { return !unicode.IsPrint(r) || r == utf8.RuneError }
