package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"regexp"
	"strings"
	"testing"
)

func TestNewFormats(t *testing.T) {
	tests := []struct {
		format string
		check  func(string) bool
	}{
		{"json", func(s string) bool {
			var m map[string]any
			return json.Unmarshal([]byte(s), &m) == nil && m["msg"] == "hello" && m["k"] == "v"
		}},
		{"text", func(s string) bool { return strings.Contains(s, "msg=hello") && strings.Contains(s, "k=v") }},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		l, err := New(&buf, tt.format, slog.LevelInfo)
		if err != nil {
			t.Fatal(err)
		}
		l.Debug("hidden")
		l.Info("hello", "k", "v")
		if out := buf.String(); strings.Count(out, "\n") != 1 || !tt.check(out) {
			t.Errorf("%s: unexpected output %q", tt.format, out)
		}
	}
	if _, err := New(&bytes.Buffer{}, "xml", slog.LevelInfo); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestLoggerFromContext(t *testing.T) {
	if Logger(context.Background()) != slog.Default() {
		t.Fatal("outside a request Logger must be slog.Default")
	}
	tests := []struct {
		name string
		ctx  func(l *slog.Logger) context.Context
	}{
		{"With", func(l *slog.Logger) context.Context { return With(context.Background(), l.With("request_id", "r1")) }},
		{"WithRequest", func(l *slog.Logger) context.Context { return WithRequest(context.Background(), l, "r1") }},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		l, _ := New(&buf, "json", slog.LevelInfo)
		ctx := tt.ctx(l)
		Logger(ctx).Info("x", "k", "v")
		Logger(ctx).WithGroup("g").Info("y", "k", "v")
		want := `{"time":"T","level":"INFO","msg":"x","request_id":"r1","k":"v"}` + "\n" +
			`{"time":"T","level":"INFO","msg":"y","request_id":"r1","g":{"k":"v"}}` + "\n"
		if got := timeField.ReplaceAllString(buf.String(), `"time":"T"`); got != want {
			t.Errorf("%s: request logger wrote %q, want %q", tt.name, got, want)
		}
	}
}

var timeField = regexp.MustCompile(`"time":"[^"]*"`)
