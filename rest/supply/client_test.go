package supply_test

import (
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"providerdir/testing/apiclient"
	"providerdir/testing/openapicheck"
)

// response is what a test looks at.
type response struct{ apiclient.Response }

// description loads, validates and routes the env's served interface description.
func (e *env) description(tb testing.TB) (*openapi3.T, routers.Router) {
	tb.Helper()
	return openapicheck.Description(tb, e.URL)
}

// get sends a GET as the env's client; headers are name/value pairs.
func (e *env) get(tb testing.TB, path string, headers ...string) response {
	tb.Helper()
	return e.do(tb, http.MethodGet, path, headers...)
}

// do sends one request without a body and validates the response against the interface
// description.
func (e *env) do(tb testing.TB, method, path string, headers ...string) response {
	tb.Helper()
	return response{e.Do(tb, method, path, nil, headers...)}
}

// data is the success envelope's data as an object.
func (r response) data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// rows is the success envelope's data as an array of objects.
func (r response) rows() []map[string]any {
	list, _ := r.Body["data"].([]any)
	out := make([]map[string]any, len(list))
	for i, v := range list {
		out[i], _ = v.(map[string]any)
	}
	return out
}

func (r response) meta() map[string]any {
	m, _ := r.Body["meta"].(map[string]any)
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
