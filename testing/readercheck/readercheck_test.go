package readercheck

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"providerdir/source"
)

// recorder is a testing.TB that notes a failure instead of failing, and stops at a fatal one as
// the real one does.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(string, ...any) { r.failed = true }

func (r *recorder) Fatalf(string, ...any) {
	r.failed = true
	runtime.Goexit()
}

// fails runs check against a recorder and reports whether it failed.
func fails(t *testing.T, check func(tb testing.TB)) bool {
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(rec)
	}()
	<-done
	return rec.failed
}

func TestEqual(t *testing.T) {
	tests := []struct {
		name      string
		got, want []string
		fail      bool
	}{
		{"same", []string{"a", "b"}, []string{"a", "b"}, false},
		{"both empty", nil, []string{}, false},
		{"one differs", []string{"a", "c"}, []string{"a", "b"}, true},
		{"order", []string{"b", "a"}, []string{"a", "b"}, true},
		{"one more", []string{"a", "b", "c"}, []string{"a", "b"}, true},
		{"one fewer", []string{"a"}, []string{"a", "b"}, true},
	}
	for _, tt := range tests {
		if got := fails(t, func(tb testing.TB) { Equal(tb, "record", tt.got, tt.want) }); got != tt.fail {
			t.Errorf("%s: failed %v, want %v", tt.name, got, tt.fail)
		}
	}
}

func TestRepeatFile(t *testing.T) {
	tests := []struct {
		name, file string
		rows       int
		want       string // the first bytes of the result
	}{
		{"LF", "h\na\nb\nc\n", 2, "h\na\nb\na\nb\n"},
		{"CRLF keeps a quoted LF in its record", "h\r\n\"a\nx\"\r\n", 1, "h\r\n\"a\nx\"\r\n\"a\nx\"\r\n"},
	}
	t.Chdir(t.TempDir())
	if err := os.Mkdir("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		if err := os.WriteFile(filepath.Join("testdata", "f.csv"), []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		got := RepeatFile(t, "f.csv", tt.rows, 64)
		if len(got) < 64 || !bytes.HasPrefix(got, []byte(tt.want)) {
			t.Errorf("%s: %q", tt.name, got)
		}
	}
	for _, rows := range []int{2, 5} { // the file holds one record
		if !fails(t, func(tb testing.TB) { RepeatFile(tb, "f.csv", rows, 64) }) {
			t.Errorf("%d rows of a file of one: no failure", rows)
		}
	}
}

func TestRefused(t *testing.T) {
	tests := []struct {
		err  error
		fail bool
	}{
		{errors.New(`x.csv: header does not match T: missing "A"`), false},
		{errors.New(`x.csv: header does not match T: missing "B"`), true},
		{nil, true},
	}
	for _, tt := range tests {
		if got := fails(t, func(tb testing.TB) { Refused(tb, tt.err, `missing "A"`) }); got != tt.fail {
			t.Errorf("%v: failed %v, want %v", tt.err, got, tt.fail)
		}
	}
}

func TestMissing(t *testing.T) {
	opens := map[string]OpenFunc[string]{
		"not there": func(path string, _ ...source.Option) (*source.Reader[string], error) {
			_, err := os.Open(path)
			return nil, err
		},
		"opens anyway":  func(string, ...source.Option) (*source.Reader[string], error) { return nil, nil },
		"another error": func(string, ...source.Option) (*source.Reader[string], error) { return nil, errors.New("bad header") },
	}
	for name, open := range opens {
		if got := fails(t, func(tb testing.TB) { Missing(tb, open) }); got != (name != "not there") {
			t.Errorf("%s: failed %v", name, got)
		}
	}
}
