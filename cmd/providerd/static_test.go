package main

import (
	"debug/buildinfo"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"providerdir/testing/externaltools"
)

// TestMakeBuildIsStatic: the binaries `make build` writes are static executables built without
// cgo, so they run in a scratch container and a first build compiles no C. A static ELF names
// no program interpreter and no shared library; without cgo, Pebble's zstd is its pure-Go one
// and github.com/DataDog/zstd (C, through cgo) is not linked.
func TestMakeBuildIsStatic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the binaries are checked as ELF executables")
	}
	t.Parallel()
	makeTool := externaltools.LookPath(t, "make", "install GNU make (apt-get install make)")
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command(makeTool, "-s", "build", "BIN="+bin)
	build.Dir, build.Env = root, environWithoutMake()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	for _, name := range []string{"providerd", "providerctl", "provider-mcp"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(bin, name)
			exe, err := elf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer exe.Close()
			for _, p := range exe.Progs {
				if p.Type == elf.PT_INTERP {
					t.Error("names a program interpreter: dynamically linked")
				}
			}
			if libs, err := exe.ImportedLibraries(); err != nil || len(libs) > 0 {
				t.Errorf("shared libraries %q (%v), want none", libs, err)
			}
			info, err := buildinfo.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			cgo := "unset"
			for _, s := range info.Settings {
				if s.Key == "CGO_ENABLED" {
					cgo = s.Value
				}
			}
			if cgo != "0" {
				t.Errorf("built with CGO_ENABLED=%s, want 0", cgo)
			}
			for _, dep := range info.Deps {
				if dep.Path == "github.com/DataDog/zstd" {
					t.Errorf("links %s %s (C zstd through cgo)", dep.Path, dep.Version)
				}
			}
		})
	}
}

// environWithoutMake is this process's environment less what an enclosing make passes down
// (its flags, command-line variables and job server) and less CGO_ENABLED, so the make under
// test reads the Makefile as a fresh invocation does and the Makefile alone decides cgo.
func environWithoutMake() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "CGO_ENABLED":
			continue
		}
		env = append(env, kv)
	}
	return env
}
