// Package apiclient plays clients against a server liveserver runs: each request carries the
// client's address in X-Forwarded-For, and every response is held to the interface description
// the server serves (openapicheck). Only tests import it.
package apiclient

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"testing"

	"providerdir/testing/liveserver"
	"providerdir/testing/openapicheck"
)

// Client is one client address playing against a running server.
type Client struct {
	*liveserver.Server
	IP string // sent as X-Forwarded-For, which the server believes from loopback
	// Raw lists the media types whose bodies are kept as bytes only; every other body must be a
	// JSON object.
	Raw []string
}

// NewClient plays an address no other client of the test binary plays against s.
func NewClient(s *liveserver.Server) Client {
	return Client{Server: s, IP: liveserver.ClientIP()}
}

// Response is what a test looks at.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any // the body's JSON object; nil for a HEAD request or a body kept raw
}

// Bearer is the Authorization header pair carrying key.
func Bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// Do sends one request with body and the headers given as name/value pairs, reads the whole
// response, fails the test unless its body is a JSON object (save for a HEAD request and the
// media types in Raw) and holds the response to the interface description the server serves.
func (c Client) Do(tb testing.TB, method, path string, body []byte, header ...string) Response {
	tb.Helper()
	// The client's address goes first, so that a test's own X-Forwarded-For pair replaces it.
	header = append([]string{"X-Forwarded-For", c.IP}, header...)
	req, resp, raw := liveserver.FetchSent(tb, method, c.URL+path, bytes.NewReader(body), header...)
	out := Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if c.object(method, resp.Header) {
		if err := json.Unmarshal(out.Raw, &out.Body); err != nil {
			tb.Fatalf("%s %s: body is not a JSON object: %.300q", method, path, out.Raw)
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	openapicheck.Validate(tb, c.URL, req, out.Status, out.Header, out.Raw)
	return out
}

// Get is Do of a GET without a body.
func (c Client) Get(tb testing.TB, path string, header ...string) Response {
	tb.Helper()
	return c.Do(tb, http.MethodGet, path, nil, header...)
}

// object reports whether a response must carry a JSON object.
func (c Client) object(method string, h http.Header) bool {
	if method == http.MethodHead {
		return false
	}
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return !slices.Contains(c.Raw, mt)
}

// ErrorCode is error.code of an error envelope, "" for a success.
func (r Response) ErrorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}
