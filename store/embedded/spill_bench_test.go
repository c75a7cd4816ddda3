package embedded

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSpill sorts and writes a run of a buffer shaped like one param's entries of a
// national load: a million name words of a few thousand values, each with a ten-digit id, put
// in document order and so read back in random order once sorted.
func BenchmarkSpill(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	words := make([]string, 5000)
	for i := range words {
		words[i] = fmt.Sprintf("w%x%s", r.Uint32(), "ord")[:3+r.IntN(8)]
	}
	buf := newLoadBuffer()
	var items []item
	for i := range 1_000_000 {
		k := fmt.Appendf(nil, "%s\x00%010d", words[r.IntN(len(words))], 1000000000+i*3)
		items = append(items, buf.put(k, []byte{1}, uint64(i+1)))
	}
	dir := b.TempDir()
	b.SetBytes(int64(buf.size))
	path := filepath.Join(dir, "run")
	for b.Loop() {
		sorted := append([]item(nil), items...)
		buf.sortItems(sorted)
		if err := writeRun(path, buf, sorted, entryRun); err != nil {
			b.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeDocumentOrder merges 200 runs shaped like a state code's entries of a load
// whose documents came in id order: each run holds a range of ids, in order within each value.
func BenchmarkMergeDocumentOrder(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := newLoadBuffer()
	var runs [][]item
	id := 1000000000
	for range 200 {
		var items []item
		for range 5000 {
			id += 3
			k := fmt.Appendf(nil, "%c%c\x00%010d", 'A'+r.IntN(2), 'A'+r.IntN(26), id)
			items = append(items, buf.put(k, []byte{1}, uint64(id)))
		}
		buf.sortItems(items)
		runs = append(runs, items)
	}
	b.SetBytes(int64(buf.size))
	for b.Loop() {
		srcs := make([]source, len(runs))
		for i, items := range runs {
			srcs[i] = &memRun{buf: buf, items: items}
		}
		h := sourceHeap{}
		if err := h.start(srcs); err != nil {
			b.Fatal(err)
		}
		for len(h.items) > 0 {
			if err := h.advance(); err != nil {
				b.Fatal(err)
			}
		}
	}
}
