package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"providerdir/store"
)

// MemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit) an ingest process should
// run under unless its operator set GOMEMLIMIT, and GCPercent its garbage collection target
// (debug.SetGCPercent) unless GOGC is set. An ingest allocates its documents and keys at a
// high rate but keeps little of them (its load buffers are reused), so by default the Go heap
// would be collected each time it reached twice a few hundred megabytes of live data. With a
// target of 400 it is collected about when it reaches the limit instead, which trades some
// resident memory for less time collecting (docs/BENCHMARKS.md); the limit keeps a national
// ingest under 2 GiB resident on a small machine.
const (
	MemoryLimit = 1536 << 20
	GCPercent   = 400
)

// StoreCacheSize is the block cache an embedded store opened for an ingest should have
// (embedded.WithCacheSize). An ingest reads the registry once, in order, and looks up a few
// records by id; the serving default (256 MiB, outside the Go heap and its limit) is memory a
// national ingest, bounded at 2 GiB resident, has better uses for. A weekly delta looks up many,
// but scattered over a store far larger than any cache: a larger one spares it no reads
// (docs/BENCHMARKS.md).
const StoreCacheSize = 64 << 20

// batchSize is how many documents go into one store Put: large enough that per-call overhead
// vanishes, small enough that a batch of national-scale documents stays a few megabytes.
const batchSize = 1000

// batchWriter buffers documents per collection and writes full batches on background lanes, so
// that parsing the next rows overlaps writing the last ones, and collections written at once (the
// five FHIR resource types) are written in parallel. A collection always goes to the same lane,
// so its batches are applied in the order they were made and a later document with the same id
// wins. The first write error is kept and returned by every later call.
//
// Every collection of the run's generation starts empty, so when the store can bulk-load
// (store.Loader) a collection's batches go into a load, which sync commits; whatever a
// collection receives after that (and everything, on a store without loads) goes through Put.
type batchWriter struct {
	st  store.Store
	gen string
	log *slog.Logger
	// interrupt reports a commit as a step taken inside the current phase; its result ends it.
	interrupt func(step string) (end func())
	pending   map[string][]store.Document
	release   map[string]func(body []byte) // see recycle; used by the producer only
	lanes     []chan batch
	laneOf    map[string]int // collection -> lane, assigned round-robin on first use
	// readBack are the collections whose loads are asked to keep their documents cached
	// (store.ReadBack), set before the first write.
	readBack map[string]bool
	done     sync.WaitGroup

	// loads are the open bulk loads by collection; put marks collections written by Put. Each
	// collection's entry is touched only by its lane, and by sync once every lane is idle.
	loadMu sync.Mutex
	loads  map[string]store.Loading
	put    map[string]bool
	loaded map[string]int // documents added to each load, to commit the largest first

	inflight  sync.WaitGroup // queued batches not yet written
	closeOnce sync.Once
	mu        sync.Mutex
	err       error
}

type batch struct {
	collection string
	docs       []store.Document
	release    func(body []byte) // takes each document's body once the batch is written
}

// writeLanes is the number of parallel writers: one per core, at least two so that a write
// always overlaps the next batch's preparation.
func writeLanes() int { return max(2, runtime.GOMAXPROCS(0)) }

func newBatchWriter(st store.Store, gen string, log *slog.Logger, interrupt func(string) func()) *batchWriter {
	w := &batchWriter{st: st, gen: gen, log: log, interrupt: interrupt, pending: map[string][]store.Document{}, release: map[string]func([]byte){}, laneOf: map[string]int{},
		loads: map[string]store.Loading{}, put: map[string]bool{}, loaded: map[string]int{}}
	for range writeLanes() {
		q := make(chan batch, 4)
		w.lanes = append(w.lanes, q)
		w.done.Add(1)
		go w.loop(q)
	}
	return w
}

func (w *batchWriter) loop(queue <-chan batch) {
	defer w.done.Done()
	for b := range queue {
		if w.failed() != nil {
			w.inflight.Done()
			continue
		}
		// Writes use a background context: cancellation is noticed by the reader side, which
		// then stops queueing; a half-applied Put is impossible on the embedded store and is
		// dropped with the generation on MongoDB.
		if err := w.write(context.Background(), b); err != nil {
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
		}
		if b.release != nil {
			for _, d := range b.docs {
				b.release(d.Body)
			}
		}
		w.inflight.Done()
	}
}

// write adds a batch to its collection's load, starting one on the collection's first batch
// when the store can load, or Puts it.
func (w *batchWriter) write(ctx context.Context, b batch) error {
	w.loadMu.Lock()
	ld, loading := w.loads[b.collection]
	usePut := w.put[b.collection]
	w.loadMu.Unlock()
	if !loading && !usePut {
		if l, ok := w.st.(store.Loader); ok {
			var err error
			ld, err = l.Load(ctx, w.gen, b.collection)
			switch {
			case err == nil:
				loading = true
				if rb, ok := ld.(store.ReadBack); ok && w.readBack[b.collection] {
					rb.ReadBack()
				}
			case !errors.Is(err, errors.ErrUnsupported):
				return err
			}
		}
		w.loadMu.Lock()
		if loading {
			w.loads[b.collection] = ld
		} else {
			w.put[b.collection] = true
		}
		w.loadMu.Unlock()
	}
	if loading {
		w.loadMu.Lock()
		w.loaded[b.collection] += len(b.docs)
		w.loadMu.Unlock()
		return ld.Add(ctx, b.docs)
	}
	return w.st.Put(ctx, w.gen, b.collection, b.docs)
}

// commitStep names the phase of committing the collections names (sorted): all of them when
// there are few, else the first and how many more, so that the phase table of a whole drop,
// whose first commit takes fifteen collections, stays readable. The names keep apart the
// commits of one run, since a phase's spells are summed by name.
func commitStep(names []string) string {
	switch {
	case len(names) == 1:
		return "committing " + names[0]
	case len(names) <= 3:
		return "committing " + strings.Join(names, ", ")
	default:
		return fmt.Sprintf("committing %s and %d more collections", names[0], len(names)-1)
	}
}

// commitLoads commits every open load, several at once (each merge is one core's work), and
// sends each collection's later batches to Put. The lanes must be idle.
func (w *batchWriter) commitLoads(ctx context.Context) error {
	w.loadMu.Lock()
	loads := w.loads
	w.loads = map[string]store.Loading{}
	for c := range loads {
		w.put[c] = true
	}
	w.loadMu.Unlock()
	if len(loads) == 0 {
		return nil
	}
	began := time.Now()
	names := slices.Sorted(maps.Keys(loads))
	// The largest loads start first, so that the commits ending last are small ones and both
	// cores stay busy to the end.
	w.loadMu.Lock()
	order := slices.Clone(names)
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(w.loaded[b], w.loaded[a]) })
	clear(w.loaded)
	w.loadMu.Unlock()
	// A national load's commit merges gigabytes of runs; say so rather than fall silent.
	w.log.Info("committing bulk loads", "collections", names)
	defer w.interrupt(commitStep(names))()
	sem := make(chan struct{}, writeLanes())
	errs := make(chan error, len(loads))
	for _, c := range order {
		ld := loads[c]
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			if err := ld.Commit(ctx); err != nil {
				errs <- fmt.Errorf("commit %s: %w", c, err)
				return
			}
			errs <- nil
		}()
	}
	var first error
	for range loads {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = first
		}
		w.mu.Unlock()
		return first
	}
	w.log.Info("bulk loads committed", "collections", names, "elapsed", time.Since(began).Round(time.Millisecond))
	return nil
}

// abortLoads drops the open loads.
func (w *batchWriter) abortLoads() {
	w.loadMu.Lock()
	defer w.loadMu.Unlock()
	for c, ld := range w.loads {
		ld.Abort()
		delete(w.loads, c)
	}
}

func (w *batchWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// recycle has the body of every document later added to collection handed to release once
// its batch is written (or dropped after an error), when the store holds no reference to it
// (store.Store), so that the producer can reuse the memory.
func (w *batchWriter) recycle(collection string, release func(body []byte)) {
	w.release[collection] = release
}

// add buffers one document, queueing its collection's batch when full.
func (w *batchWriter) add(ctx context.Context, collection string, d store.Document) error {
	if err := w.failed(); err != nil {
		return err
	}
	buf := append(w.pending[collection], d)
	if len(buf) < batchSize {
		w.pending[collection] = buf
		return nil
	}
	w.pending[collection] = make([]store.Document, 0, batchSize)
	return w.enqueue(ctx, batch{collection, buf, w.release[collection]})
}

func (w *batchWriter) enqueue(ctx context.Context, b batch) error {
	lane, ok := w.laneOf[b.collection]
	if !ok {
		lane = len(w.laneOf) % len(w.lanes)
		w.laneOf[b.collection] = lane
	}
	w.inflight.Add(1)
	select {
	case w.lanes[lane] <- b:
		return nil
	case <-ctx.Done():
		w.inflight.Done()
		return ctx.Err()
	}
}

// sync writes everything buffered so far, commits the open loads and waits until it is all
// stored, so that a later family can read what an earlier one wrote (Open Payments matching
// reads the registry).
func (w *batchWriter) sync(ctx context.Context) error {
	for c, buf := range w.pending {
		if len(buf) == 0 {
			continue
		}
		if err := w.enqueue(ctx, batch{c, buf, w.release[c]}); err != nil {
			return err
		}
		w.pending[c] = make([]store.Document, 0, batchSize)
	}
	w.inflight.Wait()
	if err := w.failed(); err != nil {
		return err
	}
	return w.commitLoads(ctx)
}

// finish writes what is buffered, waits for every queued batch and stops the writer.
func (w *batchWriter) finish(ctx context.Context) error {
	err := w.sync(ctx)
	w.close()
	return err
}

// close stops the background goroutine after the queued batches; it is safe to call twice.
func (w *batchWriter) close() {
	w.closeOnce.Do(func() {
		for _, q := range w.lanes {
			close(q)
		}
	})
	w.done.Wait()
	w.abortLoads()
}
