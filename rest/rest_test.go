package rest

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"providerdir/internal/requestid"
)

func request(id string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/x", nil)
	return r.WithContext(requestid.With(context.Background(), id))
}

func TestEnvelopes(t *testing.T) {
	tests := []struct {
		name  string
		write func(w http.ResponseWriter, r *http.Request)
		code  int
		want  string
	}{
		{"v1 error", func(w http.ResponseWriter, r *http.Request) {
			V1Error(w, r, 500, CodeInternal, "boom")
		}, 500, `{"error":{"code":"internal_error","message":"boom"},"meta":{"request_id":"r1","api_version":"v1"}}`},
		{"v1 error with details", func(w http.ResponseWriter, r *http.Request) {
			WriteV1Error(w, r, 400, "invalid_subspecialty", "not registered", map[string]any{"supported": []string{"207N00000X"}})
		}, 400, `{"error":{"code":"invalid_subspecialty","message":"not registered","details":{"supported":["207N00000X"]}},"meta":{"request_id":"r1","api_version":"v1"}}`},
		{"resolver error", func(w http.ResponseWriter, r *http.Request) {
			ResolverError(w, r, 404, CodeNotFound, "no such NPI")
		}, 404, `{"error":{"code":"not_found","message":"no such NPI","request_id":"r1"}}`},
		{"service host error", func(w http.ResponseWriter, r *http.Request) {
			APIError(w, r, 404, CodeNotFound, "x")
		}, 404, `{"error":{"code":"not_found","message":"x","request_id":"r1"}}`},
		{"service host error with details", func(w http.ResponseWriter, r *http.Request) {
			WriteAPIError(w, r, 400, "invalid_request", "bad form", map[string]any{"fields": []string{"email"}})
		}, 400, `{"error":{"code":"invalid_request","message":"bad form","request_id":"r1","details":{"fields":["email"]}}}`},
		{"v1 success, empty freshness is an array, links unescaped", func(w http.ResponseWriter, r *http.Request) {
			WriteV1(w, r, 200, map[string]int{"n": 1}, NewV1Meta(r, nil, "https://x.org/a?b=1&c=2", "https://x.org/docs/limitations"))
		}, 200, `{"data":{"n":1},"meta":{"request_id":"r1","api_version":"v1","data_freshness":[],"methodology_url":"https://x.org/a?b=1&c=2","limitations_url":"https://x.org/docs/limitations"}}`},
		{"v1 success around encoded data is the same envelope", func(w http.ResponseWriter, r *http.Request) {
			WriteV1Encoded(w, r, 200, []byte(`[{"n":1},{"n":2}]`), NewV1Meta(r, nil, "https://x.org/a?b=1&c=2", "https://x.org/docs/limitations"))
		}, 200, `{"data":[{"n":1},{"n":2}],"meta":{"request_id":"r1","api_version":"v1","data_freshness":[],"methodology_url":"https://x.org/a?b=1&c=2","limitations_url":"https://x.org/docs/limitations"}}`},
		{"unencodable value is a plain 500", func(w http.ResponseWriter, r *http.Request) {
			WriteJSON(w, r, 200, math.NaN())
		}, 500, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			tt.write(rec, request("r1"))
			if rec.Code != tt.code {
				t.Fatalf("status %d, want %d", rec.Code, tt.code)
			}
			if tt.want == "" {
				return
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if got := rec.Body.String(); got != tt.want+"\n" {
				t.Errorf("body\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestFreshness(t *testing.T) {
	last := time.Date(2025, 1, 31, 13, 4, 5, 999, time.FixedZone("EST", -5*3600))
	tests := []struct {
		cadence string
		want    string // "" for null
	}{
		{"daily", "2025-02-01T18:04:05Z"},
		{"weekly", "2025-02-07T18:04:05Z"},
		{"monthly", "2025-02-28T18:04:05Z"}, // no Feb 31: the month's last day
		{"quarterly", "2025-04-30T18:04:05Z"},
		{"semiannual", "2025-07-31T18:04:05Z"},
		{"annual", "2026-01-31T18:04:05Z"},
		{"", ""},
		{"irregular", ""},
	}
	for _, tt := range tests {
		f := Freshness("NPPES", last, tt.cadence)
		if f.LastRefreshed != "2025-01-31T18:04:05Z" {
			t.Errorf("last_refreshed %q: want UTC whole seconds", f.LastRefreshed)
		}
		got := ""
		if f.NextRefreshETA != nil {
			got = *f.NextRefreshETA
		}
		if got != tt.want {
			t.Errorf("%q: next_refresh_eta %q, want %q", tt.cadence, got, tt.want)
		}
		b, _ := json.Marshal(f)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		if _, present := m["next_refresh_eta"]; !present {
			t.Errorf("%q: next_refresh_eta missing, want null or a time", tt.cadence)
		}
	}
	leap := time.Date(2023, 11, 30, 0, 0, 0, 0, time.UTC)
	if got, _ := NextRefresh(leap, "quarterly"); !got.Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Nov 30 + a quarter = %s, want 2024-02-29", got)
	}
	if _, ok := NextRefresh(time.Time{}, "monthly"); ok {
		t.Error("a zero time has no next refresh")
	}
}

// discardWriter is a ResponseWriter that keeps nothing, so that allocations counted around
// WriteJSON are its own.
type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header       { return d.h }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

// WriteJSON encodes into a reused buffer: answering a megabyte allocates well under half of it
// per answer (a pooled buffer is lost only to a collection), where a buffer of its own would be
// the whole megabyte each time.
func TestWriteJSONReusesBuffers(t *testing.T) {
	r := request("req-1")
	w := discardWriter{h: http.Header{}}
	v := make([]string, 50_000)
	for i := range v {
		v[i] = "provider-record-text"
	}
	const runs = 20
	WriteJSON(w, r, http.StatusOK, v)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		WriteJSON(w, r, http.StatusOK, v)
	}
	runtime.ReadMemStats(&after)
	if perAnswer := (after.TotalAlloc - before.TotalAlloc) / runs; perAnswer > 550<<10 {
		t.Errorf("a 1.1 MB answer allocated %d bytes", perAnswer)
	}
}

func TestNothingAfter(t *testing.T) {
	for _, tt := range []struct {
		body string
		want bool
	}{
		{`{"a":1}`, true}, {"{\"a\":1} \r\n\t", true},
		{`{"a":1} {}`, false}, {`{"a":1} ]`, false}, {`{"a":1}}`, false}, {`{"a":1} x`, false}, {`{"a":1} 2`, false},
	} {
		dec := json.NewDecoder(strings.NewReader(tt.body))
		var v map[string]any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", tt.body, err)
		}
		if got := NothingAfter(dec); got != tt.want {
			t.Errorf("NothingAfter(%q) = %v, want %v", tt.body, got, tt.want)
		}
	}
}
