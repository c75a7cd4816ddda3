package smart

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"providerdir/store"
)

// A token request that fails because the store cannot be reached is a 503 with Retry-After;
// other server failures stay a 500 server_error.
func TestServerFailure(t *testing.T) {
	cases := []struct {
		name       string
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"client lookup unavailable", fmt.Errorf("store/mongo: get record: %w: server selection error", store.ErrUnavailable), 503, "temporarily_unavailable", "5"},
		{"jti guard unavailable", fmt.Errorf("record jti: %w", fmt.Errorf("%w: circuit open", store.ErrUnavailable)), 503, "temporarily_unavailable", "5"},
		{"other", errors.New("decode client"), 500, "server_error", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			writeOAuthError(w, serverFailure(tc.err))
			if w.Code != tc.status {
				t.Errorf("status %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			var body struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || body.Error != tc.code {
				t.Errorf("body %s (%v), want error %s", w.Body, err, tc.code)
			}
		})
	}
}
