package intake

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"
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

// normalized trims surrounding space from every field.
func (f Form) normalized() Form {
	return Form{
		Name:         strings.TrimSpace(f.Name),
		Email:        strings.TrimSpace(f.Email),
		Organization: strings.TrimSpace(f.Organization),
		IntendedUse:  strings.TrimSpace(f.IntendedUse),
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

// checkText returns what is wrong with a text field, or "". Line breaks and tabs are allowed
// only in multiline fields; other control characters nowhere.
func checkText(s string, minLen, maxLen int, multiline bool) string {
	n := utf8.RuneCountInString(s)
	switch {
	case !utf8.ValidString(s):
		return "must be UTF-8 text"
	case n == 0:
		return "is required"
	case n < minLen:
		return fmt.Sprintf("must be at least %d characters", minLen)
	case n > maxLen:
		return fmt.Sprintf("must be at most %d characters", maxLen)
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\r' || r == '\t') {
			continue
		}
		if unicode.IsControl(r) {
			return "must not contain control characters"
		}
	}
	return ""
}

// checkEmail accepts a bare address (no display name) whose domain has a dot: the operator
// writes to it by hand, so it must be one a mail client takes as is.
func checkEmail(s string) string {
	switch {
	case s == "":
		return "is required"
	case len(s) > maxEmail:
		return fmt.Sprintf("must be at most %d characters", maxEmail)
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
