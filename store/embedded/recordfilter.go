package embedded

import (
	"fmt"
	"sync"

	"github.com/cockroachdb/pebble/v2"
)

// Records and counters are read before every write (a compare-and-swap, an increment), and most
// such reads on a busy server are of keys that are not there: the first request of a metered
// subject in its window, the replay guard of every token request. Pebble answers a read of an
// absent key only after looking through its memtables and every level whose tables span the
// key, which costs more than the write that follows. Only this process writes the store's
// records (Pebble lets one process own the directory), so a filter of every record and counter
// key, filled from the store at Open and added to before each new key is written, answers most
// of those reads: a key the filter never held is absent. A false positive costs the read it
// would have saved, never correctness.
//
// The filter is not told of deletions (DeleteRecord's, the sweep's of expired records), so it
// fills with keys long gone. Once it has taken in as many keys again as its last build found
// (and at least recordFilterFloor), the sweep builds it again from the store.

// recordFilterFloor is the least number of keys added since the last build that makes a
// rebuild due: below it the filter's memory and false positives are not worth a scan.
const recordFilterFloor = 1 << 16

type recordFilter struct {
	mu    sync.RWMutex
	cur   *idFilter
	next  *idFilter // the filter a rebuild is filling, nil between rebuilds
	added int       // keys added to cur since it was built
	base  int       // keys cur's build found in the store
}

// mayHold reports whether key may be in the store; false is certain.
func (f *recordFilter) mayHold(key []byte) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.cur.mayHaveBytes(key)
}

// add records a key about to be written. The caller holds recMu and writes the key after, so a
// reader that sees the write sees the key in the filter.
func (f *recordFilter) add(key []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cur.addBytes(key)
	f.added++
	if f.next != nil {
		f.next.addBytes(key)
	}
}

// due reports whether the filter has taken in enough keys since its build to be built again:
// as many as the build found, and at least the floor.
func (f *recordFilter) due() bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.added >= max(f.base, recordFilterFloor)
}

// recordTags are the first bytes of the keys the filter holds: records and counters.
var recordTags = []byte{tagRecord, tagCounter}

// buildRecordFilter fills a new record filter from the store and puts it in place. It holds
// recMu only while it opens its iterators: every writer holding recMu has applied its write by
// the time it lets go (commit, commitEphemeral), so the iterators see every key added to the
// filter before, and a key added after goes into the new filter as well as the old.
func (s *Store) buildRecordFilter() error {
	s.recMu.Lock()
	s.records.mu.Lock()
	next := newIDFilter(max(2*s.records.base, recordFilterFloor))
	s.records.next = next
	s.records.mu.Unlock()
	var iters []*pebble.Iterator
	var err error
	for _, tag := range recordTags {
		var it *pebble.Iterator
		if it, err = s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{tag}, UpperBound: []byte{tag + 1}}); err != nil {
			break
		}
		iters = append(iters, it)
	}
	s.recMu.Unlock()
	n := 0
	for _, it := range iters {
		if err == nil {
			n, err = s.records.fill(next, it, n)
		}
		if cerr := it.Close(); err == nil {
			err = cerr
		}
	}
	s.records.mu.Lock()
	defer s.records.mu.Unlock()
	s.records.next = nil
	if err != nil {
		return fmt.Errorf("embedded: record filter: %w", err)
	}
	s.records.cur, s.records.added, s.records.base = next, 0, n
	return nil
}

// fill adds the keys of it to next, a batch at a time under the filter's lock, and returns n
// plus their number.
func (f *recordFilter) fill(next *idFilter, it *pebble.Iterator, n int) (int, error) {
	batch := make([][]byte, 0, 1024)
	flush := func() {
		f.mu.Lock()
		for _, k := range batch {
			next.addBytes(k)
		}
		f.mu.Unlock()
		batch = batch[:0]
	}
	for valid := it.First(); valid; valid = it.Next() {
		batch = append(batch, append([]byte(nil), it.Key()...))
		n++
		if len(batch) == cap(batch) {
			flush()
		}
	}
	flush()
	return n, it.Error()
}
