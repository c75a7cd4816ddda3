package sourcetest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
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
