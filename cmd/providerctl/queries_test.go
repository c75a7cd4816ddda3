package main

import (
	"path/filepath"
	"strings"
	"testing"

	"providerdir/match/queryset"
)

// generate writes the drop's labelled search query set beside its files, and search-queries
// writes the same set again for an existing drop.
func TestGenerateWritesQueries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "drop")
	code, stdout, stderr := invoke(t, nil, "generate", "--providers", "300", "--seed", "5", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	qs, err := queryset.Read(filepath.Join(dir, queryset.FileName))
	if err != nil || len(qs) < 100 || !strings.Contains(stdout, "labelled search queries") {
		t.Fatalf("%d queries, %v; stdout:\n%s", len(qs), err, stdout)
	}
	code, stdout, stderr = invoke(t, nil, "search-queries", "--drop", dir)
	if code != 0 || !strings.Contains(stdout, "wrote ") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	again, err := queryset.Read(filepath.Join(dir, queryset.FileName))
	if err != nil || len(again) != len(qs) || again[0] != qs[0] {
		t.Errorf("search-queries wrote a different set: %d queries, %v", len(again), err)
	}
	for _, args := range [][]string{{"search-queries"}, {"search-queries", "--base-url", "http://127.0.0.1:1/resolver/v1"}, {"search-queries", "--drop", dir, "--n", "0"}} {
		if code, _, _ := invoke(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
