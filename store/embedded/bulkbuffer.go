package embedded

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"
)

// item is one key of a load, a document or an index entry, with the sequence number of the
// document it belongs to. Its key, without the prefix every key of its list shares (see
// loadBuffer), and its value lie side by side in one of its buffer's chunks;
// the item holds where, not pointers, so that a buffer of hundreds of thousands of items is
// small, cheap to sort and nothing the garbage collector scans. pfx and pfx2 hold, for a sort,
// the sixteen bytes of the key after those every key of its list shares, so that most
// comparisons are one or two integer comparisons that never read a key.
type item struct {
	pfx, pfx2, seq uint64
	chunk, off     uint32
	klen, vlen     uint32
}

// itemSize is what an item costs a buffer beyond its key and value.
const itemSize = 40

// loadBuffer holds the items of one run. Index entries are kept per param: every entry of a
// param shares the param in its key, so each list sorts on the value and id alone, and the lists
// in param order are the run in key order. A buffered key is what follows its list's prefix:
// the id of a document (after docPrefix), the value and id of an entry (after paramPrefix).
// Tag, generation, collection and param are more than half of a typical entry's key, and
// leaving them out lets a buffer hold a third more entries. Keys and values live in large
// chunks that are reused from run to run; one too large for a chunk gets a chunk of its own
// until the reset. Chunks are filled whole and never grow, so the items' offsets stay valid.
type loadBuffer struct {
	docs    []item
	entries map[string]*paramItems
	chunks  [][]byte
	big     [][]byte // a chunk each for what does not fit a chunk
	cur     int      // chunk being filled
	size    int
}

type paramItems struct {
	items []item
}

const chunkSize = 1 << 20

func newLoadBuffer() *loadBuffer { return &loadBuffer{entries: map[string]*paramItems{}} }

// put copies a key and its value into the buffer and returns their item.
func (b *loadBuffer) put(key, value []byte, seq uint64) item {
	n := len(key) + len(value)
	ref := 0
	if n > chunkSize {
		ref = bigChunk | len(b.big)
		b.big = append(b.big, make([]byte, 0, n))
	} else {
		if b.cur == len(b.chunks) || len(b.chunks[b.cur])+n > chunkSize {
			if b.cur < len(b.chunks) {
				b.cur++
			}
			if b.cur == len(b.chunks) {
				b.chunks = append(b.chunks, make([]byte, 0, chunkSize))
			}
		}
		ref = b.cur
	}
	c := b.chunk(ref)
	off := len(*c)
	*c = append(append(*c, key...), value...)
	b.size += n + itemSize
	return item{seq: seq, chunk: uint32(ref), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(value))}
}

// bigChunk marks a chunk reference to b.big.
const bigChunk = 1 << 31

func (b *loadBuffer) chunk(ref int) *[]byte {
	if ref&bigChunk != 0 {
		return &b.big[ref&^bigChunk]
	}
	return &b.chunks[ref]
}

func (b *loadBuffer) key(it item) []byte {
	end := it.off + it.klen
	return (*b.chunk(int(it.chunk)))[it.off:end:end]
}

func (b *loadBuffer) value(it item) []byte {
	start, end := it.off+it.klen, it.off+it.klen+it.vlen
	return (*b.chunk(int(it.chunk)))[start:end:end]
}

// reset empties the buffer, keeping its memory for the next run (chunks of their own go).
func (b *loadBuffer) reset() {
	b.docs = b.docs[:0]
	for _, p := range b.entries {
		p.items = p.items[:0]
	}
	for i := range b.chunks {
		b.chunks[i] = b.chunks[i][:0]
	}
	b.big = nil
	b.cur, b.size = 0, 0
}

// prefixOf returns the first eight bytes of k as a big-endian integer, zero-padded.
func prefixOf(k []byte) uint64 {
	if len(k) >= 8 {
		return binary.BigEndian.Uint64(k)
	}
	var p [8]byte
	copy(p[:], k)
	return binary.BigEndian.Uint64(p[:])
}

// docPartitions is how many key ranges a load's documents are merged in: several per merge
// slot, so that uneven ranges still keep every core busy. The parameter merges start only when
// the last range is merged, and with about as many ranges as slots the last range would run
// alone on one core while the others wait.
func docPartitions() int { return 4 * runtime.GOMAXPROCS(0) }

// splitPoints returns up to parts-1 increasing keys that cut sorted items into ranges of about
// equal size.
func (b *loadBuffer) splitPoints(items []item, parts int) [][]byte {
	var out [][]byte
	for i := 1; i < parts; i++ {
		at := i * len(items) / parts
		if at == 0 {
			continue
		}
		k := b.key(items[at])
		if len(out) == 0 || bytes.Compare(k, out[len(out)-1]) > 0 {
			out = append(out, bytes.Clone(k))
		}
	}
	return out
}

// partition cuts sorted items at the split points: partition j holds the keys from split j-1
// (included) to split j (excluded). Versions of one key fall in one partition.
func (b *loadBuffer) partition(items []item, splits [][]byte) [][]item {
	out := make([][]item, 0, len(splits)+1)
	for _, sp := range splits {
		at, _ := slices.BinarySearchFunc(items, sp, func(it item, k []byte) int { return bytes.Compare(b.key(it), k) })
		out = append(out, items[:at])
		items = items[at:]
	}
	return append(out, items)
}

// entriesOf returns the buffered entries of a param (none if it has none).
func (b *loadBuffer) entriesOf(param string) []item {
	if pi := b.entries[param]; pi != nil {
		return pi.items
	}
	return nil
}
