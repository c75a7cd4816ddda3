// Package openapicheck holds every response a black-box test receives to the interface
// description the server itself serves (GET /v1/openapi.json): status documented for the
// operation, required headers present and well-formed, body valid against the schema. So the
// document is tested by real traffic, and the traffic by the document. Only tests import it.
package openapicheck

import (
	"bytes"
	"context"
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

// Interface is the served interface description of one server, loaded once.
type Interface struct {
	once   sync.Once
	doc    *openapi3.T
	router routers.Router
	err    error
}

var interfaces sync.Map // server URL -> *Interface

// Description loads, validates and routes the interface description the server at serverURL
// serves.
func Description(tb testing.TB, serverURL string) (*openapi3.T, routers.Router) {
	tb.Helper()
	v, _ := interfaces.LoadOrStore(serverURL, &Interface{})
	d := v.(*Interface)
	d.once.Do(func() {
		resp, err := http.Get(serverURL + "/v1/openapi.json")
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
		if d.doc, d.err = openapi3.NewLoader().LoadFromData(raw); d.err != nil {
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

// Validate checks one response (status, header, raw body) to req against the description the
// server at serverURL serves. Paths the description does not route and planned operations are
// not checked.
func Validate(tb testing.TB, serverURL string, req *http.Request, status int, header http.Header, raw []byte) {
	tb.Helper()
	_, router := Description(tb, serverURL)
	route, params, err := router.FindRoute(req)
	if err != nil || route.Operation.Extensions["x-implementation-status"] != "served" {
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(raw)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		tb.Errorf("%s %s: %d response does not match the interface description: %v\nbody: %.600s", req.Method, req.URL.Path, status, err, raw)
	}
}
