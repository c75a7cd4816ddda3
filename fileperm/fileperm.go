// Package fileperm keeps secret-holding files and directories for their owner alone: the
// modes they are made with and the check that refuses one other users may reach. The store's
// directory holds the secret that signs FHIR access tokens and the digests of API keys, and key
// files are written beside it.
package fileperm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The modes of what holds secrets: directories 0700, files 0600.
const (
	DirMode  fs.FileMode = 0o700
	FileMode fs.FileMode = 0o600
)

// CheckPrivate refuses a directory or file that users other than its owner may read, write or
// (for a directory) search, saying which path and the command that fixes it. A path that does
// not exist passes: it will be created private.
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
