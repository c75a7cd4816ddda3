package storeopen

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
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
	srv := &http.Server{Handler: remote.Handler(holder)}
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
}
