package embedded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The store's directory holds the secret that signs FHIR access tokens and the digests of API
// keys, so everything in it is for the owner alone: directories 0700, files 0600.
const (
	privateDirMode  fs.FileMode = 0o700
	privateFileMode fs.FileMode = 0o600
)

// CheckPrivate refuses a directory or file that users other than its owner may read, write or
// (for a directory) search, saying which path and the command that fixes it. A path that does
// not exist passes: it will be created private. It guards the store's directory and the key
// files written beside it.
func CheckPrivate(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	what, fix := "file", "chmod 600"
	if fi.IsDir() {
		what, fix = "directory", "chmod 700"
	}
	return fmt.Errorf("%s %s is open to other users (mode %04o) and holds secrets; make it the owner's only with `%s %s`",
		what, path, perm, fix, path)
}

// makePrivate prepares dir for Open: an empty directory that other users may enter (one made
// by hand, or a test's temporary directory) holds nothing yet and is made 0700; a store that
// already lives in such a directory is refused by CheckPrivate.
func makePrivate(dir string) error {
	if f, err := os.Open(dir); err == nil {
		_, rerr := f.Readdirnames(1)
		f.Close()
		if errors.Is(rerr, io.EOF) {
			if err := os.Chmod(dir, privateDirMode); err != nil {
				return err
			}
		}
	}
	return CheckPrivate(dir)
}

// privateFS is Pebble's file system with every file it creates or reopens for writing set to
// 0600 and every directory it creates to 0700, whatever the process's umask. Pebble's own
// default creates files 0666 and directories 0755 less the umask (0644 and 0755 as usually
// run), and bulk loads write their tables through it too.
type privateFS struct{ vfs.FS }

var fsPrivate vfs.FS = privateFS{vfs.Default}

func (p privateFS) Create(name string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return private(name)(p.FS.Create(name, c))
}

func (p privateFS) OpenReadWrite(name string, c vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	return private(name)(p.FS.OpenReadWrite(name, c, opts...))
}

func (p privateFS) ReuseForWrite(oldname, newname string, c vfs.DiskWriteCategory) (vfs.File, error) {
	return private(newname)(p.FS.ReuseForWrite(oldname, newname, c))
}

func (p privateFS) MkdirAll(dir string, _ os.FileMode) error {
	return p.FS.MkdirAll(dir, privateDirMode)
}

// Lock creates the lock file the owner's only before Pebble opens it (Pebble's Lock creates it
// with os.Create, which keeps the mode of a file that exists).
func (p privateFS) Lock(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, privateFileMode)
	if err != nil {
		return nil, err
	}
	err = f.Chmod(privateFileMode)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return p.FS.Lock(name)
}

// private returns a function that sets the file at name, just opened for writing, to 0600. The
// directory it is in is already the owner's only, so no other user can reach the file in the
// moment between its creation and the change of its mode.
func private(name string) func(vfs.File, error) (vfs.File, error) {
	return func(f vfs.File, err error) (vfs.File, error) {
		if err != nil {
			return f, err
		}
		if err := os.Chmod(name, privateFileMode); err != nil {
			_ = f.Close()
			return nil, err
		}
		return f, nil
	}
}
