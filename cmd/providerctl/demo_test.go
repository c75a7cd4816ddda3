package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/conformance"
	"providerdir/ingest"
	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/rest/apikey"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store/embedded"
)

// The demo command issues working credentials once and prints the same ones on every run.
func TestDemoPrintsWorkingCredentials(t *testing.T) {
	ctx := context.Background()
	ref := reference.Embedded()
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(ctx, synth.Config{Providers: 300, Seed: 3, Out: drop, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := embedded.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	quiet := slog.New(slog.DiscardHandler)
	var out strings.Builder
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, ""); err == nil {
		t.Fatal("demo on an empty store succeeded; it should ask for an ingest first")
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: drop}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, ""); err != nil {
		t.Fatal(err)
	}
	first := out.String()
	kept, err := os.ReadFile(filepath.Join(dir, demoKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(kept))
	if !strings.Contains(first, key) {
		t.Errorf("printed tour lacks the pilot key %s:\n%s", key, first)
	}
	if _, err := apikey.NewManager(s, nil).Authenticate(ctx, apikey.Supply, key); err != nil {
		t.Errorf("the demo pilot key does not authenticate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sandbox-client.jwk")); err != nil {
		t.Errorf("no SMART sandbox key file: %v", err)
	}
	out.Reset()
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, `-H "Accept: application/fhir+json" -H "Prefer: respond-async" 'http://127.0.0.1:8080/fhir/$export?_type=Practitioner'`) {
		t.Errorf("the tour lacks the bulk export's kick-off:\n%s", first)
	}
	if !strings.Contains(first, "curl http://127.0.0.1:9090/metrics") || strings.Contains(first, "8080/metrics") {
		t.Errorf("the tour does not send metrics to the admin listener:\n%s", first)
	}
	if out.String() != first {
		t.Errorf("a second run printed other credentials:\n%s\nthen\n%s", first, out.String())
	}

	// --json writes the same credentials for a conformance run, owner-only even over a file
	// others could read.
	credFile := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(credFile, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080"}, dir, credFile); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(credFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("credentials file: mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	creds, err := conformance.ReadCredentials(credFile)
	if err != nil {
		t.Fatal(err)
	}
	sandbox, _, err := apikey.NewManager(s, nil).Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if creds.BaseURL != "http://127.0.0.1:8080" || creds.SupplyKey != key || creds.ResolverKey != sandbox.Reveal() ||
		creds.SMARTClientID != "sandbox" || creds.SMARTKeyFile != filepath.Join(dir, "sandbox-client.jwk") {
		t.Errorf("credentials file: %+v", creds)
	}
	if _, err := creds.PrivateKey(); err != nil {
		t.Errorf("credentials file's SMART key: %v", err)
	}

	// The credentials are the owner's only, and a credential file others may read stops the demo.
	for _, name := range []string{demoKeyFile, "sandbox-client.jwk"} {
		file := filepath.Join(dir, name)
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", name, fi.Mode().Perm(), err)
		}
		if err := os.Chmod(file, 0o644); err != nil {
			t.Fatal(err)
		}
		err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, "")
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+file) {
			t.Errorf("%s open to others: %v, want a refusal saying chmod 600", name, err)
		}
		if err := os.Chmod(file, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDemoDir(t *testing.T) {
	tests := []struct {
		name  string
		dir   string
		store string
		want  string
	}{
		{"beside an embedded store", "", "embedded:/srv/pd/db", "/srv/pd"},
		{"beside the default store", "", config.DefaultStore, "data"},
		{"a MongoDB store keeps them where the default store would", "", "mongodb://db.internal:27017/providers", "data"},
		{"--dir wins", "/tmp/keys", "mongodb://db.internal:27017/providers", "/tmp/keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := storeopen.Parse(tt.store)
			if err != nil {
				t.Fatal(err)
			}
			if got := demoDir(tt.dir, spec); got != tt.want {
				t.Errorf("demoDir(%q, %s) = %q, want %q", tt.dir, tt.store, got, tt.want)
			}
		})
	}
}

// TestDemoOnMongo runs `make run`'s two providerctl steps against a MongoDB store: ingest the
// drop, then demo with no --dir, whose key files land in data/ under the working directory.
// It needs MONGODB_URI (scripts/with-mongotest.sh sets it) and skips without it, except in CI.
func TestDemoOnMongo(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		// CI must run it: a test that skipped there would pass while testing nothing.
		if os.Getenv("CI") != "" {
			t.Fatal("MONGODB_URI is not set; CI runs the tests through scripts/with-mongotest.sh")
		}
		t.Skip("MONGODB_URI is not set (scripts/with-mongotest.sh sets it)")
	}
	db := fmt.Sprintf("demotest_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	dbURI := withDatabase(t, uri, db)
	ctx := context.Background()
	t.Cleanup(func() {
		client, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			t.Errorf("connect to drop %s: %v", db, err)
			return
		}
		defer func() { _ = client.Disconnect(ctx) }()
		if err := client.Database(db).Drop(ctx); err != nil {
			t.Errorf("drop %s: %v", db, err)
		}
	})
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(ctx, synth.Config{Providers: 300, Seed: 3, Out: drop, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := invoke(t, nil, "ingest", "--store", dbURI, drop); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := invoke(t, nil, "demo", "--store", dbURI)
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	for _, name := range []string{demoKeyFile, config.SandboxKeyFile} {
		file := filepath.Join("data", name)
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want a file of mode 0600", file, fi, err)
		}
		if !strings.Contains(stdout, file) {
			t.Errorf("the tour does not name %s:\n%s", file, stdout)
		}
	}
}

// withDatabase puts db into the path of a MongoDB URI such as mongodb://host:port/?options.
func withDatabase(t *testing.T, uri, db string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatalf("MONGODB_URI: %v", err)
	}
	u.Path = "/" + db
	return u.String()
}
