// Package embedded is the default store backend: a single-node, on-disk store in one directory,
// built on the Pebble LSM key-value engine, with no server to run.
//
// It is sized for the national directory on one machine (tens of millions of documents):
//
//   - Documents and their search keys are plain Pebble keys (see keys.go). A search key is an
//     index entry, so Find is an ordered prefix iteration and nothing about documents is held in
//     memory beyond the page being built.
//   - Each Put is one Pebble batch: a batch of documents, their index entries and the removal of
//     replaced documents' old entries become visible together and survive a crash together.
//   - Sstables are compressed (fast compression near the top of the LSM, zstd at the bottom
//     where most data rests) and carry bloom filters, so the point reads of Put (does this id
//     already exist?) and Get rarely touch disk for absent keys. A collection first written
//     empty by this process skips that read for ids it has never written (fresh.go), and a
//     filter of every record and counter key skips the read of records that are not there
//     (recordfilter.go): a metered subject's first request, a token's replay guard.
//   - An ingest fills new collections by bulk load: an external merge sort whose sorted tables
//     Pebble ingests directly, bypassing the write-ahead log, the memtable and compaction (see
//     Bulk loads below). bulk.go holds the load's life (Load, Add, Commit); bulkbuffer.go the
//     buffer of keys, bulksort.go its radix sort, bulkspill.go the spill of a full buffer as a
//     run (format in bulkrun.go), bulkstream.go documents and entries that arrive in order,
//     bulkmerge.go and bulkheap.go the commit's merge of runs, and bulktable.go the tables.
//   - DropGeneration excises the generation's key range, so its disk space is freed while the
//     store stays open.
//
// Durability: every write (Put, DropGeneration, records, counters and the serving pointer,
// which is a record) is synced to the write-ahead log before it returns. Put is synced too,
// rather than written unsynced with one sync at the end of an ingest: callers may act on a
// returned Put alone (not every writer ends with a synced snapshot switch that would carry the
// earlier batches to disk with it), and one sync per batch of a thousand documents is a small
// part of the cost of writing them. Writes that must be serialised (a compare-and-swap, a
// counter, the replace of a document) hold a lock only while their batch is applied to the
// memtable and wait for the fsync after releasing it, so concurrent writers share fsyncs instead
// of queueing behind each other's. Pebble makes an applied batch visible before its fsync in any
// case; a later write that depends on it is later in the log, so no caller is ever told of a
// write that a crash could lose.
//
// One process owns a directory at a time (Pebble locks it). Records and counters that have
// expired read as absent at once; their space is reclaimed by a background sweep over an
// expiry index, and a create simply overwrites an expired record.
//
// # Bulk loads
//
// Every collection an ingest writes is new and empty in its generation, so the ingest loads it
// in bulk (store.Loader), in this process or through the socket of a running server
// (store/remote). A load is an external merge sort that ends in Pebble's Ingest:
//
//   - Documents and index entries are buffered and spilled as sorted runs (bulkrun.go) by a
//     goroutine of their own while the next buffer fills. Document runs are MinLZ-compressed,
//     index-entry runs are not. A buffer holds keys without the prefix their list shares and is
//     sorted by a radix sort over sixteen bytes each item holds.
//   - Documents that arrive in id order (the FHIR projection emits in NPI order) go straight
//     into tables, and so, while they do, do the index entries of each param whose entries
//     arrive in key order too (ids, NPI identifiers, a role's practitioner: values that follow
//     the id); a stream falls back to a run the moment one arrives out of order (bulkstream.go).
//   - Commit merges the runs, the last version of a document winning and the index entries only
//     its superseded versions had dropped, into tables cut at the boundary between documents,
//     entries and the count, and Pebble links them into the bottom of the tree under one
//     sequence number. One merge reads up to 1,024 runs (a national registry spills about a
//     thousand), merging groups of runs first beyond that, each run at most once. A load's
//     documents are merged in four key ranges per core and its index entries param by param;
//     the merges of every load committing share one slot per core and one more, since a merge
//     waits on the disk now and then.
//   - No key of a load passes through the write-ahead log, the memtable or a compaction.
//     Document tables are written in 16 KB blocks, where the provenance every document of a
//     dataset repeats compresses away; index-entry tables are uncompressed (their keys are
//     prefix-compressed in their blocks already) and carry no Bloom filters, which range seeks
//     never consult.
//   - Runs and tables leave the page cache as they are written (pagecache.go): each file starts
//     its own writeback every 8 MB and drops what is on disk 32 MB behind, so the cache
//     recycles its pages instead of taking free memory.
//
// A collection written again after its load has committed goes through Put, whose Bloom filter
// of the ids a fresh collection holds (fresh.go) spares it the read of ids that cannot exist.
package embedded
