package remote_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"providerdir/store"
	"providerdir/store/embedded"
	"providerdir/store/remote"
	"providerdir/testing/storecontract"
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
	storecontract.Run(t, func(t *testing.T) store.Store {
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

// A stacked generation reads as its merged view across the socket whichever side resolves the
// stack: a stacked client over a plain server (what storeopen opens), a plain client over a
// stacked server, or both (providerctl reaching providerd, which serves its own stacked store).
func TestStackedEitherSide(t *testing.T) {
	tests := []struct {
		name           string
		server, client func(store.Store) store.Store
	}{
		{"stacked client", func(s store.Store) store.Store { return s }, store.Stacked},
		{"stacked server", store.Stacked, func(s store.Store) store.Store { return s }},
		{"both", store.Stacked, store.Stacked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := os.MkdirTemp("", "rs")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(dir) })
			c := tt.client(serveAs(t, dir, tt.server))
			readStack(t, c)
		})
	}
}

// readStack writes a two-layer stack through s and reads it back every way.
func readStack(t *testing.T, s store.Store) {
	t.Helper()
	ctx := t.Context()
	d := func(id, body, rank string) store.Document {
		return store.Document{ID: id, Body: []byte(body), Keys: []store.Key{{Param: "rank", Value: rank}}}
	}
	writes := []struct {
		gen, coll string
		docs      []store.Document
	}{
		{"g1", "c", []store.Document{d("a", `"a1"`, "1"), d("b", `"b1"`, "2"), d("c", `"c1"`, "3")}},
		{"g2", "c", []store.Document{d("b", `"b2"`, "9"), d("n", `"n2"`, "0")}},
		{"g2", store.MaskCollection("c"), []store.Document{d("b", `{}`, "2"), d("c", `{}`, "3")}},
	}
	for _, w := range writes {
		if err := s.Put(ctx, w.gen, w.coll, w.docs); err != nil {
			t.Fatal(err)
		}
	}
	gen := store.StackGeneration("g2", "g1")
	if got, err := s.Get(ctx, gen, "c", "b"); err != nil || string(got.Body) != `"b2"` {
		t.Errorf("Get(b) = %s, %v; want the top's", got.Body, err)
	}
	if _, err := s.Get(ctx, gen, "c", "c"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get of a deleted id: %v", err)
	}
	docs, err := s.GetMany(ctx, gen, "c", []string{"c", "b", "a", "n"}, nil)
	if got := docIDs(docs); err != nil || !slices.Equal(got, []string{"b", "a", "n"}) {
		t.Errorf("GetMany = %q, %v", got, err)
	}
	q := store.Query{Generation: gen, Collection: "c", OrderBy: "rank", Limit: 2}
	var got []string
	for {
		p, err := s.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, docIDs(p.Docs)...)
		if q.After = p.Next; q.After == "" {
			break
		}
	}
	if want := []string{"n", "a", "b"}; !slices.Equal(got, want) {
		t.Errorf("Find by rank = %q, want %q", got, want)
	}
	if n, err := s.Count(ctx, q); err != nil || n != 3 {
		t.Errorf("Count = %d, %v; want 3", n, err)
	}
}

func docIDs(docs []store.Document) []string {
	var out []string
	for _, d := range docs {
		out = append(out, d.ID)
	}
	return out
}
