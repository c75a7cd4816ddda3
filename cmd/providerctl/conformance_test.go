package main

import (
	"bytes"
	"context"
	"encoding/xml"
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

	"providerdir/ingest"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store/embedded"
)

// demoServer builds a demo store (a synthetic drop ingested into an embedded store), writes its
// credentials with the demo command's code, starts the real providerd binary on a free loopback
// port and returns the credentials file. The server stops with the test.
func demoServer(t *testing.T) (base, credFile string) {
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
				return base, credFile
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("providerd not ready at %s: %v\n%s", base, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
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
	base, credFile := demoServer(t)
	junit := filepath.Join(t.TempDir(), "conformance.xml")
	args := []string{"conformance", "--credentials", credFile, "--junit", junit}
	// Where the npm fhir package is installed, every served resource is also validated by it.
	if dir := os.Getenv("PROVIDERDIR_FHIR_JS"); dir != "" {
		args = append(args, "--fhir-validator", dir)
	}
	code, stdout, stderr := invoke(t, nil, args...)
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
}
