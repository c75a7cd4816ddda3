package fhir

import (
	"math/bits"
	"sync"

	"providerdir/store"
)

// Response bodies are built in buffers kept from one request to the next. A page of a search is
// tens to hundreds of kilobytes, and allocating a buffer for each would set the pace of garbage
// collection: the service's own heap is small (the store's cache lives outside it), so every few
// hundred requests' garbage would start a collection. Buffers are pooled by size class, powers of
// two from minPooled to maxPooled, so that small bodies do not take the buffers large ones need.
const (
	minShift  = 12 // 4 KB
	maxShift  = 20 // 1 MB
	minPooled = 1 << minShift
	maxPooled = 1 << maxShift
)

var bodyPools [maxShift - minShift + 1]sync.Pool

// newBody returns an empty buffer with room for at least size bytes.
func newBody(size int) []byte {
	if size > maxPooled {
		return make([]byte, 0, size)
	}
	c := max(bits.Len(uint(max(size, 1)-1))-minShift, 0)
	if b, ok := bodyPools[c].Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, minPooled<<c)
}

// release takes back a body once it has been written: Write does not keep its argument, so
// nothing refers to the buffer any more.
func release(b []byte) {
	if cap(b) < minPooled || cap(b) > maxPooled {
		return
	}
	bodyPools[bits.Len(uint(cap(b)))-1-minShift].Put(&b)
}

// A search reads its page's bodies into an arena (store.Arena) kept from one search to the next,
// for the same reason: a page's resources, copied out of the store one by one, would be as much
// garbage as its response. An arena a very large page grew past maxPooled is not kept.
var arenas = sync.Pool{New: func() any { return new(store.Arena) }}

// newArena returns an empty arena.
func newArena() *store.Arena {
	return arenas.Get().(*store.Arena)
}

// releaseArena takes back an arena once the response its bodies went into has been written.
func releaseArena(a *store.Arena) {
	if a.Cap() > maxPooled {
		return
	}
	a.Reset()
	arenas.Put(a)
}
