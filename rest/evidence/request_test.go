package evidence_test

import (
	"net/http"
	"strings"
	"testing"
)

// Every body the endpoint cannot read is a 400 (415 for a body not sent as JSON) in the supply
// API's error envelope with the reason's code, on /v1; the demo gives the same statuses and codes
// in the service host's envelope.
func TestBodyValidation(t *testing.T) {
	e := demoEnv(t, nil)
	key := e.key(t)
	long := strings.Repeat("é", 1501)
	tests := []struct {
		name        string
		contentType string
		body        string
		status      int
		code        string
	}{
		{"not JSON", "application/json", `{"query": `, 400, "invalid_json"},
		{"syntax error", "application/json", `{"query" "x"}`, 400, "invalid_json"},
		{"empty body", "application/json", ``, 400, "invalid_json"},
		{"an array", "application/json", `["x"]`, 400, "invalid_json"},
		{"two values", "application/json", `{"query": "x"} {"query": "y"}`, 400, "invalid_json"},
		{"not UTF-8", "application/json", "{\"query\": \"caf\xe9\"}", 400, "invalid_json"},
		{"query a number", "application/json", `{"query": 5}`, 400, "invalid_json"},
		{"unknown field", "application/json", `{"query": "x", "limit": 3}`, 400, "invalid_json"},
		{"unknown option", "application/json", `{"query": "x", "options": {"verbose": true}}`, 400, "invalid_json"},
		{"query twice", "application/json", `{"query": "x", "query": 5}`, 400, "invalid_json"},
		{"query in capitals", "application/json", `{"QUERY": "How many cardiologists are in Texas?"}`, 400, "invalid_json"},
		{"option in capitals", "application/json", `{"query": "x", "options": {"Max_Evidence_Items": 3}}`, 400, "invalid_json"},
		{"option twice", "application/json", `{"query": "x", "options": {"max_evidence_items": 3, "max_evidence_items": 30}}`, 400, "invalid_json"},
		{"options not an object", "application/json", `{"query": "x", "options": 3}`, 400, "invalid_json"},
		{"missing query", "application/json", `{}`, 400, "missing_query"},
		{"null query", "application/json", `{"query": null}`, 400, "missing_query"},
		{"only options", "application/json", `{"options": {"max_evidence_items": 3}}`, 400, "missing_query"},
		{"empty query", "application/json", `{"query": ""}`, 400, "invalid_query"},
		{"blank query", "application/json", `{"query": " \t\n "}`, 400, "invalid_query"},
		{"1,501 characters", "application/json", `{"query": "` + long + `"}`, 400, "invalid_query"},
		{"max items 0", "application/json", `{"query": "x", "options": {"max_evidence_items": 0}}`, 400, "invalid_max_evidence_items"},
		{"max items 21", "application/json", `{"query": "x", "options": {"max_evidence_items": 21}}`, 400, "invalid_max_evidence_items"},
		{"max items -1", "application/json", `{"query": "x", "options": {"max_evidence_items": -1}}`, 400, "invalid_max_evidence_items"},
		{"max items 1.5", "application/json", `{"query": "x", "options": {"max_evidence_items": 1.5}}`, 400, "invalid_max_evidence_items"},
		{"max items 1e1", "application/json", `{"query": "x", "options": {"max_evidence_items": 1e1}}`, 400, "invalid_max_evidence_items"},
		{"max items a string", "application/json", `{"query": "x", "options": {"max_evidence_items": "5"}}`, 400, "invalid_max_evidence_items"},
		{"max items null", "application/json", `{"query": "x", "options": {"max_evidence_items": null}}`, 400, "invalid_max_evidence_items"},
		{"max items huge", "application/json", `{"query": "x", "options": {"max_evidence_items": 99999999999999999999}}`, 400, "invalid_max_evidence_items"},
		{"text/plain", "text/plain", `{"query": "x"}`, 415, "unsupported_media_type"},
		{"no content type", "", `{"query": "x"}`, 415, "unsupported_media_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/v1/evidence-query", tt.contentType, []byte(tt.body), key)
			if r.Status != tt.status || r.ErrorCode() != tt.code {
				t.Fatalf("/v1: %d %s, want %d %s: %s", r.Status, r.ErrorCode(), tt.status, tt.code, r.Raw)
			}
			meta, _ := r.Body["meta"].(map[string]any)
			if meta["api_version"] != "v1" || meta["request_id"] == "" {
				t.Errorf("/v1: not the supply API's error envelope: %s", r.Raw)
			}
			if len(r.Raw) > 2000 {
				t.Errorf("/v1: a %d-byte error repeats too much of the body", len(r.Raw))
			}
		})
	}
	// The demo reads bodies the same way; its envelope is the service host's. Two cases suffice
	// to show that: the reading is the same function, and each request spends the address's
	// demo budget.
	for _, tt := range []struct{ body, code string }{{`{}`, "missing_query"}, {`{"query": "x", "options": {"max_evidence_items": 21}}`, "invalid_max_evidence_items"}} {
		r := e.do(t, http.MethodPost, "/api/evidence-query/demo", "application/json", []byte(tt.body), "")
		errObj, _ := r.Body["error"].(map[string]any)
		if r.Status != 400 || r.ErrorCode() != tt.code || errObj["request_id"] == nil || r.Body["meta"] != nil {
			t.Errorf("demo %s: %d %s", tt.body, r.Status, r.Raw)
		}
	}
}

// The bounds themselves are accepted: 1,500 characters (of several bytes each), one character,
// max_evidence_items 1 and 20.
func TestBodyBounds(t *testing.T) {
	e := demoEnv(t, nil)
	key := e.key(t)
	for _, body := range []string{
		`{"query": "` + strings.Repeat("é", 1500) + `"}`,
		`{"query": "?"}`,
		`{"query": "How many cardiologists are in Texas?", "options": {"max_evidence_items": 1}}`,
		`{"query": "How many cardiologists are in Texas?", "options": {"max_evidence_items": 20}}`,
		`{"query": "How many cardiologists are in Texas?", "options": {}}`,
	} {
		r := e.do(t, http.MethodPost, "/v1/evidence-query", "application/json; charset=utf-8", []byte(body), key)
		if r.Status != http.StatusOK {
			t.Errorf("%.60s: %d %s", body, r.Status, r.Raw)
		}
	}
}

// Without a key the keyed endpoint is 401 missing_api_key, and with an unknown one
// invalid_api_key, before the body is read.
func TestKeyRequired(t *testing.T) {
	e := demoEnv(t, nil)
	r := e.do(t, http.MethodPost, "/v1/evidence-query", "application/json", []byte(`{"query": "x"}`), "")
	if r.Status != http.StatusUnauthorized || r.ErrorCode() != "missing_api_key" {
		t.Errorf("no key: %d %s", r.Status, r.Raw)
	}
	r = e.do(t, http.MethodPost, "/v1/evidence-query", "application/json", []byte(`{"query": "x"}`), "pd_live_nonesuch")
	if r.Status != http.StatusUnauthorized || r.ErrorCode() != "invalid_api_key" {
		t.Errorf("unknown key: %d %s", r.Status, r.Raw)
	}
}
