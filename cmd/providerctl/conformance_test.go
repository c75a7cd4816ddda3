package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/conformance"
	"providerdir/ingest"
	"providerdir/rest/apikey"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/testing/externaltools"
)

// demoServer builds a demo store (a synthetic drop ingested into an embedded store, then its next
// snapshot), writes its credentials with the demo command's code, creates a live resolver key
// (the demo's is the read-only sandbox key), starts the real providerd binary on a free loopback
// port, admitting webhook receivers on loopback, and returns the credentials file, the live key
// and a FHIR resource the second snapshot removed. The server stops with the test.
func demoServer(t *testing.T) (base, credFile, liveKey, gone string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	bin := filepath.Join(dir, "providerd")
	if out, err := exec.Command("go", "build", "-o", bin, "providerdir/cmd/providerd").CombinedOutput(); err != nil {
		t.Fatalf("go build providerd: %v\n%s", err, out)
	}
	drop := filepath.Join(dir, "drop")
	ref := reference.Embedded()
	if _, err := synth.Generate(ctx, synth.Config{Providers: 600, Seed: 5, Out: drop, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "db")
	s, err := embedded.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: drop, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	first, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(dir, "next")
	if _, err := synth.Generate(ctx, synth.Config{EvolveFrom: drop, Out: next, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: next, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	gone = removedResource(t, s, first)
	base = "http://" + freeAddr(t)
	credFile = filepath.Join(dir, "credentials.json")
	err = demo(ctx, io.Discard, slog.New(slog.DiscardHandler), s, demoURLs{base: base}, dir, credFile)
	if err == nil {
		var live apikey.Secret
		live, _, err = apikey.NewManager(s, nil).Create(ctx, apikey.TierStarter, "conformance", apikey.CreateOptions{})
		liveKey = live.Reveal()
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	cmd := exec.Command(bin, "--store", "embedded:"+db, "--addr", strings.TrimPrefix(base, "http://"), "--base-url", base, "--webhook-allow-loopback")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return base, credFile, liveKey, gone
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("providerd not ready at %s: %v\n%s", base, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// removedResource finds a FHIR resource the snapshot before the serving one had and the serving
// one lacks, as "Type/id".
func removedResource(t *testing.T, s store.Store, before store.Snapshot) string {
	t.Helper()
	ctx := context.Background()
	now, err := store.Serving(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"Practitioner", "PractitionerRole", "Organization", "Location", "HealthcareService", "Endpoint"} {
		coll := catalog.FHIRCollection(typ)
		q := store.Query{Collection: coll, Generation: before.Generation(coll), Limit: 1000}
		for q.Generation != "" && q.Generation != now.Generation(coll) {
			page, err := s.Find(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Docs {
				if _, err := s.Get(ctx, now.Generation(coll), coll, d.ID); errors.Is(err, store.ErrNotFound) {
					return typ + "/" + d.ID
				}
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
	}
	t.Fatal("the next snapshot removed no FHIR resource")
	return ""
}

// freeAddr is a loopback address no listener holds at the moment of asking.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// expectedSkips are the checks that skip against the demo deployment, with why: its data have
// no such values. Every other check of the suite must run and pass.
var expectedSkips = map[string]string{
	"resolver/GET /ccn/{id} answers the ten-character number /quality/asc/{id} answers": "no demo Organization is an ambulatory surgical center",
}

// fhirValidatorCheck is the check that validates served resources with the npm fhir package.
const fhirValidatorCheck = "external/every served FHIR resource validates with the npm fhir package (R4)"

// junitReport is the part of a conformance JUnit report the test reads.
type junitReport struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// skipped maps each skipped check ("surface/name") to its reason.
func (r junitReport) skipped() map[string]string {
	out := map[string]string{}
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			if c.Skipped != nil {
				out[s.Name+"/"+c.Name] = c.Skipped.Message
			}
		}
	}
	return out
}

// unexpectedSkips describes, sorted, each check that skipped although expected does not name it
// and each check expected names that did not skip.
func unexpectedSkips(got, expected map[string]string) []string {
	var out []string
	for name, reason := range got {
		if _, ok := expected[name]; !ok {
			out = append(out, fmt.Sprintf("%s skipped (%s); every check but the expected skips must run", name, reason))
		}
	}
	for name, why := range expected {
		if _, ok := got[name]; !ok {
			out = append(out, fmt.Sprintf("%s ran, expected to skip since %s: update the expected skips", name, why))
		}
	}
	slices.Sort(out)
	return out
}

// A skip the expected list does not name, and an expected skip that ran, are each reported by
// name; the expected skips alone report nothing.
func TestUnexpectedSkips(t *testing.T) {
	expected := map[string]string{"fhir/a": "no data", "resolver/b": "no facility"}
	for _, tt := range []struct {
		name string
		got  map[string]string
		want []string
	}{
		{"the expected skips", map[string]string{"fhir/a": "none", "resolver/b": "none"}, nil},
		{"a new skip", map[string]string{"fhir/a": "none", "resolver/b": "none", "webhooks/c": "read-only key"},
			[]string{"webhooks/c skipped (read-only key); every check but the expected skips must run"}},
		{"an expected skip ran", map[string]string{"fhir/a": "none"},
			[]string{"resolver/b ran, expected to skip since no facility: update the expected skips"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := unexpectedSkips(tt.got, expected); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The suite passes against the demo deployment with a live resolver key and a loopback webhook
// receiver: every check runs, and only the expected ones skip. It fails when the deployment
// breaks a contract: a proxy in front of the same server that drops a rate-limit header from two
// paths and renames an error code makes the checks of those contracts fail and the command exit 1.
func TestConformanceAgainstDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts providerd")
	}
	base, credFile, liveKey, gone := demoServer(t)
	// Before the full run spends the budgets: a FHIR surface that serves subsets untagged and
	// answers a removed resource with 404 fails the checks of those contracts.
	brokenFHIR := brokenFHIRProxy(t, base, false)
	code, stdout, stderr := invoke(t, nil, "conformance", "--credentials", credFile, "--base-url", brokenFHIR, "--gone", gone,
		"--only", "fhir/_summary=true: summary elements only and the SUBSETTED tag,fhir/_elements: the elements asked for and the SUBSETTED tag,"+
			"fhir/a resource the latest snapshot removed is 410 OperationOutcome")
	if code != 1 || !strings.Contains(stdout, "3 checks: 0 passed, 3 failed") {
		t.Fatalf("exit %d (%s) against a FHIR surface that breaks its contract, want 3 failures:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{"lacks the SUBSETTED tag", ": 404, want 410"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report of the broken FHIR surface lacks %q:\n%s", want, stdout)
		}
	}
	checkBrokenSupply(t, base, credFile)
	junit := filepath.Join(t.TempDir(), "conformance.xml")
	args := []string{"conformance", "--credentials", credFile, "--resolver-key", liveKey, "--webhook-receiver", "127.0.0.1:0",
		"--junit", junit, "--gone", gone, "--exhaust-budgets"}
	// Where the npm fhir package is installed, every served resource is also validated by it.
	expected := maps.Clone(expectedSkips)
	if dir := os.Getenv("PROVIDERDIR_FHIR_JS"); dir != "" {
		args = append(args, "--fhir-validator", dir)
	} else {
		externaltools.Optional(t, "PROVIDERDIR_FHIR_JS names no directory where `npm install fhir` ran (make fhirjs installs it)")
		expected[fhirValidatorCheck] = "the npm fhir package is not installed"
	}
	code, stdout, stderr = invoke(t, nil, args...)
	t.Logf("report:\n%s", stdout)
	if code != 0 {
		t.Fatalf("exit %d against the demo: %s\n%s", code, stderr, stdout)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var report junitReport
	if err := xml.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	if report.Failures != 0 || report.Tests != len(conformance.Checks()) {
		t.Errorf("JUnit: %d checks, %d failed; want every one of the suite's %d, none failed", report.Tests, report.Failures, len(conformance.Checks()))
	}
	for _, e := range unexpectedSkips(report.skipped(), expected) {
		t.Error(e)
	}

	// The token budget the full run spent is refused again, now without Retry-After.
	code, stdout, stderr = invoke(t, nil, "conformance", "--credentials", credFile, "--base-url", brokenFHIRProxy(t, base, true), "--exhaust-budgets",
		"--only", "smart/token endpoint over its budget is 429 slow_down with Retry-After")
	if code != 1 || !strings.Contains(stdout, `429 with Retry-After ""`) {
		t.Errorf("exit %d (%s) against a token endpoint refusing without Retry-After, want 1:\n%s", code, stderr, stdout)
	}
}

// checkBrokenSupply runs three supply checks through a proxy in front of the demo that drops a
// rate-limit header from two paths and renames an error code: each check fails and the command
// exits 1. It runs before the full run spends the supply key's minute.
func checkBrokenSupply(t *testing.T, base, credFile string) {
	t.Helper()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	broken := httputil.NewSingleHostReverseProxy(target)
	broken.ModifyResponse = func(res *http.Response) error {
		if !strings.HasPrefix(res.Request.URL.Path, "/v1/") {
			return nil
		}
		if p := res.Request.URL.Path; p == "/v1/health" || p == "/v1/specialties" {
			res.Header.Del("X-RateLimit-Limit")
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			return err
		}
		body = bytes.ReplaceAll(body, []byte(`"specialty_not_found"`), []byte(`"not_found"`))
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	proxy := httptest.NewServer(broken)
	defer proxy.Close()
	code, stdout, stderr := invoke(t, nil, "conformance", "--credentials", credFile, "--base-url", proxy.URL,
		"--only", "supply/GET /health: public; data and meta,supply/unknown specialty is 404 specialty_not_found,supply/GET /specialties: the 12 registered specialties")
	if code != 1 || !strings.Contains(stderr, "checks failed") {
		t.Fatalf("exit %d (%s) against a deployment that breaks the supply contract, want 1:\n%s", code, stderr, stdout)
	}
	for _, want := range []string{
		"FAIL  GET /health: public; data and meta: ",
		"FAIL  unknown specialty is 404 specialty_not_found",
		"FAIL  GET /specialties: the 12 registered specialties: ",
		"X-RateLimit-Limit \"\" is not an integer",
		"want code specialty_not_found",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report of the broken deployment lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, "3 checks: 0 passed, 3 failed") {
		t.Errorf("a supply check passed without its rate-limit header:\n%s", stdout)
	}
}

// brokenFHIRProxy serves the deployment at base through a proxy that breaks three FHIR
// contracts: it drops the SUBSETTED tag, answers 410 as 404 and drops Retry-After. With relink,
// links in bodies (the discovery document's token endpoint) lead to the proxy, whose token URL
// is then not the audience the server accepts; without, tokens come from the server itself. It
// returns the proxy's URL.
func brokenFHIRProxy(t *testing.T, base string, relink bool) string {
	t.Helper()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	self := "http://" + srv.Listener.Addr().String()
	p := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(target)
		r.Out.Header.Del("Accept-Encoding") // bodies are rewritten as text
	}}
	p.ModifyResponse = func(res *http.Response) error {
		if !strings.HasPrefix(res.Request.URL.Path, "/fhir/") {
			return nil
		}
		res.Header.Del("Retry-After")
		if res.StatusCode == http.StatusGone {
			res.StatusCode = http.StatusNotFound
		}
		body, err := io.ReadAll(res.Body)
		if err != nil {
			return err
		}
		body = bytes.ReplaceAll(body, []byte(`"SUBSETTED"`), []byte(`"PARTIAL"`))
		if relink {
			body = bytes.ReplaceAll(body, []byte(base), []byte(self))
		}
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv.Config.Handler = p
	srv.Start()
	t.Cleanup(srv.Close)
	return self
}
