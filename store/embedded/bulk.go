package embedded

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"providerdir/store"
)

// Bulk loading (store.Loader).
//
// An ingest writes each collection of a new generation once, from empty: at national scale tens
// of millions of documents with some 25 index entries each. Through Put every one of those keys
// goes into the write-ahead log and the memtable, is flushed into level 0 and is rewritten by
// compaction on each level on its way to the bottom of the tree, and at national scale that
// compaction takes a large share of an ingest's CPU. A load sorts the keys itself instead, as an
// external merge sort does: it buffers documents and index entries, sorts the buffer and spills
// it as a run to a temporary file when it is full; Commit merges the runs into sorted tables and
// hands them to Pebble's Ingest, which links them into the tree under one sequence number. Each
// key is written twice (run, table) and compacted never. The tables are cut at the boundary
// between document keys, index entries and the count, so each covers one collection's key range
// that nothing else writes and Pebble places it in the bottom level without overlap.
//
// Last-wins semantics. Every document added gets a sequence number, and runs are merged in
// (key, sequence) order, so the versions of a key meet in the order they were added and the
// last one is kept. A document added twice may have lost keys between its versions: the entries
// of the superseded versions that the winning version does not have are stale. The merge reads
// the documents first (their tag sorts before the index's), computes the stale entries from the
// superseded versions' keys, and skips them when it merges the index. Duplicates are rare (a
// handful of repeated rows in a source file), so the stale set stays small.

const (
	// loadBufferDefault is how much a load buffers before it spills a sorted run. A load holds
	// up to two buffers (one filling, one being spilled), and an ingest has a dozen loads open
	// at its peak.
	loadBufferDefault = 32 << 20
	// loadTableSize is the size a table is cut at (by Pebble's estimate, before compression).
	loadTableSize = 128 << 20
	// loadsDir is where loads keep their runs and tables, inside the store's directory so that
	// Pebble can link the tables rather than copy them. Open removes what a crash left behind.
	loadsDir = "loads"
)

var _ store.Loader = (*Store)(nil)

// Load starts a bulk load into an empty collection (see store.Loader).
func (s *Store) Load(ctx context.Context, gen, coll string) (store.Loading, error) {
	if err := store.ValidateDocuments(gen, coll, nil); err != nil {
		return nil, err
	}
	if err := s.enter(ctx); err != nil {
		return nil, err
	}
	defer s.leave()
	n, err := s.readCount(s.db, gen, coll)
	if err != nil {
		return nil, err
	}
	if n != 0 {
		return nil, fmt.Errorf("%w: collection %s of generation %s already holds documents", store.ErrConflict, coll, gen)
	}
	if err := os.MkdirAll(filepath.Join(s.dir, loadsDir), privateDirMode); err != nil {
		return nil, fmt.Errorf("embedded: load: %w", err)
	}
	dir, err := os.MkdirTemp(filepath.Join(s.dir, loadsDir), "load-")
	if err != nil {
		return nil, fmt.Errorf("embedded: load: %w", err)
	}
	return &loading{s: s, gen: gen, coll: coll, dir: dir, skip: len(docPrefix(gen, coll)), limit: s.cfg.loadBuffer,
		buf: newLoadBuffer(), spare: newLoadBuffer(), params: map[string]int{}, paramRuns: map[string][]int{},
		streaming: true, stream: &tableWriter{dir: dir, name: "docs", opts: s.docTableOptions()},
		entryStreams: map[string]*entryStream{}, streamedRuns: map[string]string{}}, nil
}

// loading is one load in progress: the buffer being filled and the runs spilled so far.
type loading struct {
	s         *Store
	gen, coll string
	dir       string
	skip      int // bytes every key of the collection shares: tag, generation, collection
	limit     int

	seq     uint64
	buf     *loadBuffer
	runs    int // runs spilled or being spilled: files <n>.docs and <n>.e<param> in dir
	spent   bool
	scratch []byte
	groups  []keyGroup // of the document being added (groupKeys)
	groupOf []int

	// Index entries are spilled and merged per param: a param's entries are one contiguous key
	// range, so the params of a collection are merged into their own tables side by side at
	// commit, one core each. params numbers them for file names; paramRuns lists the runs that
	// hold entries of each.
	params    map[string]int
	paramRuns map[string][]int

	// Documents that do not stream are spilled in partitions by key range, so that a commit
	// merges the partitions side by side as it does the params. The split points are taken from
	// the first run (its keys after skip, evenly spaced) by that run's spill goroutine; every
	// later reader of splits waits for that spill first. A run's partition j is file <n>.d<j>.
	splits [][]byte

	// Documents that arrive in strictly increasing id order, as an ingest usually writes them
	// (it walks the registry by NPI), need no sorting and no run: they are written straight into
	// the collection's document tables. The first document out of order (or repeated) ends
	// that: the tables written so far are turned into a run (see unstream) and every later
	// document goes through the buffer like the index entries.
	streaming  bool
	stream     *tableWriter
	streamLast []byte
	streamed   int64
	// While documents stream, so do the entries of each param that come in order too (see
	// entryStream); streamedRuns holds the run each ended stream was turned into.
	entryStreams map[string]*entryStream
	streamedRuns map[string]string
	entryKey     []byte

	// A full buffer is sorted and written by a goroutine of its own while the next one fills,
	// so that the caller (an ingest producing documents) does not wait for the disk or the
	// sort. spilled delivers its result and its buffer, emptied, to be filled again; at most one
	// spill is in flight.
	spilled chan spillResult
	spare   *loadBuffer

	// readBack keeps the document tables in the page cache (store.ReadBack).
	readBack bool
}

// ReadBack keeps the collection's document tables in the page cache as they are written, for a
// loader that reads them again soon: a registry looked up at random right after its load would
// otherwise be read back from disk, one block per look-up. Called before the first Add.
func (l *loading) ReadBack() {
	l.readBack = true
	l.stream.cached = true
}

type spillResult struct {
	buf *loadBuffer
	err error
}

// item is one key of a load, a document or an index entry, with the sequence number of the
// document it belongs to. Its key, without the prefix every key of its list shares (see
// loadBuffer), and its value lie side by side in one of its buffer's chunks;
// the item holds where, not pointers, so that a buffer of hundreds of thousands of items is
// small, cheap to sort and nothing the garbage collector scans. pfx and pfx2 hold, for a sort,
// the sixteen bytes of the key after those every key of its list shares, so that most
// comparisons are one or two integer comparisons that never read a key.
type item struct {
	pfx, pfx2, seq uint64
	chunk, off     uint32
	klen, vlen     uint32
}

// itemSize is what an item costs a buffer beyond its key and value.
const itemSize = 40

// loadBuffer holds the items of one run. Index entries are kept per param: every entry of a
// param shares the param in its key, so each list sorts on the value and id alone, and the lists
// in param order are the run in key order. A buffered key is what follows its list's prefix:
// the id of a document (after docPrefix), the value and id of an entry (after paramPrefix).
// Tag, generation, collection and param are more than half of a typical entry's key, and
// leaving them out lets a buffer hold a third more entries. Keys and values live in large
// chunks that are reused from run to run; one too large for a chunk gets a chunk of its own
// until the reset. Chunks are filled whole and never grow, so the items' offsets stay valid.
type loadBuffer struct {
	docs    []item
	entries map[string]*paramItems
	chunks  [][]byte
	big     [][]byte // a chunk each for what does not fit a chunk
	cur     int      // chunk being filled
	size    int
}

type paramItems struct {
	items []item
}

const chunkSize = 1 << 20

func newLoadBuffer() *loadBuffer { return &loadBuffer{entries: map[string]*paramItems{}} }

// put copies a key and its value into the buffer and returns their item.
func (b *loadBuffer) put(key, value []byte, seq uint64) item {
	n := len(key) + len(value)
	ref := 0
	if n > chunkSize {
		ref = bigChunk | len(b.big)
		b.big = append(b.big, make([]byte, 0, n))
	} else {
		if b.cur == len(b.chunks) || len(b.chunks[b.cur])+n > chunkSize {
			if b.cur < len(b.chunks) {
				b.cur++
			}
			if b.cur == len(b.chunks) {
				b.chunks = append(b.chunks, make([]byte, 0, chunkSize))
			}
		}
		ref = b.cur
	}
	c := b.chunk(ref)
	off := len(*c)
	*c = append(append(*c, key...), value...)
	b.size += n + itemSize
	return item{seq: seq, chunk: uint32(ref), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(value))}
}

// bigChunk marks a chunk reference to b.big.
const bigChunk = 1 << 31

func (b *loadBuffer) chunk(ref int) *[]byte {
	if ref&bigChunk != 0 {
		return &b.big[ref&^bigChunk]
	}
	return &b.chunks[ref]
}

func (b *loadBuffer) key(it item) []byte {
	end := it.off + it.klen
	return (*b.chunk(int(it.chunk)))[it.off:end:end]
}

func (b *loadBuffer) value(it item) []byte {
	start, end := it.off+it.klen, it.off+it.klen+it.vlen
	return (*b.chunk(int(it.chunk)))[start:end:end]
}

// reset empties the buffer, keeping its memory for the next run (chunks of their own go).
func (b *loadBuffer) reset() {
	b.docs = b.docs[:0]
	for _, p := range b.entries {
		p.items = p.items[:0]
	}
	for i := range b.chunks {
		b.chunks[i] = b.chunks[i][:0]
	}
	b.big = nil
	b.cur, b.size = 0, 0
}

// prefixOf returns the first eight bytes of k as a big-endian integer, zero-padded.
func prefixOf(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var p [8]byte
	copy(p[:], k)
	return binary.BigEndian.Uint64(p[:])
}

func (l *loading) Add(ctx context.Context, docs []store.Document) error {
	if l.spent {
		return fmt.Errorf("%w: load already committed or aborted", store.ErrInvalid)
	}
	if err := store.ValidateDocuments(l.gen, l.coll, docs); err != nil {
		return err
	}
	if err := l.s.enter(ctx); err != nil {
		return err
	}
	defer l.s.leave()
	for _, d := range docs {
		b := l.buf // a spill swaps the buffer
		l.seq++
		if err := l.addDoc(d); err != nil {
			return err
		}
		l.groupKeys(b, d.Keys)
		for i, k := range d.Keys {
			g := &l.groups[l.groupOf[i]]
			v := entry{order: k.Value == g.min}.value()
			if g.stream != nil {
				streamed, err := l.streamEntry(g.param, g.stream, k.Value, d.ID, v)
				if err != nil {
					return err
				}
				if streamed {
					continue
				}
				g.stream = nil
			}
			l.scratch = append(append(append(l.scratch[:0], k.Value...), 0), d.ID...) // after paramPrefix
			g.list.items = append(g.list.items, b.put(l.scratch, v, l.seq))
		}
		if b.size >= l.limit {
			if err := l.spill(); err != nil {
				return err
			}
		}
	}
	return nil
}

// keyGroup is one param of the document being added: its smallest value (the order entry's,
// see isOrderEntry) and the buffer's list of its entries.
type keyGroup struct {
	param, min string
	list       *paramItems
	stream     *entryStream // nil when the param's entries are buffered
}

// groupKeys fills l.groups with the params of keys and l.groupOf with each key's group. A
// document has a handful of params and a few dozen keys, so finding a key's group by a scan of
// the groups is cheaper than isOrderEntry's scan of every key for every key, and the buffer's
// map of lists is consulted once per param rather than once per key.
func (l *loading) groupKeys(b *loadBuffer, keys []store.Key) {
	l.groups, l.groupOf = l.groups[:0], l.groupOf[:0]
	for _, k := range keys {
		j := slices.IndexFunc(l.groups, func(g keyGroup) bool { return g.param == k.Param })
		switch {
		case j < 0:
			j = len(l.groups)
			l.groups = append(l.groups, keyGroup{param: k.Param, min: k.Value})
		case k.Value < l.groups[j].min:
			l.groups[j].min = k.Value
		}
		l.groupOf = append(l.groupOf, j)
	}
	for j := range l.groups {
		g := &l.groups[j]
		g.stream = l.entryStreamOf(g.param)
		if g.list = b.entries[g.param]; g.list == nil {
			g.list = &paramItems{}
			b.entries[g.param] = g.list
		}
	}
}

// addDoc streams a document into the document tables while documents come in order, and
// buffers it otherwise.
func (l *loading) addDoc(d store.Document) error {
	key := appendKey(l.scratch[:0], tagDoc, l.gen, l.coll, d.ID)
	if l.streaming && (l.streamLast == nil || bytes.Compare(key, l.streamLast) > 0) {
		l.streamLast = append(l.streamLast[:0], key...)
		l.scratch = appendDoc(key[:0], d)
		l.streamed++
		return l.stream.add(l.streamLast, l.scratch)
	}
	if l.streaming {
		if err := l.unstream(); err != nil {
			return err
		}
	}
	// The key is at the front of scratch; the document is encoded after it.
	l.scratch = appendDoc(key, d)
	b := l.buf
	b.docs = append(b.docs, b.put(l.scratch[l.skip:len(key)], l.scratch[len(key):], l.seq))
	return nil
}

// unstream ends streaming: it reads the document tables written so far back into a run, the
// oldest of all (every document in it was added before any buffered one, so sequence 0 orders
// it correctly against later versions), and removes the tables. The entry streams end with it.
func (l *loading) unstream() error {
	l.streaming = false
	if err := l.tablesToRun(l.stream, filepath.Join(l.dir, "streamed.docs"), l.skip, docRun); err != nil {
		return err
	}
	for _, p := range slices.Sorted(maps.Keys(l.entryStreams)) {
		if es := l.entryStreams[p]; es.on {
			if err := l.unstreamEntries(p, es); err != nil {
				return err
			}
		}
	}
	return nil
}

// readTable calls fn with every key and value of a table, in order.
func (s *Store) readTable(path string, fn func(k, v []byte)) error {
	f, err := vfs.Default.Open(path)
	if err != nil {
		return fmt.Errorf("embedded: load: %w", err)
	}
	readable, err := sstable.NewSimpleReadable(f)
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("embedded: load: %w", err)
	}
	r, err := sstable.NewReader(context.Background(), readable, s.popts.MakeReaderOptions())
	if err != nil {
		_ = readable.Close()
		return fmt.Errorf("embedded: load: %w", err)
	}
	defer r.Close()
	it, err := r.NewIter(sstable.NoTransforms, nil, nil, sstable.TableBlobContext{})
	if err != nil {
		return fmt.Errorf("embedded: load: %w", err)
	}
	var buf []byte
	for kv := it.First(); kv != nil; kv = it.Next() {
		v, _, err := kv.Value(buf[:0])
		if err != nil {
			_ = it.Close()
			return fmt.Errorf("embedded: load: %w", err)
		}
		fn(kv.K.UserKey, v)
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("embedded: load: %w", err)
	}
	return nil
}

// sortItems sorts by key, then by sequence. The keys of a list often share leading bytes (the
// system of every coded value, the state most addresses share); the sort finds how many and
// holds the sixteen bytes after them in each item, then sorts by those bytes with a radix sort
// (see radixSort), comparing whole keys only among items whose sixteen bytes are equal.
func (b *loadBuffer) sortItems(items []item) {
	b.sortItemsCutoff(items, radixCutoff)
}

// radixCutoff is the bucket size below which the radix sort hands over to an insertion sort.
const radixCutoff = 16

// sortItemsCutoff is sortItems with the radix sort's cutoff given; tests lower it to two, so
// that the radix sort decides every byte of small inputs.
func (b *loadBuffer) sortItemsCutoff(items []item, cutoff int) {
	if len(items) < 2 {
		return
	}
	shared := b.sharedPrefix(items)
	for i := range items {
		k := b.key(items[i])[shared:]
		items[i].pfx, items[i].pfx2 = prefixOf(k), prefixOf(k[min(8, len(k)):])
	}
	compare := func(x, y item) int {
		if x.pfx != y.pfx {
			return cmp.Compare(x.pfx, y.pfx)
		}
		if x.pfx2 != y.pfx2 {
			return cmp.Compare(x.pfx2, y.pfx2)
		}
		return cmp.Or(bytes.Compare(b.key(x)[shared:], b.key(y)[shared:]), cmp.Compare(x.seq, y.seq))
	}
	radixSort(items, 0, cutoff, compare)
}

// radixSort sorts items whose bytes before depth (of the sixteen pfx and pfx2 hold) are equal:
// an in-place most-significant-byte radix sort, cheaper than a comparison sort of the same
// items (docs/BENCHMARKS.md) since it reads each item's integers once a level instead of
// calling a comparison some twenty times per item. Buckets
// smaller than cutoff get an insertion sort; items equal in all sixteen bytes, compare.
func radixSort(items []item, depth, cutoff int, compare func(x, y item) int) {
	for len(items) >= cutoff && depth < 16 {
		var count [256]int
		for i := range items {
			count[radixByte(&items[i], depth)]++
		}
		if count[radixByte(&items[0], depth)] == len(items) { // one bucket: look one byte deeper
			depth++
			continue
		}
		var start, next [256]int
		for c, sum := 0, 0; c < 256; c++ {
			start[c], next[c] = sum, sum
			sum += count[c]
		}
		// Each item is swapped straight into the next free place of its bucket.
		for c := range 256 {
			end := start[c] + count[c]
			for next[c] < end {
				it := items[next[c]]
				for d := int(radixByte(&it, depth)); d != c; d = int(radixByte(&it, depth)) {
					it, items[next[d]] = items[next[d]], it
					next[d]++
				}
				items[next[c]] = it
				next[c]++
			}
		}
		for c := range 256 {
			if count[c] > 1 {
				radixSort(items[start[c]:start[c]+count[c]], depth+1, cutoff, compare)
			}
		}
		return
	}
	if len(items) >= cutoff {
		slices.SortFunc(items, compare) // equal in all sixteen bytes
		return
	}
	// A small bucket: an insertion sort that compares the held bytes inline.
	for i := 1; i < len(items); i++ {
		for j := i; j > 0; j-- {
			x, y := &items[j], &items[j-1]
			if x.pfx > y.pfx || x.pfx == y.pfx && (x.pfx2 > y.pfx2 || x.pfx2 == y.pfx2 && compare(*x, *y) >= 0) {
				break
			}
			*x, *y = *y, *x
		}
	}
}

// radixByte is byte depth of an item's sixteen held bytes.
func radixByte(it *item, depth int) byte {
	if depth < 8 {
		return byte(it.pfx >> (56 - 8*depth))
	}
	return byte(it.pfx2 >> (120 - 8*depth))
}

// sharedPrefix returns how many leading bytes every key of items has in common.
func (b *loadBuffer) sharedPrefix(items []item) int {
	first := b.key(items[0])
	n := len(first)
	for _, it := range items[1:] {
		k := b.key(it)
		n = commonPrefix(first[:min(n, len(k))], k)
		if n == 0 {
			break
		}
	}
	return n
}

// commonPrefix returns the length of the longest common prefix of a and b, comparing eight
// bytes at a time.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// sortAll sorts the buffer's documents and each param's index entries in (key, sequence)
// order.
func (b *loadBuffer) sortAll() {
	b.sortItems(b.docs)
	for _, pi := range b.entries {
		b.sortItems(pi.items)
	}
}

// docPartitions is how many key ranges a load's documents are merged in: several per merge
// slot, so that uneven ranges still keep every core busy. The parameter merges start only when
// the last range is merged, and with about as many ranges as slots the last range would run
// alone on one core while the others wait.
func docPartitions() int { return 4 * runtime.GOMAXPROCS(0) }

// splitPoints returns up to parts-1 increasing keys that cut sorted items into ranges of about
// equal size.
func (b *loadBuffer) splitPoints(items []item, parts int) [][]byte {
	var out [][]byte
	for i := 1; i < parts; i++ {
		at := i * len(items) / parts
		if at == 0 {
			continue
		}
		k := b.key(items[at])
		if len(out) == 0 || bytes.Compare(k, out[len(out)-1]) > 0 {
			out = append(out, bytes.Clone(k))
		}
	}
	return out
}

// partition cuts sorted items at the split points: partition j holds the keys from split j-1
// (included) to split j (excluded). Versions of one key fall in one partition.
func (b *loadBuffer) partition(items []item, splits [][]byte) [][]item {
	out := make([][]item, 0, len(splits)+1)
	for _, sp := range splits {
		at, _ := slices.BinarySearchFunc(items, sp, func(it item, k []byte) int { return bytes.Compare(b.key(it), k) })
		out = append(out, items[:at])
		items = items[at:]
	}
	return append(out, items)
}

// entriesOf returns the buffered entries of a param (none if it has none).
func (b *loadBuffer) entriesOf(param string) []item {
	if pi := b.entries[param]; pi != nil {
		return pi.items
	}
	return nil
}

// spill hands the full buffer to a goroutine that writes it as one sorted run, after the
// previous spill has finished, and continues with the emptied buffer that spill returns.
func (l *loading) spill() error {
	if err := l.waitSpill(); err != nil {
		return err
	}
	full, n := l.buf, l.runs
	l.buf, l.spare = l.spare, nil
	l.runs++
	var params []string
	for p, pi := range full.entries {
		if len(pi.items) > 0 {
			params = append(params, p)
			l.paramRuns[p] = append(l.paramRuns[p], n)
		}
	}
	paths := make([]string, len(params))
	for i, p := range params {
		paths[i] = l.entryRunPath(n, p)
	}
	l.spilled = make(chan spillResult, 1)
	go func() {
		full.sortAll()
		if n == 0 {
			l.splits = full.splitPoints(full.docs, docPartitions())
		}
		var err error
		for j, part := range full.partition(full.docs, l.splits) {
			if err == nil {
				err = writeRun(l.runPath(n, fmt.Sprintf("d%d", j)), full, part, docRun)
			}
		}
		for i, p := range params {
			if err == nil {
				err = writeRun(paths[i], full, full.entries[p].items, entryRun)
			}
		}
		full.reset()
		l.spilled <- spillResult{full, err}
	}()
	return nil
}

// waitSpill waits for the spill in flight, if any, and takes its buffer back as the spare.
func (l *loading) waitSpill() error {
	if l.spilled == nil {
		return nil
	}
	r := <-l.spilled
	l.spilled, l.spare = nil, r.buf
	return r.err
}

func (l *loading) runPath(n int, ext string) string {
	return filepath.Join(l.dir, fmt.Sprintf("%06d.%s", n, ext))
}

// paramName names a param in file names ("e" and its number). It is called only by the
// goroutine that owns the load (params is not shared with spills).
func (l *loading) paramName(param string) string {
	id, ok := l.params[param]
	if !ok {
		id = len(l.params)
		l.params[param] = id
	}
	return fmt.Sprintf("e%d", id)
}

// entryRunPath names run n's file of a param's entries.
func (l *loading) entryRunPath(n int, param string) string {
	return l.runPath(n, l.paramName(param))
}

func (l *loading) Abort() {
	if l.spent {
		return
	}
	l.spent = true
	_ = l.waitSpill()
	l.stream.abandon()
	for _, es := range l.entryStreams {
		es.tw.abandon()
	}
	l.buf, l.spare = nil, nil
	_ = os.RemoveAll(l.dir)
}

func (l *loading) Commit(ctx context.Context) (err error) {
	if l.spent {
		return fmt.Errorf("%w: load already committed or aborted", store.ErrInvalid)
	}
	defer l.Abort() // the runs and tables are no longer needed either way
	if err := l.s.enter(ctx); err != nil {
		return err
	}
	defer l.s.leave()
	if err := l.waitSpill(); err != nil {
		return err
	}
	if l.streamed == 0 && len(l.buf.docs) == 0 && l.runs == 0 {
		return nil
	}
	l.buf.sortAll()

	stale := map[string]struct{}{}
	var count int64
	var tables []string
	if l.streaming {
		// Every document came in order, once: the streamed tables are the documents.
		if err := l.stream.cut(); err != nil {
			return err
		}
		tables, count = l.stream.paths, l.streamed
	} else {
		var err error
		if tables, count, err = l.mergeDocs(ctx, stale); err != nil {
			return err
		}
	}
	entryTables, err := l.mergeParams(ctx, stale)
	if err != nil {
		return err
	}
	tables = append(tables, entryTables...)
	cw := &tableWriter{dir: l.dir, name: "count", opts: l.s.docTableOptions()}
	if err := cw.add(countKey(l.gen, l.coll), binary.AppendVarint(nil, count)); err != nil {
		return err
	}
	if err := cw.cut(); err != nil {
		return err
	}
	tables = append(tables, cw.paths...)

	// The collection must still be empty: a Put since Load would be overwritten or leave
	// entries beside the load's. Holding the collection's lock keeps Puts out until the tables
	// are in.
	lock := l.s.docLock(l.gen, l.coll)
	lock.Lock()
	defer lock.Unlock()
	n, err := l.s.readCount(l.s.db, l.gen, l.coll)
	if err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("%w: collection %s of generation %s was written while it was loading", store.ErrConflict, l.coll, l.gen)
	}
	if err := l.s.db.Ingest(ctx, tables); err != nil {
		return fmt.Errorf("embedded: load %s: %w", l.coll, err)
	}
	// Its ids are now stored without passing through a fresh filter: later Puts must read.
	l.s.fresh.markFilled(l.gen, l.coll)
	return nil
}

// openRuns opens runs and adds a list still in memory. Beyond the store's fan-in, groups of
// runs are merged together first (name tells the merged files apart): each group is of runs
// not merged before, and only as many as bring the count down to the fan-in, so an item is
// rewritten at most once until there are more than fan-in squared runs. (Merging the first
// fan-in runs into one and that one with the next ones would rewrite the oldest items once per
// group.) Every
// item keeps its sequence number, so the order of runs does not matter.
func (l *loading) openRuns(ctx context.Context, paths []string, name string, last []item, prefix []byte, kind runKind) ([]source, error) {
	fanIn := l.s.cfg.loadFanIn
	for merged := 0; len(paths) > fanIn; merged++ {
		group := min(fanIn, len(paths)-fanIn+1) // merging g runs leaves g-1 fewer
		out := filepath.Join(l.dir, fmt.Sprintf("merged-%06d.%s", merged, name))
		if err := mergeRuns(ctx, paths[:group], out, prefix, kind); err != nil {
			return nil, err
		}
		paths = append(paths[group:], out)
	}
	var out []source
	for _, p := range paths {
		r, err := openRun(p, prefix)
		if err != nil {
			for _, o := range out {
				o.close()
			}
			return nil, err
		}
		out = append(out, r)
	}
	return append(out, &memRun{buf: l.buf, items: last, k: bytes.Clone(prefix)}), nil
}

// mergeDocs merges the document runs, each key range on its own core, records the stale index
// entries of superseded versions into stale, and returns the tables in key order and the
// number of documents.
func (l *loading) mergeDocs(ctx context.Context, stale map[string]struct{}) ([]string, int64, error) {
	parts := len(l.splits) + 1
	streamed := make([]string, parts)
	if l.streamed > 0 {
		var err error
		if streamed, err = l.splitStreamed(parts); err != nil {
			return nil, 0, err
		}
	}
	last := l.buf.partition(l.buf.docs, l.splits)
	tables := make([][]string, parts)
	counts := make([]int64, parts)
	stales := make([]map[string]struct{}, parts)
	err := l.parallel(parts, func(j int) error {
		var paths []string
		if streamed[j] != "" {
			paths = append(paths, streamed[j])
		}
		for n := range l.runs {
			paths = append(paths, l.runPath(n, fmt.Sprintf("d%d", j)))
		}
		name := fmt.Sprintf("d%d", j)
		srcs, err := l.openRuns(ctx, paths, name, last[j], docPrefix(l.gen, l.coll), docRun)
		if err != nil {
			return err
		}
		m := merger{ctx: ctx, skip: l.skip, stale: map[string]struct{}{}, gen: l.gen, coll: l.coll}
		tw := &tableWriter{dir: l.dir, name: "table-" + name, opts: l.s.docTableOptions(), cached: l.readBack}
		if counts[j], err = m.mergeDocs(srcs, tw); err != nil {
			tw.abandon()
			return err
		}
		tables[j], stales[j] = tw.paths, m.stale
		if err := tw.cut(); err != nil {
			return err
		}
		return removeRuns(l.dir, name)
	})
	if err != nil {
		return nil, 0, err
	}
	var count int64
	for j := range parts {
		count += counts[j]
		maps.Copy(stale, stales[j])
	}
	return slices.Concat(tables...), count, nil
}

// splitStreamed cuts the run of documents streamed before the first out-of-order one at the
// split points, one file per partition.
func (l *loading) splitStreamed(parts int) ([]string, error) {
	src := filepath.Join(l.dir, "streamed.docs")
	paths := make([]string, parts)
	for j := range paths {
		paths[j] = filepath.Join(l.dir, fmt.Sprintf("streamed.d%d", j))
	}
	if parts == 1 {
		return paths, os.Rename(src, paths[0])
	}
	r, err := openRun(src, docPrefix(l.gen, l.coll))
	if err != nil {
		return nil, err
	}
	defer r.close()
	j := 0
	w, err := createRun(paths[j], l.skip, docRun)
	if err != nil {
		return nil, err
	}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			if err != nil {
				w.abandon()
				return nil, err
			}
			break
		}
		for j < len(l.splits) && bytes.Compare(r.key()[l.skip:], l.splits[j]) >= 0 {
			if err := w.finish(); err != nil {
				return nil, err
			}
			j++
			if w, err = createRun(paths[j], l.skip, docRun); err != nil {
				return nil, err
			}
		}
		w.put(r.key(), r.seq(), r.value())
	}
	if err := w.finish(); err != nil {
		return nil, err
	}
	clear(paths[j+1:]) // partitions past the streamed keys have no streamed file
	return paths, nil
}

// removeRuns deletes the runs (spilled, streamed, merged) of one partition or param as soon as
// its tables are written, so that a commit's disk peak is its runs plus the tables of the
// merges in flight, not runs plus all tables.
func removeRuns(dir, name string) error {
	runs, err := filepath.Glob(filepath.Join(dir, "*."+name))
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := os.Remove(r); err != nil {
			return fmt.Errorf("embedded: load: %w", err)
		}
	}
	return nil
}

// parallel runs f(0) .. f(n-1), each in one of the store's merge slots (as many at once as
// there are cores, across every load committing), and joins their errors.
func (l *loading) parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := l.s.merges
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// mergeParams merges each param's entry runs into tables of its own, several params at once,
// and returns the tables in key order. stale is only read.
func (l *loading) mergeParams(ctx context.Context, stale map[string]struct{}) ([]string, error) {
	set := map[string]struct{}{}
	for p := range l.paramRuns {
		set[p] = struct{}{}
	}
	for p, pi := range l.buf.entries {
		if len(pi.items) > 0 {
			set[p] = struct{}{}
		}
	}
	for p := range l.entryStreams {
		set[p] = struct{}{} // streamed whole, or turned into a run
	}
	params := slices.Sorted(maps.Keys(set))
	tables := make([][]string, len(params))
	paths := make([][]string, len(params))
	names := make([]string, len(params))
	for i, p := range params {
		if run, ok := l.streamedRuns[p]; ok {
			paths[i] = append(paths[i], run)
		}
		for _, n := range l.paramRuns[p] {
			paths[i] = append(paths[i], l.entryRunPath(n, p))
		}
		names[i] = l.paramName(p)
	}
	order, err := largestFirst(paths, func(i int) int64 { return int64(len(l.buf.entriesOf(params[i]))) * itemSize })
	if err != nil {
		return nil, err
	}
	err = l.parallel(len(params), func(k int) error {
		i := order[k]
		if es := l.entryStreams[params[i]]; es != nil && es.on {
			// Every entry of the param came in order: its stream's tables are its entries.
			tables[i] = es.tw.paths
			return es.tw.cut()
		}
		srcs, err := l.openRuns(ctx, paths[i], names[i], l.buf.entriesOf(params[i]), paramPrefix(l.gen, l.coll, params[i]), entryRun)
		if err != nil {
			return err
		}
		m := merger{ctx: ctx, skip: l.skip, stale: stale}
		tw := &tableWriter{dir: l.dir, name: "table-" + names[i], opts: l.s.entryTableOptions()}
		if err := m.mergeEntries(srcs, tw); err != nil {
			tw.abandon()
			return err
		}
		tables[i] = tw.paths
		if err := tw.cut(); err != nil {
			return err
		}
		return removeRuns(l.dir, names[i])
	})
	if err != nil {
		return nil, err
	}
	return slices.Concat(tables...), nil
}

// largestFirst orders merges by the bytes they read, largest first: runs' sizes on disk
// (paths[i] are merge i's) plus buffered bytes. Merges share one slot per core, and when the
// last to start is a large one, the other cores sit idle while it finishes.
func largestFirst(paths [][]string, buffered func(i int) int64) ([]int, error) {
	sizes := make([]int64, len(paths))
	for i, ps := range paths {
		sizes[i] = buffered(i)
		for _, p := range ps {
			info, err := os.Stat(p)
			if err != nil {
				return nil, fmt.Errorf("embedded: load: %w", err)
			}
			sizes[i] += info.Size()
		}
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	return order, nil
}

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

// merger merges runs into tables, keeping the last version of each key.
type merger struct {
	ctx       context.Context
	skip      int
	gen, coll string
	stale     map[string]struct{} // index entries only superseded documents had
	steps     int
}

func (m *merger) tick() error {
	m.steps++
	if m.steps%4096 == 0 {
		return m.ctx.Err()
	}
	return nil
}

// mergeDocs writes the last version of each document and returns how many documents there are.
func (m *merger) mergeDocs(srcs []source, tw *tableWriter) (int64, error) {
	var count int64
	err := m.merge(srcs, func(key, value []byte, older [][]byte) error {
		count++
		if len(older) > 0 {
			if err := m.markStale(key[m.skip:], value, older); err != nil {
				return err
			}
		}
		return tw.add(key, value)
	})
	return count, err
}

// markStale records the index entries of a document's superseded versions that its last
// version does not have.
func (m *merger) markStale(id, last []byte, older [][]byte) error {
	keep := map[string]bool{}
	lastKeys, _, err := decodeKeys(last)
	if err != nil {
		return fmt.Errorf("%w: document %q", err, id)
	}
	for _, k := range lastKeys {
		keep[string(indexKey(m.gen, m.coll, k.Param, k.Value, string(id)))] = true
	}
	for _, v := range older {
		keys, _, err := decodeKeys(v)
		if err != nil {
			return fmt.Errorf("%w: document %q", err, id)
		}
		for _, k := range keys {
			if ik := string(indexKey(m.gen, m.coll, k.Param, k.Value, string(id))); !keep[ik] {
				m.stale[ik] = struct{}{}
			}
		}
	}
	return nil
}

// mergeEntries writes the last version of each index entry that is not stale.
func (m *merger) mergeEntries(srcs []source, tw *tableWriter) error {
	checkStale := len(m.stale) > 0 // almost always empty: hashing every key for nothing is not free
	return m.merge(srcs, func(key, value []byte, _ [][]byte) error {
		if checkStale {
			if _, ok := m.stale[string(key)]; ok {
				return nil
			}
		}
		return tw.add(key, value)
	})
}

// merge walks the sources in (key, sequence) order and calls emit once per key with its last
// value and, when the key came more than once, the earlier values (oldest first). The slices
// passed to emit are valid only during the call.
func (m *merger) merge(srcs []source, emit func(key, value []byte, older [][]byte) error) error {
	h := sourceHeap{skip: m.skip}
	defer func() {
		for _, s := range srcs {
			s.close()
		}
	}()
	if err := h.start(srcs); err != nil {
		return err
	}
	var key, value []byte
	var older [][]byte
	for len(h.items) > 0 {
		if err := m.tick(); err != nil {
			return err
		}
		top := h.top()
		key = append(key[:0], top.key()...)
		value = append(value[:0], top.value()...)
		older = older[:0]
		if err := h.advance(); err != nil {
			return err
		}
		for len(h.items) > 0 && bytes.Equal(h.top().key(), key) {
			older = append(older, bytes.Clone(value))
			value = append(value[:0], h.top().value()...)
			if err := h.advance(); err != nil {
				return err
			}
		}
		if err := emit(key, value, older); err != nil {
			return err
		}
	}
	return nil
}

// source is one sorted run.
type source interface {
	next() (bool, error)
	key() []byte
	value() []byte
	seq() uint64
	close()
}

// sourceHeap is a min-heap of sources by their current (key, sequence). Each node holds its
// source's current key (after skip) beside it, so that comparisons read no method; a merge
// of hundreds of runs compares keys a dozen times per item, so those comparisons are a large
// part of a commit.
type sourceHeap struct {
	items []heapNode
	skip  int
}

type heapNode struct {
	src source
	key []byte // src.key()[skip:], valid until src moves
	seq uint64
}

func (h *sourceHeap) node(s source) heapNode {
	return heapNode{src: s, key: s.key()[h.skip:], seq: s.seq()}
}

func (a *heapNode) less(b *heapNode) bool {
	c := bytes.Compare(a.key, b.key)
	return c < 0 || c == 0 && a.seq < b.seq
}

// top is the smallest source.
func (h *sourceHeap) top() source { return h.items[0].src }

// start reads the first item of each source and orders them.
func (h *sourceHeap) start(srcs []source) error {
	for _, s := range srcs {
		ok, err := s.next()
		if err != nil {
			return err
		}
		if ok {
			h.items = append(h.items, h.node(s))
		}
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return nil
}

// advance moves the smallest source to its next item, dropping it when it is exhausted.
func (h *sourceHeap) advance() error {
	s := h.items[0].src
	ok, err := s.next()
	if err != nil {
		return err
	}
	if !ok {
		last := len(h.items) - 1
		s.close()
		h.items[0] = h.items[last]
		h.items = h.items[:last]
		h.down(0)
		return nil
	}
	h.items[0] = h.node(s)
	h.replaceTop()
	return nil
}

// down restores the order below i, two comparisons a level.
func (h *sourceHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h.items[r].less(&h.items[l]) {
			j = r
		}
		if !h.items[j].less(&h.items[i]) {
			return
		}
		h.items[i], h.items[j] = h.items[j], h.items[i]
		i = j
	}
}

// replaceTop places a new root. It first asks whether the root stays, two comparisons: the
// runs of a load whose documents came in id order hold each value's entries in id order, so
// the run that gave an entry usually gives the next one too while a value lasts (a state, a
// specialty, "true"). Otherwise a run's next key usually belongs near the bottom, so it walks
// the path of smaller children to a leaf (one comparison a level), then climbs back to where
// the root goes: about half the comparisons of down.
func (h *sourceHeap) replaceTop() {
	n := len(h.items)
	if n < 2 {
		return
	}
	j := 1
	if n > 2 && h.items[2].less(&h.items[1]) {
		j = 2
	}
	if !h.items[j].less(&h.items[0]) {
		return
	}
	root := h.items[0]
	h.items[0] = h.items[j]
	i := j
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.items[r].less(&h.items[l]) {
			j = r
		}
		h.items[i] = h.items[j]
		i = j
	}
	for i > 0 {
		parent := (i - 1) / 2
		if !root.less(&h.items[parent]) {
			break
		}
		h.items[i] = h.items[parent]
		i = parent
	}
	h.items[i] = root
}

// memRun is the sorted buffer still in memory at Commit. k starts as the prefix its list's
// buffered keys leave out; next appends the current key to it.
type memRun struct {
	buf    *loadBuffer
	items  []item
	pos    int
	k      []byte
	prefix int
}

func (r *memRun) next() (bool, error) {
	if r.pos >= len(r.items) {
		return false, nil
	}
	if r.pos == 0 {
		r.prefix = len(r.k)
	}
	r.k = append(r.k[:r.prefix], r.buf.key(r.items[r.pos])...)
	r.pos++
	return true, nil
}
func (r *memRun) key() []byte   { return r.k }
func (r *memRun) value() []byte { return r.buf.value(r.items[r.pos-1]) }
func (r *memRun) seq() uint64   { return r.items[r.pos-1].seq }
func (r *memRun) close()        {}
