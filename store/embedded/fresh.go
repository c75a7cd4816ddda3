package embedded

import (
	"hash/maphash"
	"sync"
)

// A Put replaces documents, so for each document it reads the stored version to delete the index
// entries the new version no longer has. In a collection that was empty when this process first
// wrote to it, a document can only exist if this process wrote it: Pebble lets one process own
// the directory, and only Put and bulk loads write documents (a committed load marks its
// collection as filled, so its Puts read). So such a collection keeps a filter of the ids
// written into it, and a Put reads only the ids the filter may hold; a writer filling a fresh
// generation through Put (every id new) then does no read per document at all. A false
// positive costs the read the filter saved, never correctness.

// idFilter is a growing Bloom filter: a chain of filters, each twice the capacity of the one
// before, so that it stays near its false-positive rate however many ids arrive, at about
// 20 bits per id in all.
type idFilter struct {
	parts []*bloomPart
}

type bloomPart struct {
	bits []uint64
	n    int // ids added
	cap  int // ids it was sized for
}

const (
	filterBitsPerID = 10
	filterProbes    = 7
	filterFirstCap  = 1 << 14
)

var filterSeed = maphash.MakeSeed()

func newBloomPart(capacity int) *bloomPart {
	words := (capacity*filterBitsPerID + 63) / 64
	return &bloomPart{bits: make([]uint64, words), cap: capacity}
}

// probes returns the two halves of an id's hash, combined per probe (Kirsch-Mitzenmacher).
func probes(id string) (uint32, uint32) {
	h := maphash.String(filterSeed, id)
	return uint32(h), uint32(h>>32) | 1
}

// probesBytes is probes of an id held as bytes: maphash gives equal bytes and strings the same
// hash.
func probesBytes(id []byte) (uint32, uint32) {
	h := maphash.Bytes(filterSeed, id)
	return uint32(h), uint32(h>>32) | 1
}

func (p *bloomPart) add(h1, h2 uint32) {
	m := uint32(len(p.bits) * 64)
	for i := range uint32(filterProbes) {
		b := (h1 + i*h2) % m
		p.bits[b/64] |= 1 << (b % 64)
	}
	p.n++
}

func (p *bloomPart) has(h1, h2 uint32) bool {
	m := uint32(len(p.bits) * 64)
	for i := range uint32(filterProbes) {
		b := (h1 + i*h2) % m
		if p.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// newIDFilter returns a filter whose first part holds capacity ids near its false-positive
// rate, for a set whose size is known.
func newIDFilter(capacity int) *idFilter {
	return &idFilter{parts: []*bloomPart{newBloomPart(capacity)}}
}

func (f *idFilter) add(id string) { f.addProbes(probes(id)) }

// addBytes is add of an id held as bytes, without a copy into a string.
func (f *idFilter) addBytes(id []byte) { f.addProbes(probesBytes(id)) }

func (f *idFilter) addProbes(h1, h2 uint32) {
	last := len(f.parts) - 1
	if last < 0 || f.parts[last].n >= f.parts[last].cap {
		c := filterFirstCap
		if last >= 0 {
			c = 2 * f.parts[last].cap
		}
		f.parts = append(f.parts, newBloomPart(c))
		last++
	}
	f.parts[last].add(h1, h2)
}

// mayHave reports whether id may have been added; false is certain.
func (f *idFilter) mayHave(id string) bool { return f.mayHaveProbes(probes(id)) }

// mayHaveBytes is mayHave of an id held as bytes.
func (f *idFilter) mayHaveBytes(id []byte) bool { return f.mayHaveProbes(probesBytes(id)) }

func (f *idFilter) mayHaveProbes(h1, h2 uint32) bool {
	for _, p := range f.parts {
		if p.has(h1, h2) {
			return true
		}
	}
	return false
}

// freshFilters holds the filter of each collection (by generation and collection) this process
// found empty, and remembers the ones it did not (nil), so the emptiness is read once.
type freshFilters struct {
	mu sync.Mutex
	m  map[freshKey]*idFilter
}

type freshKey struct{ gen, coll string }

// get returns the collection's filter, nil when the collection held documents when first seen.
// empty is called (once per collection) to find that out; the caller holds the collection's
// lock, so nothing can write the collection in between.
func (ff *freshFilters) get(gen, coll string, empty func() (bool, error)) (*idFilter, error) {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	k := freshKey{gen, coll}
	if f, ok := ff.m[k]; ok {
		return f, nil
	}
	e, err := empty()
	if err != nil {
		return nil, err
	}
	var f *idFilter
	if e {
		f = &idFilter{}
	}
	if ff.m == nil {
		ff.m = map[freshKey]*idFilter{}
	}
	ff.m[k] = f
	return f, nil
}

// dropGeneration forgets a generation's filters: once dropped it is empty again, and the next
// write finds that out anew.
func (ff *freshFilters) dropGeneration(gen string) {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	for k := range ff.m {
		if k.gen == gen {
			delete(ff.m, k)
		}
	}
}

// markFilled records that a collection holds documents this process did not write through Put
// (a bulk load's), so its Puts must read every id.
func (ff *freshFilters) markFilled(gen, coll string) {
	ff.mu.Lock()
	defer ff.mu.Unlock()
	if ff.m == nil {
		ff.m = map[freshKey]*idFilter{}
	}
	ff.m[freshKey{gen, coll}] = nil
}
