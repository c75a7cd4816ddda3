package fhir

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"providerdir/store"
)

// A store that cannot be reached is a transient 503 with Retry-After; other failures are 500.
func TestFailUnavailable(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		issue      string
		retryAfter string
	}{
		{"unavailable", fmt.Errorf("search: %w", fmt.Errorf("store/mongo: find: %w: timeout", store.ErrUnavailable)), 503, "transient", "5"},
		{"other", errors.New("decode resource"), 500, "exception", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			(&Server{}).fail(w, httptest.NewRequest("GET", "/fhir/Practitioner", nil), tc.err)
			if w.Code != tc.status {
				t.Errorf("status %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			var oo OperationOutcome
			if err := json.Unmarshal(w.Body.Bytes(), &oo); err != nil {
				t.Fatal(err)
			}
			if oo.ResourceType != "OperationOutcome" || len(oo.Issue) != 1 || oo.Issue[0].Code != tc.issue {
				t.Errorf("outcome %+v, want one issue with code %s", oo, tc.issue)
			}
		})
	}
}
