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
