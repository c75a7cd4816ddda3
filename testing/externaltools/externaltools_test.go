package externaltools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A missing tool skips the test, or fails it under CI=true; a present one is found on PATH; an
// optional tool's absence is logged, or fails the test under CI=true, and the test goes on. Each
// outcome is read from a child test process, since a skip or failure ends the test that meets it.
func TestMissing(t *testing.T) {
	switch child := os.Getenv("TESTTOOL_CHILD"); {
	case child == "optional":
		Optional(t, "optional-tool is not installed")
		t.Log("went on")
		return
	case child != "":
		LookPath(t, child, "install it")
		t.Log("went on")
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "present-tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, child, ci string
		fails           bool
		says            []string
	}{
		{"missing, locally", "absent-tool", "", false, []string{"--- SKIP: TestMissing", "absent-tool is not on PATH: install it"}},
		{"missing, CI=false", "absent-tool", "false", false, []string{"--- SKIP: TestMissing"}},
		{"missing, under CI", "absent-tool", "true", true, []string{"--- FAIL: TestMissing", "absent-tool is not on PATH: install it (CI=true"}},
		{"present, under CI", "present-tool", "true", false, []string{"--- PASS: TestMissing", "went on"}},
		{"optional, locally", "optional", "", false, []string{"--- PASS: TestMissing", "optional-tool is not installed", "went on"}},
		{"optional, under CI", "optional", "true", true, []string{"--- FAIL: TestMissing", "optional-tool is not installed (CI=true", "went on"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestMissing$", "-test.v")
			cmd.Env = append(os.Environ(), "TESTTOOL_CHILD="+tt.child, "CI="+tt.ci, "PATH="+dir)
			out, err := cmd.CombinedOutput()
			if (err != nil) != tt.fails {
				t.Errorf("exit %v, want failure %v:\n%s", err, tt.fails, out)
			}
			for _, s := range tt.says {
				if !strings.Contains(string(out), s) {
					t.Errorf("the output lacks %q:\n%s", s, out)
				}
			}
			if !tt.fails && tt.child == "absent-tool" && strings.Contains(string(out), "went on") {
				t.Errorf("the test went on without its tool:\n%s", out)
			}
		})
	}
}
