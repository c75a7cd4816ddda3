package embedded

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"providerdir/store"
)

// A file written through dropBehind keeps at most about dropLag bytes in the page cache, and
// none once rest has run; the same file written plainly stays cached whole. The check is on
// what the kernel reports resident (mincore), so a drop that does nothing fails it.
func TestDropBehind(t *testing.T) {
	dir := diskTempDir(t)
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil || fs.Type == unix.TMPFS_MAGIC {
		t.Skip("the temporary directory is in memory; there is no page cache to leave")
	}
	const size = 12 * dropChunk
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	write := func(name string, drop bool) (maxCached, after int64) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d := dropBehind{fd: f.Fd()}
		for written := 0; written < size; written += len(chunk) {
			n, err := f.Write(chunk)
			if err != nil {
				t.Fatal(err)
			}
			if drop {
				d.wrote(n)
			}
			if written%(4*dropChunk) == 0 {
				maxCached = max(maxCached, resident(t, f, int64(written+n)))
			}
		}
		if drop {
			d.rest()
		}
		return maxCached, resident(t, f, size)
	}
	if _, after := write("plain", false); after < size/2 {
		t.Skipf("a plainly written file keeps %d of its %d bytes cached; nothing to compare with", after, size)
	}
	maxCached, after := write("dropped", true)
	if maxCached > dropLag+2*dropChunk || after != 0 {
		t.Errorf("dropping behind, %d bytes were cached while writing (want at most %d) and %d after rest (want 0)",
			maxCached, dropLag+2*dropChunk, after)
	}
}

// resident is how many bytes of the file's first size bytes are in the page cache.
func resident(t *testing.T, f *os.File, size int64) int64 {
	t.Helper()
	m, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := int64(os.Getpagesize())
	vec := make([]byte, (size+page-1)/page)
	// x/sys has no wrapper for mincore(2).
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	var n int64
	for _, v := range vec {
		n += int64(v & 1)
	}
	return n * page
}

// A load asked to ReadBack leaves its documents' tables in the page cache, both when its
// documents stream into tables (in id order) and when they are merged from runs at commit (out
// of order); another load leaves only what reading a table's footer and index takes. The check
// is on what the kernel reports resident of the store's tables, before and after each load.
func TestLoadReadBack(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil || fs.Type == unix.TMPFS_MAGIC {
		t.Skip("the temporary directory is in memory; there is no page cache to leave")
	}
	s, err := Open(dir, func(c *config) { c.loadBuffer = 4 << 20 })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n, bodySize = 8000, 4096 // 32 MB of bodies that do not compress
	rnd := rand.New(rand.NewPCG(1, 2))
	load := func(coll string, readBack, ordered bool) int64 {
		before := residentTables(t, dir)
		ld, err := s.Load(t.Context(), "g1", coll)
		if err != nil {
			t.Fatal(err)
		}
		if readBack {
			ld.(store.ReadBack).ReadBack()
		}
		for i := range n {
			id := i
			if !ordered {
				id = (i * 7919) % n
			}
			body := make([]byte, bodySize)
			for j := range body {
				body[j] = byte(rnd.Uint32())
			}
			d := store.Document{ID: fmt.Sprintf("d%05d", id), Body: body, Keys: []store.Key{{Param: "k", Value: "v"}}}
			if err := ld.Add(t.Context(), []store.Document{d}); err != nil {
				t.Fatal(err)
			}
		}
		if err := ld.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		return residentTables(t, dir) - before
	}
	const loaded = n * bodySize
	for _, ordered := range []bool{true, false} {
		coll := fmt.Sprintf("ordered-%v", ordered)
		if cached := load(coll+"-plain", false, ordered); cached > loaded/4 {
			t.Errorf("%s: a load without ReadBack left %d of its %d bytes cached", coll, cached, loaded)
		}
		if cached := load(coll+"-readback", true, ordered); cached < loaded/2 {
			t.Errorf("%s: a load with ReadBack left %d of its %d bytes cached", coll, cached, loaded)
		}
	}
}

// residentTables is how many bytes of the store's tables are in the page cache.
func residentTables(t *testing.T, dir string) int64 {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := f.Stat(); err == nil && st.Size() > 0 {
			n += resident(t, f, st.Size())
		}
		f.Close()
	}
	return n
}

// diskTempDir is a temporary directory on disk: under PROVIDERDIR_DISK_TMPDIR when the test run
// keeps TMPDIR in memory (scripts/gotest.sh), where there is no page cache to check.
func diskTempDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("PROVIDERDIR_DISK_TMPDIR")
	if base == "" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(base, "droptest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}
