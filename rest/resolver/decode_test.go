package resolver

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// A batch body of any shape is refused with one of the contract's codes and a message, or
// accepted as exactly one JSON object of at most MaxBatch ten-digit NPIs.
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
	codes := []string{CodeInvalidBody, CodeBatchTooLarge, CodeInvalidNPI}
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
		for _, npi := range req.NPIs {
			if len(npi) != 10 || strings.Trim(npi, "0123456789") != "" {
				t.Fatalf("%q: accepted NPI %q", body, npi)
			}
		}
	})
}
