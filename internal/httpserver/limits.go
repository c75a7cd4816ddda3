package httpserver

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"

	"providerdir/internal/clientip"
)

// Request limits every surface shares. Per-endpoint limits (a form's fields, a batch's size) are
// the surfaces' own and lower.
const (
	// DefaultMaxURLBytes bounds the request target (path and query): far above any search a
	// client composes, far below what makes parsing it costly.
	DefaultMaxURLBytes = 8 << 10
	// DefaultMaxBodyBytes bounds a request body: every JSON document and form the service
	// takes (an access request, a batch of 1,000 NPIs, a FHIR _search form) fits well within it.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultMaxHeaderBytes bounds a request's header fields, counted as on the wire (name,
	// ": ", value, line end). A request over it gets the surface's 431; the HTTP server's own
	// bound (ServerOptions.MaxHeaderBytes) is far larger, so only a request beyond that gets
	// net/http's plain one.
	DefaultMaxHeaderBytes = 32 << 10
)

// Error codes of the router's own refusals.
const (
	CodeURITooLong      = "uri_too_long"
	CodeHeadersTooLarge = "request_header_fields_too_large"
	CodeRequestTooLarge = "request_too_large"
	CodeBadRequest      = "bad_request"
)

// Security headers set on every response before the handler runs; a handler may override them.
const (
	// ContentSecurityPolicy allows a response to load nothing and to be framed by no page: the
	// service serves JSON, FHIR JSON and plain-text documents, none of which needs a script,
	// a style or an image.
	ContentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'"
	// ReferrerPolicy keeps URLs, whose queries may carry identifiers, out of Referer headers.
	ReferrerPolicy = "no-referrer"
	// StrictTransportSecurity is sent only on requests that arrived over TLS: a year, for this
	// host alone, since the operator's other hosts may not all serve HTTPS.
	StrictTransportSecurity = "max-age=31536000"
)

// setSecurityHeaders sets the headers every response carries.
func (h *Handler) setSecurityHeaders(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("Referrer-Policy", ReferrerPolicy)
	if h.overTLS(r) {
		hd.Set("Strict-Transport-Security", StrictTransportSecurity)
	}
}

// overTLS reports whether the client reached the service over TLS: the connection itself is
// TLS, or its peer is a trusted proxy that says, in X-Forwarded-Proto, that its client used
// HTTPS. A client's own X-Forwarded-Proto proves nothing and is ignored. With a chain of proxies
// the last value is the nearest proxy's, the one trusted.
func (h *Handler) overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	proto := r.Header.Values("X-Forwarded-Proto")
	if len(proto) == 0 {
		return false
	}
	if peer, ok := clientip.ParseHop(r.RemoteAddr); !ok || !h.proxies.Trusted(peer) {
		return false
	}
	last := proto[len(proto)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// withinLimits answers a request whose target or body is over the limits, in its surface's
// envelope, and reports whether the request may go on. A body of unknown length (chunked) is
// read here, up to the limit, so that an oversized one gets the same 413 whichever handler it
// was meant for.
func (h *Handler) withinLimits(w http.ResponseWriter, r *http.Request) bool {
	if len(r.RequestURI) > h.maxURL {
		h.reject(w, r, http.StatusRequestURITooLong, CodeURITooLong,
			"the request URL is longer than "+strconv.Itoa(h.maxURL)+" bytes")
		return false
	}
	if headerBytes(r.Header) > DefaultMaxHeaderBytes {
		w.Header().Set("Connection", "close")
		h.reject(w, r, http.StatusRequestHeaderFieldsTooLarge, CodeHeadersTooLarge,
			"the request's header fields are larger than "+strconv.Itoa(DefaultMaxHeaderBytes)+" bytes")
		return false
	}
	switch {
	case r.ContentLength > h.maxBody:
		h.rejectBody(w, r)
		return false
	case r.ContentLength < 0:
		b, err := io.ReadAll(io.LimitReader(r.Body, h.maxBody+1))
		switch {
		case err != nil:
			w.Header().Set("Connection", "close")
			h.reject(w, r, http.StatusBadRequest, CodeBadRequest, "the request body could not be read")
			return false
		case int64(len(b)) > h.maxBody:
			h.rejectBody(w, r)
			return false
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
	}
	return true
}

// headerBytes is the size of header fields as on the wire.
func headerBytes(hd http.Header) int {
	n := 0
	for name, values := range hd {
		for _, v := range values {
			n += len(name) + len(v) + 4
		}
	}
	return n
}

// rejectBody answers 413 without reading the body, and closes the connection after, since the
// unread rest of the body stands where the next request would.
func (h *Handler) rejectBody(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Connection", "close")
	h.reject(w, r, http.StatusRequestEntityTooLarge, CodeRequestTooLarge,
		"the request body is larger than "+strconv.FormatInt(h.maxBody, 10)+" bytes")
}

// reject answers a request the router refuses before routing it, in its surface's envelope,
// labelled in metrics by its surface rather than by its raw path.
func (h *Handler) reject(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	if s := h.surfaceFor(r.URL.Path); s != nil {
		setRoute(r, s.Prefix+"/{unmatched}")
	}
	h.writeError(w, r, status, code, message)
}
