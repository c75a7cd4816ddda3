package service_test

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"providerdir/internal/config"
	"providerdir/rest/apikey"
	"providerdir/service"
	"providerdir/store/embedded"
	"providerdir/store/remote"
	"providerdir/testing/liveserver"
)

// The service built from a configuration serves every surface on one handler, each in its own
// error shape, and the store socket of its embedded store; Close stops the socket.
func TestNewServesEverySurface(t *testing.T) {
	// Unix socket paths are short; the test's temp dir may not be.
	dir, err := os.MkdirTemp("", "svc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir); os.Remove(remote.SocketPath(dir)) })
	st, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })

	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	cfg, err := config.Parse([]string{"--store", "embedded:" + dir, "--base-url", base}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	svc, err := service.New(t.Context(), cfg, service.Options{Store: st, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = svc.Handler
	srv.Start()
	t.Cleanup(srv.Close)
	secret, _, err := svc.Gate.Keys().Create(t.Context(), apikey.TierPro, t.Name(), apikey.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := secret.Reveal()

	tests := []struct {
		path        string
		key         string
		status      int
		contentType string
		body        string
	}{
		{"/v1/health", "", 200, "application/json", ""},
		{"/v1/no-such", "", 401, "application/json", `"error"`},
		{"/resolver/v1/no-such", key, 404, "application/json", `"error"`},
		{"/resolver/v1/no-such", "", 401, "application/json", `"error"`},
		{"/fhir/metadata", "", 200, "application/fhir+json", `"CapabilityStatement"`},
		{"/fhir/.well-known/smart-configuration", "", 200, "application/json", `"token_endpoint"`},
		{"/api/no-such", "", 404, "application/json", ""},
		{"/", "", 200, "text/html", ""},
		{"/readyz", "", 200, "", ""},
	}
	for _, tt := range tests {
		var header []string
		if tt.key != "" {
			header = []string{"X-Service-Key", tt.key}
		}
		resp, body := liveserver.Fetch(t, http.MethodGet, srv.URL+tt.path, nil, header...)
		if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) || !strings.Contains(string(body), tt.body) {
			t.Errorf("GET %s: %d %s %.80q, want %d %s containing %q", tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.contentType, tt.body)
		}
	}

	socket := remote.SocketPath(dir)
	if _, err := os.Stat(socket); err != nil {
		t.Fatalf("the store socket: %v", err)
	}
	svc.Close()
	if c, err := net.Dial("unix", socket); err == nil {
		c.Close()
		t.Errorf("the store socket still answers after Close")
	}
}
