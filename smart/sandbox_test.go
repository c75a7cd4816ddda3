package smart_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/smart"
)

// TestSandboxClient is the newcomer's path: the key file the server wrote, one token request
// with it, reads inside and outside the 200-provider subset.
func TestSandboxClient(t *testing.T) {
	e := newEnv(t)
	subset := []string{"1234567893", "1245319599"}
	serveSandbox(t, e.st, subset)

	fi, err := os.Stat(e.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
	key, err := jwk.ReadFile(e.keyFile)
	if err != nil || key.Len() != 1 {
		t.Fatalf("key file: %v", err)
	}
	priv, _ := key.Key(0)
	if isPriv, _ := jwk.IsPrivateKey(priv); !isPriv {
		t.Fatal("key file holds no private key")
	}
	tr, err := smart.RequestToken(context.Background(), http.DefaultClient, e.tokenURL, smart.SandboxClientID, priv, "system/*.read")
	if err != nil {
		t.Fatal(err)
	}
	status, _, body := e.get(t, "/fhir/Practitioner/1234567893", tr.AccessToken)
	if status != http.StatusOK || body["grant"].(map[string]any)["Sandbox"] != true {
		t.Fatalf("read inside the subset: %d %v", status, body)
	}
	if status, _, _ := e.get(t, "/fhir/Practitioner/1003000126", tr.AccessToken); status != http.StatusNotFound {
		t.Errorf("sandbox read outside the subset: %d, want 404", status)
	}

	if _, err := smart.RotateClient(context.Background(), e.st, smart.SandboxClientID, rsaKey(t, "a").jwks, ""); !errors.Is(err, smart.ErrInvalidSpec) {
		t.Errorf("rotating the sandbox client: %v", err)
	}
	// A second start on the same store keeps the same client and key.
	again := newEnvOn(t, e.st)
	a, _ := os.ReadFile(e.keyFile)
	b, _ := os.ReadFile(again.keyFile)
	if string(a) != string(b) {
		t.Error("a restart changed the sandbox key")
	}
}

// A sandbox key file that other users may read stops the start with a message naming the file
// and the fix; once fixed, the service starts.
func TestSandboxKeyFileOpenToOthers(t *testing.T) {
	e := newEnv(t)
	if err := os.Chmod(e.keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := smart.Config{Store: e.st, BaseURL: "https://directory.example", SandboxKeyFile: e.keyFile}
	_, err := smart.New(cfg)
	if err == nil || !strings.Contains(err.Error(), e.keyFile) || !strings.Contains(err.Error(), "chmod 600 "+e.keyFile) {
		t.Fatalf("start with a key file open to others: %v", err)
	}
	if err := os.Chmod(e.keyFile, 0o600); err != nil {
		t.Fatal(err)
	}
	svc, err := smart.New(cfg)
	if err != nil {
		t.Fatalf("after chmod 600: %v", err)
	}
	svc.Close()
}
