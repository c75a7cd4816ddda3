package rest

import (
	"net/http"

	"providerdir/internal/requestid"
)

// FlatErrorBody is the error envelope of the resolver API and of the service host: one error
// object that carries the request id itself.
type FlatErrorBody struct {
	Error FlatError `json:"error"`
}

// FlatError is the error object of FlatErrorBody.
type FlatError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
	// Details is what a client needs to fix the request (the fields of a form that failed
	// validation). Only the service host uses it; the resolver contract's object has none, and
	// nil leaves the field out.
	Details any `json:"details,omitempty"`
}

// ResolverError writes a resolver API error. Its signature is the router's error writer.
func ResolverError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	WriteJSON(w, r, status, FlatErrorBody{Error: FlatError{Code: code, Message: message, RequestID: requestid.From(r.Context())}})
}

// WriteAPIError writes a service host error with details (see FlatError.Details).
func WriteAPIError(w http.ResponseWriter, r *http.Request, status int, code, message string, details any) {
	WriteJSON(w, r, status, FlatErrorBody{Error: FlatError{Code: code, Message: message, RequestID: requestid.From(r.Context()), Details: details}})
}

// APIError writes an error of the service host (/api). The service host has no contract of its
// own, so it uses the resolver's shape: one object that a person or a script reads alike.
func APIError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	ResolverError(w, r, status, code, message)
}
