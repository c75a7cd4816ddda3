//go:build unix

package embedded

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"providerdir/fileperm"
	"providerdir/store"
)

// A store created by Open, written through every path that creates files (documents, records,
// a bulk load ending in ingested tables, a flush, a reopen), is the owner's alone: every
// directory 0700 and every file 0600, under the usual umask of 022.
func TestOpenCreatesPrivateFiles(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data", "db")
	s, err := Open(dir, func(c *config) { c.loadBuffer = 2048 })
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	docs := make([]store.Document, 200)
	for i := range docs {
		docs[i] = store.Document{ID: fmt.Sprintf("d%03d", 199-i), Body: []byte(`{"x":1}`), Keys: []store.Key{{Param: "k", Value: "v"}}}
	}
	if err := s.Put(ctx, "g1", "c", docs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRecord(ctx, store.Record{Kind: "secret", ID: "access", Body: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	ld, err := s.Load(ctx, "g2", "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := ld.Add(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if err := ld.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	files := 0
	err = filepath.WalkDir(filepath.Dir(dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fileperm.FileMode
		if d.IsDir() {
			want = fileperm.DirMode
		} else {
			files++
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", path, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 5 {
		t.Fatalf("only %d files written; the test reached too little", files)
	}
}

// A store directory, or a key file, that other users may read is refused with a message that
// names the path and the command that fixes it; the fixed path opens.
func TestOpenRefusesOpenDirectory(t *testing.T) {
	for _, mode := range []fs.FileMode{0o755, 0o750, 0o701, 0o707} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			_, err = Open(dir)
			if err == nil {
				t.Fatal("a store open to other users opened")
			}
			for _, want := range []string{dir, fmt.Sprintf("mode %04o", mode), "chmod 700 " + dir} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if err := os.Chmod(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			s, err = Open(dir)
			if err != nil {
				t.Fatalf("after chmod 700: %v", err)
			}
			s.Close()
		})
	}
}

// An empty directory made by hand before the first start holds no secret yet: Open makes it
// the owner's and creates the store in it.
func TestOpenMakesEmptyDirectoryPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != fileperm.DirMode {
		t.Fatalf("directory after Open: %v %v", fi.Mode(), err)
	}
}
