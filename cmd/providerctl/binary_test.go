package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// built is providerctl as `go build` makes it, built once per test binary for every test that
// runs the real program: a build links the whole module.
var built struct {
	once sync.Once
	dir  string // removed by TestMain
	path string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// builtProviderctl returns the path of providerctl built from this package. In a git checkout
// it is built with version-control stamping asked for explicitly, since a Go environment may
// turn it off (GOFLAGS=-buildvcs=false) and a plain build of a checkout has it on by default.
func builtProviderctl(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			built.err = err
			return
		}
		if built.dir, built.err = os.MkdirTemp("", "providerctl-test"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "providerctl")
		args := []string{"build", "-o", built.path}
		if exec.Command("git", "rev-parse", "--git-dir").Run() == nil {
			args = append(args, "-buildvcs=true")
		}
		built.out, built.err = exec.Command(goTool, append(args, ".")...).CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build providerctl: %v\n%s", built.err, built.out)
	}
	return built.path
}
