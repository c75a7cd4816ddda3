package storeopen

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"providerdir/store"
	"providerdir/store/remote"
)

func TestOpenEmbedded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() + "/db"
	spec := Spec{Backend: BackendEmbedded, Dir: dir}

	if _, err := Open(ctx, spec, MustExist()); err == nil || !strings.Contains(err.Error(), "no store at") {
		t.Fatalf("MustExist on a missing directory: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("MustExist created the directory")
	}

	s, err := Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "k", ID: "x", Body: []byte("1")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, spec, MustExist())
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	if _, err := s.GetRecord(ctx, "k", "x"); err != nil {
		t.Fatalf("record did not survive reopening: %v", err)
	}
	readsStacks(t, s)
}

// readsStacks fails unless s reads a stacked generation as its merged view: a document the top
// replaces, one it deletes, and one it leaves to the generation below.
func readsStacks(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	put := func(gen, coll string, ids ...string) {
		t.Helper()
		docs := make([]store.Document, len(ids))
		for i, id := range ids {
			docs[i] = store.Document{ID: id, Body: []byte(`"` + gen + `"`)}
		}
		if err := s.Put(ctx, gen, coll, docs); err != nil {
			t.Fatal(err)
		}
	}
	put("stackbase", "c", "kept", "changed", "deleted")
	put("stacktop", "c", "changed")
	put("stacktop", store.MaskCollection("c"), "changed", "deleted")
	gen := store.StackGeneration("stacktop", "stackbase")
	docs, err := s.GetMany(ctx, gen, "c", []string{"kept", "changed", "deleted"}, nil)
	var got []string
	for _, d := range docs {
		got = append(got, d.ID+"="+string(d.Body))
	}
	if want := []string{`kept="stackbase"`, `changed="stacktop"`}; err != nil || !slices.Equal(got, want) {
		t.Errorf("GetMany on a stack = %q, %v; want %q", got, err, want)
	}
}

func TestOpenEmbeddedFailureIsANilStore(t *testing.T) {
	file := t.TempDir() + "/file"
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), Spec{Backend: BackendEmbedded, Dir: file})
	if err == nil || s != nil {
		t.Fatalf("Open on a file = %v, %v; want nil store and an error", s, err)
	}
}

func TestOpenMongo(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI not set (scripts/with-mongotest.sh sets it)")
	}
	spec, err := Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := store.Serving(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	readsStacks(t, s)
}

func TestOpenUnknownBackend(t *testing.T) {
	if _, err := Open(context.Background(), Spec{Backend: "sqlite"}); err == nil {
		t.Fatal("unknown backend opened")
	}
}

// While one process holds an embedded store and serves its socket, opening the same store again
// reaches it through the socket instead of failing on the lock.
func TestOpenHeldStoreThroughSocket(t *testing.T) {
	dir, err := os.MkdirTemp("", "so") // unix socket paths must stay short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	dbDir := filepath.Join(dir, "db")
	spec := Spec{Backend: BackendEmbedded, Dir: dbDir}
	ctx := context.Background()
	holder, err := Open(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := Open(ctx, spec); err == nil {
		t.Fatal("a second open of a held store with no socket succeeded")
	}
	ln, err := remote.Listen(remote.SocketPath(dbDir))
	if err != nil {
		t.Fatal(err)
	}
	// The server side serves the bare backend: the stack is resolved by the client's wrapper.
	bare := holder
	if u, ok := holder.(interface{ Unwrap() store.Store }); ok {
		bare = u.Unwrap()
	}
	srv := &http.Server{Handler: remote.Handler(bare)}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	second, err := Open(ctx, spec)
	if err != nil {
		t.Fatalf("open through the socket: %v", err)
	}
	defer second.Close()
	if _, err := second.PutRecord(ctx, store.Record{Kind: "k", ID: "a", Body: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	rec, err := holder.GetRecord(ctx, "k", "a")
	if err != nil || string(rec.Body) != "x" {
		t.Errorf("the holder does not see the write made through the socket: %v %q", err, rec.Body)
	}
	readsStacks(t, second)
}
