package main

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"providerdir/ingest"
	"providerdir/store/embedded"
)

func TestBadUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown flag", []string{"--port", "80"}, nil, "flag provided but not defined: -port"},
		{"bad addr", []string{"--addr", "nowhere"}, nil, "invalid --addr"},
		{"bad store from env", nil, map[string]string{"PROVIDERD_STORE": "redis://x"}, "invalid PROVIDERD_STORE"},
		{"bad log format", []string{"--log-format", "yaml"}, nil, "invalid --log-format"},
		{"missing reference", []string{"--reference", "/nonexistent/reference"}, nil, "reference directory"},
		{"positional", []string{"serve"}, nil, "unexpected argument"},
		{"bad metrics addr from env", nil, map[string]string{"PROVIDERD_METRICS_ADDR": "metrics"}, "invalid PROVIDERD_METRICS_ADDR"},
		{"negative drain delay", []string{"--drain-delay", "-1s"}, nil, "invalid --drain-delay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(tt.args, func(k string) string { return tt.env[k] }, &stdout, &stderr)
			if code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			line := stderr.String()
			if strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, "providerd: ") || !strings.Contains(line, tt.want) {
				t.Fatalf("stderr %q, want one line with %q", line, tt.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run([]string{"--help"}, func(string) string { return "" }, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--addr (PROVIDERD_ADDR)", "--store (PROVIDERD_STORE)", "--trusted-proxies", "--metrics-addr (PROVIDERD_METRICS_ADDR)", "--drain-delay (PROVIDERD_DRAIN_DELAY)", "--reference (PROVIDERD_REFERENCE)", "default: the files built into the binary"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestOpenStoreFailureExits1(t *testing.T) {
	// A file where the embedded store's directory should be.
	file := t.TempDir() + "/file"
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run([]string{"--store", "embedded:" + file, "--addr", "127.0.0.1:0"},
		func(string) string { return "" }, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "providerd: open store embedded:"+file) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// A store directory other users may enter stops the start with one line naming the directory
// and the fix.
func TestStoreOpenToOthersExits1(t *testing.T) {
	dir := t.TempDir() + "/db"
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	code := run([]string{"--store", "embedded:" + dir, "--addr", "127.0.0.1:0"},
		func(string) string { return "" }, &stdout, &stderr)
	line := stderr.String()
	if code != 1 || strings.Count(line, "\n") != 1 || !strings.Contains(line, "`chmod 700 "+dir+"`") {
		t.Fatalf("exit %d, stderr %q", code, line)
	}
}

// running is a providerd serving in this process.
type running struct {
	addr, metricsAddr string
	done              chan int
}

// startProviderd runs providerd in this process with args and env, and returns once it listens
// (and, with --metrics-addr, serves its metrics). Its log is read and dropped.
func startProviderd(t *testing.T, env map[string]string, args ...string) running {
	t.Helper()
	pr, pw := io.Pipe()
	lines := make(chan map[string]any, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(limit) })
	debug.SetMemoryLimit(math.MaxInt64) // the runtime's own default: no limit
	p := running{done: make(chan int, 1)}
	go func() {
		var stdout strings.Builder
		p.done <- run(args, func(k string) string { return env[k] }, &stdout, pw)
		pw.Close()
	}()
	wantMetrics := slices.Contains(args, "--metrics-addr")
	timeout := time.After(30 * time.Second)
	for p.addr == "" || wantMetrics && p.metricsAddr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("providerd exited before listening: %d", <-p.done)
			}
			switch l["msg"] {
			case "providerd listening":
				p.addr = l["addr"].(string)
			case "metrics listening":
				p.metricsAddr = l["addr"].(string)
			}
		case <-timeout:
			t.Fatal("providerd did not start listening")
		}
	}
	go func() { // keep draining logs so the server never blocks on the pipe
		for range lines {
		}
	}()
	return p
}

// stop sends the process SIGTERM and expects providerd to exit 0.
func (p running) stop(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-p.done:
		if code != 0 {
			t.Fatalf("exit %d after SIGTERM, want 0", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("providerd did not stop on SIGTERM")
	}
}

// TestServeAndStopOnSIGTERM runs providerd in-process on a loopback port with an embedded store,
// checks the surfaces answer, then sends the process SIGTERM and expects a clean exit.
func TestServeAndStopOnSIGTERM(t *testing.T) {
	env := map[string]string{
		"PROVIDERD_STORE": "embedded:" + t.TempDir(),
	}
	p := startProviderd(t, env, "--addr", "127.0.0.1:0", "--base-url", "https://pd.example.org", "--metrics-addr", "127.0.0.1:0",
		"--cors-origins", "https://app.example")
	addr, metricsAddr := p.addr, p.metricsAddr
	if got := debug.SetMemoryLimit(-1); got != ingest.MemoryLimit {
		t.Errorf("memory limit %d, want the ingest's %d", got, ingest.MemoryLimit)
	}
	base := "http://" + addr

	for url, wantStatus := range map[string]int{
		base + "/livez": 200, base + "/readyz": 200, base + "/metrics": 404, base + "/fhir/Practitioner": 401,
		base + "/fhir/metadata": 200, base + "/fhir/.well-known/smart-configuration": 200, base + "/": 200, base + "/no-such-page": 404,
		base + "/docs/limitations": 200, base + "/resolver/v1/webhooks": 401,
		"http://" + metricsAddr + "/metrics": 200, "http://" + metricsAddr + "/livez": 404,
	} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != wantStatus {
			t.Errorf("%s: %d, want %d", url, resp.StatusCode, wantStatus)
		}
		if strings.HasPrefix(url, base) && resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s: no Content-Security-Policy", url)
		}
	}

	// --cors-origins reaches the API surfaces, ahead of their authentication, and the
	// CapabilityStatement; the service host and the pages stay same-origin.
	for path, want := range map[string]string{"/fhir/Practitioner": "https://app.example", "/v1/health": "https://app.example",
		"/api/access-requests": ""} {
		req, _ := http.NewRequest(http.MethodOptions, base+path, nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != want || want != "" && resp.StatusCode != http.StatusNoContent {
			t.Errorf("preflight of %s: %d, Access-Control-Allow-Origin %q, want %q", path, resp.StatusCode, got, want)
		}
	}
	var cs struct {
		Rest []struct{ Security struct{ CORS bool } }
	}
	if resp, err := http.Get(base + "/fhir/metadata"); err != nil || json.NewDecoder(resp.Body).Decode(&cs) != nil || !cs.Rest[0].Security.CORS {
		t.Errorf("CapabilityStatement: cors %+v, %v", cs, err)
	}

	req, _ := http.NewRequest("GET", base+"/v1/health", nil)
	req.Header.Set("X-Request-ID", "smoke-1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body any
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %d %v", resp.StatusCode, err)
	}
	var want any
	_ = json.Unmarshal([]byte(`{"data":{"status":"ok","uptime_target":"99.9%","sources":[]},
		"meta":{"request_id":"smoke-1","api_version":"v1","data_freshness":[],
		"methodology_url":"https://pd.example.org/docs/methodology",
		"limitations_url":"https://pd.example.org/docs/limitations"}}`), &want)
	if !reflect.DeepEqual(body, want) {
		t.Fatalf("health\n got %v\nwant %v", body, want)
	}

	p.stop(t)
}

// The rate-limit windows providerd counts in memory on an embedded store reach the store when it
// stops: a providerd started again on the store goes on from them.
func TestRateLimitsSurviveARestart(t *testing.T) {
	env := map[string]string{"PROVIDERD_STORE": "embedded:" + t.TempDir()}
	remaining := func(p running) int {
		t.Helper()
		resp, err := http.Get("http://" + p.addr + "/v1/npi/1234567893") // anonymous: metered per address
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		n, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("%d with X-RateLimit-Remaining %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
		}
		return n
	}
	p := startProviderd(t, env, "--addr", "127.0.0.1:0")
	first := remaining(p)
	remaining(p)
	remaining(p)
	p.stop(t)
	p = startProviderd(t, env, "--addr", "127.0.0.1:0")
	if got := remaining(p); got != first-3 {
		t.Errorf("the 4th request, after a restart, left %d, want %d", got, first-3)
	}
	p.stop(t)
}
