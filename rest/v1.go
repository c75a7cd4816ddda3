package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"providerdir/internal/requestid"
)

// V1Response is the supply API's success envelope.
type V1Response struct {
	Data any    `json:"data"`
	Meta V1Meta `json:"meta"`
}

// V1Meta is the supply API's ResponseMeta. DataFreshness is always an array (the contract allows
// one object or an array; one shape is simpler for clients) with one entry per source family.
type V1Meta struct {
	RequestID          string          `json:"request_id"`
	APIVersion         string          `json:"api_version"`
	DataFreshness      []DataFreshness `json:"data_freshness"`
	MethodologyURL     string          `json:"methodology_url"`
	LimitationsURL     string          `json:"limitations_url"`
	DocumentationURL   string          `json:"documentation_url,omitempty"`
	GeoScopeNote       string          `json:"geo_scope_note,omitempty"`
	Pagination         *Pagination     `json:"pagination,omitempty"`
	SubspecialtyFilter any             `json:"subspecialty_filter,omitempty"`
}

// Pagination is ResponseMeta.pagination.
type Pagination struct {
	Total   int64 `json:"total"`
	Page    int   `json:"page"`
	PerPage int   `json:"per_page"`
}

// DataFreshness says when one source family was last refreshed and when the next refresh is due.
type DataFreshness struct {
	Source        string `json:"source"`
	LastRefreshed string `json:"last_refreshed"`
	// NextRefreshETA is null when the cadence is unknown.
	NextRefreshETA *string `json:"next_refresh_eta"`
	Cadence        string  `json:"cadence,omitempty"`
}

// Timestamp formats a time as the API writes every date-time: RFC 3339 in UTC, whole seconds.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// NextRefresh estimates when a source refreshed at last is refreshed next: one publisher cycle
// later. It reports false for a cadence it does not know (or a zero time), which the API writes
// as a null next_refresh_eta rather than a guess. A month step keeps the day of the month where
// it exists and otherwise takes the month's last day (Jan 31 + 1 month = Feb 28), as a person
// reading a schedule would.
func NextRefresh(last time.Time, cadence string) (time.Time, bool) {
	if last.IsZero() {
		return time.Time{}, false
	}
	last = last.UTC()
	switch cadence {
	case "daily":
		return last.AddDate(0, 0, 1), true
	case "weekly":
		return last.AddDate(0, 0, 7), true
	case "monthly":
		return addMonths(last, 1), true
	case "quarterly":
		return addMonths(last, 3), true
	case "semiannual":
		return addMonths(last, 6), true
	case "annual":
		return addMonths(last, 12), true
	}
	return time.Time{}, false
}

func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	if last := first.AddDate(0, 1, -1).Day(); d > last {
		d = last
	}
	return first.AddDate(0, 0, d-1)
}

// Freshness builds one DataFreshness entry.
func Freshness(source string, last time.Time, cadence string) DataFreshness {
	f := DataFreshness{Source: source, LastRefreshed: Timestamp(last), Cadence: cadence}
	if next, ok := NextRefresh(last, cadence); ok {
		s := Timestamp(next)
		f.NextRefreshETA = &s
	}
	return f
}

// NewV1Meta returns a meta block for the request in r with the fields every response carries.
// A nil freshness becomes an empty array: the field is required.
func NewV1Meta(r *http.Request, freshness []DataFreshness, methodologyURL, limitationsURL string) V1Meta {
	if freshness == nil {
		freshness = []DataFreshness{}
	}
	return V1Meta{
		RequestID:      requestid.From(r.Context()),
		APIVersion:     APIVersion,
		DataFreshness:  freshness,
		MethodologyURL: methodologyURL,
		LimitationsURL: limitationsURL,
	}
}

// WriteV1 writes a supply API success envelope.
func WriteV1(w http.ResponseWriter, r *http.Request, status int, data any, meta V1Meta) {
	WriteJSON(w, r, status, V1Response{Data: data, Meta: meta})
}

// WriteV1Encoded writes a supply API success envelope whose data is already encoded JSON, for
// large payloads that are the same for many requests (a study's 51 rows with their provenance):
// the envelope is assembled around the bytes instead of re-encoding them, which encoding/json
// would do even for a json.RawMessage. data must be valid JSON; the caller encoded it.
func WriteV1Encoded(w http.ResponseWriter, r *http.Request, status int, data []byte, meta V1Meta) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(meta); err != nil {
		WriteJSON(w, r, status, V1Response{Data: json.RawMessage(data), Meta: meta}) // reports the failure
		return
	}
	metaJSON := bytes.TrimRight(buf.Bytes(), "\n")
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(`{"data":`)+len(data)+len(`,"meta":`)+len(metaJSON)+len("}\n")))
	w.WriteHeader(status)
	for _, part := range [][]byte{[]byte(`{"data":`), data, []byte(`,"meta":`), metaJSON, []byte("}\n")} {
		if _, err := w.Write(part); err != nil {
			return
		}
	}
}

// V1ErrorBody is the supply API's error envelope: an error object and a short meta.
type V1ErrorBody struct {
	Error V1ErrorDetail `json:"error"`
	Meta  V1ErrorMeta   `json:"meta"`
}

// V1ErrorDetail is the error object of V1ErrorBody.
type V1ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

// V1ErrorMeta is the meta of V1ErrorBody.
type V1ErrorMeta struct {
	RequestID  string `json:"request_id"`
	APIVersion string `json:"api_version"`
}

// WriteV1Error writes a supply API error with optional details (for example the supported codes
// of an invalid_subspecialty).
func WriteV1Error(w http.ResponseWriter, r *http.Request, status int, code, message string, details any) {
	WriteJSON(w, r, status, V1ErrorBody{
		Error: V1ErrorDetail{Code: code, Message: message, Details: details},
		Meta:  V1ErrorMeta{RequestID: requestid.From(r.Context()), APIVersion: APIVersion},
	})
}

// V1Error writes a supply API error without details. Its signature is the router's error writer.
func V1Error(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	WriteV1Error(w, r, status, code, message, nil)
}

// Paths of the public pages the JSON APIs link to from meta. The web surface serves them; they
// are here so that the links and the pages cannot disagree.
const (
	PathMethodologyPage = "/docs/methodology"
	PathLimitationsPage = "/docs/limitations"
)
