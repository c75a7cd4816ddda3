package embedded

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
)

// sortItems sorts by key, then by sequence. The keys of a list often share leading bytes (the
// system of every coded value, the state most addresses share); the sort finds how many and
// holds the sixteen bytes after them in each item, then sorts by those bytes with a radix sort
// (see radixSort), comparing whole keys only among items whose sixteen bytes are equal.
func (b *loadBuffer) sortItems(items []item) {
	b.sortItemsCutoff(items, radixCutoff)
}

// radixCutoff is the bucket size below which the radix sort hands over to an insertion sort.
const radixCutoff = 16

// sortItemsCutoff is sortItems with the radix sort's cutoff given; tests lower it to two, so
// that the radix sort decides every byte of small inputs.
func (b *loadBuffer) sortItemsCutoff(items []item, cutoff int) {
	if len(items) < 2 {
		return
	}
	shared := b.sharedPrefix(items)
	for i := range items {
		k := b.key(items[i])[shared:]
		items[i].pfx, items[i].pfx2 = prefixOf(k), prefixOf(k[min(8, len(k)):])
	}
	compare := func(x, y item) int {
		if x.pfx != y.pfx {
			return cmp.Compare(x.pfx, y.pfx)
		}
		if x.pfx2 != y.pfx2 {
			return cmp.Compare(x.pfx2, y.pfx2)
		}
		return cmp.Or(bytes.Compare(b.key(x)[shared:], b.key(y)[shared:]), cmp.Compare(x.seq, y.seq))
	}
	radixSort(items, 0, cutoff, compare)
}

// radixSort sorts items whose bytes before depth (of the sixteen pfx and pfx2 hold) are equal:
// an in-place most-significant-byte radix sort, cheaper than a comparison sort of the same
// items (docs/BENCHMARKS.md) since it reads each item's integers once a level instead of
// calling a comparison some twenty times per item. Buckets
// smaller than cutoff get an insertion sort; items equal in all sixteen bytes, compare.
func radixSort(items []item, depth, cutoff int, compare func(x, y item) int) {
	for len(items) >= cutoff && depth < 16 {
		var count [256]int
		for i := range items {
			count[radixByte(&items[i], depth)]++
		}
		if count[radixByte(&items[0], depth)] == len(items) { // one bucket: look one byte deeper
			depth++
			continue
		}
		var start, next [256]int
		for c, sum := 0, 0; c < 256; c++ {
			start[c], next[c] = sum, sum
			sum += count[c]
		}
		// Each item is swapped straight into the next free place of its bucket.
		for c := range 256 {
			end := start[c] + count[c]
			for next[c] < end {
				it := items[next[c]]
				for d := int(radixByte(&it, depth)); d != c; d = int(radixByte(&it, depth)) {
					it, items[next[d]] = items[next[d]], it
					next[d]++
				}
				items[next[c]] = it
				next[c]++
			}
		}
		for c := range 256 {
			if count[c] > 1 {
				radixSort(items[start[c]:start[c]+count[c]], depth+1, cutoff, compare)
			}
		}
		return
	}
	if len(items) >= cutoff {
		slices.SortFunc(items, compare) // equal in all sixteen bytes
		return
	}
	// A small bucket: an insertion sort that compares the held bytes inline.
	for i := 1; i < len(items); i++ {
		for j := i; j > 0; j-- {
			x, y := &items[j], &items[j-1]
			if x.pfx > y.pfx || x.pfx == y.pfx && (x.pfx2 > y.pfx2 || x.pfx2 == y.pfx2 && compare(*x, *y) >= 0) {
				break
			}
			*x, *y = *y, *x
		}
	}
}

// radixByte is byte depth of an item's sixteen held bytes.
func radixByte(it *item, depth int) byte {
	if depth < 8 {
		return byte(it.pfx >> (56 - 8*depth))
	}
	return byte(it.pfx2 >> (120 - 8*depth))
}

// sharedPrefix returns how many leading bytes every key of items has in common.
func (b *loadBuffer) sharedPrefix(items []item) int {
	first := b.key(items[0])
	n := len(first)
	for _, it := range items[1:] {
		k := b.key(it)
		n = commonPrefix(first[:min(n, len(k))], k)
		if n == 0 {
			break
		}
	}
	return n
}

// commonPrefix returns the length of the longest common prefix of a and b, comparing eight
// bytes at a time.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// sortAll sorts the buffer's documents and each param's index entries in (key, sequence)
// order.
func (b *loadBuffer) sortAll() {
	b.sortItems(b.docs)
	for _, pi := range b.entries {
		b.sortItems(pi.items)
	}
}
