package resolverclient

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is a response of the resolver with a status other than 200: the resolver's error
// envelope (code, message, request_id) with the HTTP status and the Retry-After it carried.
// Every method returns it as *Error; use errors.As to read it.
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Code is the resolver's stable error code (invalid_npi, not_found, rate_limited, ...);
	// empty when the body was not the resolver's envelope (a proxy's page, say).
	Code string
	// Message is the resolver's message, or the start of a body that was not an envelope.
	Message string
	// RequestID identifies the request in the resolver's logs: quote it when reporting.
	RequestID string
	// RetryAfter is the wait the Retry-After header asked for; zero when there was none.
	RetryAfter time.Duration
	// Attempts is how many requests the call made before giving up with this answer.
	Attempts int
}

// Error reads "resolver: 404 not_found: NPI ... (request id ...)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("resolver: ")
	b.WriteString(strconv.Itoa(e.Status))
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request id " + e.RequestID + ")")
	}
	return b.String()
}

// Retryable reports whether the contract allows retrying the request: 429 after Retry-After,
// 500 and 503 with backoff (docs/contracts/resolver-api.md §7). Every other status is terminal.
func (e *Error) Retryable() bool { return retryableStatus(e.Status) }

func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusInternalServerError || status == http.StatusServiceUnavailable
}

// maxMessage bounds the part of a body that is not an envelope kept as the message.
const maxMessage = 200

// parseError builds the Error of a response whose body has been read.
func parseError(resp *http.Response, body []byte, now time.Time) *Error {
	e := &Error{Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header.Get("Retry-After"), now)}
	var env struct {
		Error *struct {
			Code      string `json:"code"`
			Message   string `json:"message"`
			RequestID string `json:"request_id"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Code != "" {
		e.Code, e.Message, e.RequestID = env.Error.Code, env.Error.Message, env.Error.RequestID
		return e
	}
	e.RequestID = resp.Header.Get("X-Request-ID")
	msg := strings.TrimSpace(string(body))
	if len(msg) > maxMessage {
		msg = msg[:maxMessage] + "…"
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	e.Message = msg
	return e
}

// retryAfter reads a Retry-After value: delay-seconds or an HTTP-date (RFC 9110 section
// 10.2.3). It is zero when absent or unreadable, and never negative.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, int64(maxRetryAfterHeader/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfterHeader)
	}
	return 0
}

// maxRetryAfterHeader bounds what a Retry-After is read as, so that an absurd value cannot
// overflow a duration; the resolver's longest is the hourly window.
const maxRetryAfterHeader = 24 * time.Hour
