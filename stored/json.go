package stored

import gojson "github.com/goccy/go-json"

// EncodeJSON and DecodeJSON are the JSON codec of stored records. An ingest encodes every
// record it stores and, building the FHIR resources, decodes the registry records again: at
// national scale nine million registry records and twenty-eight million resources, where
// encoding/json's reflection is a large part of the ingest's CPU. github.com/goccy/go-json keeps
// encoding/json's semantics and output and decodes and encodes faster (BenchmarkCodec,
// docs/BENCHMARKS.md). FuzzCodecMatchesStandard holds it to encoding/json byte for byte, since
// record digests (change sets, entity tags) are taken over the encoded bytes; the one
// difference is that it escapes backspace and form feed as \u0008 and \u000c, where
// encoding/json writes \b and \f.
func EncodeJSON(v any) ([]byte, error) { return gojson.Marshal(v) }

// AppendJSON appends what EncodeJSON returns for v to dst. Marshal copies its output into a
// slice of its own; appending into a buffer the caller reuses spares that allocation for each
// of the tens of millions of resources a FHIR projection builds. On an error dst is returned
// unchanged.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	w := appendWriter{dst}
	if err := gojson.NewEncoder(&w).Encode(v); err != nil {
		return dst, err
	}
	return w.b[:len(w.b)-1], nil // the encoder ends each value with a newline
}

// appendWriter is an io.Writer that appends to a slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// DecodeJSON decodes what EncodeJSON (or encoding/json) encoded; see EncodeJSON. The strings
// it decodes share one private copy of data, so a string kept keeps all of data in memory: a
// caller that keeps a small part of a record for long (a cache, a lookup table) clones it.
func DecodeJSON(data []byte, v any) error { return gojson.Unmarshal(data, v) }
