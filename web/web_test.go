package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/mux"
)

func TestDocumentPages(t *testing.T) {
	r := mux.NewRouter()
	Routes(r)
	srv := httptest.NewServer(r)
	defer srv.Close()
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/docs/limitations", 200, "# Limitations of the data"},
		{"/docs/methodology", 200, "/docs/methodology/specialty-supply"},
		{"/docs/methodology/specialty-supply", 200, "v20"},
		{"/docs/methodology/no-such-study", 404, ""},
		{"/docs/methodology/..%2fARCHITECTURE", 404, ""},
	}
	for _, tt := range tests {
		resp, err := http.Get(srv.URL + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.status || !strings.Contains(string(b), tt.want) {
			t.Errorf("%s: %d %.60q, want %d containing %q", tt.path, resp.StatusCode, b, tt.status, tt.want)
		}
	}
}
