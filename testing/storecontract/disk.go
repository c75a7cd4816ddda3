package storecontract

import (
	"io/fs"
	"path/filepath"
	"testing"
	"time"
)

// DirBytes is the size of the regular files under dir: the disk an on-disk store takes. Files
// the store deletes while the walk runs are skipped.
func DirBytes(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err == nil {
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// SettledDirBytes waits up to timeout for the files under dir to shrink to at most limit bytes
// and returns their size when they did or when the time ran out. Stores delete the files of
// dropped data in the background, so a test of reclaimed space checks after they settle.
func SettledDirBytes(t testing.TB, dir string, limit int64, timeout time.Duration) int64 {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		n := DirBytes(t, dir)
		if n <= limit || time.Now().After(deadline) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}
