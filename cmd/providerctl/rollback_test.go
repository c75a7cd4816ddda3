package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/store/embedded"
)

// rollback serves the previous snapshot, a second one returns, and with no previous snapshot
// (never switched, or released after the rollback window) it fails with one line saying why.
func TestRollback(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap := store.Snapshot{}
	for _, g := range []string{"g0000000001", "g0000000002"} {
		if snap, err = store.Switch(ctx, s, snap, map[string]string{"practitioner": g}, "ingest "+g); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	env := map[string]string{"PROVIDERD_STORE": "embedded:" + dir}

	code, stdout, stderr := invoke(t, env, "rollback")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "practitioner g0000000002 -> g0000000001") || !strings.Contains(stdout, `from "ingest g0000000002"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = invoke(t, env, "rollback")
	if code != 0 || !strings.Contains(stdout, "practitioner g0000000001 -> g0000000002") {
		t.Fatalf("second rollback: exit %d, %q", code, stdout)
	}

	s, err = embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if released, err := store.ReleasePrevious(ctx, s, 0, time.Now()); err != nil || !released {
		t.Fatalf("release: %v %v", released, err)
	}
	s.Close()
	code, _, stderr = invoke(t, env, "rollback")
	if code != 1 || !strings.Contains(stderr, "no previous snapshot to roll back to") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("after the release: exit %d, stderr %q", code, stderr)
	}
}
