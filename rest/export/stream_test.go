package export_test

import (
	"io"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"providerdir/rest"
	"providerdir/rest/export"
)

// countingWriter counts the bytes written and discards them.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// heapAfterGC is the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// synthetic is an export of n chunks of about 1 KB, each made when the writer asks for it; it
// samples the live heap after the first thousand chunks and after the last.
func synthetic(n int, early, late *uint64) export.Export {
	narrative := "A narrative."
	text := strings.Repeat("Provenance-bearing paragraph. ", 30)
	return export.Export{
		Header: export.Header{SchemaVersion: export.SchemaVersion, Narrative: &narrative},
		Total:  n,
		Chunks: func(yield func(export.Chunk) bool) {
			for i := range n {
				switch i {
				case 1000:
					*early = heapAfterGC()
				case n - 1:
					*late = heapAfterGC()
				}
				c := export.Chunk{ID: export.ChunkID("synthetic", export.TypeState, "S"+strconv.Itoa(i%10), "v2026.11.1"),
					Text: text, Data: map[string]int{"count": i}, Citation: "Synthetic. (2026). [Data set].", ChunkType: export.TypeState}
				if !yield(c) {
					return
				}
			}
		},
	}
}

// Writing an export holds one chunk at a time: the live heap after 200,000 chunks (some 200 MB
// written) is within a small bound of the heap after the first thousand, in every format.
func TestWriteStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes some 600 MB")
	}
	const chunks = 200_000
	meta := rest.NewV1Meta(httptest.NewRequest("GET", "/", nil), nil, "https://example.org/m", "https://example.org/l")
	for _, format := range []string{export.FormatJSON, export.FormatNDJSON, export.FormatTextBlocks} {
		t.Run(format, func(t *testing.T) {
			var early, late uint64
			w := &countingWriter{}
			if err := export.Write(w, format, synthetic(chunks, &early, &late), meta); err != nil {
				t.Fatal(err)
			}
			if w.n < 150<<20 {
				t.Fatalf("wrote %d bytes, want the whole export", w.n)
			}
			growth := int64(late) - int64(early)
			t.Logf("%s: %d MB written, live heap after 1,000 chunks %d KB, after %d chunks %d KB", format, w.n>>20, early>>10, chunks, late>>10)
			if growth > 1<<20 {
				t.Errorf("the live heap grew by %d KB while writing", growth>>10)
			}
		})
	}
}

// A writer that fails stops the export with its error.
func TestWriteStopsOnError(t *testing.T) {
	var early, late uint64
	err := export.Write(failingWriter{}, export.FormatNDJSON, synthetic(5000, &early, &late), rest.V1Meta{})
	if err != io.ErrClosedPipe {
		t.Fatalf("error %v, want the writer's", err)
	}
	if late != 0 {
		t.Error("the chunks were all produced though the writer failed")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
