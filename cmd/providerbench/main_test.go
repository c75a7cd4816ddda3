package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNamePrefix(t *testing.T) {
	tests := []struct{ family, want string }{
		{"CALDMERE", "cal"},
		{"Li", "li"},
		{"ÅSTRÖM", "åst"},
		{"DE LA CRUZ", "de "},
		{"O'NEIL", "o'n"},
	}
	for _, tt := range tests {
		if got := namePrefix(tt.family); got != tt.want {
			t.Errorf("namePrefix(%q) = %q, want %q", tt.family, got, tt.want)
		}
	}
}

// fakeServer answers the discovery search with one practitioner of the given family name, and
// every other path with a body of its own, with the headers a FHIR server sends: the name search
// with its length, the others (longer than net/http buffers) in chunks.
func fakeServer(t *testing.T, family string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RequestURI() == "/fhir/Practitioner?_count=1" {
			fmt.Fprintf(w, `{"entry":[{"resource":{"id":"1234567893","identifier":[{"system":"http://hl7.org/fhir/sid/us-npi","value":"1234567893"}],"name":[{"family":%q}]}}]}`, family)
			return
		}
		body := "body of " + r.URL.RequestURI() + strings.Repeat(".", 3000)
		w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
		w.Header().Set("ETag", `W/"e"`)
		w.Header().Set("X-Request-ID", "r1")
		if r.URL.Path == "/fhir/Practitioner" {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCeilingReplays: each scenario's path finds data, and the ceiling answers it with the
// server's bytes, headers and framing.
func TestCeilingReplays(t *testing.T) {
	srv := fakeServer(t, "De La Cruz")
	c := srv.Client()
	scenarios, err := discover(c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := scenarios[3].path; got != "/fhir/Practitioner?name=de+" {
		t.Errorf("name search %q", got)
	}
	ceil, err := startCeiling(c, srv.URL, scenarios)
	if err != nil {
		t.Fatal(err)
	}
	defer ceil.Close()
	for _, sc := range scenarios {
		want, got := fetch(t, c, srv.URL+sc.path), fetch(t, c, ceil.URL+sc.path)
		if got.body != want.body || !equalHeaders(got.header, want.header) || got.length != want.length || got.chunked != want.chunked {
			t.Errorf("%s: ceiling answered %+v, server %+v", sc.name, got, want)
		}
	}
}

type answer struct {
	body    string
	header  http.Header
	length  int64
	chunked bool
}

func fetch(t *testing.T, c *http.Client, u string) answer {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", u, resp.StatusCode, err)
	}
	return answer{string(b), resp.Header, resp.ContentLength, slices.Contains(resp.TransferEncoding, "chunked")}
}

func equalHeaders(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if k != "Date" && strings.Join(v, "\n") != strings.Join(b[k], "\n") {
			return false
		}
	}
	return true
}

func TestSpread(t *testing.T) {
	tl := func(ok int64) tally { return tally{ok: ok, elapsed: time.Second} }
	tests := []struct {
		name      string
		srv, ceil []tally
		lo, hi    float64
	}{
		{"one round", []tally{tl(50)}, []tally{tl(100)}, 0.5, 0.5},
		{"rounds", []tally{tl(50), tl(30), tl(80)}, []tally{tl(100), tl(100), tl(100)}, 0.3, 0.8},
	}
	for _, tt := range tests {
		if lo, hi := spread(tt.srv, tt.ceil); lo != tt.lo || hi != tt.hi {
			t.Errorf("%s: spread = %v–%v, want %v–%v", tt.name, lo, hi, tt.lo, tt.hi)
		}
	}
	if s := sum([]tally{{ok: 3, failed: 1, elapsed: time.Second}, {ok: 5, elapsed: time.Second}}); s.rate() != 4 || s.failed != 1 {
		t.Errorf("sum = %+v, rate %v", s, s.rate())
	}
}
