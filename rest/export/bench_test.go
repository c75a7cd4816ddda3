package export_test

import (
	"io"
	"net/http"
	"testing"

	"providerdir/rest/export"
)

// BenchmarkExport serves a whole export over loopback, figures and narrative cached, in each
// format: the cost of a request once a snapshot has been read. Run it with -benchtime 50x or less.
func BenchmarkExport(b *testing.B) {
	e := demo(b, export.Options{})
	for _, format := range []string{export.FormatJSON, export.FormatNDJSON, export.FormatTextBlocks} {
		b.Run(format, func(b *testing.B) {
			key := e.Key(b) // a key per run: the pilot quota is 60 a minute
			req, _ := http.NewRequest(http.MethodGet, e.URL+"/v1/exports/pediatrics-supply/llm-ready?format="+format, nil)
			req.Header.Set("Authorization", "Bearer "+key)
			var n int64
			for b.Loop() {
				req.Header.Set("X-Forwarded-For", e.IP)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
			b.SetBytes(n)
		})
	}
}
