package remote_test

import (
	"context"
	"errors"
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
	return serveAs(t, dir, func(s store.Store) store.Store { return s })
}

// serveAs serves the embedded store as wrap makes it.
func serveAs(t testing.TB, dir string, wrap func(store.Store) store.Store) store.Store {
	t.Helper()
	st, err := embedded.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := remote.Listen(remote.SocketPath(filepath.Join(dir, "db")))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: remote.Handler(wrap(st))}
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

// storeOnly hides every method but the store contract's, bulk loads included.
type storeOnly struct{ store.Store }

// A client of a store that cannot load says so with errors.ErrUnsupported, and Put still works.
func TestLoadUnsupported(t *testing.T) {
	dir, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c := serveAs(t, dir, func(s store.Store) store.Store { return storeOnly{s} })
	_, err = c.(store.Loader).Load(t.Context(), "g1", "c")
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Load through a store without loads: %v, want errors.ErrUnsupported", err)
	}
	if err := c.Put(t.Context(), "g1", "c", []store.Document{{ID: "a", Body: []byte("{}")}}); err != nil {
		t.Fatal(err)
	}
}

// A load's id is only good until it ends.
func TestLoadEndedID(t *testing.T) {
	dir, err := os.MkdirTemp("", "rs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c := serve(t, dir)
	ld, err := c.(store.Loader).Load(t.Context(), "g1", "c")
	if err != nil {
		t.Fatal(err)
	}
	ld.Abort()
	if err := ld.Add(t.Context(), []store.Document{{ID: "a", Body: []byte("{}")}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Add to an aborted load: %v, want store.ErrInvalid", err)
	}
}
