package synth

import (
	"bufio"
	"crypto/sha256"
	"io"
	"testing"

	refset "providerdir/source/reference"
)

// BenchmarkNPPESRows measures NPPES generation: deriving a provider record from (seed, index)
// and writing its 330-column row, hashed, to a discarding writer. One op is one row.
func BenchmarkNPPESRows(b *testing.B) {
	ref, err := loadReference(refset.Embedded())
	if err != nil {
		b.Fatal(err)
	}
	layout, err := readNPPESHeader(refset.Embedded())
	if err != nil {
		b.Fatal(err)
	}
	w, err := newWorld(1, 1_000_000, ref, baseSnapshot)
	if err != nil {
		b.Fatal(err)
	}
	sum := sha256.New()
	c := &csvFile{bw: bufio.NewWriterSize(io.MultiWriter(io.Discard, sum), 1<<20), sum: sum, quote: quoteAll, eol: "\n"}
	row := make([]string, len(layout.names))
	r := newRNG()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := w.provider(r, int64(i)%w.n0)
		layout.fill(row, p)
		if err := c.writeRow(row); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
