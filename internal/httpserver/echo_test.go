package httpserver_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"providerdir/internal/safetext"
)

// errorMessage is the message of an error body in a surface's envelope, without the request id
// an envelope adds to it.
func errorMessage(t *testing.T, prefix, body string) string {
	t.Helper()
	switch prefix {
	case "":
		line, _, _ := strings.Cut(body, "\n")
		_, msg, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("not a text error: %q", body)
		}
		return msg
	case "/fhir":
		var oo struct {
			Issue []struct{ Diagnostics string }
		}
		if err := json.Unmarshal([]byte(body), &oo); err != nil || len(oo.Issue) != 1 {
			t.Fatalf("not an OperationOutcome: %.300q", body)
		}
		msg, _, _ := strings.Cut(oo.Issue[0].Diagnostics, " (request id ")
		return msg
	}
	var e struct{ Error struct{ Message string } }
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not an error envelope: %.300q", body)
	}
	return e.Error.Message
}

// TestErrorsEchoClippedText: a surface's 404 and 405 repeat the client's path and method as
// safetext.EchoEscaped writes them: at most 100 characters of valid UTF-8, an invalid byte, a
// control character or a bidirectional override shown as its escape, whatever the path sent.
func TestErrorsEchoClippedText(t *testing.T) {
	f := newFixture(t, nil)
	long := strings.Repeat("a", 8000)
	for _, sf := range surfaces {
		p := sf.prefix
		tests := []struct {
			name, method, path string
			status             int
			echoes             []string // what the message repeats, in order
		}{
			{"long path", http.MethodGet, p + "/" + long, 404, []string{(p + "/" + long)[:safetext.EchoRunes-1] + "…"}},
			{"invalid UTF-8", http.MethodGet, p + "/x%ff", 404, []string{p + `/x\xff`}},
			{"right-to-left override", http.MethodGet, p + "/x%E2%80%AEy", 404, []string{p + `/x\u202ey`}},
			{"C1 control", http.MethodGet, p + "/x%C2%9B2J", 404, []string{p + `/x\u009b2J`}},
			{"long path, wrong method", http.MethodPut, p + "/items/" + long, 405, []string{"PUT", (p + "/items/" + long)[:safetext.EchoRunes-1] + "…"}},
			{"long method", strings.Repeat("M", 300), p + "/items/1", 405, []string{strings.Repeat("M", safetext.EchoRunes-1) + "…", p + "/items/1"}},
		}
		for _, tt := range tests {
			t.Run(sf.name+"/"+tt.name, func(t *testing.T) {
				r := f.do(t, tt.method, tt.path, nil)
				if r.status != tt.status || r.header.Get("Content-Type") != sf.contentType {
					t.Fatalf("%d %q, want %d %q", r.status, r.header.Get("Content-Type"), tt.status, sf.contentType)
				}
				if !utf8.ValidString(r.body) {
					t.Fatalf("the body is not UTF-8: %.300q", r.body)
				}
				msg := errorMessage(t, sf.prefix, r.body)
				var echoes []string
				if tt.status == http.StatusNotFound {
					rest, ok := strings.CutPrefix(msg, "no resource at ")
					echoes = append(echoes, rest)
					if !ok {
						t.Fatalf("message %.300q", msg)
					}
				} else {
					method, path, ok := strings.Cut(msg, " is not allowed on ")
					echoes = append(echoes, method, path)
					if !ok {
						t.Fatalf("message %.300q", msg)
					}
				}
				for i, echo := range echoes {
					if n := utf8.RuneCountInString(echo); n > safetext.EchoRunes {
						t.Errorf("echo %d has %d characters", i, n)
					}
					if strings.ContainsFunc(echo, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
						t.Errorf("echo %d %+q holds a control or format character", i, echo)
					}
					if echo != tt.echoes[i] {
						t.Errorf("echo %d %.120q, want %.120q", i, echo, tt.echoes[i])
					}
				}
			})
		}
	}
}
