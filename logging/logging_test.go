package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
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
	var buf bytes.Buffer
	l, _ := New(&buf, "json", slog.LevelInfo)
	ctx := With(context.Background(), l.With("request_id", "r1"))
	Logger(ctx).Info("x")
	if !strings.Contains(buf.String(), `"request_id":"r1"`) {
		t.Fatalf("request logger lost its id: %q", buf.String())
	}
}
