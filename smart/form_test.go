package smart

import (
	"net/url"
	"strings"
	"testing"

	"providerdir/catalog"
)

func TestParseTokenForm(t *testing.T) {
	good := url.Values{
		"grant_type":            {GrantClientCredentials},
		"client_assertion_type": {AssertionTypeJWTBearer},
		"client_assertion":      {"a.b.c"},
		"scope":                 {"system/*.read"},
	}
	with := func(k, v string) string {
		c := url.Values{}
		for n, vs := range good {
			c[n] = append([]string(nil), vs...)
		}
		if v == "" {
			c.Del(k)
		} else {
			c.Set(k, v)
		}
		return c.Encode()
	}
	tests := []struct {
		name        string
		contentType string
		body        string
		code        string // "" for success
	}{
		{"good", formContentType, good.Encode(), ""},
		{"charset parameter", formContentType + "; charset=UTF-8", good.Encode(), ""},
		{"client_id allowed", formContentType, with("client_id", "abc"), ""},
		{"JSON body", "application/json", good.Encode(), "invalid_request"},
		{"no content type", "", good.Encode(), "invalid_request"},
		{"bad escape", formContentType, good.Encode() + "&x=%zz", "invalid_request"},
		{"repeated", formContentType, good.Encode() + "&scope=system/*.rs", "invalid_request"},
		{"no grant_type", formContentType, with("grant_type", ""), "invalid_request"},
		{"other grant_type", formContentType, with("grant_type", "password"), "unsupported_grant_type"},
		{"wrong assertion type", formContentType, with("client_assertion_type", "urn:x"), "invalid_request"},
		{"no assertion type", formContentType, with("client_assertion_type", ""), "invalid_request"},
		{"no assertion", formContentType, with("client_assertion", ""), "invalid_request"},
		{"huge assertion", formContentType, with("client_assertion", strings.Repeat("a", maxAssertionBytes+1)), "invalid_request"},
		{"no scope", formContentType, with("scope", ""), "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := parseTokenForm(tt.contentType, []byte(tt.body))
			switch {
			case tt.code == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.code == "" && (f.Assertion != "a.b.c" || f.Scope != "system/*.read"):
				t.Fatalf("parsed %+v", f)
			case tt.code != "" && (err == nil || err.code != tt.code || err.status != 400):
				t.Fatalf("got %v, want 400 %s", err, tt.code)
			}
		})
	}
}

func FuzzParseTokenForm(f *testing.F) {
	f.Add(formContentType, "grant_type=client_credentials&client_assertion_type="+url.QueryEscape(AssertionTypeJWTBearer)+"&client_assertion=a.b.c&scope=system%2F*.read")
	f.Add(formContentType, "grant_type=client_credentials&grant_type=client_credentials")
	f.Add("application/json", `{"grant_type":"client_credentials"}`)
	f.Add(formContentType+"; charset=utf-8", "%zz=1&scope=")
	f.Fuzz(func(t *testing.T, contentType, body string) {
		form, err := parseTokenForm(contentType, []byte(body))
		if err != nil {
			if err.status != 400 || (err.code != "invalid_request" && err.code != "unsupported_grant_type") {
				t.Fatalf("unexpected error %d %s", err.status, err.code)
			}
			return
		}
		if form.GrantType != GrantClientCredentials || form.AssertionType != AssertionTypeJWTBearer ||
			form.Assertion == "" || len(form.Assertion) > maxAssertionBytes || form.Scope == "" {
			t.Fatalf("accepted an incomplete form %+v", form)
		}
	})
}

func FuzzParseScope(f *testing.F) {
	for _, s := range []string{"system/Practitioner.read", "system/*.rs", "user/Location.cruds?address-state=MA", "system/X.", "a/b.c?d=e", "system/Practitioner.write"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := ParseScope(s)
		if err != nil {
			return
		}
		// What parses writes back to something that parses to the same rights and type.
		again, err := ParseScope(sc.String())
		if err != nil || again.Type != sc.Type || again.Rights != sc.Rights || again.Context != sc.Context || again.Query != sc.Query {
			if sc.Rights == 0 && !sc.V1 { // cud only: no read/search letters to write back
				return
			}
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, sc, sc.String(), again, err)
		}
		g := Grant{Scopes: []string{s}}
		_ = g.Allows(sc.Type, catalog.Read)
	})
}

func FuzzParseScopeList(f *testing.F) {
	f.Add("openid system/Practitioner.read system/*.rs")
	f.Add("  ")
	f.Fuzz(func(t *testing.T, s string) {
		list, err := ParseScopeList(s)
		if err != nil {
			return
		}
		if len(list) > maxScopes {
			t.Fatalf("%d scopes", len(list))
		}
		_ = narrow(list, list)
	})
}
