package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"providerdir/rest/apikey"
	"providerdir/stored"
	"providerdir/testing/demostore"
	"providerdir/testing/externaltools"
	"providerdir/testing/resolverserver"
)

// runMain makes the test binary run the command itself, so that the tests drive the real
// command over its standard input and output without building it apart.
const runMain = "PROVIDER_MCP_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		os.Exit(0)
	}
	demostore.Main(m)
}

// tools is every tool the command offers.
var tools = []string{"check_exclusion", "get_facility", "get_payments", "get_quality", "resolve_npi", "resolve_npi_batch", "search_providers"}

// toolCall is one call of a tool and the top-level key of its result that holds a record with
// provenance ("" for the result itself).
type toolCall struct {
	tool   string
	args   map[string]any
	record string
}

// service is the real resolver on the demo snapshot and the calls that exercise every tool on it.
type service struct {
	root, key string // the service's base URL (without /resolver/v1), a pro key
	calls     []toolCall
}

func startService(t *testing.T) service {
	t.Helper()
	d := demostore.Open(t)
	srv := resolverserver.Start(t, d.Store)
	f := resolverserver.Find(t, d.Store)
	return service{root: srv.Server.URL, key: srv.Key(t, apikey.TierPro), calls: []toolCall{
		{tool: "resolve_npi", args: map[string]any{"npi": f.Enrolled}},
		{tool: "check_exclusion", args: map[string]any{"npi": f.Excluded}, record: "fact"},
		{tool: "get_facility", args: map[string]any{"ccn": f.CCN}},
		{tool: "resolve_npi_batch", args: map[string]any{"npis": []string{f.Enrolled, f.Absent}}, record: "results"},
		{tool: "search_providers", args: map[string]any{"q": f.OrganizationName, "state": f.OrganizationState}, record: "results"},
		{tool: "get_quality", args: map[string]any{"type": f.QualityType, "ccn": f.QualityCCN}},
		{tool: "get_payments", args: map[string]any{"npi": f.Paid}},
	}}
}

// env is the environment the command runs with against the service.
func (s service) env() []string {
	return []string{runMain + "=1", "SERVICE_BASE_URL=" + s.root, "SERVICE_API_KEY=" + s.key}
}

// checkResult fails unless a tool's result (the structured content, or the tool error's text)
// succeeded with the 14 provenance keys on its record.
func checkResult(t *testing.T, c toolCall, isError bool, structured map[string]any, errText string) {
	t.Helper()
	if isError {
		t.Fatalf("%s: tool error %s", c.tool, errText)
	}
	var record any = structured
	if c.record != "" {
		record = structured[c.record]
	}
	if list, ok := record.([]any); ok {
		record = list[0]
	}
	o, _ := record.(map[string]any)
	for _, k := range stored.ProvenanceKeys {
		if _, ok := o[k]; !ok {
			t.Errorf("%s: provenance key %s missing from %v", c.tool, k, record)
		}
	}
}

// The SDK's client runs the command and talks to it over stdio: it lists every tool and calls
// each against the real resolver.
func TestStdio(t *testing.T) {
	s := startService(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), s.env()...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, stderr := connectCommand(t, ctx, cmd)
	if info := cs.InitializeResult().ServerInfo; info.Name != "provider-mcp" {
		t.Errorf("server %+v", info)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, tools) {
		t.Fatalf("tools %v, want %v", names, tools)
	}
	for _, c := range s.calls {
		t.Run(c.tool, func(t *testing.T) {
			r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			b, _ := json.Marshal(r.StructuredContent)
			_ = json.Unmarshal(b, &m)
			text := ""
			if len(r.Content) > 0 {
				text = r.Content[0].(*mcp.TextContent).Text
			}
			checkResult(t, c, r.IsError, m, text)
		})
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if !strings.Contains(stderr.String(), "key from SERVICE_API_KEY") {
		t.Errorf("stderr %q does not say where the key came from", stderr.String())
	}
}

// The command refuses to start, with one line on stderr and its exit status, when it cannot
// serve.
func TestStartFailures(t *testing.T) {
	down := httptest.NewServer(nil)
	down.Close()
	tests := []struct {
		name string
		args []string
		env  []string
		code int
		line string
	}{
		{"bad usage", []string{"extra"}, []string{"SERVICE_API_KEY=k"}, 2, "takes no arguments"},
		{"unknown flag", []string{"--nope"}, []string{"SERVICE_API_KEY=k"}, 2, "flag provided but not defined"},
		{"no key, no service", nil, []string{"SERVICE_API_KEY=", "SERVICE_BASE_URL=" + down.URL}, 1, "SERVICE_API_KEY is not set"},
		{"the store option is gone", []string{"--store", "embedded:./data/db"}, []string{"SERVICE_API_KEY=k"}, 2, "flag provided but not defined"},
		{"bad base URL", nil, []string{"SERVICE_API_KEY=k", "SERVICE_BASE_URL=localhost:8080"}, 1, "SERVICE_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], tt.args...)
			cmd.Env = append(append(os.Environ(), runMain+"=1"), tt.env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != tt.code || !strings.Contains(stderr.String(), tt.line) {
				t.Errorf("exit %v, stderr %q; want status %d saying %q", err, stderr.String(), tt.code, tt.line)
			}
		})
	}
}

// EnvInspector names the directory where `make mcpinspector` installed the MCP Inspector
// (npm @modelcontextprotocol/inspector); by default the checkout's .cache/mcpinspector.
const EnvInspector = "PROVIDERDIR_MCP_INSPECTOR"

// inspector is the MCP Inspector's command; without Node.js or the Inspector the test ends as
// externaltools.Missing says.
func inspector(t *testing.T) string {
	t.Helper()
	externaltools.LookPath(t, "node", "the MCP Inspector runs on Node.js (apt-get install -y nodejs npm)")
	dir := os.Getenv(EnvInspector)
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "mcpinspector")
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(bin); err != nil {
		externaltools.Missing(t, fmt.Sprintf("the MCP Inspector is not installed in %s (make mcpinspector installs it; %s names another directory)", dir, EnvInspector))
	}
	return bin
}

// runInspector runs the Inspector's CLI mode against the command and decodes what it prints.
// The Inspector exits 0 for a result and 5 for a tool error; both print the result.
func runInspector(t *testing.T, bin string, s service, args ...string) (out map[string]any, toolError bool) {
	t.Helper()
	argv := []string{"--cli", os.Args[0]}
	for _, e := range s.env() {
		argv = append(argv, "-e", e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(argv, args...)...)
	cmd.Env = append(os.Environ(), "MCP_CATALOG_PATH="+filepath.Join(t.TempDir(), "catalog.json"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit) && exit.ExitCode() == 5 && strings.Contains(stderr.String(), "tool_is_error"):
		toolError = true
	default:
		t.Fatalf("inspector %v: %v\nstdout: %s\nstderr: %s", args, err, stdout.String(), stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("inspector %v printed no JSON object: %v\n%s", args, err, stdout.String())
	}
	return out, toolError
}

// The MCP Inspector's CLI lists every tool (its strict check of the schemas' portability
// passing) and calls each against the real resolver through the command over stdio.
func TestInspector(t *testing.T) {
	bin := inspector(t)
	s := startService(t)
	list, _ := runInspector(t, bin, s, "--method", "tools/list", "--strict")
	var names []string
	for _, v := range list["tools"].([]any) {
		tool := v.(map[string]any)
		names = append(names, tool["name"].(string))
		if a, _ := tool["annotations"].(map[string]any); a["readOnlyHint"] != true {
			t.Errorf("%s: annotations %v", tool["name"], a)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, tools) {
		t.Fatalf("the Inspector lists %v, want %v", names, tools)
	}
	for _, c := range s.calls {
		t.Run(c.tool, func(t *testing.T) {
			args := []string{"--method", "tools/call", "--tool-name", c.tool, "--tool-arg"}
			for k, v := range c.args {
				// the Inspector reads each value as JSON when it parses (an NPI would become a
				// number), so every value is written as JSON
				b, _ := json.Marshal(v)
				args = append(args, k+"="+string(b))
			}
			out, isError := runInspector(t, bin, s, args...)
			text := ""
			if content, _ := out["content"].([]any); len(content) > 0 {
				text, _ = content[0].(map[string]any)["text"].(string)
			}
			structured, _ := out["structuredContent"].(map[string]any)
			checkResult(t, c, isError, structured, text)
		})
	} // an argument the input schema refuses: a tool error carrying the code, as the resolver's
	out, isError := runInspector(t, bin, s, "--method", "tools/call", "--tool-name", "get_quality",
		"--tool-arg", `type="clinic"`, `ccn="050001"`)
	content, _ := out["content"].([]any)
	if text := fmt.Sprint(content); !isError || !strings.Contains(text, `"code":"invalid_argument"`) || !strings.Contains(text, `"retryable":false`) {
		t.Errorf("get_quality type=clinic: tool error %v, %v; want invalid_argument, not retryable", isError, out)
	}
}

// SIGTERM stops a serving command cleanly, with status 0, while its client keeps the session
// open.
func TestStopsOnSignal(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), runMain+"=1", "SERVICE_API_KEY=k", "SERVICE_BASE_URL=http://127.0.0.1:1")
	stdin, err := cmd.StdinPipe() // held open: the session goes on
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stderr).ReadString('\n')
	if err != nil || !strings.Contains(line, "tools over stdio") {
		t.Fatalf("start-up line %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the command did not stop on SIGTERM")
	}
}

// Without SERVICE_API_KEY, run from a directory with no checkout and no store, the command
// fetches the sandbox key from the service and serves with it.
func TestSandboxKeyOutsideTheCheckout(t *testing.T) {
	s := startService(t)
	cmd := exec.Command(os.Args[0])
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), runMain+"=1", "SERVICE_BASE_URL="+s.root, "SERVICE_API_KEY=", "PROVIDERD_STORE=")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, stderr := connectCommand(t, ctx, cmd)
	c := s.calls[0]
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	if err != nil || r.IsError {
		t.Fatalf("%s: %+v, %v (stderr: %s)", c.tool, r, err, stderr.String())
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if want := "key from the sandbox key published at " + s.root + "/resolver/v1/sandbox"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q does not say %q", stderr.String(), want)
	}
}

// A line on standard input that is not JSON, or JSON that is no JSON-RPC message, is answered
// with the JSON-RPC error of its kind, id null, and the command answers the request after it.
func TestMalformedLinesKeepServing(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), runMain+"=1", "SERVICE_API_KEY=k", "SERVICE_BASE_URL=http://127.0.0.1:1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	const initialize = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if _, err := io.WriteString(stdin, "this is not JSON\n{\"not\":\"a message\"}\n"+initialize+"\n"); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	for i, want := range []string{`"code":-32700`, `"code":-32600`, `"id":7,"result":{`} {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
		var answer map[string]any
		if err := json.Unmarshal([]byte(line), &answer); err != nil || !strings.Contains(line, want) {
			t.Errorf("answer %d: %s, want one with %s", i+1, line, want)
		}
		if i < 2 && (answer["id"] != nil || !strings.Contains(line, `"id":null`)) {
			t.Errorf("answer %d: %s, want id null", i+1, line)
		}
	}
}

// The command is a client of the service only: its dependencies hold no store, no storage
// engine and no database driver, and of this module only the resolver's client, the
// identifier checks and the build information.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed := []string{"providerdir/cmd/provider-mcp", "providerdir/cmd/provider-mcp/internal/mcptools",
		"providerdir/resolverclient", "providerdir/ident", "providerdir/internal/buildinfo"}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case dep == "providerdir/store" || strings.HasPrefix(dep, "providerdir/store/"),
			strings.HasPrefix(dep, "github.com/cockroachdb/pebble"), strings.HasPrefix(dep, "go.mongodb.org/mongo-driver"):
			t.Errorf("depends on %s", dep)
		case strings.HasPrefix(dep, "providerdir/") && !slices.Contains(allowed, dep):
			t.Errorf("depends on %s, beyond %v", dep, allowed)
		}
	}
}

// connectCommand runs cmd and connects the SDK's client to it over stdio; the session closes
// when the test ends. It returns what the command writes to stderr, which a failed connection
// reports.
func connectCommand(t *testing.T, ctx context.Context, cmd *exec.Cmd) (*mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v (stderr: %s)", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs, &stderr
}
