package synth

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	gohash "hash"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// quoting says how a file quotes its fields. The federal files differ, and readers must cope
// with each as published, so the generator reproduces them: NPPES, LEIE values, Care Compare and
// Open Payments quote every field; POS and the PECOS extracts quote only fields that need it.
type quoting uint8

const (
	quoteAll quoting = iota + 1
	quoteMinimal
)

// csvFile is one output file being written under a temporary name. It counts lines (the header
// is line 1; no generated value holds a line break, so lines and records coincide), hashes what
// it writes, and remembers the bad rows it was asked to write.
type csvFile struct {
	name, family string
	tmpPath      string
	f            *os.File
	bw           *bufio.Writer
	sum          gohash.Hash
	bytes        int64
	quote        quoting
	eol          string
	cols         int
	lines        int64
	rows         int64
	bad          []BadRow
	buf          []byte
}

func createCSV(tmpDir, name, family string, q quoting, crlf bool) (*csvFile, error) {
	path := filepath.Join(tmpDir, name)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	c := &csvFile{name: name, family: family, tmpPath: path, f: f, sum: sha256.New(), quote: q, eol: "\n"}
	c.bw = bufio.NewWriterSize(io.MultiWriter(f, countWriter{&c.bytes}, c.sum), 1<<20)
	if crlf {
		c.eol = "\r\n"
	}
	return c, nil
}

type countWriter struct{ n *int64 }

func (c countWriter) Write(p []byte) (int, error) { *c.n += int64(len(p)); return len(p), nil }

// writeHeader writes the header line; quoted says whether the header's names are quoted (LEIE's
// are not, though its values are).
func (c *csvFile) writeHeader(cols []string, quoted bool) error {
	c.cols = len(cols)
	c.buf = c.buf[:0]
	for k, v := range cols {
		if k > 0 {
			c.buf = append(c.buf, ',')
		}
		if quoted {
			c.buf = appendQuoted(c.buf, v)
		} else {
			c.buf = appendField(c.buf, v, quoteMinimal)
		}
	}
	c.buf = append(c.buf, c.eol...)
	c.lines++
	_, err := c.bw.Write(c.buf)
	return err
}

// writeRaw writes a header line exactly as given (the NPPES header is copied byte for byte).
func (c *csvFile) writeRaw(line string, cols int) error {
	c.cols = cols
	c.lines++
	_, err := c.bw.WriteString(line + c.eol)
	return err
}

// writeRow writes one data row.
func (c *csvFile) writeRow(vals []string) error {
	c.buf = formatRow(c.buf[:0], vals, c.quote, c.eol)
	c.lines++
	c.rows++
	_, err := c.bw.Write(c.buf)
	return err
}

// writeBlank writes an empty line, as some publishers leave between records and at the end.
func (c *csvFile) writeBlank() error {
	c.lines++
	_, err := c.bw.WriteString(c.eol)
	return err
}

// writeBad writes a deliberately bad row and records it for the manifest.
func (c *csvFile) writeBad(vals []string, reason, key string) error {
	if err := c.writeRow(vals); err != nil {
		return err
	}
	c.bad = append(c.bad, BadRow{File: c.name, Line: c.lines, Reason: reason, Value: key})
	return nil
}

// pendingBad is a bad row inside a block of formatted rows: the k-th row of the block (from 1).
type pendingBad struct {
	k           int64
	reason, key string
}

// writeBlock writes rows formatted elsewhere (by formatRow with this file's quoting and line
// ending), placing the block's bad rows at their lines.
func (c *csvFile) writeBlock(b []byte, rows int64, bad []pendingBad) error {
	for _, p := range bad {
		c.bad = append(c.bad, BadRow{File: c.name, Line: c.lines + p.k, Reason: p.reason, Value: p.key})
	}
	c.lines += rows
	c.rows += rows
	_, err := c.bw.Write(b)
	return err
}

// formatRow appends one CSV row to dst.
func formatRow(dst []byte, vals []string, q quoting, eol string) []byte {
	for k, v := range vals {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, v, q)
	}
	return append(dst, eol...)
}

func appendField(b []byte, v string, q quoting) []byte {
	if q == quoteAll || strings.ContainsAny(v, ",\"\r\n") {
		return appendQuoted(b, v)
	}
	return append(b, v...)
}

func appendQuoted(b []byte, v string) []byte {
	b = append(b, '"')
	for {
		k := strings.IndexByte(v, '"')
		if k < 0 {
			break
		}
		b = append(b, v[:k+1]...)
		b = append(b, '"')
		v = v[k+1:]
	}
	b = append(b, v...)
	return append(b, '"')
}

// close flushes and closes the file and returns its manifest entry.
func (c *csvFile) close() (FileInfo, error) {
	if err := c.bw.Flush(); err != nil {
		c.f.Close()
		return FileInfo{}, fmt.Errorf("synth: %s: %w", c.name, err)
	}
	if err := c.f.Sync(); err != nil {
		c.f.Close()
		return FileInfo{}, fmt.Errorf("synth: %s: %w", c.name, err)
	}
	if err := c.f.Close(); err != nil {
		return FileInfo{}, fmt.Errorf("synth: %s: %w", c.name, err)
	}
	return FileInfo{Name: c.name, Family: c.family, Rows: c.rows, BadRows: int64(len(c.bad)),
		Bytes: c.bytes, SHA256: hex.EncodeToString(c.sum.Sum(nil)), Columns: c.cols}, nil
}

// abort closes the file without caring about errors; the temporary directory is removed after.
func (c *csvFile) abort() { c.f.Close() }
