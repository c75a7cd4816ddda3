package fhir

import (
	"context"
	"net/http/httptest"
	"testing"

	"providerdir/internal/requestid"
)

func TestError(t *testing.T) {
	tests := []struct {
		status int
		want   string
	}{
		{404, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"not-found","diagnostics":"gone fishing (request id r9)"}]}`},
		{405, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"not-supported","diagnostics":"gone fishing (request id r9)"}]}`},
		{400, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"invalid","diagnostics":"gone fishing (request id r9)"}]}`},
		{500, `{"resourceType":"OperationOutcome","issue":[{"severity":"fatal","code":"exception","diagnostics":"gone fishing (request id r9)"}]}`},
		{503, `{"resourceType":"OperationOutcome","issue":[{"severity":"fatal","code":"transient","diagnostics":"gone fishing (request id r9)"}]}`},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/fhir/x", nil)
		r = r.WithContext(requestid.With(context.Background(), "r9"))
		Error(rec, r, tt.status, "ignored", "gone fishing")
		if rec.Code != tt.status || rec.Body.String() != tt.want {
			t.Errorf("%d: got %d %s", tt.status, rec.Code, rec.Body.String())
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/fhir+json" {
			t.Errorf("%d: Content-Type %q", tt.status, ct)
		}
	}
}

func TestIssueCode(t *testing.T) {
	for status, want := range map[int]string{401: "login", 403: "forbidden", 410: "deleted", 412: "conflict", 422: "processing", 429: "throttled", 502: "exception"} {
		if got := IssueCode(status); got != want {
			t.Errorf("IssueCode(%d) = %q, want %q", status, got, want)
		}
	}
}
