package embedded

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkDiskRandomRead is the disk's own ceiling for a weekly delta on a store the page cache
// does not hold: blocks the size of a document table's block (docTableBlockSize) read at random
// offsets of the tables of the store named by DISK_CEILING_DIR, around the page cache (O_DIRECT), by as many
// readers at once as a delta looks batches up (one per core and one more), for
// DISK_CEILING_SECONDS (10 unless set). A delta's look-ups read such blocks scattered over the
// store, so its disk reads divided by this rate are what the disk alone makes it wait. make
// bench empties the page cache before it and reports it beside the delta.
func BenchmarkDiskRandomRead(b *testing.B) {
	dir := os.Getenv("DISK_CEILING_DIR")
	if dir == "" {
		b.Skip("DISK_CEILING_DIR names no store directory")
	}
	seconds := 10
	if v := os.Getenv("DISK_CEILING_SECONDS"); v != "" {
		var err error
		if seconds, err = strconv.Atoi(v); err != nil || seconds <= 0 {
			b.Fatalf("DISK_CEILING_SECONDS=%q is not a positive number of seconds", v)
		}
	}
	tables := openTables(b, dir)
	readers := runtime.GOMAXPROCS(0) + 1
	var reads int64
	start := time.Now()
	for b.Loop() {
		reads = readAtRandom(b, tables, readers, time.Duration(seconds)*time.Second)
	}
	elapsed := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(float64(reads)/elapsed, "reads/s")
	b.ReportMetric(float64(reads)*docTableBlockSize/elapsed/1e6, "MB/s")
	b.ReportMetric(float64(readers), "readers")
}

// table is one table file open for random reads.
type table struct {
	f    *os.File
	size int64
}

// openTables opens every table of the store in dir larger than two blocks for reads that go to
// the disk whatever the page cache holds (O_DIRECT): a read fetches its block alone, with no
// read-ahead, as a point look-up of a block not cached does.
func openTables(b *testing.B, dir string) []table {
	paths, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no tables in %s: %v", dir, err)
	}
	var out []table
	for _, p := range paths {
		f, err := os.OpenFile(p, os.O_RDONLY|unix.O_DIRECT, 0)
		if errors.Is(err, unix.EINVAL) {
			b.Skipf("%s: the file system takes no direct reads", p)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		info, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		if info.Size() <= 2*docTableBlockSize {
			continue
		}
		out = append(out, table{f, info.Size()})
	}
	if len(out) == 0 {
		b.Fatalf("no table in %s is larger than two blocks", dir)
	}
	return out
}

// readAtRandom reads page-aligned blocks at random offsets of random tables, readers at a time,
// for d, and returns how many it read. A table is picked in proportion to its size, so every
// block of the store is as likely as any other.
func readAtRandom(b *testing.B, tables []table, readers int, d time.Duration) int64 {
	ends := make([]int64, len(tables)) // cumulative sizes
	var total int64
	for i, t := range tables {
		total += t.size - docTableBlockSize
		ends[i] = total
	}
	deadline := time.Now().Add(d)
	counts := make([]int64, readers)
	errs := make(chan error, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), uint64(time.Now().UnixNano())))
			buf := alignedBlock()
			for time.Now().Before(deadline) {
				at := rng.Int64N(total)
				i, _ := slices.BinarySearch(ends, at+1) // the first table ending after at
				off := (at - (ends[i] - (tables[i].size - docTableBlockSize))) &^ 4095
				if _, err := tables[i].f.ReadAt(buf, off); err != nil {
					errs <- err
					return
				}
				counts[r]++
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// alignedBlock is a buffer of one block at an address that direct reads accept (a multiple of
// 4096 bytes).
func alignedBlock() []byte {
	const align = 4096
	buf := make([]byte, docTableBlockSize+align)
	skip := (align - int(uintptr(unsafe.Pointer(&buf[0]))%align)) % align
	return buf[skip : skip+docTableBlockSize]
}
