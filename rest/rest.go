// Package rest owns what the service's JSON APIs share: the envelopes of each surface exactly as
// its contract words them (the supply API's data/meta and error/meta, the resolver's flat error
// object, the service host's simple error), the supply API's ResponseMeta and DataFreshness
// types, and JSON writing. Surfaces write every response through here, so a contract's shape is
// defined once and cannot drift between endpoints.
package rest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"

	"providerdir/logging"
	"providerdir/requestid"
)

// APIVersion is the supply API's meta.api_version.
const APIVersion = "v1"

// Error codes every surface uses for the failures the router and recovery produce. Surface
// specific codes (invalid_npi, specialty_not_found, ...) belong to the surface packages.
const (
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeInternal         = "internal_error"
)

// WriteJSON writes v as the JSON body of a response with the given status. The body is encoded
// before anything is sent, so an unencodable value becomes a clean 500 instead of a truncated
// 200; that 500 is plain, since an envelope could fail the same way.
func WriteJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	writeEncoded(w, r, status, "application/json; charset=utf-8", v)
}

func writeEncoded(w http.ResponseWriter, r *http.Request, status int, contentType string, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
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
