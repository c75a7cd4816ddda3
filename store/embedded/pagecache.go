package embedded

// The bulk loader writes tens of gigabytes of runs and tables that it does not read again soon,
// or at all. Left in the page cache they take more and more free memory, and on a virtual
// machine a page the cache takes from long-free memory can cost the writer far more than one it
// has just given up (most likely memory the host had reclaimed). So written pages are written
// back and dropped as the writing goes on, and the next writes reuse them (docs/BENCHMARKS.md).
// The kernel calls are advice: where they do not exist, or fail, only speed changes.

// dropBehind keeps a file being written from growing the page cache: every dropChunk bytes it
// starts the writeback of the bytes written since, and once more than dropLag bytes are under
// writeback it waits for the oldest chunk to be on disk and drops its pages.
type dropBehind struct {
	fd                        uintptr
	written, flushed, dropped int64
}

const (
	dropChunk = 8 << 20
	dropLag   = 4 * dropChunk
)

// wrote records n more bytes written at the end of the file.
func (d *dropBehind) wrote(n int) {
	d.written += int64(n)
	if d.written-d.flushed < dropChunk {
		return
	}
	startWriteback(d.fd, d.flushed, d.written-d.flushed)
	d.flushed = d.written
	for d.flushed-d.dropped > dropLag {
		dropWritten(d.fd, d.dropped, dropChunk)
		d.dropped += dropChunk
	}
}

// rest writes back and drops the bytes not dropped yet, for a file that is complete.
func (d *dropBehind) rest() {
	if d.written > d.dropped {
		dropWritten(d.fd, d.dropped, d.written-d.dropped)
		d.dropped = d.written
	}
}
