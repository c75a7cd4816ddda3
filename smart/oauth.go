package smart

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"providerdir/store"
)

// oauthError is a token endpoint error in the RFC 6749 section 5.2 shape.
type oauthError struct {
	status      int
	code        string
	description string
}

func (e *oauthError) Error() string { return e.code + ": " + e.description }

func invalidRequest(desc string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_request", description: desc}
}

func invalidScope(desc string) *oauthError {
	return &oauthError{status: http.StatusBadRequest, code: "invalid_scope", description: desc}
}

// errInvalidClient is the one answer to every failed client authentication. Its description is
// deliberately the same whatever failed (unknown client, bad signature, replayed jti ...): the
// reason goes to the log, where an operator can read it and an attacker cannot.
var errInvalidClient = &oauthError{status: http.StatusUnauthorized, code: "invalid_client", description: "client authentication failed"}

var errServer = &oauthError{status: http.StatusInternalServerError, code: "server_error", description: "the server could not process the request; try again"}

// errUnavailable answers a token request while the store (clients, replay guards) cannot be
// reached: 503 with a Retry-After. RFC 6749 names temporarily_unavailable for the authorization
// endpoint only; it is the code that says what happened, and clients that do not know it still
// see a 5xx to retry.
var errUnavailable = &oauthError{status: http.StatusServiceUnavailable, code: "temporarily_unavailable", description: "the client registry is unavailable; retry after " + strconv.Itoa(store.RetryAfterSeconds) + " seconds"}

// serverFailure is the answer to a failure on the server's side: errUnavailable when the store
// cannot be reached, else errServer.
func serverFailure(err error) *oauthError {
	if errors.Is(err, store.ErrUnavailable) {
		return errUnavailable
	}
	return errServer
}

// writeNoStore writes a token endpoint response. Token responses, successful or not, must not
// be cached (RFC 6749 sections 5.1 and 5.2).
func writeNoStore(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"server_error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeOAuthError(w http.ResponseWriter, e *oauthError) {
	if e == errUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(store.RetryAfterSeconds))
	}
	writeNoStore(w, e.status, struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{e.code, e.description})
}
