package embedded

import (
	"context"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"

	"providerdir/store"
)

// Store is a store.Store on a Pebble directory. It is safe for concurrent use.
type Store struct {
	db    *pebble.DB
	dir   string
	lock  os.FileInfo     // Pebble's lock file as found at Open, for Ping
	popts *pebble.Options // as opened, for the tables of bulk loads
	cfg   config

	// life guards closing: every call holds it shared, Close holds it exclusively, so Close
	// waits for calls in flight and no call reaches a closed database.
	life   sync.RWMutex
	closed bool

	// docLocks serialise writers of one collection of one generation (chosen by hash), because
	// a Put reads the documents it replaces to delete their old index entries and maintains the
	// collection's document count. DropGeneration takes them all.
	docLocks [64]sync.Mutex
	// fresh filters the ids of collections first written empty, to skip reading absent ids.
	fresh freshFilters
	// recMu serialises the read-modify-write of records, counters and the expiry index.
	recMu sync.Mutex
	// records filters the keys of records and counters, to skip reading absent ones.
	records recordFilter
	// merges holds the slots of the merges of bulk-load commits, whichever load they belong
	// to: an ingest commits several loads at once, and each merge holds a buffer per run, so the
	// slots bound both the CPU and the memory the commits take together. There is one more
	// slot than cores: a merge waits on the disk now and then (reading runs back, finishing
	// tables), and the extra slot keeps a core busy while it does.
	merges chan struct{}

	stop    chan struct{}
	sweeper sync.WaitGroup
}

var _ store.Store = (*Store)(nil)

// Option configures Open.
type Option func(*config)

type config struct {
	cacheSize     int64
	memTableSize  uint64
	sweepInterval time.Duration
	// probeCap bounds how many index entries per condition the query planner reads to find the
	// most selective condition before choosing a strategy (see query.go). Tests lower it to
	// drive every strategy with small data.
	probeCap int
	// loadBuffer is how much a bulk load buffers before spilling a sorted run (see bulk.go).
	loadBuffer int
	// loadFanIn is how many runs a load's merge reads at once (see bulkrun.go).
	loadFanIn int
}

func defaults() config {
	return config{
		cacheSize:     256 << 20,
		memTableSize:  64 << 20,
		sweepInterval: time.Minute,
		probeCap:      4096,
		loadBuffer:    loadBufferDefault,
		loadFanIn:     loadFanInDefault,
	}
}

// WithCacheSize sets the block cache size in bytes (default 256 MiB). The cache holds
// uncompressed blocks of index entries and documents; more of it means fewer disk reads.
func WithCacheSize(bytes int64) Option { return func(c *config) { c.cacheSize = bytes } }

// WithMemTableSize sets the size of Pebble's memtable in bytes (default 64 MiB). Larger
// memtables mean fewer, larger flushes during a bulk ingest.
func WithMemTableSize(bytes uint64) Option { return func(c *config) { c.memTableSize = bytes } }

// Open opens (creating if needed) the store in directory dir. It refuses a store whose directory
// other users may enter (fileperm.CheckPrivate), makes an empty directory 0700, and creates the directory
// 0700 and every file in it 0600.
func Open(dir string, opts ...Option) (*Store, error) {
	if err := makePrivate(dir); err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	cache := pebble.NewCache(cfg.cacheSize)
	defer cache.Unref() // the database holds its own reference
	po := &pebble.Options{
		Cache:              cache,
		MemTableSize:       cfg.memTableSize,
		FormatMajorVersion: pebble.FormatNewest,
		Logger:             quietLogger{},
		FS:                 fsPrivate,
	}
	// Tuned for bulk loads (an ingest writes tens of millions of keys into a fresh key range):
	// more queued memtables and a higher L0 ceiling so that writes do not stall while a flush or
	// compaction catches up, and a larger L0 trigger and base level so that each key is
	// rewritten by fewer compactions on its way down.
	po.MemTableStopWritesThreshold = 4
	po.L0CompactionThreshold = 16
	po.L0StopWritesThreshold = 64
	po.LBaseMaxBytes = 256 << 20
	po.TargetFileSizes[0] = 8 << 20
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	po.ApplyCompressionSettings(func() pebble.DBCompressionSettings { return pebble.DBCompressionBalanced })
	po.EnsureDefaults()
	db, err := pebble.Open(dir, po)
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
	}
	// Runs and tables of loads a crash interrupted; the directory is ours now (Pebble's lock).
	if err := os.RemoveAll(filepath.Join(dir, loadsDir)); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
	}
	lock, err := os.Stat(filepath.Join(dir, lockFile))
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
	}
	s := &Store{db: db, dir: dir, lock: lock, popts: po, cfg: cfg, stop: make(chan struct{}), merges: make(chan struct{}, runtime.GOMAXPROCS(0)+1)}
	s.records.cur = newIDFilter(recordFilterFloor)
	if err := s.buildRecordFilter(); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("embedded: open %s: %w", dir, err)
	}
	s.sweeper.Add(1)
	go s.sweepLoop()
	return s, nil
}

// Close closes the store; calls after it, including a second Close, return store.ErrClosed.
func (s *Store) Close() error {
	s.life.Lock()
	if s.closed {
		s.life.Unlock()
		return store.ErrClosed
	}
	s.closed = true
	s.life.Unlock()
	close(s.stop)
	s.sweeper.Wait()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("embedded: close: %w", err)
	}
	return nil
}

// enter admits a call unless the store is closed; the caller must call leave after.
func (s *Store) enter(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.life.RLock()
	if s.closed {
		s.life.RUnlock()
		return store.ErrClosed
	}
	return nil
}

func (s *Store) leave() { s.life.RUnlock() }

// commit applies b and waits until it is durable. unlock, called once b is applied (and
// visible) but before the wait for the log sync, releases whatever lock serialised the write,
// so that the next writer can apply its batch and share the same sync.
//
// ApplyNoSyncWait is marked experimental by Pebble; this package pins Pebble's version in
// go.mod, and the call is exactly "apply now, wait for the sync separately".
func (s *Store) commit(b *pebble.Batch, unlock func()) error {
	err := s.db.ApplyNoSyncWait(b, pebble.Sync)
	unlock()
	if err != nil {
		_ = b.Close()
		return fmt.Errorf("embedded: write: %w", err)
	}
	err = b.SyncWait()
	_ = b.Close()
	if err != nil {
		return fmt.Errorf("embedded: sync: %w", err)
	}
	return nil
}

// commitEphemeral applies b, a write of records that expire (rate-limit windows, replay guards),
// without waiting for the log sync: the write is in the log when this returns, so it survives
// the process's crash, and only a crash of the machine can lose the last moments of it, which
// at worst forgives a few requests of a window. Waiting for the sync would make every metered
// request wait for the disk, one after another for one caller.
func (s *Store) commitEphemeral(b *pebble.Batch, unlock func()) error {
	err := s.db.Apply(b, pebble.NoSync)
	unlock()
	_ = b.Close()
	if err != nil {
		return fmt.Errorf("embedded: write: %w", err)
	}
	return nil
}

// commitRecord commits a write of one record or counter: ephemerally when it expires.
func (s *Store) commitRecord(b *pebble.Batch, next stored) error {
	if next.expires != 0 {
		return s.commitEphemeral(b, s.recMu.Unlock)
	}
	return s.commit(b, s.recMu.Unlock)
}

// docLock returns the lock serialising writers of one collection of one generation.
func (s *Store) docLock(gen, coll string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(gen))
	h.Write([]byte{0})
	h.Write([]byte(coll))
	return &s.docLocks[h.Sum32()%uint32(len(s.docLocks))]
}

// quietLogger drops Pebble's informational messages (one per flush and compaction) and keeps
// its errors.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}

func (quietLogger) Errorf(format string, args ...any) { log.Printf("pebble: "+format, args...) }

func (quietLogger) Fatalf(format string, args ...any) { log.Fatalf("pebble: "+format, args...) }
