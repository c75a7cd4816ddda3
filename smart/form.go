package smart

import (
	"mime"
	"net/url"
	"strconv"

	"providerdir/internal/safetext"
)

// Token request parameters and their fixed values (SMART Backend Services, RFC 7523).
const (
	GrantClientCredentials = "client_credentials"
	AssertionTypeJWTBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	formContentType        = "application/x-www-form-urlencoded"
	// maxFormBytes bounds the request body: an assertion is a couple of kilobytes.
	maxFormBytes = 64 << 10
	// maxAssertionBytes bounds the assertion before any parsing.
	maxAssertionBytes = 16 << 10
)

// tokenForm is a parsed token request.
type tokenForm struct {
	GrantType     string
	AssertionType string
	Assertion     string
	Scope         string
	// ClientID is optional (RFC 7523 section 3); when sent it must name the assertion's issuer.
	ClientID string
}

// parseTokenForm reads a token request body. Errors are checked in the order a client fixes
// them: body shape, then grant type (unsupported_grant_type), then the assertion fields and
// scope (invalid_request). Parameters come from the body only, never the query string (RFC 6749
// section 3.2 sends them in the body), and none may repeat (section 3.2: "MUST NOT be included
// more than once"), so no parameter can mean two things to two parsers.
func parseTokenForm(contentType string, body []byte) (tokenForm, *oauthError) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil || mt != formContentType {
		return tokenForm{}, invalidRequest("the body must be " + formContentType)
	}
	vals, err := url.ParseQuery(string(body))
	if err != nil {
		return tokenForm{}, invalidRequest("the body is not a well-formed form")
	}
	for name, v := range vals {
		if len(v) > 1 {
			return tokenForm{}, invalidRequest("parameter " + strconv.Quote(safetext.Echo(name)) + " is repeated")
		}
	}
	f := tokenForm{
		GrantType:     vals.Get("grant_type"),
		AssertionType: vals.Get("client_assertion_type"),
		Assertion:     vals.Get("client_assertion"),
		Scope:         vals.Get("scope"),
		ClientID:      vals.Get("client_id"),
	}
	switch {
	case f.GrantType == "":
		return tokenForm{}, invalidRequest("grant_type is required")
	case f.GrantType != GrantClientCredentials:
		return tokenForm{}, &oauthError{status: 400, code: "unsupported_grant_type", description: "only grant_type=client_credentials is supported"}
	case f.AssertionType != AssertionTypeJWTBearer:
		return tokenForm{}, invalidRequest("client_assertion_type must be " + AssertionTypeJWTBearer)
	case f.Assertion == "":
		return tokenForm{}, invalidRequest("client_assertion is required")
	case len(f.Assertion) > maxAssertionBytes:
		return tokenForm{}, invalidRequest("client_assertion is too long")
	case f.Scope == "":
		return tokenForm{}, invalidRequest("scope is required")
	}
	return f, nil
}
