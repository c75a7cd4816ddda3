package ingest

import (
	"context"
	"runtime"
	"sync"

	"providerdir/store"
)

// batchSize is how many documents go into one store Put: large enough that per-call overhead
// vanishes, small enough that a batch of national-scale documents stays a few megabytes.
const batchSize = 1000

// batchWriter buffers documents per collection and writes full batches on background lanes, so
// that parsing the next rows overlaps writing the last ones, and collections written at once (the
// five FHIR resource types) are written in parallel. A collection always goes to the same lane,
// so its batches are applied in the order they were made and a later document with the same id
// wins. The first write error is kept and returned by every later call.
type batchWriter struct {
	st      store.Store
	gen     string
	pending map[string][]store.Document
	lanes   []chan batch
	laneOf  map[string]int // collection -> lane, assigned round-robin on first use
	done    sync.WaitGroup

	inflight  sync.WaitGroup // queued batches not yet written
	closeOnce sync.Once
	mu        sync.Mutex
	err       error
}

type batch struct {
	collection string
	docs       []store.Document
}

// writeLanes is the number of parallel writers: one per core, at least two so that a write
// always overlaps the next batch's preparation.
func writeLanes() int { return max(2, runtime.GOMAXPROCS(0)) }

func newBatchWriter(st store.Store, gen string) *batchWriter {
	w := &batchWriter{st: st, gen: gen, pending: map[string][]store.Document{}, laneOf: map[string]int{}}
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
		if err := w.st.Put(context.Background(), w.gen, b.collection, b.docs); err != nil {
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
		}
		w.inflight.Done()
	}
}

func (w *batchWriter) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
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
	return w.enqueue(ctx, batch{collection, buf})
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

// sync writes everything buffered so far and waits until it is stored, so that a later family
// can read what an earlier one wrote (Open Payments matching reads the registry).
func (w *batchWriter) sync(ctx context.Context) error {
	for c, buf := range w.pending {
		if len(buf) == 0 {
			continue
		}
		if err := w.enqueue(ctx, batch{c, buf}); err != nil {
			return err
		}
		w.pending[c] = make([]store.Document, 0, batchSize)
	}
	w.inflight.Wait()
	return w.failed()
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
}
