package source

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"providerdir/source/internal/csvscan"
)

// Option adjusts how a file is read.
type Option func(*options)

type options struct {
	maxErrors      int
	maxRecordBytes int64
}

// MaxErrors sets how many row errors a Report keeps (DefaultMaxErrors when not set). Rejected
// rows beyond it are still counted, by reason.
func MaxErrors(n int) Option { return func(o *options) { o.maxErrors = max(n, 0) } }

// MaxRecordBytes sets the longest record accepted before a read is abandoned
// (DefaultMaxRecordBytes when not set). It bounds memory when a quote is never closed.
func MaxRecordBytes(n int) Option { return func(o *options) { o.maxRecordBytes = int64(max(n, 1)) } }

// Reader streams typed records of type T out of one delimited file. Each source package builds
// its readers with NewReader or Open from a Schema and a decode function; callers only use
// Next, Report, Header and Close. A Reader is not safe for concurrent use.
type Reader[T any] struct {
	file   string
	closer io.Closer
	text   *textReader
	csv    *csvscan.Reader
	header *Header
	report Report
	row    Row
	decode func(*Row) (T, bool)
	done   error
	line   int   // line of the last record read, for file-level errors
	limit  int64 // MaxRecordBytes, for the message when it is exceeded
	// onReject, when set, is told of every rejected row, the Report keeping only the first.
	onReject func(RowError)
}

// Decoder turns one row into a record. It reads fields through the Row's accessors, which
// record the first problem on the row; if any accessor (or the decoder through Row.Fail) found
// one, the row is rejected and the record discarded. Returning false skips the row on purpose
// (for instance a census row of another summary level) without rejecting it.
type Decoder[T any] func(r *Row) (T, bool)

// Prepare builds the decoder for one file once its header is resolved. Readers whose decoding
// depends on the columns a file happens to have (pairing each measure column of a wide file
// with its footnote column, say) work that out here, once per file rather than once per row.
type Prepare[T any] func(h *Header) Decoder[T]

// Open opens the file at path and reads its header with NewReader. The Reader closes the file on
// Close. A missing file gives an error satisfying errors.Is(err, fs.ErrNotExist).
func Open[T any](path string, s *Schema, decode Decoder[T], opts ...Option) (*Reader[T], error) {
	return OpenPrepared(path, s, fixed(decode), opts...)
}

// NewReader reads the header row of src, named file in reports, and resolves s against it.
// It fails on an empty file, an unreadable header, or a header lacking required columns
// (*HeaderError). The Reader does not close src.
func NewReader[T any](src io.Reader, file string, s *Schema, decode Decoder[T], opts ...Option) (*Reader[T], error) {
	return NewPreparedReader(src, file, s, fixed(decode), opts...)
}

func fixed[T any](d Decoder[T]) Prepare[T] { return func(*Header) Decoder[T] { return d } }

// OpenPrepared is Open with a decoder built per file by prepare.
func OpenPrepared[T any](path string, s *Schema, prepare Prepare[T], opts ...Option) (*Reader[T], error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.what, err)
	}
	r, err := NewPreparedReader(f, filepath.Base(path), s, prepare, opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// NewFunc is the shape of every reader package's NewReader: it reads one file's bytes from r,
// naming the file name in reports.
type NewFunc[T any] func(r io.Reader, name string, opts ...Option) (*Reader[T], error)

// OpenFS opens name (a slash-separated path) in fsys and reads it with newReader, so a file is
// read the same way from a directory (os.DirFS) or from files built into the binary. The Reader
// closes the file on Close. A missing file gives an error satisfying errors.Is(err,
// fs.ErrNotExist).
func OpenFS[T any](fsys fs.FS, name string, newReader NewFunc[T], opts ...Option) (*Reader[T], error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	r, err := newReader(f, path.Base(name), opts...)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.closer = f
	return r, nil
}

// LoadFS reads the whole of name in fsys with newReader, failing on any bad row: for the small
// reference tables, which are either whole or wrong.
func LoadFS[T any](fsys fs.FS, name string, newReader NewFunc[T]) ([]T, error) {
	r, err := OpenFS(fsys, name, newReader)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return ReadWhole(r)
}

// NewPreparedReader is NewReader with a decoder built per file by prepare.
func NewPreparedReader[T any](src io.Reader, file string, s *Schema, prepare Prepare[T], opts ...Option) (*Reader[T], error) {
	o := options{maxErrors: DefaultMaxErrors, maxRecordBytes: DefaultMaxRecordBytes}
	for _, opt := range opts {
		opt(&o)
	}
	const bufSize = 64 << 10
	text := newTextReader(src, o.maxRecordBytes+bufSize)
	c := csvscan.NewReader(text, bufSize)
	r := &Reader[T]{file: file, text: text, csv: c, limit: o.maxRecordBytes}
	r.report = Report{File: file, maxErrors: o.maxErrors}
	head, err := c.Read()
	if err != nil {
		r.finish()
		switch {
		case err == io.EOF:
			return nil, fmt.Errorf("%s: empty file, no %s header", file, s.what)
		case errors.Is(err, errRecordTooLong):
			return nil, fmt.Errorf("%s: header longer than %d bytes, not %s", file, o.maxRecordBytes, s.what)
		}
		return nil, fmt.Errorf("%s: reading %s header: %w", file, s.what, err)
	}
	h, err := s.Resolve(file, head)
	if err != nil {
		r.finish()
		return nil, err
	}
	c.FieldsPerRecord = len(head)
	r.header = h
	r.decode = prepare(h)
	r.row = Row{reader: r.rowErr, header: h}
	text.mark = c.InputOffset()
	return r, nil
}

// Header returns the resolved header of the file.
func (r *Reader[T]) Header() *Header { return r.header }

// Report returns the reader's running report; it is final once Next has returned an error.
func (r *Reader[T]) Report() *Report {
	r.report.Bytes = r.text.nraw
	r.report.Encoding = r.text.encoding()
	return &r.report
}

// Close releases the file if the Reader opened it.
func (r *Reader[T]) Close() error {
	if r.closer == nil {
		return nil
	}
	err := r.closer.Close()
	r.closer = nil
	return err
}

// Next returns the next record. Rejected rows are reported and skipped, so Next only returns an
// error at the end of the file (io.EOF) or when the file cannot be read on (any other error,
// after which Next keeps returning it).
func (r *Reader[T]) Next() (T, error) {
	var zero T
	if r.done != nil {
		return zero, r.done
	}
	for {
		rec, err := r.csv.Read()
		r.text.mark = r.csv.InputOffset()
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return zero, r.stop(err)
			}
			r.report.Rows++
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				r.rowErr(RowError{Line: pe.StartLine, Reason: "wrong column count",
					Value: fmt.Sprintf("%d columns, header has %d", len(rec), r.header.Len())})
			} else {
				r.rowErr(RowError{Line: pe.Line, Reason: "malformed CSV: " + pe.Err.Error(),
					Value: fmt.Sprintf("byte %d of the line", pe.Column)})
			}
			continue
		}
		r.report.Rows++
		r.line, _ = r.csv.FieldPos(0)
		r.row.reset(rec, r.csv)
		v, keep := r.decode(&r.row)
		if r.row.failed {
			continue
		}
		if !keep {
			continue
		}
		r.report.Records++
		return v, nil
	}
}

// OnReject has fn told of every row the reader rejects, as Next meets it (on the goroutine that
// calls Next), with its value shortened as the Report's; the Report keeps only the first
// MaxErrors. Set it before the first Next.
func (r *Reader[T]) OnReject(fn func(RowError)) { r.onReject = fn }

// rowErr rejects a row of this file.
func (r *Reader[T]) rowErr(e RowError) {
	e.File = r.file
	e.Value = shorten(e.Value)
	r.report.reject(e)
	if r.onReject != nil {
		r.onReject(e)
	}
}

func (r *Reader[T]) stop(err error) error {
	line := r.line
	switch {
	case err == io.EOF:
		r.done = io.EOF
	case errors.Is(err, errRecordTooLong):
		r.done = fmt.Errorf("%s: after line %d: a record runs past %d bytes (unbalanced quote?); stopped reading",
			r.file, line, r.limit)
	default:
		r.done = fmt.Errorf("%s: after line %d: %w", r.file, line, err)
	}
	r.finish()
	return r.done
}

func (r *Reader[T]) finish() {
	r.report.Bytes = r.text.nraw
	r.report.Encoding = r.text.encoding()
}

// ReadAll reads every remaining record into a slice. It suits the small reference files; the
// national files should be streamed with Next.
func ReadAll[T any](r *Reader[T]) ([]T, error) {
	var out []T
	for {
		v, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// ReadWhole reads every record and fails if any row was rejected, naming the first bad row. It
// is for reference files (census, NUCC, CCN state codes) that the service cannot use in part.
func ReadWhole[T any](r *Reader[T]) ([]T, error) {
	out, err := ReadAll(r)
	if err != nil {
		return nil, err
	}
	if rep := r.Report(); rep.Rejected > 0 {
		if len(rep.Errors) == 0 {
			return nil, fmt.Errorf("%s", rep)
		}
		return nil, fmt.Errorf("%s: %d rows rejected, first: %w", rep.File, rep.Rejected, rep.Errors[0])
	}
	return out, nil
}
