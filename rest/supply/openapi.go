package supply

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
)

// openAPISource is the interface description of the supply API and the resolver (OpenAPI 3.0).
// It is written by hand, checked by the tests against kin-openapi's validator and against every
// response the black-box tests receive, and served with the configured base URL as its server.
//
//go:embed openapi.json
var openAPISource []byte

// openAPIDoc is the served document, built once per API.
type openAPIDoc struct {
	once sync.Once
	body []byte
	err  error
}

// openAPIServer is the server entry of the embedded document, replaced by the configured base
// URL when served.
const openAPIServer = `"servers": [
  {
   "url": "https://directory.example.org",
   "description": "Replaced by the configured base URL when served."
  }
 ]`

// OpenAPI returns the interface description with the API's base URL as its one server. The
// document is otherwise served byte for byte as written, in its authored order.
func (a *API) OpenAPI() ([]byte, error) {
	a.openapi.once.Do(func() {
		if bytes.Count(openAPISource, []byte(openAPIServer)) != 1 {
			a.openapi.err = errors.New("openapi.json: the servers entry is not the expected placeholder")
			return
		}
		url, err := json.Marshal(a.baseURL)
		if err != nil {
			a.openapi.err = err
			return
		}
		server := `"servers": [{"url": ` + string(url) + `, "description": "This deployment."}]`
		a.openapi.body = bytes.Replace(openAPISource, []byte(openAPIServer), []byte(server), 1)
	})
	return a.openapi.body, a.openapi.err
}

// openAPI serves GET /v1/openapi.json, public: the document itself, not wrapped in data/meta.
func (a *API) openAPI(w http.ResponseWriter, r *http.Request) {
	body, err := a.OpenAPI()
	if err != nil {
		fail(w, r, "openapi: build the document", err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(body)
}
