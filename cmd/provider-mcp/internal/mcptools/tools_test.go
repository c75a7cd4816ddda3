package mcptools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"providerdir/cmd/provider-mcp/internal/mcptools"
	"providerdir/resolverclient"
	"providerdir/rest/apikey"
	"providerdir/stored"
	"providerdir/testing/demostore"
	"providerdir/testing/resolverserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// Tools is every tool the server offers.
var Tools = []string{"check_exclusion", "get_facility", "get_payments", "get_quality", "resolve_npi", "resolve_npi_batch", "search_providers"}

// connect runs the tool server over the resolver at base with key and returns an SDK client
// session connected to it in process.
func connect(t *testing.T, base, key string) *mcp.ClientSession {
	t.Helper()
	c, err := resolverclient.New(base, resolverclient.Options{APIKey: key, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := mcptools.New(c, "test").Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// live is the real resolver on the demo snapshot.
type live struct {
	srv *resolverserver.Server
	key string
	f   resolverserver.Fixtures
}

func startLive(t *testing.T) live {
	t.Helper()
	d := demostore.Open(t)
	srv := resolverserver.Start(t, d.Store)
	return live{srv: srv, key: srv.Key(t, apikey.TierPro), f: resolverserver.Find(t, d.Store)}
}

// structured is a tool result's structured content as plain JSON values, checked against the
// text content the SDK writes beside it for clients without structured content.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m, text map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks", len(res.Content))
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &text); err != nil || !reflect.DeepEqual(m, text) {
		t.Errorf("text content differs from the structured content: %v", err)
	}
	return m
}

// toolErr is the error object of a tool error result.
func toolErr(t *testing.T, res *mcp.CallToolResult) mcptools.ToolError {
	t.Helper()
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("not a tool error: %+v", res)
	}
	var body struct {
		Error *mcptools.ToolError `json:"error"`
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &body); err != nil || body.Error == nil {
		t.Fatalf("tool error text %q is not {\"error\": {...}}: %v", text, err)
	}
	return *body.Error
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

// Every tool is listed, read-only, with an object input schema and a structured output schema;
// each output that is a record requires the 14 provenance keys where the record is.
func TestListTools(t *testing.T) {
	cs := connect(t, "http://127.0.0.1:1/resolver/v1", "k")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		a := tool.Annotations
		if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint || tool.Description == "" {
			t.Errorf("%s: annotations %+v, want read-only, idempotent, not destructive, with a description", tool.Name, a)
		}
		in := tool.InputSchema.(map[string]any)
		required, _ := in["required"].([]any)
		// search_providers takes a name or a place (q or near), neither required alone
		if in["type"] != "object" || len(required) == 0 && tool.Name != "search_providers" {
			t.Errorf("%s: input schema %v", tool.Name, in)
		}
		// MCP requires an output schema of type object; clients (the TypeScript SDK's) drop a
		// tool whose schema is anything else, a nullable object included
		if out, _ := tool.OutputSchema.(map[string]any); out["type"] != "object" {
			t.Errorf("%s: output schema of type %v, want object", tool.Name, out["type"])
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, Tools) {
		t.Fatalf("tools %v, want %v", names, Tools)
	}
	// where the provenance keys are required in each output schema: a path of properties
	// (and items, for a list)
	where := map[string][]string{
		"resolve_npi": nil, "get_facility": nil, "get_quality": nil, "get_payments": nil,
		"check_exclusion": {"fact"}, "resolve_npi_batch": {"results", "items"},
	}
	for _, tool := range res.Tools {
		path, ok := where[tool.Name]
		if !ok {
			continue
		}
		s := tool.OutputSchema.(map[string]any)
		for _, p := range path {
			if p == "items" {
				s = s["items"].(map[string]any)
			} else {
				s = s["properties"].(map[string]any)[p].(map[string]any)
			}
		}
		var required []string
		for _, r := range s["required"].([]any) {
			required = append(required, r.(string))
		}
		for _, k := range stored.ProvenanceKeys {
			if !slices.Contains(required, k) {
				t.Errorf("%s: the output schema does not require %s at %v", tool.Name, k, path)
			}
		}
	}
}

// Each tool against the real resolver: the structured result, and the text beside it, is the
// resolver's body for the same request, whole (check_exclusion's, the body's exclusion fact),
// and it fits the output schema the tool lists, which clients validate it against.
func TestCallTools(t *testing.T) {
	l := startLive(t)
	cs := connect(t, l.srv.URL, l.key)
	schemas := outputSchemas(t, cs)
	exclusionOf := func(npi string) map[string]any {
		var fact any
		for _, f := range l.srv.Raw(t, l.key, "GET", "/npi/"+npi+"?include=facts", "")["facts"].([]any) {
			if f.(map[string]any)["type"] == "exclusion" {
				fact = f
			}
		}
		return map[string]any{"npi": npi, "status": mcptools.StatusExcluded, "fact": fact}
	}
	batch := []string{l.f.Enrolled, l.f.Absent, l.f.Excluded, "1"}
	tests := []struct {
		tool         string
		args         map[string]any
		method, path string // the resolver request whose body the result is
		body         string
		want         map[string]any // the result when it is not that body
	}{
		{tool: "resolve_npi", args: map[string]any{"npi": l.f.Excluded}, method: "GET", path: "/npi/" + l.f.Excluded + "?include=facts"},
		{tool: "check_exclusion", args: map[string]any{"npi": l.f.Excluded}, want: exclusionOf(l.f.Excluded)},
		{tool: "get_facility", args: map[string]any{"ccn": l.f.CCN}, method: "GET", path: "/ccn/" + l.f.CCN},
		{tool: "resolve_npi_batch", args: map[string]any{"npis": batch}, method: "POST",
			path: "/batch/npi", body: `{"npis":["` + strings.Join(batch, `","`) + `"]}`},
		{tool: "search_providers", args: map[string]any{"q": l.f.OrganizationName, "state": l.f.OrganizationState, "limit": 5},
			method: "GET", path: "/search?" + url.Values{"q": {l.f.OrganizationName}, "state": {l.f.OrganizationState}, "limit": {"5"}}.Encode()},
		{tool: "search_providers", args: map[string]any{"near": "10001", "radius": 25, "limit": 3},
			method: "GET", path: "/search?" + url.Values{"near": {"10001"}, "radius": {"25"}, "limit": {"3"}}.Encode()},
		{tool: "search_providers", args: map[string]any{"q": l.f.OrganizationName},
			method: "GET", path: "/search?" + url.Values{"q": {l.f.OrganizationName}}.Encode()},
		{tool: "get_quality", args: map[string]any{"type": l.f.QualityType, "ccn": l.f.QualityCCN}, method: "GET",
			path: "/quality/" + l.f.QualityType + "/" + l.f.QualityCCN},
		{tool: "get_payments", args: map[string]any{"npi": l.f.Paid}, method: "GET", path: "/payments/" + l.f.Paid},
	}
	called := map[string]bool{}
	for _, tt := range tests {
		called[tt.tool] = true
		t.Run(tt.tool, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args)
			if res.IsError {
				t.Fatalf("tool error: %+v", toolErr(t, res))
			}
			got := structured(t, res)
			want := tt.want
			if want == nil {
				want = l.srv.Raw(t, l.key, tt.method, tt.path, tt.body)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("result\n%v\nwant the resolver's body\n%v", got, want)
			}
			if err := schemas[tt.tool].Validate(any(got)); err != nil {
				t.Errorf("the result does not fit the tool's output schema: %v", err)
			}
		})
	}
	if len(called) != len(Tools) {
		t.Errorf("called %v, want every tool of %v", called, Tools)
	}
}

// outputSchemas are the output schemas the server lists, by tool, resolved for validation.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if out[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	return out
}

// check_exclusion is the record's exclusion fact, unchanged, with its reading.
func TestCheckExclusion(t *testing.T) {
	l := startLive(t)
	cs := connect(t, l.srv.URL, l.key)
	for _, tt := range []struct {
		npi, status string
	}{{l.f.Excluded, mcptools.StatusExcluded}, {l.f.NotExcluded, mcptools.StatusNotExcluded}} {
		got := structured(t, call(t, cs, "check_exclusion", map[string]any{"npi": tt.npi}))
		if got["status"] != tt.status || got["npi"] != tt.npi {
			t.Errorf("%s: %v, want status %s", tt.npi, got, tt.status)
		}
		var fact any
		for _, f := range l.srv.Raw(t, l.key, "GET", "/npi/"+tt.npi+"?include=facts", "")["facts"].([]any) {
			if f.(map[string]any)["type"] == "exclusion" {
				fact = f
			}
		}
		if !reflect.DeepEqual(got["fact"], fact) {
			t.Errorf("%s: fact %v, want the resolver's %v", tt.npi, got["fact"], fact)
		}
	}
}

// Failures are tool errors with the resolver's code, status, request id and retry guidance; the
// server answers the next call after each.
func TestToolErrors(t *testing.T) {
	l := startLive(t)
	cs := connect(t, l.srv.URL, l.key)
	badKey := connect(t, l.srv.URL, "pdlive_notakey")
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"error":{"code":"source_unavailable","message":"The data store is unavailable.","request_id":"r1"}}`)
	}))
	t.Cleanup(unavailable.Close)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tooMany := make([]string, resolverclient.MaxBatch+1)
	for i := range tooMany {
		tooMany[i] = l.f.Enrolled
	}
	tests := []struct {
		name      string
		cs        *mcp.ClientSession
		tool      string
		args      map[string]any
		code      string
		status    int
		retryable bool
		after     int64
		guidance  string
	}{
		{"malformed npi", cs, "resolve_npi", map[string]any{"npi": "12345"}, mcptools.CodeInvalidNPI, 0, false, 0, "fix the input"},
		{"unknown npi", cs, "check_exclusion", map[string]any{"npi": l.f.Absent}, "not_found", 404, false, 0, "Do not retry"},
		{"malformed ccn", cs, "get_facility", map[string]any{"ccn": "0500"}, mcptools.CodeInvalidCCN, 0, false, 0, "fix the input"},
		{"batch too large", cs, "resolve_npi_batch", map[string]any{"npis": tooMany}, "batch_too_large", 400, false, 0, "Do not retry"},
		{"unknown key", badKey, "resolve_npi", map[string]any{"npi": l.f.Enrolled}, "invalid_key", 401, false, 0, "SERVICE_API_KEY"},
		{"unavailable", connect(t, unavailable.URL, "k"), "get_facility", map[string]any{"ccn": "050001"}, "source_unavailable", 503, true, 5, "exponential backoff"},
		{"unreachable", connect(t, down.URL, "k"), "resolve_npi", map[string]any{"npi": l.f.Enrolled}, mcptools.CodeUnreachable, 0, true, 0, "SERVICE_BASE_URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := toolErr(t, call(t, tt.cs, tt.tool, tt.args))
			if e.Code != tt.code || e.Status != tt.status || e.Retryable != tt.retryable || e.RetryAfterSeconds != tt.after ||
				!strings.Contains(e.Guidance, tt.guidance) || e.Message == "" {
				t.Errorf("%+v, want code %s status %d retryable %v after %d guidance with %q", e, tt.code, tt.status, tt.retryable, tt.after, tt.guidance)
			}
			if tt.status != 0 && tt.status != 503 && e.RequestID == "" {
				t.Error("no request id")
			}
		})
	}
	// arguments that do not fit the input schema: a tool error of code invalid_argument, shaped
	// as the resolver's errors, and the server answers the next call
	for _, args := range []struct {
		tool string
		args any
	}{
		{"resolve_npi", map[string]any{}},
		{"resolve_npi", nil},
		{"resolve_npi", map[string]any{"npi": 1234567893}},
		{"resolve_npi", map[string]any{"npi": l.f.Enrolled, "include": "facts"}},
		{"get_quality", map[string]any{"type": "clinic", "ccn": "050001"}},
		{"get_quality", map[string]any{"ccn": "050001"}},
		{"search_providers", map[string]any{"q": "smith", "limit": "ten"}},
		{"resolve_npi_batch", map[string]any{"npis": "1234567893"}},
	} {
		t.Run(fmt.Sprint("schema ", args.tool, " ", args.args), func(t *testing.T) {
			e := toolErr(t, call(t, cs, args.tool, args.args))
			if e.Code != mcptools.CodeInvalidArgument || e.Status != 0 || e.Retryable || !strings.Contains(e.Guidance, "no request was sent") || e.Message == "" {
				t.Errorf("%+v, want %s without a status, not retryable", e, mcptools.CodeInvalidArgument)
			}
			if res := call(t, cs, "resolve_npi", map[string]any{"npi": l.f.Enrolled}); res.IsError {
				t.Fatalf("the server did not answer the next call: %+v", res)
			}
		})
	}
}

// A spent hourly budget is a tool error telling when to retry: the sandbox key's 100 requests
// per hour, spent against the real gate.
func TestRateLimited(t *testing.T) {
	l := startLive(t)
	secret, _, err := apikey.NewManager(demostore.Open(t).Store, nil).Sandbox(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c, err := resolverclient.New(l.srv.URL, resolverclient.Options{APIKey: secret.Reveal(), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := c.NPI(context.Background(), l.f.Enrolled); err != nil {
			break
		}
	}
	e := toolErr(t, call(t, connect(t, l.srv.URL, secret.Reveal()), "resolve_npi", map[string]any{"npi": l.f.Enrolled}))
	if e.Code != "rate_limited" || e.Status != 429 || !e.Retryable || e.RetryAfterSeconds <= 0 || !strings.Contains(e.Guidance, "Retry-After") {
		t.Errorf("%+v, want rate_limited with the seconds to wait", e)
	}
}
