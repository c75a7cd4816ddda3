package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"providerdir/catalog"
	"providerdir/internal/buildinfo"
	"providerdir/store"
	"providerdir/store/embedded"
)

// invoke runs providerctl in-process and returns its exit status and output.
func invoke(t *testing.T, environ map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut, getenv: func(k string) string { return environ[k] }}
	code = run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

func TestDispatch(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		code       int
		stdoutHas  []string
		stderrLine string // the one stderr line must contain this; "" means stderr must be empty
	}{
		{"no command", nil, nil, 2, nil, "no command given"},
		{"unknown command", []string{"frobnicate"}, nil, 2, nil, `unknown command "frobnicate"`},
		{"help", []string{"help"}, nil, 0, []string{"status", "version", "Exit status: 0 success, 1 failure, 2 bad usage."}, ""},
		{"--help", []string{"--help"}, nil, 0, []string{"commands:"}, ""},
		{"help of a command", []string{"help", "status"}, nil, 0, []string{"usage: providerctl status [--store STORE]", "-store", "embedded:./data/db"}, ""},
		{"help of an unknown command", []string{"help", "nope"}, nil, 2, nil, `unknown command "nope"`},
		{"help with two names", []string{"help", "a", "b"}, nil, 2, nil, "at most one"},
		{"command -h", []string{"status", "-h"}, nil, 0, []string{"usage: providerctl status"}, ""},
		{"version", []string{"version"}, nil, 0, []string{buildinfo.PipelineVersion()}, ""},
		{"version with an argument", []string{"version", "x"}, nil, 2, nil, "providerctl version: takes no arguments"},
		{"unknown flag", []string{"status", "--nope"}, nil, 2, nil, "providerctl status: flag provided but not defined: -nope"},
		{"bad store flag", []string{"status", "--store", "sqlite:x"}, nil, 2, nil, "invalid --store"},
		{"bad store env", []string{"status"}, map[string]string{"PROVIDERD_STORE": "nope"}, 2, nil, "invalid PROVIDERD_STORE"},
		{"positional to status", []string{"status", "extra"}, nil, 2, nil, `takes no arguments, got "extra"`},
		{"missing embedded store", []string{"status", "--store", "embedded:" + t.TempDir() + "/absent"}, nil, 1, nil, "providerctl status: open store embedded:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := invoke(t, tt.env, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, tt.code, stdout, stderr)
			}
			for _, s := range tt.stdoutHas {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if tt.stderrLine == "" {
				if stderr != "" {
					t.Errorf("unexpected stderr %q", stderr)
				}
				return
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") || !strings.Contains(stderr, tt.stderrLine) {
				t.Errorf("stderr %q, want one line containing %q", stderr, tt.stderrLine)
			}
		})
	}
}

func TestStatusEmptyStore(t *testing.T) {
	dir := t.TempDir()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	code, stdout, stderr := invoke(t, map[string]string{"PROVIDERD_STORE": "embedded:" + dir}, "status")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "serving snapshot: none (nothing has been ingested)\n\nmanifests: none\n"
	if stdout != want {
		t.Fatalf("stdout\n%q\nwant\n%q", stdout, want)
	}
}

func TestStatusServingSnapshot(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	finished := time.Date(2025, 6, 8, 14, 30, 0, 0, time.UTC)
	var docs []store.Document
	for _, m := range []catalog.Manifest{
		{Family: "nppes", DatasetID: "nppes", Snapshot: "2025-06-08", Generation: "g0000000001", Rows: 2000, Rejected: 3, FinishedAt: finished},
		{Family: "leie", DatasetID: "oig_leie_exclusions", Snapshot: "2025-05-31", Generation: "g0000000001", Rows: 50, FinishedAt: finished},
	} {
		body, _ := json.Marshal(m)
		docs = append(docs, store.Document{ID: m.Family, Body: body})
	}
	if err := s.Put(ctx, "g0000000001", catalog.ManifestCollection, docs); err != nil {
		t.Fatal(err)
	}
	snap, err := store.Switch(ctx, s, store.Snapshot{}, map[string]string{
		"practitioner": "g0000000001", "organization": "g0000000001", catalog.ManifestCollection: "g0000000001",
	}, "ingest nppes 2025-06-08")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	code, stdout, stderr := invoke(t, nil, "status", "--store", "embedded:"+dir)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "serving snapshot: version 1, switched " + snap.SwitchedAt.UTC().Format(time.RFC3339) + " (ingest nppes 2025-06-08)\n" +
		"\n" +
		"COLLECTION    GENERATION\n" +
		"manifests     g0000000001\n" +
		"organization  g0000000001\n" +
		"practitioner  g0000000001\n" +
		"\n" +
		"FAMILY  DATASET ID           SNAPSHOT    ROWS  REJECTED  GENERATION   FINISHED\n" +
		"leie    oig_leie_exclusions  2025-05-31  50    0         g0000000001  2025-06-08T14:30:00Z\n" +
		"nppes   nppes                2025-06-08  2000  3         g0000000001  2025-06-08T14:30:00Z\n"
	if stdout != want {
		t.Fatalf("stdout\n%s\nwant\n%s", stdout, want)
	}
}

func TestStatusWhileStoreIsInUse(t *testing.T) {
	dir := t.TempDir()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	code, _, stderr := invoke(t, nil, "status", "--store", "embedded:"+dir)
	if code != 1 || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q: want 1 and one line", code, stderr)
	}
}

// A plain `go build` of a checkout, without make's link-time commit, names its commit from the
// version-control facts the toolchain stamps. Stamping is asked for explicitly, since a Go
// environment may turn it off (GOFLAGS=-buildvcs=false); it is on by default.
func TestPlainBuildKnowsItsCommit(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "--short=7", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	dirs, err := exec.Command("git", "rev-parse", "--git-dir", "--git-common-dir").Output()
	if f := strings.Fields(string(dirs)); err != nil || len(f) != 2 || f[0] != f[1] {
		t.Skip("a linked worktree: the Go toolchain stamps no version-control facts there")
	}
	out, err := exec.Command(builtProviderctl(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); len(got) == 0 || got[0] != strings.TrimSpace(string(head)) {
		t.Fatalf("version printed %q, HEAD is %s", out, head)
	}
}
