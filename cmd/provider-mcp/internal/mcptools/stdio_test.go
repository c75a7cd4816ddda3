package mcptools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`

// forward passes each JSON-RPC line on whole and answers every other non-blank line with the
// JSON-RPC error of its kind, id null, reading on to the end.
func TestForward(t *testing.T) {
	tests := []struct {
		name, in string
		passed   []string
		codes    []int // the error answers, in order
	}{
		{"a request", initialize + "\n", []string{initialize}, nil},
		{"garbage then a request", "garbage\n" + initialize + "\n", []string{initialize}, []int{CodeParseError}},
		{"CRLF, blank lines, no final newline", "\r\n\n" + initialize + "\r\n  \n" + initialize, []string{initialize, initialize}, nil},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1` + "\n" + initialize + "\n", []string{initialize}, []int{CodeParseError}},
		{"JSON that is no message", `{"foo":1}` + "\n42\n[]\n[{}]\n" + initialize + "\n", []string{initialize},
			[]int{CodeInvalidRequest, CodeInvalidRequest, CodeInvalidRequest, CodeInvalidRequest}},
		{"a batch", "[" + initialize + "]\n", []string{"[" + initialize + "]"}, nil},
		{"a line over the limit", strings.Repeat(" ", 100) + "1\n" + initialize + "\n", []string{initialize}, []int{CodeParseError}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var messages, errs bytes.Buffer
			if err := forward(strings.NewReader(tt.in), &messages, &errs, 80); err != nil {
				t.Fatal(err)
			}
			if got := lines(messages.String()); strings.Join(got, "|") != strings.Join(tt.passed, "|") {
				t.Errorf("passed %q, want %q", got, tt.passed)
			}
			answers := lines(errs.String())
			if len(answers) != len(tt.codes) {
				t.Fatalf("answers %q, want codes %v", answers, tt.codes)
			}
			for i, a := range answers {
				if code := errorCode(t, a); code != tt.codes[i] {
					t.Errorf("answer %s, want code %d", a, tt.codes[i])
				}
			}
		})
	}
}

// FuzzForward: whatever comes in, every line passed on is JSON and every answer a JSON-RPC error
// with id null; each non-blank input line within the limit is one or the other, in order.
func FuzzForward(f *testing.F) {
	for _, s := range []string{initialize + "\n", "garbage\n", "\r\n{\"a\":\n", "[" + initialize + "]\n[]\n", strings.Repeat("x", 90), strings.Repeat(" ", 81) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var messages, errs bytes.Buffer
		if err := forward(strings.NewReader(in), &messages, &errs, 80); err != nil {
			t.Fatal(err)
		}
		passed, answers := lines(messages.String()), lines(errs.String())
		for _, p := range passed {
			if !json.Valid([]byte(p)) {
				t.Errorf("passed on %q, not JSON", p)
			}
		}
		for _, a := range answers {
			if code := errorCode(t, a); code != CodeParseError && code != CodeInvalidRequest {
				t.Errorf("answer %s", a)
			}
		}
		nonBlank := 0
		for _, l := range strings.Split(in, "\n") {
			if l = strings.TrimSuffix(l, "\r"); strings.TrimSpace(l) != "" || len(l) > 80 {
				nonBlank++
			}
		}
		if len(passed)+len(answers) != nonBlank {
			t.Errorf("%d lines passed and %d answered for %d non-blank lines", len(passed), len(answers), nonBlank)
		}
	})
}

// lines are the newline-terminated lines of s.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	if !strings.HasSuffix(s, "\n") {
		return []string{"unterminated: " + s}
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// errorCode is the code of a JSON-RPC error answer with id null; it fails the test for anything
// else.
func errorCode(t *testing.T, answer string) int {
	t.Helper()
	var a struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(answer), &a); err != nil || a.JSONRPC != "2.0" || a.ID != nil ||
		!strings.Contains(answer, `"id":null`) || a.Error.Message == "" {
		t.Errorf("answer %s is not a JSON-RPC error with id null: %v", answer, err)
	}
	return a.Error.Code
}
