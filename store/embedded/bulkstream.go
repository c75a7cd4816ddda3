package embedded

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// entryStream writes one param's index entries straight into tables while they come in
// strictly increasing key order, as documents do when an ingest walks its source by id. The
// entries of a param whose value follows from the document's id (the id itself, an NPI
// identifier, a role's reference to its practitioner) then arrive in order too, and need no
// buffer, sort, run or merge: a tenth of a national FHIR projection's entries. Streams exist
// only while the load's documents stream: the merge of documents that came more than once is
// what finds stale entries, and a streamed entry could not be left out.
type entryStream struct {
	prefix []byte // paramPrefix of the param
	tw     *tableWriter
	last   []byte // the last key written
	on     bool
}

// entryStreamOf returns the stream of a param's entries, started with the param's first entry.
// It returns nil when documents no longer stream or the param's stream has ended.
func (l *loading) entryStreamOf(param string) *entryStream {
	if !l.streaming {
		return nil
	}
	es, ok := l.entryStreams[param]
	if !ok {
		es = &entryStream{prefix: paramPrefix(l.gen, l.coll, param), on: true,
			tw: &tableWriter{dir: l.dir, name: "stream-" + l.paramName(param), opts: l.s.entryTableOptions()}}
		l.entryStreams[param] = es
	}
	if !es.on {
		return nil
	}
	return es
}

// streamEntry writes an entry into its param's stream if its key comes after the last one
// written. If not, it ends the stream (see unstreamEntries) and reports false: the entry and
// every later one of the param go through the buffer.
func (l *loading) streamEntry(param string, es *entryStream, value, id string, v []byte) (bool, error) {
	k := append(append(append(append(l.entryKey[:0], es.prefix...), value...), 0), id...)
	if es.last != nil && bytes.Compare(k, es.last) <= 0 {
		return false, l.unstreamEntries(param, es)
	}
	l.entryKey, es.last = es.last, k
	return true, es.tw.add(k, v)
}

// unstreamEntries ends a param's stream: it reads the tables written so far back into a run,
// the oldest of the param's (every entry in it was added before any buffered one, so sequence
// 0 orders it correctly against later versions), and removes the tables.
func (l *loading) unstreamEntries(param string, es *entryStream) error {
	es.on = false
	path := filepath.Join(l.dir, "streamed."+l.paramName(param))
	if err := l.tablesToRun(es.tw, path, len(es.prefix), entryRun); err != nil {
		return err
	}
	l.streamedRuns[param] = path
	return nil
}

// tablesToRun finishes a stream's tables, copies their keys and values into one run (sequence
// 0, keys stored after skip bytes) and removes the tables.
func (l *loading) tablesToRun(tw *tableWriter, path string, skip int, kind runKind) error {
	if err := tw.cut(); err != nil {
		return err
	}
	tables := tw.paths
	tw.paths = nil
	w, err := createRun(path, skip, kind)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := l.s.readTable(t, func(k, v []byte) { w.put(k, 0, v) }); err != nil {
			w.abandon()
			return err
		}
		if err := os.Remove(t); err != nil {
			w.abandon()
			return fmt.Errorf("embedded: load: %w", err)
		}
	}
	return w.finish()
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
