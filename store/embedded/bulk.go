package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"providerdir/fileperm"
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
	if err := os.MkdirAll(filepath.Join(s.dir, loadsDir), fileperm.DirMode); err != nil {
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
