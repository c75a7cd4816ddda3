package main

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
)

func TestLineLogger(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		want string
	}{
		{"warning with values", func(l *slog.Logger) {
			l.Warn("rows rejected", "file", "npidata.csv", "report", "2003 rows, 3 rejected")
		}, "ingest: warning: rows rejected: npidata.csv: 2003 rows, 3 rejected\n"},
		{"error", func(l *slog.Logger) { l.Error("could not drop", "err", errors.New("disk full")) }, "ingest: error: could not drop: disk full\n"},
		{"below the level", func(l *slog.Logger) { l.Info("family loaded", "rows", 10) }, ""},
		{"attributes given before", func(l *slog.Logger) { l.With("family", "nppes").Warn("slow") }, "ingest: warning: slow: nppes\n"},
		{"empty values left out", func(l *slog.Logger) { l.Warn("note", "a", "") }, "ingest: warning: note\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		tt.log(newLineLogger(&out, "ingest", slog.LevelWarn))
		if out.String() != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, out.String(), tt.want)
		}
	}
}
