// Package fhir owns the FHIR R4 REST surface: the CapabilityStatement, read, and search by GET
// and POST _search over the resources the ingest projection stored (package mapping/fhirmap),
// with paging, includes, chains, _summary and _elements, content negotiation, and the SMART
// grant's scope and sandbox rules. Responses are composed from the stored bytes; nothing on a
// request path encodes a resource.
//
// Every failure is an OperationOutcome (this file): FHIR clients and conformance tools expect one
// with a status-appropriate issue code for any failure, never another JSON shape.
package fhir

import (
	"encoding/json"
	"net/http"

	"providerdir/internal/requestid"
)

// ContentType is the FHIR JSON media type.
const ContentType = "application/fhir+json"

// OperationOutcome is the FHIR resource that reports errors.
type OperationOutcome struct {
	ResourceType string  `json:"resourceType"`
	Issue        []Issue `json:"issue"`
}

// Issue is one OperationOutcome.issue.
type Issue struct {
	Severity    string `json:"severity"` // fatal | error | warning | information
	Code        string `json:"code"`     // the IssueType value set
	Diagnostics string `json:"diagnostics,omitempty"`
}

// IssueCode maps an HTTP status to the IssueType code FHIR servers conventionally pair with it.
func IssueCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid"
	case http.StatusUnauthorized:
		return "login"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return "not-found"
	case http.StatusMethodNotAllowed, http.StatusNotAcceptable, http.StatusUnsupportedMediaType:
		return "not-supported"
	case http.StatusGone:
		return "deleted"
	case http.StatusConflict, http.StatusPreconditionFailed:
		return "conflict"
	case http.StatusUnprocessableEntity:
		return "processing"
	case http.StatusRequestEntityTooLarge, http.StatusRequestURITooLong, http.StatusRequestHeaderFieldsTooLarge:
		return "too-long"
	case http.StatusTooManyRequests:
		return "throttled"
	case http.StatusServiceUnavailable:
		return "transient"
	}
	if status >= 500 {
		return "exception"
	}
	return "processing"
}

// WriteOutcome writes an OperationOutcome with one issue. The diagnostics quote the request id
// so a client's report can be found in the server's logs.
func WriteOutcome(w http.ResponseWriter, r *http.Request, status int, severity, code, diagnostics string) {
	if id := requestid.From(r.Context()); id != "" {
		diagnostics += " (request id " + id + ")"
	}
	body, err := json.Marshal(OperationOutcome{
		ResourceType: "OperationOutcome",
		Issue:        []Issue{{Severity: severity, Code: code, Diagnostics: diagnostics}},
	})
	if err != nil { // cannot happen for these plain strings; keep the response well-formed anyway
		body = []byte(`{"resourceType":"OperationOutcome","issue":[{"severity":"fatal","code":"exception"}]}`)
	}
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Error writes an error as an OperationOutcome: a server failure is fatal, anything else an
// error. Its signature is the router's error writer; code (the JSON APIs' error code) is not
// used, the issue code follows from the status.
func Error(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	severity := "error"
	if status >= 500 {
		severity = "fatal"
	}
	WriteOutcome(w, r, status, severity, IssueCode(status), message)
}
