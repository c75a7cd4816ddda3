package embedded

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"providerdir/fileperm"
	"slices"

	"github.com/minio/minlz"
)

// Run files hold the sorted items of one spill. Keys are stored without the bytes every key of
// the load shares (tag, generation, collection) and without the prefix they share with the key
// before them, since sorted keys share long prefixes (param and value):
//
//	uvarint(shared) uvarint(len(rest)) rest uvarint(seq) uvarint(len(value)) value
//
// The stream is framed by MinLZ (Pebble's own fast block compression) in small blocks, which
// are compressed in runs of documents (see runKind). Runs live only as long as their load.

// runBlockSize is the compression block of run files; a commit merging many runs holds a
// decompressed and a compressed block per run.
const runBlockSize = 64 << 10

// loadFanInDefault bounds how many runs one merge reads at once. Each open run holds a file
// and about 140 KB of buffers (a compressed and a decompressed block), and the commits on two
// cores merge three params or partitions at once (Store.merges): 1,024 runs are at most 3,072
// descriptors and some 430 MB. A national registry spills about a thousand runs of its 32 MB
// buffer, which one merge then reads in a single pass; a load with more first merges groups of
// them (see openRuns).
const loadFanInDefault = 1024

// runKind is what a run holds, which decides whether its blocks are compressed. Documents are
// JSON, which compresses about three to one: a national registry's documents, which do not
// come in id order, are gigabytes of runs, and writing them three times larger costs more than
// compressing them. Index entries are not compressed: their keys are already stored as the
// suffix they do not share with the key before (mostly the digits of an id), which compresses
// too little to be worth the CPU.
type runKind int

const (
	docRun runKind = iota
	entryRun
)

// errRunCorrupt reports a run file that does not decode, which only a damaged disk causes.
var errRunCorrupt = errors.New("embedded: load: corrupt run file")

// writeRun writes sorted buffered items as a run; their keys are already without their list's
// prefix.
func writeRun(path string, b *loadBuffer, items []item, kind runKind) error {
	w, err := createRun(path, 0, kind)
	if err != nil {
		return err
	}
	for _, it := range items {
		w.put(b.key(it), it.seq, b.value(it))
	}
	return w.finish()
}

// runWriter writes one run file.
type runWriter struct {
	f    *uncachedRun
	z    *minlz.Writer
	w    *bufio.Writer
	skip int
	prev []byte
	head [3 * binary.MaxVarintLen64]byte
}

func createRun(path string, skip int, kind runKind) (*runWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fileperm.FileMode)
	if err != nil {
		return nil, fmt.Errorf("embedded: load: %w", err)
	}
	opts := []minlz.WriterOption{minlz.WriterConcurrency(1), minlz.WriterLevel(minlz.LevelFastest), minlz.WriterBlockSize(runBlockSize)}
	if kind == entryRun {
		opts = append(opts, minlz.WriterUncompressed())
	}
	out := &uncachedRun{f: f, drop: dropBehind{fd: f.Fd()}}
	z := minlz.NewWriter(out, opts...)
	return &runWriter{f: out, z: z, w: bufio.NewWriterSize(z, runBlockSize), skip: skip}, nil
}

// uncachedRun is a run file kept out of the page cache as it is written (see dropBehind). A
// commit reads it back once, from disk, into pages that the runs and tables written before
// gave up.
type uncachedRun struct {
	f    *os.File
	drop dropBehind
}

func (r *uncachedRun) Write(p []byte) (int, error) {
	n, err := r.f.Write(p)
	r.drop.wrote(n)
	return n, err
}

// Close drops what is left of the run in the cache, once on disk, and closes it.
func (r *uncachedRun) Close() error {
	r.drop.rest()
	return r.f.Close()
}

// put appends an item; keys must come in order. Errors surface in finish.
func (r *runWriter) put(key []byte, seq uint64, value []byte) {
	k := key[r.skip:]
	shared := commonPrefix(k, r.prev)
	h := binary.AppendUvarint(r.head[:0], uint64(shared))
	h = binary.AppendUvarint(h, uint64(len(k)-shared))
	_, _ = r.w.Write(h)
	_, _ = r.w.Write(k[shared:])
	h = binary.AppendUvarint(r.head[:0], seq)
	h = binary.AppendUvarint(h, uint64(len(value)))
	_, _ = r.w.Write(h)
	_, _ = r.w.Write(value)
	r.prev = append(r.prev[:0], k...)
}

// finish flushes and closes the file. A bufio.Writer keeps its first error and reports it on
// Flush.
func (r *runWriter) finish() error {
	err := r.w.Flush()
	if err == nil {
		err = r.z.Close()
	}
	if err != nil {
		r.abandon()
		return fmt.Errorf("embedded: load: write run: %w", err)
	}
	if err := r.f.Close(); err != nil {
		return fmt.Errorf("embedded: load: write run: %w", err)
	}
	return nil
}

// abandon closes a run left unfinished by an error; the load's directory goes with it.
func (r *runWriter) abandon() { _ = r.f.f.Close() }

// fileRun reads a run file item by item, rebuilding whole keys. It decodes items from a buffer
// of decompressed bytes rather than a byte at a time through io.ByteReader: a national commit
// reads billions of varints.
type fileRun struct {
	f        *os.File
	r        *minlz.Reader
	skip     int
	buf      []byte // decompressed bytes; buf[pos:] are not read yet
	pos      int
	eof      bool // r is exhausted: buf[pos:] is all that is left
	k, v     []byte
	sequence uint64
}

// openRun opens a run whose keys all start with prefix.
func openRun(path string, prefix []byte) (*fileRun, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embedded: load: %w", err)
	}
	z := minlz.NewReader(f, minlz.ReaderMaxBlockSize(runBlockSize))
	return &fileRun{f: f, r: z, skip: len(prefix), k: bytes.Clone(prefix), buf: make([]byte, 0, runBlockSize)}, nil
}

// fill makes at least n unread bytes available, or all that is left of the run.
func (r *fileRun) fill(n int) error {
	if len(r.buf)-r.pos >= n || r.eof {
		return nil
	}
	r.buf = r.buf[:copy(r.buf, r.buf[r.pos:])]
	r.pos = 0
	if cap(r.buf) < n {
		r.buf = slices.Grow(r.buf, n+runBlockSize-len(r.buf))
	}
	for len(r.buf) < n && !r.eof {
		m, err := r.r.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+m]
		switch {
		case errors.Is(err, io.EOF):
			r.eof = true
		case err != nil:
			return errRunCorrupt
		}
	}
	return nil
}

func (r *fileRun) uvarint() (uint64, error) {
	if err := r.fill(binary.MaxVarintLen64); err != nil {
		return 0, err
	}
	x, n := binary.Uvarint(r.buf[r.pos:])
	if n <= 0 {
		return 0, errRunCorrupt
	}
	r.pos += n
	return x, nil
}

// take returns the next n bytes, valid until the next fill.
func (r *fileRun) take(n uint64) ([]byte, error) {
	if n > 1<<31 {
		return nil, errRunCorrupt
	}
	if err := r.fill(int(n)); err != nil {
		return nil, err
	}
	if uint64(len(r.buf)-r.pos) < n {
		return nil, errRunCorrupt
	}
	b := r.buf[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// next reads the next item. Its value is a slice of the read buffer, valid until the next call.
func (r *fileRun) next() (bool, error) {
	if err := r.fill(1); err != nil {
		return false, err
	}
	if r.pos == len(r.buf) {
		return false, nil // the run ended between items
	}
	shared, err := r.uvarint()
	if err != nil || shared > uint64(len(r.k)-r.skip) {
		return false, errRunCorrupt
	}
	n, err := r.uvarint()
	if err != nil {
		return false, err
	}
	rest, err := r.take(n)
	if err != nil {
		return false, err
	}
	r.k = append(r.k[:r.skip+int(shared)], rest...)
	if r.sequence, err = r.uvarint(); err != nil {
		return false, err
	}
	if n, err = r.uvarint(); err != nil {
		return false, err
	}
	r.v, err = r.take(n)
	return err == nil, err
}

func (r *fileRun) key() []byte   { return r.k }
func (r *fileRun) value() []byte { return r.v }
func (r *fileRun) seq() uint64   { return r.sequence }
func (r *fileRun) close()        { _ = r.f.Close() }

// mergeRuns merges runs into one, keeping every item (versions of a key stay in sequence
// order), and removes them.
func mergeRuns(ctx context.Context, paths []string, out string, prefix []byte, kind runKind) error {
	srcs := make([]source, 0, len(paths))
	for _, p := range paths {
		r, err := openRun(p, prefix)
		if err != nil {
			for _, s := range srcs {
				s.close()
			}
			return err
		}
		srcs = append(srcs, r)
	}
	w, err := createRun(out, len(prefix), kind)
	if err != nil {
		for _, s := range srcs {
			s.close()
		}
		return err
	}
	h := sourceHeap{skip: len(prefix)}
	err = h.start(srcs)
	for steps := 0; err == nil && len(h.items) > 0; steps++ {
		if steps%4096 == 0 {
			if err = ctx.Err(); err != nil {
				break
			}
		}
		top := h.top()
		w.put(top.key(), top.seq(), top.value())
		err = h.advance()
	}
	for _, s := range srcs {
		s.close()
	}
	if err != nil {
		w.abandon()
		return err
	}
	if err := w.finish(); err != nil {
		return err
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("embedded: load: %w", err)
		}
	}
	return nil
}
