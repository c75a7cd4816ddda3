// Package rest owns what the service's JSON APIs share: the envelopes of each surface exactly as
// its contract words them (the supply API's data/meta and error/meta, the resolver's flat error
// object, the service host's simple error), the supply API's ResponseMeta and DataFreshness
// types, and JSON writing. Surfaces write every response through here, so a contract's shape is
// defined once and cannot drift between endpoints.
package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"providerdir/internal/logging"
	"providerdir/internal/requestid"
	"providerdir/store"
)

// APIVersion is the supply API's meta.api_version.
const APIVersion = "v1"

// Error codes every surface uses for the failures the router and recovery produce. Surface
// specific codes (invalid_npi, specialty_not_found, ...) belong to the surface packages.
const (
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeInternal         = "internal_error"
	// CodeUnavailable answers a request while the store cannot be reached (503 with Retry-After). It
	// is the resolver's code for it (docs/contracts/resolver-api.md §7); the supply API's contract
	// names no code for a 503, and one code on every JSON surface is simpler for clients than two.
	CodeUnavailable = "source_unavailable"
)

// SetRetryAfter tells the client when to retry a request the store could not serve: after the
// time store/breaker refuses calls before it tries the store again.
func SetRetryAfter(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(store.RetryAfterSeconds))
}

// WriteFailure answers a request that failed on the server side in a surface's envelope (write
// is rest.V1Error, rest.ResolverError, ...). A store that cannot be reached is 503
// source_unavailable with a Retry-After, which clients may retry; anything else is 500
// internal_error quoting the request id. The cause is for the caller to log, never for the
// response.
func WriteFailure(w http.ResponseWriter, r *http.Request, write func(w http.ResponseWriter, r *http.Request, status int, code, message string), err error) {
	if errors.Is(err, store.ErrUnavailable) {
		SetRetryAfter(w)
		write(w, r, http.StatusServiceUnavailable, CodeUnavailable,
			"The data store is unavailable; retry after "+strconv.Itoa(store.RetryAfterSeconds)+" seconds.")
		return
	}
	write(w, r, http.StatusInternalServerError, CodeInternal, "Internal error; quote request id "+requestid.From(r.Context())+" when reporting it.")
}

// WriteJSON writes v as the JSON body of a response with the given status. The body is encoded
// before anything is sent, so an unencodable value becomes a clean 500 instead of a truncated
// 200; that 500 is plain, since an envelope could fail the same way.
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	writeEncoded(w, r, status, "application/json; charset=utf-8", v)
}

// encodeBuffers holds buffers responses are encoded into before they are written (so that an
// encoding error is still a clean 500 and the length is known): a batch answer is a megabyte,
// and a buffer grown to that for each response would be most of what serving it allocates.
// A buffer over maxPooledBuffer is not kept, so one outsized answer does not pin its memory.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuffer = 4 << 20

func writeEncoded(w http.ResponseWriter, r *http.Request, status int, contentType string, v any) {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			encodeBuffers.Put(buf)
		}
	}()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false) // URLs in links keep their '&' readable
	if err := enc.Encode(v); err != nil {
		logging.Logger(r.Context()).Error("encode response", slog.Any("error", err))
		http.Error(w, "internal error; request id "+requestid.From(r.Context()), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// NothingAfter reports whether dec holds nothing but white space after the value it decoded:
// a request body is one JSON value, and a body with more after it (another value, a stray
// bracket) is refused rather than read in part.
func NothingAfter(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err == io.EOF
}
