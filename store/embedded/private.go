package embedded

import (
	"errors"
	"io"
	"os"
	"providerdir/fileperm"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// makePrivate prepares dir for Open: an empty directory that other users may enter (one made
// by hand, or a test's temporary directory) holds nothing yet and is made 0700; a store that
// already lives in such a directory is refused by fileperm.CheckPrivate.
func makePrivate(dir string) error {
	if f, err := os.Open(dir); err == nil {
		_, rerr := f.Readdirnames(1)
		f.Close()
		if errors.Is(rerr, io.EOF) {
			if err := os.Chmod(dir, fileperm.DirMode); err != nil {
				return err
			}
		}
	}
	return fileperm.CheckPrivate(dir)
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
	return p.FS.MkdirAll(dir, fileperm.DirMode)
}

// Lock creates the lock file the owner's only before Pebble opens it (Pebble's Lock creates it
// with os.Create, which keeps the mode of a file that exists).
func (p privateFS) Lock(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, fileperm.FileMode)
	if err != nil {
		return nil, err
	}
	err = f.Chmod(fileperm.FileMode)
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
		if err := os.Chmod(name, fileperm.FileMode); err != nil {
			_ = f.Close()
			return nil, err
		}
		return f, nil
	}
}
