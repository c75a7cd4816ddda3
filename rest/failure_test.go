package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"providerdir/store"
)

// A store that cannot be reached is a 503 a client may retry, in each surface's envelope; any
// other failure stays a 500.
func TestWriteFailure(t *testing.T) {
	unavailable := fmt.Errorf("store/mongo: get record: %w: server selection error", store.ErrUnavailable)
	cases := []struct {
		name       string
		write      func(w http.ResponseWriter, r *http.Request, status int, code, message string)
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{"v1 unavailable", V1Error, unavailable, 503, CodeUnavailable, "5"},
		{"resolver unavailable", ResolverError, unavailable, 503, CodeUnavailable, "5"},
		{"v1 other", V1Error, errors.New("decode manifest"), 500, CodeInternal, ""},
		{"resolver other", ResolverError, store.ErrClosed, 500, CodeInternal, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			WriteFailure(w, request("r1"), tc.write, tc.err)
			if w.Code != tc.status {
				t.Errorf("status %d, want %d", w.Code, tc.status)
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After %q, want %q", got, tc.retryAfter)
			}
			var body struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body.Error.Code != tc.code || body.Error.Message == "" {
				t.Errorf("error %+v, want code %s and a message", body.Error, tc.code)
			}
		})
	}
}
