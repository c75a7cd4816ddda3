package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/mux"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/smart"
	"providerdir/testing/backends"
)

// writeJWKS writes a fresh P-384 key's public JWKS (or, with private, the private key itself) to
// a file and returns its path.
func writeJWKS(t *testing.T, dir string, private bool) string {
	t.Helper()
	raw, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := jwk.Import(raw)
	k.Set(jwk.KeyIDKey, "k1")
	if !private {
		k, _ = k.PublicKey()
	}
	set := jwk.NewSet()
	set.AddKey(k)
	b, _ := json.Marshal(set)
	f, err := os.CreateTemp(dir, "jwks-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

func TestClientsLifecycle(t *testing.T) {
	dir := t.TempDir()
	st := "embedded:" + filepath.Join(dir, "db")
	jwks := writeJWKS(t, dir, false)

	code, out, errOut := invoke(t, nil, "clients", "add", "--store", st, "--name", "Acme Directory Sync", "--jwks", jwks,
		"--scopes", "system/Practitioner.read system/Organization.rs")
	if code != 0 {
		t.Fatalf("add: exit %d, %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	id := lines[len(lines)-1]
	if len(id) != 32 {
		t.Fatalf("last line %q is not a client id", id)
	}

	steps := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stdout []string // substrings
		stderr string   // substring of the one stderr line
	}{
		{"list", []string{"clients", "list", "--store", st}, nil, 0, []string{id, "Acme Directory Sync", "enabled", "6000/min (default)", "inline JWKS (1)", "system/Practitioner.read system/Organization.rs"}, ""},
		{"update the budget", []string{"clients", "update", id, "--store", st, "--budget", "250"}, nil, 0, []string{id, "250/min"}, ""},
		{"list shows the budget", []string{"clients", "list", "--store", st}, nil, 0, []string{"250/min"}, ""},
		{"update to a negative budget", []string{"clients", "update", id, "--store", st, "--budget", "-1"}, nil, 2, nil, "whole number"},
		{"update to a budget over the maximum", []string{"clients", "update", id, "--store", st, "--budget", "1000001"}, nil, 2, nil, "at most 1000000"},
		{"update to a budget that is no number", []string{"clients", "update", id, "--store", st, "--budget", "fast"}, nil, 2, nil, "whole number"},
		{"update without --budget", []string{"clients", "update", id, "--store", st}, nil, 2, nil, "--budget"},
		{"update without an id", []string{"clients", "update", "--store", st, "--budget", "5"}, nil, 2, nil, "exactly one client id"},
		{"update an unknown id", []string{"clients", "update", "nope", "--store", st, "--budget", "5"}, nil, 1, nil, "no such client"},
		{"refused updates changed nothing", []string{"clients", "list", "--store", st}, nil, 0, []string{"250/min"}, ""},
		{"update to unmetered", []string{"clients", "update", id, "--store", st, "--budget", "0"}, nil, 0, []string{"unmetered"}, ""},
		{"list shows unmetered", []string{"clients", "list", "--store", st}, nil, 0, []string{"unmetered"}, ""},
		{"update back to the default", []string{"clients", "update", "--budget", "default", id, "--store", st}, nil, 0, []string{"6000/min (default)"}, ""},
		{"add with a budget", []string{"clients", "add", "--store", st, "--name", "Nightly job", "--jwks", jwks, "--scopes", "system/*.read", "--budget", "7"}, nil, 0, []string{"budget 7/min"}, ""},
		{"add with a negative budget", []string{"clients", "add", "--store", st, "--name", "x", "--jwks", jwks, "--scopes", "system/*.read", "--budget", "-3"}, nil, 2, nil, "whole number"},
		{"disable, id before flag", []string{"clients", "disable", id, "--store", st}, nil, 0, []string{"disabled"}, ""},
		{"list shows disabled", []string{"clients", "list"}, map[string]string{"PROVIDERD_STORE": st}, 0, []string{"disabled"}, ""},
		{"enable", []string{"clients", "enable", "--store", st, id}, nil, 0, []string{"enabled"}, ""},
		{"rotate to a URL", []string{"clients", "rotate", id, "--store", st, "--jwks-url", "https://acme.example/jwks.json"}, nil, 0, []string{"https://acme.example/jwks.json"}, ""},
		{"list shows rotation", []string{"clients", "list", "--store", st}, nil, 0, []string{"https://acme.example/jwks.json", "enabled"}, ""},
		{"rotate an unknown id", []string{"clients", "rotate", "nope", "--store", st, "--jwks", jwks}, nil, 1, nil, "no such client"},
		{"disable an unknown id", []string{"clients", "disable", "nope", "--store", st}, nil, 1, nil, "no such client"},
		{"no action", []string{"clients"}, nil, 2, nil, "needs an action"},
		{"unknown action", []string{"clients", "frob"}, nil, 2, nil, `unknown action "frob"`},
		{"add without name", []string{"clients", "add", "--store", st, "--jwks", jwks, "--scopes", "system/*.read"}, nil, 2, nil, "--name"},
		{"add with both key sources", []string{"clients", "add", "--store", st, "--name", "x", "--jwks", jwks, "--jwks-url", "https://a.example/j", "--scopes", "system/*.read"}, nil, 2, nil, "not both"},
		{"add with a bad scope", []string{"clients", "add", "--store", st, "--name", "x", "--jwks", jwks, "--scopes", "system/Patient.read"}, nil, 1, nil, "serves"},
		{"add with a private key", []string{"clients", "add", "--store", st, "--name", "x", "--jwks", writeJWKS(t, dir, true), "--scopes", "system/*.read"}, nil, 1, nil, "public keys only"},
		{"add with an http URL", []string{"clients", "add", "--store", st, "--name", "x", "--jwks-url", "http://a.example/j", "--scopes", "system/*.read"}, nil, 1, nil, "https"},
		{"disable without id", []string{"clients", "disable", "--store", st}, nil, 2, nil, "exactly one client id"},
		{"unknown flag", []string{"clients", "list", "--nope"}, nil, 2, nil, "not defined"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			code, out, errOut := invoke(t, s.env, s.args...)
			if code != s.code {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, s.code, out, errOut)
			}
			for _, want := range s.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if s.stderr == "" && errOut != "" || s.stderr != "" && (strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, s.stderr)) {
				t.Errorf("stderr %q, want one line with %q", errOut, s.stderr)
			}
		})
	}
}

// TestClientsToken gets a token from a running server with the sandbox key file it wrote: the
// newcomer's one command.
func TestClientsToken(t *testing.T) {
	dir := t.TempDir()
	st := backends.Embedded(t)
	keyFile := filepath.Join(dir, "sandbox-client.jwk")
	r := mux.NewRouter()
	srv := httptest.NewServer(r)
	defer srv.Close()
	svc, err := smart.New(smart.Config{Store: st, BaseURL: srv.URL, SandboxKeyFile: keyFile})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	svc.Routes(r.PathPrefix("/fhir").Subrouter())

	code, out, errOut := invoke(t, map[string]string{"PROVIDERD_BASE_URL": srv.URL}, "clients", "token", "--key", keyFile)
	if code != 0 || strings.Count(out, ".") != 2 || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = invoke(t, nil, "clients", "token", "--key", keyFile, "--token-url", svc.TokenURL(), "--client-id", "someone-else")
	if code != 1 || !strings.Contains(errOut, "401 invalid_client") {
		t.Fatalf("wrong client id: exit %d, stderr %q", code, errOut)
	}
	if code, _, _ := invoke(t, nil, "clients", "token"); code != 2 {
		t.Errorf("token without --key: exit %d, want 2", code)
	}
}
