package mcptools

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"

	"providerdir/resolverclient"
)

// Codes of tool errors that did not come from the resolver.
const (
	// CodeUnreachable: no answer from the resolver (refused, reset, timed out).
	CodeUnreachable = "resolver_unreachable"
	// CodeFailed: anything else that kept the call from a result, such as an answer that did
	// not decode.
	CodeFailed = "request_failed"
)

// ToolError is the body of a tool error: the resolver's error envelope (code, message,
// request_id) with the HTTP status and the contract's retry guidance.
type ToolError struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id,omitempty"`
	// Status is the resolver's HTTP status; absent when it gave none.
	Status int `json:"status,omitempty"`
	// Retryable is whether the same call may succeed later; RetryAfterSeconds, when present, is
	// how long to wait first.
	Retryable         bool   `json:"retryable"`
	RetryAfterSeconds int64  `json:"retry_after_seconds,omitempty"`
	Guidance          string `json:"guidance"`
}

// errorText is a tool error as the agent reads it: {"error": {...}}.
type errorText struct{ ToolError }

// Error is the JSON object {"error": ToolError}, the text of the tool error's content.
func (e errorText) Error() string {
	b, _ := json.Marshal(struct {
		Error ToolError `json:"error"`
	}{e.ToolError})
	return string(b)
}

// toolError turns a failed call into the tool error the agent sees.
func toolError(err error) error {
	var re *resolverclient.Error
	if errors.As(err, &re) {
		return errorText{fromResolver(re)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return errorText{ToolError{Code: CodeUnreachable, Message: err.Error(), Retryable: true,
			Guidance: "The resolver did not answer: check SERVICE_BASE_URL and that the service is running, then retry with exponential backoff."}}
	}
	return errorText{ToolError{Code: CodeFailed, Message: err.Error(), Guidance: "Do not retry as is."}}
}

// fromResolver carries the resolver's error over with the guidance of
// docs/contracts/resolver-api.md §7.
func fromResolver(e *resolverclient.Error) ToolError {
	t := ToolError{Code: e.Code, Message: e.Message, RequestID: e.RequestID, Status: e.Status, Retryable: e.Retryable()}
	if e.RetryAfter > 0 {
		t.RetryAfterSeconds = int64(math.Ceil(e.RetryAfter.Seconds()))
	}
	after := ""
	if t.RetryAfterSeconds > 0 {
		after = " (Retry-After: " + strconv.FormatInt(t.RetryAfterSeconds, 10) + " seconds)"
	}
	switch {
	case e.Status == http.StatusTooManyRequests:
		t.Guidance = "The hourly request budget of the key is spent: back off until Retry-After" + after + ", then retry."
	case e.Retryable():
		t.Guidance = "The service failed; retry with exponential backoff" + after + "."
	case e.Status == http.StatusNotFound:
		t.Guidance = "Unknown identifier: no source holds it. Do not retry."
	case e.Status == http.StatusUnauthorized:
		t.Guidance = "The API key is missing or not recognised: set SERVICE_API_KEY to a valid key. Do not retry."
	case e.Status >= 400 && e.Status < 500:
		t.Guidance = "The request is at fault: fix the input. Do not retry as is."
	default:
		t.Guidance = "The service answered an unexpected status; do not retry automatically."
	}
	return t
}
