package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gorilla/mux"

	"providerdir/internal/logging"
	"providerdir/internal/safetext"
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
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		rest.APIError(w, r, http.StatusRequestEntityTooLarge, CodeTooLarge, "The form is larger than any valid one.")
		return
	case err != nil:
		rest.APIError(w, r, http.StatusBadRequest, CodeInvalidJSON, "The body could not be read.")
		return
	case !utf8.Valid(raw):
		// encoding/json would quietly replace the bad bytes; a form that cannot be read as sent
		// is refused instead.
		rest.APIError(w, r, http.StatusBadRequest, CodeInvalidJSON, "The body is not UTF-8 text.")
		return
	}
	f, problem := decodeForm(raw)
	if problem != "" {
		rest.APIError(w, r, http.StatusBadRequest, CodeInvalidJSON, problem)
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

// formFields lists the form's fields in the words of an error message.
const formFields = "name, email, organization and intended_use"

// decodeForm reads a body that is exactly one JSON object of the form's fields. What is wrong
// with it comes back as a sentence for the client (problem is "" when the form was read): it
// names the field and the type expected, never the decoder's own wording, which speaks of Go
// types, and repeats at most a bounded part of what was sent.
func decodeForm(raw []byte) (f Form, problem string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&f)
	if err == nil {
		if !rest.NothingAfter(dec) {
			return Form{}, "The body holds more than one JSON value; send one object."
		}
		return f, ""
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return Form{}, "The body is empty; send the form as a JSON object with the fields " + formFields + "."
	case errors.Is(err, io.ErrUnexpectedEOF):
		return Form{}, "The body ends before its JSON object does."
	case errors.As(err, &syntax):
		return Form{}, fmt.Sprintf("The body is not valid JSON (at byte %d).", syntax.Offset)
	case errors.As(err, &typ) && typ.Field != "":
		return Form{}, fmt.Sprintf("The field %s must be a string.", strconv.Quote(safetext.Echo(typ.Field)))
	case errors.As(err, &typ):
		return Form{}, "The body must be a JSON object with the fields " + formFields + "."
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		return Form{}, fmt.Sprintf("The form has no field %s; its fields are %s.", strconv.Quote(safetext.Echo(name)), formFields)
	}
	return Form{}, "The body is not the form's JSON object."
}

func invalidMessage(v ValidationError) string {
	if len(v) == 1 {
		return "The form has an invalid field: " + v[0].Field + "."
	}
	return "The form has invalid fields; see details.fields."
}
