package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"providerdir/ingest"
	"providerdir/rest/apikey"
	"providerdir/source/synth"
	"providerdir/store/embedded"
)

// The demo command issues working credentials once and prints the same ones on every run.
func TestDemoPrintsWorkingCredentials(t *testing.T) {
	ctx := context.Background()
	ref := testReference
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

	var out strings.Builder
	if err := demo(ctx, &out, s, "http://127.0.0.1:8080", dir); err == nil {
		t.Fatal("demo on an empty store succeeded; it should ask for an ingest first")
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: drop}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := demo(ctx, &out, s, "http://127.0.0.1:8080", dir); err != nil {
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
	if err := demo(ctx, &out, s, "http://127.0.0.1:8080", dir); err != nil {
		t.Fatal(err)
	}
	if out.String() != first {
		t.Errorf("a second run printed other credentials:\n%s\nthen\n%s", first, out.String())
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
		err := demo(ctx, &out, s, "http://127.0.0.1:8080", dir)
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+file) {
			t.Errorf("%s open to others: %v, want a refusal saying chmod 600", name, err)
		}
		if err := os.Chmod(file, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
