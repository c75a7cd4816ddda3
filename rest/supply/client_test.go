package supply_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Every response a black-box test receives is checked against the interface description the
// server itself serves (GET /v1/openapi.json): status documented for the operation, required
// headers present and well-formed, body valid against the schema. So the document is tested by
// real traffic, and the traffic by the document.

func init() {
	// OpenAPI leaves "uri" unchecked by default; these responses promise absolute URLs.
	openapi3.DefineStringFormatValidator("uri", openapi3.NewCallbackValidator(func(s string) error {
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() || u.Host == "" {
			return errors.New("not an absolute URL")
		}
		return nil
	}))
}

// response is what a test looks at.
type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// interfaceDoc is the served document of one env, loaded once.
type interfaceDoc struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

var docs sync.Map // env url -> *interfaceDoc

// description loads, validates and routes the env's served interface description.
func (e *env) description(tb testing.TB) (*openapi3.T, routers.Router) {
	tb.Helper()
	v, _ := docs.LoadOrStore(e.url, &interfaceDoc{})
	d := v.(*interfaceDoc)
	d.once.Do(func() {
		resp, err := http.Get(e.url + "/v1/openapi.json")
		if err != nil {
			d.err = err
			return
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			d.err = err
			return
		}
		loader := openapi3.NewLoader()
		if d.doc, d.err = loader.LoadFromData(raw); d.err != nil {
			return
		}
		if d.err = d.doc.Validate(context.Background()); d.err != nil {
			return
		}
		d.router, d.err = gorillamux.NewRouter(d.doc)
	})
	if d.err != nil {
		tb.Fatalf("interface description: %v", d.err)
	}
	return d.doc, d.router
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
	_, router := e.description(tb)
	route, params, err := router.FindRoute(req)
	if err != nil || route.Operation.Extensions["x-implementation-status"] != "served" {
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 r.status,
		Header:                 r.header,
		Body:                   io.NopCloser(bytes.NewReader(r.raw)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		tb.Errorf("%s %s: %d response does not match the interface description: %v\nbody: %.600s", req.Method, req.URL.Path, r.status, err, r.raw)
	}
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
