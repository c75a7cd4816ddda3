package resolver

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"providerdir/ident"
)

// A batch body of any shape is refused with one of the contract's codes and a message, or
// accepted as exactly one JSON object holding a list of at most MaxBatch strings (an entry that
// is no NPI resolves to null; it is not a reason to refuse the batch).
func FuzzDecodeBatch(f *testing.F) {
	for _, s := range []string{
		`{"npis":["1234567893"]}`, `{"npis":["1234567890"]}`, `{"npis":[]}`, `{"npis":null}`, `{}`, `[]`,
		`{"npis":["1234567893"],"extra":1}`, `{"npis":["123456789"]}`, `{"npis":["１２３４５６７８９３"]}`,
		`{"npis":["1234567893"]} {"npis":[]}`, `{"npis":["1234567893"]} ]`, `{"npis":["1234567893"]}}`,
		`{"npis":[` + strings.TrimSuffix(strings.Repeat(`"1234567893",`, MaxBatch+1), ",") + `]}`,
		`{"npis":["` + strings.Repeat("1", MaxBatchBody) + `"]}`, "\ufeff{\"npis\":[]}", `{"NPIS":["1234567893"]}`,
	} {
		f.Add(s)
	}
	codes := []string{CodeInvalidBody, CodeBatchTooLarge}
	f.Fuzz(func(t *testing.T, body string) {
		w := httptest.NewRecorder()
		req, code, msg := decodeBatch(w, httptest.NewRequest("POST", "/v1/resolve/batch", strings.NewReader(body)))
		if code != "" {
			if !slices.Contains(codes, code) || msg == "" || !utf8.ValidString(msg) {
				t.Fatalf("%q: code %q, message %q", body, code, msg)
			}
			return
		}
		if !json.Valid([]byte(body)) || !strings.HasPrefix(strings.TrimLeft(body, " \t\r\n"), "{") {
			t.Fatalf("%q: accepted a body that is not one JSON object", body)
		}
		if req.NPIs == nil || len(req.NPIs) > MaxBatch {
			t.Fatalf("%q: accepted %d NPIs", body, len(req.NPIs))
		}
		var list struct{ NPIs []json.RawMessage }
		if json.Unmarshal([]byte(body), &list) != nil || len(list.NPIs) != len(req.NPIs) {
			t.Fatalf("%q: accepted %d NPIs from a list of %d", body, len(req.NPIs), len(list.NPIs))
		}
		for _, raw := range list.NPIs {
			if raw[0] != '"' && string(raw) != "null" {
				t.Fatalf("%q: accepted entry %s, which is not a string", body, raw)
			}
		}
	})
}

// Search parameters of any shape are refused with one of the contract's codes, or accepted as a
// query of bounded length with a word of two or more letters, a valid state and taxonomy when
// given, and a limit and page in range.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{
		"q=smith", "q=john+smith&state=ca&taxonomy=207r00000x&limit=5&page=2", "q=a", "q=", "q=%FF%FE", "q=%00%00",
		"q=smith&state=XX", "q=smith&taxonomy=207", "q=smith&limit=0", "q=smith&limit=100000", "q=smith&page=-1",
		"q=smith&page=99999999999999999999", "q=" + strings.Repeat("ab+", MaxQueryLen), "q=o%27brien-smith&limit=%2B3",
	} {
		f.Add(s)
	}
	codes := []string{CodeInvalidQuery, CodeInvalidState, CodeInvalidTaxonomy, CodeInvalidLimit, CodeInvalidPage}
	f.Fuzz(func(t *testing.T, query string) {
		r := httptest.NewRequest("GET", "/v1/search", nil)
		r.URL.RawQuery = query
		sq, tokens, code, msg := parseSearch(r)
		if code != "" {
			if !slices.Contains(codes, code) || msg == "" {
				t.Fatalf("%q: code %q, message %q", query, code, msg)
			}
			return
		}
		if len(sq.Q) > MaxQueryLen || !slices.ContainsFunc(tokens, func(w string) bool { return utf8.RuneCountInString(w) > 1 }) {
			t.Fatalf("%q: accepted q %q (words %q)", query, sq.Q, tokens)
		}
		if sq.State != "" && ident.ValidateState(sq.State) != nil || sq.Taxonomy != "" && ident.ValidateTaxonomy(sq.Taxonomy) != nil {
			t.Fatalf("%q: accepted state %q, taxonomy %q", query, sq.State, sq.Taxonomy)
		}
		if sq.Limit < 1 || sq.Limit > MaxSearchLimit || sq.Page < 1 || sq.Page > MaxSearchPage {
			t.Fatalf("%q: accepted limit %d, page %d", query, sq.Limit, sq.Page)
		}
	})
}
