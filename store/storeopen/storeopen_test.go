package storeopen

import (
	"context"
	"os"
	"strings"
	"testing"

	"providerdir/config"
	"providerdir/store"
)

func TestOpenEmbedded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() + "/db"
	spec := config.StoreSpec{Backend: config.BackendEmbedded, Dir: dir}

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
	s, err := Open(context.Background(), config.StoreSpec{Backend: config.BackendEmbedded, Dir: file})
	if err == nil || s != nil {
		t.Fatalf("Open on a file = %v, %v; want nil store and an error", s, err)
	}
}

func TestOpenMongo(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI not set (scripts/with-mongotest.sh sets it)")
	}
	spec, err := config.ParseStore(uri)
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
	if _, err := Open(context.Background(), config.StoreSpec{Backend: "sqlite"}); err == nil {
		t.Fatal("unknown backend opened")
	}
}
