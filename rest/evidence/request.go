package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"providerdir/internal/safetext"
	"providerdir/rest"
)

// Bounds of a request (docs/contracts/supply-api.md §8).
const (
	MaxQueryChars           = 1500
	MinEvidenceItems        = 1
	MaxEvidenceItems        = 20
	DefaultMaxEvidenceItems = 10
)

// Error codes of a request the endpoint cannot read. docs/contracts/supply-api.md gives the
// evidence query's 400 without codes; these name each reason.
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
	if k, found := checkKeys(raw); found {
		return bad(CodeInvalidJSON, fmt.Sprintf("The body has the field %s twice or spelled otherwise than query and options.max_evidence_items.",
			strconv.Quote(safetext.Echo(k))))
	}
	var req Request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return bad(CodeInvalidJSON, decodeProblem(err))
	}
	if !rest.NothingAfter(dec) {
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
				safetext.EchoEscaped(raw), MinEvidenceItems, MaxEvidenceItems))
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

// fieldNames are the exact names of the body's fields, by the object they belong to ("" the
// body itself).
var fieldNames = map[string][]string{"": {"query", "options"}, "options": {"max_evidence_items"}}

// checkKeys finds a key the decoder would read loosely: one named twice in an object (parsers
// disagree on which value counts; encoding/json takes the last that fits), or one not spelled
// exactly as the field (encoding/json matches "QUERY" to query). Such a body is refused rather
// than read one way here and another way elsewhere. It returns the offending key, or "" (a body
// that is not JSON is left to the decoder to refuse).
func checkKeys(raw []byte) (string, bool) {
	type frame struct {
		name   string // the key this object is the value of
		keys   map[string]bool
		object bool
		key    bool // the next string token of an object is a key
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var stack []*frame
	last := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		if k, isString := tok.(string); isString && len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].key {
			n, top := len(stack), stack[len(stack)-1]
			if names, known := fieldNames[top.name]; top.keys[k] || known && n <= 2 && !slices.Contains(names, k) {
				return k, true
			}
			top.keys[k], top.key, last = true, false, k
			continue
		}
		switch tok {
		case json.Delim('{'):
			name := "-" // an object inside an array, or the value of a field that takes none
			if len(stack) == 0 {
				name = ""
			} else if stack[len(stack)-1].object {
				name = last
			}
			stack = append(stack, &frame{name: name, keys: map[string]bool{}, object: true, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: in an object, a key comes next.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].key = true
		}
	}
}
