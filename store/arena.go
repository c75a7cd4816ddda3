package store

// Arena is memory a reader lends a backend for the bodies a read returns. A backend that copies
// bodies out of its own buffers (the embedded store, whose reads point into blocks it reuses)
// copies them into the arena instead of allocating each: a server that keeps one arena per
// request in flight and resets it for the next then serves a page of a hundred resources without
// allocating their bodies, and so without the garbage that sets the pace of collection.
//
// Bodies copied into an arena are valid until its Reset; a reader resets it only when nothing it
// read is still in use. A backend that decodes bodies into fresh memory anyway (MongoDB's driver,
// the remote client) may ignore the arena. An Arena is not safe for concurrent use, and a nil
// *Arena copies each body into memory of its own.
type Arena struct {
	buf []byte
}

// Copy returns a copy of b, in the arena's memory when the arena is not nil. The copy is never
// nil, and its capacity is its length, so an append to it never writes over the next body.
func (a *Arena) Copy(b []byte) []byte {
	if a == nil {
		return append(make([]byte, 0, len(b)), b...)
	}
	// A body that does not fit starts a new block twice the old one's size (at least its own);
	// the bodies in the old block stay valid, and the next Reset keeps only the larger block.
	if a.buf == nil || len(a.buf)+len(b) > cap(a.buf) {
		a.buf = make([]byte, 0, max(2*cap(a.buf), len(b), minArena))
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// Reset makes the arena's memory available to the next reads. The bodies copied into it before
// must no longer be in use.
func (a *Arena) Reset() {
	a.buf = a.buf[:0]
}

// Cap is the arena's memory in bytes, for a pool that keeps arenas only up to a size.
func (a *Arena) Cap() int {
	return cap(a.buf)
}

// MarshalBinary encodes an arena as nothing: it is memory lent to one call, not part of what the
// call asks, so a query sent to another process (store/remote) carries none.
func (a *Arena) MarshalBinary() ([]byte, error) {
	return nil, nil
}

// UnmarshalBinary decodes an arena sent as nothing: an empty one.
func (a *Arena) UnmarshalBinary([]byte) error {
	a.Reset()
	return nil
}

// minArena is the first block of an arena: a page of twenty search results' bodies.
const minArena = 32 << 10
