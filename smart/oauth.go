package smart

import (
	"encoding/json"
	"net/http"
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
	writeNoStore(w, e.status, struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{e.code, e.description})
}
