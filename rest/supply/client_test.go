package supply_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"providerdir/rest/internal/testenv"
)

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// description loads, validates and routes the env's served interface description.
func (e *env) description(tb testing.TB) (*openapi3.T, routers.Router) {
	tb.Helper()
	return testenv.Description(tb, e.url)
}

// get sends a GET as the env's client; headers are name/value pairs.
func (e *env) get(tb testing.TB, path string, headers ...string) response {
	tb.Helper()
	return e.do(tb, http.MethodGet, path, headers...)
}

// do sends one request and validates the response against the interface description. Paths the
// description does not route (an unknown path under /v1) and planned operations are not checked.
func (e *env) do(tb testing.TB, method, path string, headers ...string) response {
	tb.Helper()
	req, err := http.NewRequest(method, e.url+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", e.ip)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	if out.raw, err = io.ReadAll(resp.Body); err != nil {
		tb.Fatal(err)
	}
	if len(out.raw) > 0 && method != http.MethodHead {
		if err := json.Unmarshal(out.raw, &out.body); err != nil {
			tb.Fatalf("%s %s: body is not a JSON object: %q", method, path, out.raw)
		}
	}
	e.validate(tb, req, out)
	return out
}

func (e *env) validate(tb testing.TB, req *http.Request, r response) {
	tb.Helper()
	testenv.Validate(tb, e.url, req, r.status, r.header, r.raw)
}

func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// errorCode is error.code of an error envelope, "" for a success.
func (r response) errorCode() string {
	e, _ := r.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// data is the success envelope's data as an object.
func (r response) data() map[string]any {
	d, _ := r.body["data"].(map[string]any)
	return d
}

// rows is the success envelope's data as an array of objects.
func (r response) rows() []map[string]any {
	list, _ := r.body["data"].([]any)
	out := make([]map[string]any, len(list))
	for i, v := range list {
		out[i], _ = v.(map[string]any)
	}
	return out
}

func (r response) meta() map[string]any {
	m, _ := r.body["meta"].(map[string]any)
	return m
}

// value is the value of a ProvenanceField held under key of an object.
func value(o map[string]any, key string) any {
	f, _ := o[key].(map[string]any)
	return f["value"]
}

// num is a JSON number as an int64.
func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}
