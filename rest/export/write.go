package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strings"

	"providerdir/rest"
)

// Formats of the export (docs/contracts/supply-api.md §4, Exports).
const (
	FormatJSON       = "json"
	FormatNDJSON     = "ndjson"
	FormatTextBlocks = "text-blocks"
)

// contentTypes are the formats' media types.
var contentTypes = map[string]string{
	FormatJSON:       "application/json; charset=utf-8",
	FormatNDJSON:     "application/x-ndjson; charset=utf-8",
	FormatTextBlocks: "text/plain; charset=utf-8",
}

// SchemaVersion is the export envelope's schema_version.
const SchemaVersion = "1.0"

// Header is everything of an export but its chunks: the JSON envelope's fields before chunks,
// the ndjson header line, the text blocks before the chunks.
type Header struct {
	SchemaVersion string        `json:"schema_version"`
	Dataset       DatasetHeader `json:"dataset"`
	Narrative     *string       `json:"narrative"`
	Meta          ExportMeta    `json:"meta"`

	// methodology and sources are the text-blocks format's METHODOLOGY block and the source
	// references of its CITATION FOOTER.
	methodology string
	sources     []string
}

// DatasetHeader is the envelope's dataset object.
type DatasetHeader struct {
	Slug               string   `json:"slug"`
	DisplayName        string   `json:"display_name"`
	OneLiner           string   `json:"one_liner"`
	MethodologyVersion string   `json:"methodology_version"`
	SnapshotDate       string   `json:"snapshot_date"`
	RefreshCadence     string   `json:"refresh_cadence"`
	SourceFamilies     []string `json:"source_families"`
}

// ExportMeta is the envelope's meta object: what a consumer needs to file the export.
type ExportMeta struct {
	Format         string   `json:"format"`
	TotalChunks    int      `json:"total_chunks"`
	ChunkTypes     []string `json:"chunk_types"`
	LastRefreshed  string   `json:"last_refreshed"`
	MethodologyURL string   `json:"methodology_url"`
	ExportURL      string   `json:"export_url"`
	Citation       string   `json:"citation"`
	Embeddings     bool     `json:"embeddings"`
}

// Export is one export ready to write: its header, how many chunks it has and the chunks,
// produced one at a time as the writer asks for them.
type Export struct {
	Header Header
	Total  int
	Chunks iter.Seq[Chunk]
}

// chunkLine is an ndjson chunk line: the chunk with its line type.
type chunkLine struct {
	LineType string `json:"_line_type"`
	Chunk
}

// headerLine is the ndjson header line.
type headerLine struct {
	LineType    string `json:"_line_type"`
	DatasetMeta Header `json:"_dataset_meta"`
}

// encoder writes JSON values without a trailing newline, HTML characters kept as they are.
type encoder struct {
	w   *bufio.Writer
	enc *json.Encoder
}

func newEncoder(w io.Writer) encoder {
	bw := bufio.NewWriterSize(w, 32<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return encoder{w: bw, enc: enc}
}

// value writes v and the newline json.Encoder always ends it with.
func (e encoder) value(v any) error { return e.enc.Encode(v) }

func (e encoder) raw(s string) error {
	_, err := e.w.WriteString(s)
	return err
}

// Write writes the export in a format to w, a chunk at a time: memory holds one chunk and the
// write buffer, whatever the number of chunks. meta is the supply API's ResponseMeta, the
// envelope's meta in the JSON format.
func Write(w io.Writer, format string, x Export, meta rest.V1Meta) error {
	var err error
	switch format {
	case FormatJSON:
		err = writeJSON(w, x, meta)
	case FormatNDJSON:
		err = writeNDJSON(w, x)
	case FormatTextBlocks:
		err = writeText(w, x)
	default:
		err = fmt.Errorf("export: unknown format %q", format)
	}
	return err
}

// writeJSON writes {"data":{<header fields>,"chunks":[...]},"meta":{...}}: the header is
// encoded whole, then reopened before its closing brace to append the chunk array.
func writeJSON(w io.Writer, x Export, meta rest.V1Meta) error {
	e := newEncoder(w)
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x.Header); err != nil {
		return err
	}
	if err := e.raw(`{"data":` + strings.TrimSuffix(strings.TrimSpace(head.String()), "}") + `,"chunks":[`); err != nil {
		return err
	}
	first := true
	for c := range x.Chunks {
		if !first {
			if err := e.raw(","); err != nil {
				return err
			}
		}
		first = false
		if err := e.value(c); err != nil {
			return err
		}
	}
	if err := e.raw(`]},"meta":`); err != nil {
		return err
	}
	if err := e.value(meta); err != nil {
		return err
	}
	if err := e.raw("}\n"); err != nil {
		return err
	}
	return e.w.Flush()
}

func writeNDJSON(w io.Writer, x Export) error {
	e := newEncoder(w)
	if err := e.value(headerLine{LineType: TypeDatasetMeta, DatasetMeta: x.Header}); err != nil {
		return err
	}
	for c := range x.Chunks {
		if err := e.value(chunkLine{LineType: "chunk", Chunk: c}); err != nil {
			return err
		}
	}
	return e.w.Flush()
}

// Block markers of the text-blocks format, in the order they appear.
const (
	blockMethodology = "--- METHODOLOGY ---"
	blockNarrative   = "--- NARRATIVE ---"
	blockChunk       = "--- CHUNK %s ---"
	blockCitation    = "--- CITATION FOOTER ---"
)

// writeText writes the METHODOLOGY block, the NARRATIVE block when there is a narrative, one
// CHUNK block per chunk and the CITATION FOOTER.
func writeText(w io.Writer, x Export) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	h := x.Header
	fmt.Fprintf(bw, "%s\n%s\n", blockMethodology, h.methodology)
	if h.Narrative != nil {
		fmt.Fprintf(bw, "%s\n%s\n\n", blockNarrative, *h.Narrative)
	}
	for c := range x.Chunks {
		fmt.Fprintf(bw, blockChunk+"\n%s\n\n", c.ID, c.Text)
	}
	fmt.Fprintf(bw, "%s\n%s\n", blockCitation, h.Meta.Citation)
	for _, s := range h.sources {
		fmt.Fprintf(bw, "%s\n", s)
	}
	return bw.Flush()
}
