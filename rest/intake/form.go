package intake

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"providerdir/internal/safetext"
)

// Form is the pilot intake form as posted.
type Form struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	Organization string `json:"organization"`
	IntendedUse  string `json:"intended_use"`
}

// FieldError names one field of the form and what is wrong with it.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError is a form's list of field errors.
type ValidationError []FieldError

func (v ValidationError) Error() string {
	parts := make([]string, len(v))
	for i, e := range v {
		parts[i] = e.Field + ": " + e.Message
	}
	return "invalid access request: " + strings.Join(parts, "; ")
}

// Field bounds, in characters.
const (
	maxName        = 200
	maxEmail       = 254 // RFC 5321's limit on a forward path, less the angle brackets
	maxOrg         = 200
	minIntendedUse = 10
	maxIntendedUse = 2000
)

// normalized trims surrounding space from every field and puts it in Unicode's composed form
// (NFC), so that "é" typed as one character or as "e" and a combining accent is stored, shown
// and compared as the same text.
func (f Form) normalized() Form {
	clean := func(s string) string { return norm.NFC.String(strings.TrimSpace(s)) }
	return Form{
		Name:         clean(f.Name),
		Email:        clean(f.Email),
		Organization: clean(f.Organization),
		IntendedUse:  clean(f.IntendedUse),
	}
}

// Validate checks a normalized form and returns one error per bad field, in form order.
func (f Form) Validate() []FieldError {
	var errs []FieldError
	add := func(field, format string, a ...any) {
		errs = append(errs, FieldError{Field: field, Message: fmt.Sprintf(format, a...)})
	}
	if msg := checkText(f.Name, 1, maxName, false); msg != "" {
		add("name", "%s", msg)
	}
	if msg := checkEmail(f.Email); msg != "" {
		add("email", "%s", msg)
	}
	if msg := checkText(f.Organization, 1, maxOrg, false); msg != "" {
		add("organization", "%s", msg)
	}
	if msg := checkText(f.IntendedUse, minIntendedUse, maxIntendedUse, true); msg != "" {
		add("intended_use", "%s", msg)
	}
	return errs
}

// checkText returns what is wrong with a text field, or "": its length in characters, then its
// characters (checkCharacters). Line breaks and tabs are allowed only in multiline fields;
// other control characters nowhere. Characters that change how text is shown without being
// seen (bidirectional overrides, zero-width spaces) are refused: the operator reads these
// fields in a terminal and must see what was sent.
func checkText(s string, minLen, maxLen int, multiline bool) string {
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0:
		return "is required"
	case n < minLen:
		return fmt.Sprintf("must be at least %d characters", minLen)
	case n > maxLen:
		return fmt.Sprintf("must be at most %d characters", maxLen)
	}
	return checkCharacters(s, multiline)
}

// checkCharacters returns what is wrong with the characters of a field, or "": bytes that
// encode no character, control characters (line breaks and tabs are allowed in multiline
// fields), and invisible formatting characters.
func checkCharacters(s string, multiline bool) string {
	if !utf8.ValidString(s) || strings.ContainsRune(s, utf8.RuneError) {
		return "must be valid Unicode text (it holds bytes or escapes that encode no character)"
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) {
			return "must not contain control characters"
		}
		if safetext.Invisible(r) {
			return fmt.Sprintf("must not contain invisible formatting characters (found %U)", r)
		}
	}
	if safetext.JoinerMisused(s) {
		return "must not contain a zero-width joiner except between two letters"
	}
	return ""
}

// checkEmail accepts a bare address (no display name) whose domain has a dot, of the
// characters any text field allows less the zero-width joiners: the operator reads it in a
// terminal and writes to it by hand, so it must be one a mail client takes as is and hold
// nothing the operator cannot see.
func checkEmail(s string) string {
	switch {
	case s == "":
		return "is required"
	case len(s) > maxEmail:
		return fmt.Sprintf("must be at most %d characters", maxEmail)
	}
	if msg := checkCharacters(s, false); msg != "" {
		return msg
	}
	if strings.ContainsAny(s, "\u200c\u200d") {
		return "must not contain a zero-width joiner"
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "must be an e-mail address such as name@example.org"
	}
	at := strings.LastIndexByte(s, '@')
	if domain := s[at+1:]; !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return "must be an e-mail address with a full domain, such as name@example.org"
	}
	return ""
}
