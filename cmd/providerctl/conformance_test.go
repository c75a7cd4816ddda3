package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/store/embedded"
)

// demoServer builds a demo store (a synthetic drop ingested into an embedded store, then its next
// snapshot), writes its credentials with the demo command's code, starts the real providerd
// binary on a free loopback port and returns the credentials file and a FHIR resource the second
// snapshot removed. The server stops with the test.
func demoServer(t *testing.T) (base, credFile, gone string) {
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
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	var logs bytes.Buffer
	cmd := exec.Command(bin, "--store", "embedded:"+db, "--addr", strings.TrimPrefix(base, "http://"), "--base-url", base)
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
				return base, credFile, gone
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

type junitTotals struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Skipped  int `xml:"skipped,attr"`
}

// The suite passes against the demo deployment, and fails when the deployment breaks a
// contract: a proxy in front of the same server that drops a rate-limit header from two paths
// and renames an error code makes the checks of those contracts fail and the command exit 1.
func TestConformanceAgainstDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts providerd")
	}
	base, credFile, gone := demoServer(t)
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
	junit := filepath.Join(t.TempDir(), "conformance.xml")
	args := []string{"conformance", "--credentials", credFile, "--junit", junit, "--gone", gone, "--exhaust-budgets"}
	// Where the npm fhir package is installed, every served resource is also validated by it.
	if dir := os.Getenv("PROVIDERDIR_FHIR_JS"); dir != "" {
		args = append(args, "--fhir-validator", dir)
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
	var totals junitTotals
	if err := xml.Unmarshal(b, &totals); err != nil {
		t.Fatal(err)
	}
	if totals.Failures != 0 || totals.Tests < 80 {
		t.Errorf("JUnit totals %+v, want 80 or more checks, none failed", totals)
	}

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
	code, stdout, stderr = invoke(t, nil, "conformance", "--credentials", credFile, "--base-url", proxy.URL,
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
	// The token budget the full run spent is refused again, now without Retry-After.
	code, stdout, stderr = invoke(t, nil, "conformance", "--credentials", credFile, "--base-url", brokenFHIRProxy(t, base, true), "--exhaust-budgets",
		"--only", "smart/token endpoint over its budget is 429 slow_down with Retry-After")
	if code != 1 || !strings.Contains(stdout, `429 with Retry-After ""`) {
		t.Errorf("exit %d (%s) against a token endpoint refusing without Retry-After, want 1:\n%s", code, stderr, stdout)
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
