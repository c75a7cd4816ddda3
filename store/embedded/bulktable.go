package embedded

import (
	"cmp"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// loadWriterOptions are the options of a load's tables: the bottom level's (that is where
// Pebble places them), with the fastest compression instead of the bottom level's zstd, which
// costs an ingest far more CPU than the disk it saves is worth (docs/BENCHMARKS.md); an ingest
// is the one time these bytes are written.
func (s *Store) loadWriterOptions() sstable.WriterOptions {
	o := s.popts.MakeWriterOptions(len(s.popts.Levels)-1, s.db.TableFormat())
	o.Compression = sstable.FastestCompression
	return o
}

// docTableBlockSize is the data block of a load's document tables. Documents of a collection
// repeat most of their bytes (a FHIR resource's provenance tags are the same for every record
// of a dataset), which a 4 KB block holding one or two documents cannot exploit: 16 KB blocks
// make the documents much smaller on disk for a little more work to decompress the block of a
// document read from disk (docs/BENCHMARKS.md).
const docTableBlockSize = 16 << 10

// docTableOptions are the options of a load's document tables (and its count table), which are
// read by point lookups: larger blocks, and the Bloom filters Pebble consults on every Get.
func (s *Store) docTableOptions() sstable.WriterOptions {
	o := s.loadWriterOptions()
	o.BlockSize = docTableBlockSize
	return o
}

// entryTableOptions are the options of a load's index-entry tables. Queries walk index entries
// with range seeks, which never consult a Bloom filter, so these tables have none. Nor are they
// compressed: their keys are already prefix-compressed in their blocks, and compressing them
// again costs an ingest CPU for tables barely smaller (docs/BENCHMARKS.md).
func (s *Store) entryTableOptions() sstable.WriterOptions {
	o := s.loadWriterOptions()
	o.FilterPolicy = nil
	o.Compression = sstable.NoCompression
	return o
}

// tableWriter writes a sorted stream of keys into tables of about loadTableSize. A full table
// is finished on a goroutine of its own while the next one fills: finishing a table ends with an
// fsync, and the merge or stream feeding the writer would otherwise wait for the disk each
// time, a core idle.
type tableWriter struct {
	dir   string
	name  string // of its files: <name>-<n>.sst
	opts  sstable.WriterOptions
	w     *sstable.Writer
	paths []string
	limit uint64 // the size a table is cut at; 0 is loadTableSize
	adds  int
	// cached writes the tables through the page cache, for a load whose documents are read
	// again soon (store.ReadBack); otherwise they are dropped from it as written (dropBehind).
	cached bool

	closing  sync.WaitGroup // tables being finished in the background
	mu       sync.Mutex
	closeErr error // the first error finishing one of them
}

// uncachedFile is a loaded table's file, kept out of the page cache as it is written (see
// dropBehind); the load does not read it again. The sstable writer syncs it before closing it,
// so at Close the last pages are already on disk and are dropped at once.
type uncachedFile struct {
	vfs.File
	drop dropBehind
}

func newUncachedFile(f vfs.File) *uncachedFile {
	return &uncachedFile{File: f, drop: dropBehind{fd: f.Fd()}}
}

func (f *uncachedFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.drop.wrote(n)
	return n, err
}

func (f *uncachedFile) Close() error {
	f.drop.rest()
	return f.File.Close()
}

// sizeCheckInterval is how many keys a table writer adds between checks of the table's size.
// Pebble's estimate sums the sizes of the block being built, which taken after every key would
// add a good part to the cost of adding one; a table of 128 MB overshoots by a few dozen keys at
// most.
const sizeCheckInterval = 32

func (t *tableWriter) add(key, value []byte) error {
	if t.w == nil {
		path := filepath.Join(t.dir, fmt.Sprintf("%s-%06d.sst", t.name, len(t.paths)))
		f, err := fsPrivate.Create(path, vfs.WriteCategoryUnspecified)
		if err != nil {
			return fmt.Errorf("embedded: load: %w", err)
		}
		var out vfs.File = f
		if !t.cached {
			out = newUncachedFile(f)
		}
		t.w = sstable.NewWriter(objstorageprovider.NewFileWritable(out), t.opts)
		t.paths = append(t.paths, path)
	}
	if err := t.w.Set(key, value); err != nil {
		return fmt.Errorf("embedded: load: %w", err)
	}
	t.adds++
	if t.adds%sizeCheckInterval == 0 && t.w.Raw().EstimatedSize() >= cmp.Or(t.limit, loadTableSize) {
		w := t.w
		t.w = nil
		t.closing.Add(1)
		go func() {
			defer t.closing.Done()
			if err := w.Close(); err != nil {
				t.mu.Lock()
				t.closeErr = cmp.Or(t.closeErr, err)
				t.mu.Unlock()
			}
		}()
	}
	return nil
}

// cut finishes the table being written, if any, and waits for those finishing in the
// background: every table in paths is then complete and synced. The next key starts a new one.
func (t *tableWriter) cut() error {
	var err error
	if t.w != nil {
		err = t.w.Close()
		t.w = nil
	}
	t.closing.Wait()
	t.mu.Lock()
	err = cmp.Or(err, t.closeErr)
	t.closeErr = nil
	t.mu.Unlock()
	if err != nil {
		return fmt.Errorf("embedded: load: %w", err)
	}
	return nil
}

// abandon closes a table left open by an error, and waits for those finishing.
func (t *tableWriter) abandon() {
	if t.w != nil {
		_ = t.w.Close()
		t.w = nil
	}
	t.closing.Wait()
}
