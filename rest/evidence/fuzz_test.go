package evidence

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// corpusQuestions seeds the fuzzers with the labelled questions.
func corpusQuestions(f *testing.F) []string {
	raw, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		f.Fatal(err)
	}
	var corpus []struct {
		Q string `json:"q"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		f.Fatal(err)
	}
	var out []string
	for _, c := range corpus {
		out = append(out, c.Q)
	}
	return out
}

// Whatever the body, readRequest either accepts a request the contract allows (one JSON object
// with a string query of 1 to 1,500 characters, not blank, and max_evidence_items from 1 to 20)
// or refuses it with 400 or 415 and one of its codes; it never panics.
func FuzzReadRequest(f *testing.F) {
	for _, q := range corpusQuestions(f) {
		b, _ := json.Marshal(map[string]any{"query": q})
		f.Add(string(b))
	}
	for _, s := range []string{``, `{}`, `null`, `[]`, `{"query": ""}`, `{"query": "x", "options": {"max_evidence_items": 20}}`,
		`{"query": "x", "options": {"max_evidence_items": 1e1}}`, `{"query": "x", "options": null}`, `{"query": "\u0000"}`,
		`{"query": "x"}{}`, `{"query": "x", "query": 5}`, `{"QUERY": "x"}`} {
		f.Add(s)
	}
	codes := []string{CodeInvalidJSON, CodeMissingQuery, CodeInvalidQuery, CodeInvalidOption}
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/v1/evidence-query", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		q, bad := readRequest(r)
		if bad != nil {
			if bad.status != http.StatusBadRequest || !slices.Contains(codes, bad.code) || bad.message == "" {
				t.Fatalf("refusal %+v", bad)
			}
			return
		}
		var m map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader([]byte(body)))
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("accepted a body that is not a JSON object: %q", body)
		}
		var text string
		if err := json.Unmarshal(m["query"], &text); err != nil || text != q.text {
			t.Fatalf("accepted query %q, body's %q", q.text, m["query"])
		}
		if n := utf8.RuneCountInString(q.text); n < 1 || n > MaxQueryChars || strings.TrimSpace(q.text) == "" {
			t.Fatalf("accepted a query of %d characters", n)
		}
		if q.maxItems < MinEvidenceItems || q.maxItems > MaxEvidenceItems {
			t.Fatalf("accepted max_evidence_items %d", q.maxItems)
		}
		for k := range m {
			if k != "query" && k != "options" {
				t.Fatalf("accepted the unknown field %q", k)
			}
		}
	})
}

// Whatever the question, the screening and the classifier end in a refusal code of the contract
// or in an intent that passes the whitelist; they never panic.
func FuzzClassify(f *testing.F) {
	for _, q := range corpusQuestions(f) {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q := newQuestion(text)
		if code := screen(q); code != "" {
			if !slices.Contains(RefusalCodes, code) {
				t.Fatalf("screen code %q", code)
			}
			return
		}
		in, code := classify(q)
		if code != "" {
			if !slices.Contains(RefusalCodes, code) {
				t.Fatalf("classify code %q", code)
			}
			return
		}
		if _, err := in.validate(); err != nil {
			t.Fatalf("%q: classify returned an intent the whitelist refuses: %v", text, err)
		}
	})
}
