package intake

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"

	"github.com/gorilla/mux"

	"providerdir/logging"
	"providerdir/rest"
)

// PathAccessRequests is the form's path on the service host, relative to /api.
const PathAccessRequests = "/access-requests"

// maxBody bounds a posted form: the fields' limits total under 3 KB of characters, 4 bytes each
// at most, and JSON escaping can double that.
const maxBody = 32 << 10

// Error codes of the form endpoint.
const (
	CodeInvalidJSON      = "invalid_json"
	CodeInvalidRequest   = "invalid_request"
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeTooLarge         = "request_too_large"
)

// Register adds POST /access-requests to the service host's router, behind limit (the gate's
// per-address limiter, gate.LimitIP(gate.AccessRequestPolicy)).
func (s *Service) Register(r *mux.Router, limit func(http.Handler) http.Handler) {
	r.Handle(PathAccessRequests, limit(http.HandlerFunc(s.submit))).Methods(http.MethodPost)
}

// Received is the 201 answer to a stored form.
type Received struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// submit serves POST /api/access-requests: a JSON form (see Form), answered 201 with the
// request id, or 400 with one message per bad field in error.details.fields.
func (s *Service) submit(w http.ResponseWriter, r *http.Request) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		rest.APIError(w, r, http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "Send the form as application/json.")
		return
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	var f Form
	err := dec.Decode(&f)
	if err == nil {
		if extra := dec.Decode(&struct{}{}); !errors.Is(extra, io.EOF) {
			err = errors.New("the body holds more than one JSON object")
		}
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		rest.APIError(w, r, http.StatusRequestEntityTooLarge, CodeTooLarge, "The form is larger than any valid one.")
		return
	case err != nil:
		rest.APIError(w, r, http.StatusBadRequest, CodeInvalidJSON, "The body is not the form's JSON object: "+err.Error())
		return
	}
	req, err := s.Submit(r.Context(), f)
	var invalid ValidationError
	switch {
	case errors.As(err, &invalid):
		rest.WriteAPIError(w, r, http.StatusBadRequest, CodeInvalidRequest, invalidMessage(invalid), map[string]any{"fields": invalid})
		return
	case err != nil:
		logging.Logger(r.Context()).Error("store access request", slog.Any("error", err))
		rest.APIError(w, r, http.StatusInternalServerError, rest.CodeInternal, "Internal error; the request was not stored. Please try again later.")
		return
	}
	logging.Logger(r.Context()).Info("access request received", slog.String("access_request", req.ID))
	rest.WriteJSON(w, r, http.StatusCreated, Received{
		ID:      req.ID,
		Status:  req.Status,
		Message: "Request received. An operator reviews pilot requests within one business day and writes to the address given.",
	})
}

func invalidMessage(v ValidationError) string {
	if len(v) == 1 {
		return "The form has an invalid field: " + v[0].Field + "."
	}
	return "The form has invalid fields; see details.fields."
}
