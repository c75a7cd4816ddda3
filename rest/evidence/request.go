package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"providerdir/internal/safetext"
)

// Bounds of a request (seeds/000 section 8).
const (
	MaxQueryChars           = 1500
	MinEvidenceItems        = 1
	MaxEvidenceItems        = 20
	DefaultMaxEvidenceItems = 10
)

// Error codes of a request the endpoint cannot read. seeds/000 gives the evidence query's 400
// without codes; these name each reason.
const (
	CodeInvalidJSON      = "invalid_json"
	CodeMissingQuery     = "missing_query"
	CodeInvalidQuery     = "invalid_query"
	CodeInvalidOption    = "invalid_max_evidence_items"
	CodeUnsupportedMedia = "unsupported_media_type"
)

// Request is the body of POST /v1/evidence-query.
type Request struct {
	Query   *string  `json:"query"`
	Options *Options `json:"options"`
}

// Options are the request's options.
type Options struct {
	// MaxEvidenceItems is kept raw, so that a null (which json would read as absent), a string or
	// a fraction are each refused rather than read as something else.
	MaxEvidenceItems json.RawMessage `json:"max_evidence_items"`
}

// badRequest is why a body was refused: the status, the code and a sentence for the client.
type badRequest struct {
	status  int
	code    string
	message string
}

// query is a request as read: the question and how many evidence items to return at most.
type query struct {
	text     string
	maxItems int
}

// readRequest reads and checks a body: one JSON object of the fields above, with no others (the
// description's additionalProperties is false), a query of 1 to 1,500 characters, not blank, and
// max_evidence_items an integer from 1 to 20. The server has already bounded the body's size.
func readRequest(r *http.Request) (query, *badRequest) {
	bad := func(code, msg string) (query, *badRequest) {
		return query{}, &badRequest{http.StatusBadRequest, code, msg}
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return query{}, &badRequest{http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "Send the body as application/json."}
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return bad(CodeInvalidJSON, "The body could not be read.")
	}
	if !utf8.Valid(raw) {
		return bad(CodeInvalidJSON, "The body is not UTF-8 text.")
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return bad(CodeInvalidJSON, decodeProblem(err))
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return bad(CodeInvalidJSON, "The body holds more than one JSON value; send one object.")
	}
	if req.Query == nil {
		return bad(CodeMissingQuery, `The body has no "query": send {"query": "<a question of 1 to 1500 characters>"}.`)
	}
	if strings.TrimSpace(*req.Query) == "" {
		return bad(CodeInvalidQuery, "The query is empty.")
	}
	if n := utf8.RuneCountInString(*req.Query); n > MaxQueryChars {
		return bad(CodeInvalidQuery, fmt.Sprintf("The query has %d characters; at most %d are accepted.", n, MaxQueryChars))
	}
	q := query{text: *req.Query, maxItems: DefaultMaxEvidenceItems}
	if req.Options != nil && req.Options.MaxEvidenceItems != nil {
		// A JSON integer token: strings, fractions, exponents and null are refused.
		raw := string(req.Options.MaxEvidenceItems)
		v, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || v < MinEvidenceItems || v > MaxEvidenceItems {
			return bad(CodeInvalidOption, fmt.Sprintf("options.max_evidence_items is %s; it must be an integer from %d to %d.",
				safetext.Echo(raw), MinEvidenceItems, MaxEvidenceItems))
		}
		q.maxItems = int(v)
	}
	return q, nil
}

// decodeProblem says what is wrong with a body in the client's terms, never in the decoder's
// (which speaks of Go types), repeating at most a bounded part of what was sent.
func decodeProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return `The body is empty; send {"query": "..."}.`
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "The body ends before its JSON object does."
	case errors.As(err, &syntax):
		return fmt.Sprintf("The body is not valid JSON (at byte %d).", syntax.Offset)
	case errors.As(err, &typ) && typ.Field == "query":
		return "The field query must be a string."
	case errors.As(err, &typ) && typ.Field == "options":
		return "The field options must be an object."
	case errors.As(err, &typ):
		return `The body must be a JSON object {"query": "...", "options": {"max_evidence_items": 10}}.`
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		return fmt.Sprintf("The body has no field %s; its fields are query and options.max_evidence_items.", strconv.Quote(safetext.Echo(name)))
	}
	return "The body is not a JSON object of the evidence query."
}
