package remote_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/store/remote"
	"providerdir/store/storetest"
)

// serve opens an embedded store and serves it on a socket; it returns a client of it.
func serve(t testing.TB, dir string) store.Store {
	t.Helper()
	st, err := embedded.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := remote.Listen(remote.SocketPath(filepath.Join(dir, "db")))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: remote.Handler(st)}
	go func() { _ = srv.Serve(ln) }()
	c, err := remote.Dial(context.Background(), remote.SocketPath(filepath.Join(dir, "db")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		st.Close()
	})
	return c
}

// The whole store contract holds across the socket.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		// Unix socket paths are short; the test's temp dir may not be.
		dir, err := os.MkdirTemp("", "rs")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		return serve(t, dir)
	})
}

func TestSocketIsPrivate(t *testing.T) {
	dir, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	serve(t, dir)
	info, err := os.Stat(remote.SocketPath(filepath.Join(dir, "db")))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("socket mode %o, want 600", perm)
	}
	if _, err := remote.Listen(remote.SocketPath(filepath.Join(dir, "db"))); err == nil {
		t.Error("a second server took over a live socket")
	}
}

func TestDialWithoutServer(t *testing.T) {
	if _, err := remote.Dial(context.Background(), filepath.Join(t.TempDir(), "none.sock")); err == nil {
		t.Error("dialing a missing socket succeeded")
	}
}
