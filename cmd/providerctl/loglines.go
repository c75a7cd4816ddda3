package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// lineHandler writes log records as the command's other lines are written, one sentence a line
// with the command's name in front: "ingest: warning: rows rejected: npidata.csv: 3 rejected (...)".
// A command's progress lines and its log lines then read as one stream, not two formats.
type lineHandler struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	level  slog.Level
	attrs  []slog.Attr
}

// newLineLogger logs records of level and above to w, each line starting with prefix.
func newLineLogger(w io.Writer, prefix string, level slog.Level) *slog.Logger {
	return slog.New(&lineHandler{mu: new(sync.Mutex), w: w, prefix: prefix, level: level})
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(h.prefix + ": ")
	if r.Level >= slog.LevelWarn {
		b.WriteString(levelWord(r.Level) + ": ")
	}
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		if v := a.Value.Resolve().String(); v != "" {
			b.WriteString(": " + v)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

// WithGroup keeps the group's attributes as they are: a line names values, not keys.
func (h *lineHandler) WithGroup(string) slog.Handler { return h }

func levelWord(l slog.Level) string {
	if l >= slog.LevelError {
		return "error"
	}
	return "warning"
}
