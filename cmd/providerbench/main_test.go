package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"providerdir/smart"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/vgimg"
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

func TestParseRates(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		ok   bool
	}{
		{"1000", []int{1000}, true},
		{"500, 1000,2000", []int{500, 1000, 2000}, true},
		{"", nil, false},
		{"500,0", nil, false},
		{"500,-1", nil, false},
		{"fast", nil, false},
	}
	for _, tt := range tests {
		got, err := parseRates(tt.in)
		if (err == nil) != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("parseRates(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestReadKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name, path string
		want       []string
		fails      bool
	}{
		{"no file", "", nil, false},
		{"keys a line", write("keys", "pdsupply_a\npdsupply_b\n"), []string{"pdsupply_a", "pdsupply_b"}, false},
		{"blank lines and CRLF", write("crlf", "\r\npdlive_a\r\n\r\npdlive_b"), []string{"pdlive_a", "pdlive_b"}, false},
		{"empty file", write("empty", "\n\n"), nil, true},
		{"missing file", filepath.Join(dir, "missing"), nil, true},
	} {
		got, err := readKeys(tt.path)
		if (err != nil) != tt.fails || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, %v", tt.name, got, err)
		}
	}
}

// TestOpenLoopRounds: the server's and the ceiling's rounds alternate, each side's requests are
// numbered on from round to round (warm-ups included), so that one-time credentials prepared
// for a run are never sent twice to the server, and the row keeps every round of both sides.
func TestOpenLoopRounds(t *testing.T) {
	type hit struct {
		side string
		n    int
	}
	var mu sync.Mutex
	var hits []hit
	recorder := func(side string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			n, _ := strconv.Atoi(string(b))
			mu.Lock()
			hits = append(hits, hit{side, n})
			mu.Unlock()
		}))
	}
	srv, ceil := recorder("server"), recorder("ceiling")
	defer srv.Close()
	defer ceil.Close()
	prepared := 0
	sc := scenario{name: "numbered", method: http.MethodPost, path: "/", body: func(i int) string { return strconv.Itoa(i) },
		prepare: func(n int) error { prepared = n; return nil }}
	o := options{rates: []int{100}, warmup: 100 * time.Millisecond, duration: 400 * time.Millisecond, inflight: 64, rounds: 2}
	rows, err := openLoop(srv.Client(), srv.URL, ceil.URL, []scenario{sc}, o)
	if err != nil {
		t.Fatal(err)
	}
	// Each round: 10 warm-up and 20 measured requests a side.
	if len(rows) != 1 || len(rows[0].server) != 2 || len(rows[0].ceiling) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	for i, r := range append(rows[0].server, rows[0].ceiling...) {
		if len(r.latencies) != 20 || r.errors != 0 {
			t.Errorf("run %d: %d answers, %d errors; want 20, 0", i, len(r.latencies), r.errors)
		}
	}
	if prepared != 60 {
		t.Errorf("prepared %d requests, want 60 (two rounds of 30)", prepared)
	}
	seen := map[string]map[int]int{"server": {}, "ceiling": {}}
	var order []string
	for _, h := range hits {
		seen[h.side][h.n]++
		if len(order) == 0 || order[len(order)-1] != h.side {
			order = append(order, h.side)
		}
	}
	for side, numbers := range seen {
		if len(numbers) != 60 {
			t.Errorf("%s: %d distinct request numbers, want 60", side, len(numbers))
		}
		for n, times := range numbers {
			if n < 0 || n >= 60 || times != 1 {
				t.Errorf("%s: request %d sent %d times", side, n, times)
			}
		}
	}
	if want := []string{"server", "ceiling", "server", "ceiling"}; !slices.Equal(order, want) {
		t.Errorf("sides in turn %v, want %v", order, want)
	}
}

// TestRounds: a row's latencies are the medians of its rounds', its throughput that of all the
// rounds together; the spread is of the rounds' own p99 ratios.
// The token cost run alternates the same path without the token and with it, fetches the token
// before each token round, and never sends one request number twice.
func TestTokenCost(t *testing.T) {
	var mu sync.Mutex
	var turns []string
	numbers := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/fhir/Practitioner/1" {
			http.NotFound(w, r)
			return
		}
		side := "plain"
		if r.Header.Get("Authorization") != "" {
			side = "token"
		}
		mu.Lock()
		defer mu.Unlock()
		if len(turns) == 0 || turns[len(turns)-1] != side {
			turns = append(turns, side)
		}
		if side == "token" {
			numbers[r.Header.Get("X-Forwarded-For")]++
		}
	}))
	defer srv.Close()
	fetched := 0
	token := get(tokenReadName, "/fhir/Practitioner/1")
	token.header = func(i int) http.Header {
		return http.Header{"Authorization": {"Bearer t"}, "X-Forwarded-For": {strconv.Itoa(i)}}
	}
	token.prepare = func(int) error { fetched++; return nil }
	pair, ok := tokenPair([]scenario{get("read Practitioner by id", "/fhir/Practitioner/2"), token})
	if !ok || pair[0].path != token.path || pair[0].header != nil {
		t.Fatalf("pair %+v, %v: want the token read's path without its header", pair, ok)
	}
	o := options{duration: 300 * time.Millisecond, rounds: 2, tokenClients: 4}
	line, err := tokenCost(srv.Client(), srv.URL, pair, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(line, "The read by id with a SMART token against the same read without one, 4 closed-loop clients each, 2 rounds of 100ms a side: ") {
		t.Errorf("line %q", line)
	}
	if !strings.Contains(line, ": with each client address reading 100 times, ") || !strings.Contains(line, "; with a new client address for every read, ") {
		t.Errorf("line %q: want both runs", line)
	}
	if want := slices.Repeat([]string{"plain", "token"}, 4); !slices.Equal(turns, want) {
		t.Errorf("turns %v, want %v", turns, want)
	}
	if fetched != 4 {
		t.Errorf("token fetched %d times, want once a round of each run", fetched)
	}
	reusedMost := 0
	for n, times := range numbers {
		address, _ := strconv.Atoi(n)
		switch {
		case address < reusedAddresses && times != 1:
			t.Errorf("address %s of the run with one per read sent %d reads", n, times)
		case address >= reusedAddresses && times > addressReuse:
			t.Errorf("address %s sent %d reads, more than %d", n, times, addressReuse)
		}
		if address >= reusedAddresses {
			reusedMost = max(reusedMost, times)
		}
	}
	if reusedMost < 2 {
		t.Errorf("no address of the first run was reused (at most %d reads)", reusedMost)
	}
	if _, ok := tokenPair([]scenario{get("read Practitioner by id", "/fhir/Practitioner/2")}); ok {
		t.Error("a pair without the token read")
	}
	// A failing side is an error, not a ratio.
	token.path = "/missing"
	if _, err := tokenCost(srv.Client(), srv.URL, [2]scenario{get("plain", "/missing"), token}, o); err == nil {
		t.Error("no error from reads that all failed")
	}
}

// answered is a round of answers answers in one second, one of them taking p99 and the rest 1 ms.
func answered(p99 time.Duration, answers int, errors int64) result {
	l := make([]time.Duration, answers)
	for i := range l {
		l[i] = time.Millisecond
	}
	l[len(l)-1] = p99
	return result{latencies: l, errors: errors, elapsed: time.Second}
}

func TestRounds(t *testing.T) {
	tests := []struct {
		name   string
		rs     rounds
		p99    time.Duration
		rate   float64
		errors int64
	}{
		{"none", nil, 0, 0, 0},
		{"one", rounds{answered(5*time.Millisecond, 10, 1)}, 5 * time.Millisecond, 10, 1},
		{"odd: the middle", rounds{answered(9*time.Millisecond, 10, 0), answered(2*time.Millisecond, 20, 2), answered(4*time.Millisecond, 30, 0)}, 4 * time.Millisecond, 20, 2},
		{"even: the middle two's mean", rounds{answered(2*time.Millisecond, 10, 0), answered(8*time.Millisecond, 10, 0), answered(4*time.Millisecond, 10, 0), answered(30*time.Millisecond, 10, 0)}, 6 * time.Millisecond, 10, 0},
	}
	for _, tt := range tests {
		if got := tt.rs.quantile(0.99); got != tt.p99 {
			t.Errorf("%s: p99 %v, want %v", tt.name, got, tt.p99)
		}
		if got := tt.rs.throughput(); got != tt.rate {
			t.Errorf("%s: throughput %v, want %v", tt.name, got, tt.rate)
		}
		if got := tt.rs.errors(); got != tt.errors {
			t.Errorf("%s: errors %d, want %d", tt.name, got, tt.errors)
		}
	}
	r := row{server: rounds{answered(4*time.Millisecond, 10, 0), answered(9*time.Millisecond, 10, 0)},
		ceiling: rounds{answered(2*time.Millisecond, 10, 0), answered(3*time.Millisecond, 10, 0)}}
	if lo, hi := r.p99Spread(); lo != 2 || hi != 3 {
		t.Errorf("p99 spread %v–%v, want 2–3", lo, hi)
	}
}

// TestTargetVerdict: a row meets its target only when every part of it holds, and says by how
// much each part that does not falls short.
func TestTargetVerdict(t *testing.T) {
	side := func(p99 time.Duration, answers int, errors int64) rounds {
		return rounds{answered(p99, answers, errors)}
	}
	search := latencyTarget(100, 5*time.Millisecond, 0.4) // up to 2.5 times the ceiling's p99
	tests := []struct {
		name         string
		t            *target
		server, ceil rounds
		want         string
	}{
		{"no target", nil, side(time.Millisecond, 100, 0), side(time.Millisecond, 100, 0), ""},
		{"met", search, side(4*time.Millisecond, 100, 0), side(2*time.Millisecond, 100, 0),
			"met: 100 req/s sustained, p99 ≤ 5 ms and ≤ 2.50× the ceiling's"},
		{"at both bounds", search, side(5*time.Millisecond, 99, 0), side(2*time.Millisecond, 100, 0),
			"met: 100 req/s sustained, p99 ≤ 5 ms and ≤ 2.50× the ceiling's"},
		{"p99 over", search, side(7*time.Millisecond, 100, 0), side(3*time.Millisecond, 100, 0),
			"short: p99 7.00 ms, 2.00 ms over 5 ms"},
		{"too far over the ceiling", search, side(4*time.Millisecond, 100, 0), side(time.Millisecond, 100, 0),
			"short: 4.00× the ceiling's p99, over 2.50"},
		{"errors and a slow rate", search, side(4*time.Millisecond, 90, 3), side(2*time.Millisecond, 100, 0),
			"short: 3 errors; 90 req/s achieved, 10 under 100"},
		{"a rate alone", &target{rate: 100}, side(40*time.Millisecond, 100, 0), side(time.Millisecond, 100, 0),
			"met: 100 req/s sustained"},
		{"a rate alone, not sustained", &target{rate: 100}, side(time.Millisecond, 50, 0), side(time.Millisecond, 100, 0),
			"short: 50 req/s achieved, 50 under 100"},
	}
	for _, tt := range tests {
		r := row{rate: 100, server: tt.server, ceiling: tt.ceil, target: tt.t}
		if got := tt.t.verdict(r); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		if cells := r.cells(); cells[len(cells)-1] != tt.want {
			t.Errorf("%s: the row's last cell %q, want the verdict", tt.name, cells[len(cells)-1])
		}
	}
	for _, tt := range []struct {
		share float64
		want  string
	}{
		{0.87, "Target, 0.8 of it with each address reading 100 times: met."},
		{0.8, "Target, 0.8 of it with each address reading 100 times: met."},
		{0.75, "Target, 0.8 of it with each address reading 100 times: short by 0.05."},
	} {
		if got := tokenVerdict(tt.share); got != tt.want {
			t.Errorf("token read at %.2f: %q, want %q", tt.share, got, tt.want)
		}
	}
}

// writeECKey writes a new P-384 private JWK to a file of its own and returns the file and key.
func writeECKey(t *testing.T) (string, jwk.Key) {
	t.Helper()
	raw, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := jwk.Import(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := key.Set(jwk.KeyIDKey, "k1"); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(key)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "client.jwk")
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return file, key
}

// TestTokenScenario: each request carries an assertion signed for the client and the token URL,
// none repeated within a prepared run, and a client address of its own.
func TestTokenScenario(t *testing.T) {
	file, key := writeECKey(t)
	const tokenURL = "http://127.0.0.1:1/fhir/token"
	sc, err := tokenScenario(file, "client-1", tokenURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.prepare(3); err != nil {
		t.Fatal(err)
	}
	pub, err := key.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	jtis, addrs := map[string]bool{}, map[string]bool{}
	for i := range 3 {
		req := sc.request(context.Background(), "http://127.0.0.1:1", i)
		if req.Method != http.MethodPost || req.URL.String() != tokenURL || req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Fatalf("request %d: %s %s %v", i, req.Method, req.URL, req.Header)
		}
		if err := req.ParseForm(); err != nil {
			t.Fatal(err)
		}
		if req.PostForm.Get("grant_type") != smart.GrantClientCredentials || req.PostForm.Get("client_assertion_type") != smart.AssertionTypeJWTBearer {
			t.Errorf("request %d: form %v", i, req.PostForm)
		}
		tok, err := jwt.Parse([]byte(req.PostForm.Get("client_assertion")), jwt.WithKey(jwa.ES384(), pub), jwt.WithAudience(tokenURL), jwt.WithIssuer("client-1"))
		if err != nil {
			t.Fatalf("request %d: assertion: %v", i, err)
		}
		jti, _ := tok.JwtID()
		jtis[jti] = true
		addrs[req.Header.Get("X-Forwarded-For")] = true
	}
	if len(jtis) != 3 || len(addrs) != 3 {
		t.Errorf("%d distinct assertions and %d addresses over 3 requests", len(jtis), len(addrs))
	}
	if _, err := tokenScenario(filepath.Join(t.TempDir(), "missing.jwk"), "c", tokenURL); err == nil {
		t.Error("a missing key file was accepted")
	}
	if rate, err := verifyCeiling(key, 50*time.Millisecond); err != nil || rate <= 0 {
		t.Errorf("verifyCeiling: %v, %v", rate, err)
	}
}

// TestTokenReadScenario: the read with a token gets a token of the client at the token endpoint,
// reads a Practitioner the token finds, and sends the token with an address of its own on every
// request; prepare gets a fresh token.
func TestTokenReadScenario(t *testing.T) {
	file, _ := writeECKey(t)
	tokens := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/fhir/token" && r.Method == http.MethodPost:
			tokens++
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"access_token":"t%d","token_type":"bearer","expires_in":300,"scope":"system/*.read"}`, tokens)
		case r.URL.Path == "/fhir/Practitioner" && r.Header.Get("Authorization") == "Bearer t1":
			_, _ = io.WriteString(w, `{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Practitioner","id":"1234567893"}}]}`)
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	sc, err := tokenReadScenario(srv.Client(), file, "client-1", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if sc.path != "/fhir/Practitioner/1234567893" || !sc.metered {
		t.Fatalf("scenario %+v", sc)
	}
	if err := sc.prepare(2); err != nil {
		t.Fatal(err)
	}
	a, b := sc.request(context.Background(), srv.URL, 0), sc.request(context.Background(), srv.URL, 1)
	if a.Header.Get("Authorization") != "Bearer t2" || a.Header.Get("X-Forwarded-For") == b.Header.Get("X-Forwarded-For") {
		t.Errorf("requests %v and %v", a.Header, b.Header)
	}
}

// TestSupplyScenario: the by-state path is that of the first listed specialty, and the keys are
// used in turn.
func TestSupplyScenario(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = io.WriteString(w, `{"data":[{"slug":"cardiology"},{"slug":"oncology"}],"meta":{}}`)
	}))
	defer srv.Close()
	sc, err := supplyScenario(srv.Client(), srv.URL, []string{"k1", "k2"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.path != "/v1/specialties/cardiology/by-state" || !sc.metered {
		t.Errorf("scenario %+v", sc)
	}
	for i, want := range []string{"Bearer k1", "Bearer k2", "Bearer k1"} {
		if got := sc.request(context.Background(), srv.URL, i).Header.Get("Authorization"); got != want {
			t.Errorf("request %d: Authorization %q, want %q", i, got, want)
		}
	}
	if _, err := supplyScenario(srv.Client(), srv.URL, []string{"wrong"}); err == nil {
		t.Error("a refused key was accepted")
	}
}

// TestWriteMarkdown: one header, one alignment line and one line per row, each with a cell per
// column.
func TestWriteMarkdown(t *testing.T) {
	r := row{scenario: "read", rate: 500,
		server:  rounds{{latencies: []time.Duration{time.Millisecond, 2 * time.Millisecond}, elapsed: time.Second}},
		ceiling: rounds{{latencies: []time.Duration{time.Millisecond}, elapsed: time.Second}}}
	file := filepath.Join(t.TempDir(), "table.md")
	if err := writeMarkdown(file, []row{r, r}, ""); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b)
	}
	for _, l := range lines {
		if n := strings.Count(l, "|"); n != len(tableHeader)+1 {
			t.Errorf("%d cell borders in %q", n, l)
		}
	}
	if !strings.HasPrefix(lines[2], "| read | 500 | 2.00 |") || !strings.HasSuffix(lines[2], "| 2.00 | 2.00 | 2.00–2.00 |  |") {
		t.Errorf("row %q", lines[2])
	}
}

// TestWriteMarkdownWrapsNotes: the notes under the table keep every word, in order, and their
// paragraphs, in lines of at most noteWidth characters.
func TestWriteMarkdownWrapsNotes(t *testing.T) {
	long := strings.Repeat("The read by id with a SMART token against the same read without one: 13122 against 15534 reads/s. ", 6)
	for _, note := range []string{"short", long, long + "\n\n" + long, strings.Repeat("x", noteWidth+20) + " tail"} {
		file := filepath.Join(t.TempDir(), "table.md")
		if err := writeMarkdown(file, nil, note); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		_, got, _ := strings.Cut(string(b), "|\n\n")
		for _, l := range strings.Split(got, "\n") {
			if n := len([]rune(l)); n > noteWidth && strings.Contains(l, " ") {
				t.Errorf("a line of %d characters: %q", n, l)
			}
		}
		if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(note), " ") {
			t.Errorf("words changed:\n%s\nwant\n%s", got, note)
		}
		if want, n := strings.Count(note, "\n\n"), strings.Count(got, "\n\n"); n != want {
			t.Errorf("%d paragraph breaks, want %d", n, want)
		}
	}
}

// TestWriteChart: the chart is a PNG with a panel per scenario, three across, each sized to be
// read on a page; a run with no answers (p99 of 0) still draws; the legend is above the panels,
// in a band the plots do not reach.
func TestWriteChart(t *testing.T) {
	lat := func(d time.Duration) rounds { return rounds{{latencies: []time.Duration{d}, elapsed: time.Second}} }
	var rows []row
	for _, sc := range []string{"read", "token", "batch", "search"} {
		for i, rate := range []int{250, 500, 1000, 2000} {
			rows = append(rows, row{scenario: sc, rate: rate, server: lat(time.Duration(i+1) * time.Millisecond), ceiling: lat(time.Millisecond)})
		}
	}
	rows = append(rows, row{scenario: "empty", rate: 500, server: rounds{}, ceiling: rounds{}})
	if got := scenarioOrder(rows); !slices.Equal(got, []string{"read", "token", "batch", "search", "empty"}) {
		t.Errorf("scenarioOrder = %v", got)
	}
	file := filepath.Join(t.TempDir(), "chart.png")
	if err := writeChart(file, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	b := img.Bounds()
	wantW, wantH := int(3*panelWidth.Dots(vgimg.DefaultDPI)), int((2*panelHeight + legendBand).Dots(vgimg.DefaultDPI))
	if b.Dx() < wantW-2 || b.Dx() > wantW+2 || b.Dy() < wantH-2 || b.Dy() > wantH+2 {
		t.Errorf("chart is %dx%d, want %dx%d: three panels across, two rows and the legend's band", b.Dx(), b.Dy(), wantW, wantH)
	}
	// The legend's band holds the legend (dark pixels) and nothing of a plot's blue line beyond it.
	band := int(legendBand.Dots(vgimg.DefaultDPI))
	dark, blue := 0, 0
	for y := b.Min.Y; y < b.Min.Y+band; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0x4000 && g < 0x4000 && bl < 0x4000 {
				dark++
			}
			if r>>8 == 31 && g>>8 == 97 && bl>>8 == 160 {
				blue++
			}
		}
	}
	if dark == 0 || blue == 0 || blue > 2000 {
		t.Errorf("legend band: %d dark pixels, %d of the line's colour (the legend's sample only)", dark, blue)
	}
}

// TestChartPanel: each scenario's panel plots ours against the ceiling with a point and a labelled
// tick at every rate measured, and the service's p99 target, where the scenario has one, as a
// line inside the axis's range, even when every p99 is far under it.
func TestChartPanel(t *testing.T) {
	lat := func(d time.Duration) rounds { return rounds{{latencies: []time.Duration{d}, elapsed: time.Second}} }
	rates := []int{500, 1000, 1500, 2000}
	rowsOf := func(name string, p99 time.Duration, tg *target) []row {
		var rows []row
		for _, rate := range rates {
			r := row{scenario: name, rate: rate, server: lat(p99), ceiling: lat(p99 / 2)}
			if tg != nil && tg.rate == rate {
				r.target = tg
			}
			rows = append(rows, r)
		}
		return rows
	}
	for _, tc := range []struct {
		name     string
		p99      time.Duration
		target   *target
		targetMs float64 // 0: no target line
	}{
		{"fast under its target", 300 * time.Microsecond, latencyTarget(2000, 2*time.Millisecond, 0.6), 2},
		{"over its target", 9 * time.Millisecond, latencyTarget(2000, 5*time.Millisecond, 0.3), 5},
		{"no target", 3 * time.Millisecond, nil, 0},
		{"a rate target only", 3 * time.Millisecond, &target{rate: 2000}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := append(rowsOf("other", time.Second, nil), rowsOf(tc.name, tc.p99, tc.target)...)
			p, lines, err := panel(tc.name, rows)
			if err != nil {
				t.Fatal(err)
			}
			if lines.ours == nil || lines.ceiling == nil {
				t.Fatal("a panel without ours or the ceiling")
			}
			var labels []string
			for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
				if tk.Label != "" {
					labels = append(labels, tk.Label)
				}
			}
			if want := []string{"0", "500", "1000", "1500", "2000"}; !slices.Equal(labels, want) {
				t.Errorf("x ticks %v, want %v", labels, want)
			}
			if p.X.Max < 2000 {
				t.Errorf("x axis ends at %v, before the last rate", p.X.Max)
			}
			for _, l := range []*plotter.Line{lines.ours, lines.ceiling} {
				if len(l.XYs) != len(rates) {
					t.Errorf("%d points, want one per rate (%d)", len(l.XYs), len(rates))
				}
			}
			top := ms(tc.p99)
			switch {
			case tc.targetMs == 0 && lines.target != nil:
				t.Error("a target line for a scenario with no p99 target")
			case tc.targetMs > 0 && lines.target == nil:
				t.Error("no target line")
			case tc.targetMs > 0:
				for _, pt := range lines.target.XYs {
					if pt.Y != tc.targetMs {
						t.Errorf("target line at %v ms, want %v", pt.Y, tc.targetMs)
					}
				}
				top = max(top, tc.targetMs)
			}
			if p.Y.Min != 0 || p.Y.Max <= top {
				t.Errorf("y axis %v..%v does not hold every line (top %v ms)", p.Y.Min, p.Y.Max, top)
			}
		})
	}
}

// TestBulkExport runs the export measurement against a server that answers as the FHIR bulk
// export does: the kick-off, the manifest, the file.
func TestBulkExport(t *testing.T) {
	const lines = 5000
	file := bytes.Repeat([]byte(`{"resourceType":"Practitioner","id":"1"}`+"\n"), lines)
	var count atomic.Int64
	count.Store(lines)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/fhir/$export" && r.Header.Get("Prefer") == "respond-async" && r.URL.Query().Get("_type") == "Practitioner":
			w.Header().Set("Content-Location", srv.URL+"/status")
			w.WriteHeader(http.StatusAccepted)
		case r.URL.Path == "/status":
			fmt.Fprintf(w, `{"output":[{"type":"Practitioner","url":%q,"count":%d}],"error":[]}`, srv.URL+"/file", count.Load())
		case r.URL.Path == "/file":
			_, _ = w.Write(file)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	res, err := bulkExport(srv.URL, "Practitioner", dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.resources != lines || res.bytes != int64(len(file)) || res.ours <= 0 || res.ceiling <= 0 {
		t.Errorf("%+v", res)
	}
	if !strings.Contains(res.String(), "FHIR bulk export of 5000 Practitioner resources") {
		t.Errorf("report %q", res)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the export file stayed behind: %v", left)
	}
	count.Store(lines + 1) // a manifest that disagrees with its file
	if _, err := bulkExport(srv.URL, "Practitioner", dir); err == nil || !strings.Contains(err.Error(), "the manifest counts") {
		t.Errorf("a short file: %v", err)
	}
	if _, err := bulkExport(srv.URL, "Organization", dir); err == nil {
		t.Error("a kick-off the server refuses measured nothing, without an error")
	}
}
