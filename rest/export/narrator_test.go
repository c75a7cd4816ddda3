package export_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"providerdir/rest/dataset"
	"providerdir/rest/evidence/chat"
	"providerdir/rest/export"
)

// narratorFunc is a Narrator in a function, standing for a language model.
type narratorFunc func(draft string) (string, error)

func (f narratorFunc) Narrate(_ context.Context, _ *dataset.Figures, draft string) (string, error) {
	return f(draft)
}

// A narrator may reword the narrative but never state a number the figures do not: its text
// is then discarded for the template's, as it is when the narrator fails or says nothing.
func TestNarrator(t *testing.T) {
	const reworded = "In short: see the figures."
	for _, tt := range []struct {
		name     string
		narrator narratorFunc
		template bool
	}{
		{"rewording without numbers", func(string) (string, error) { return reworded, nil }, false},
		{"rewording with the draft's numbers", func(d string) (string, error) { return "Restated. " + d, nil }, false},
		{"an invented number", func(d string) (string, error) { return d + " About 12345 more are expected.", nil }, true},
		{"a changed decimal", func(d string) (string, error) { return strings.Replace(d, "Methodology", "Methodology 0.999", 1), nil }, true},
		{"an error", func(string) (string, error) { return "", errors.New("model unreachable") }, true},
		{"nothing", func(string) (string, error) { return "  ", nil }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := demo(t, export.Options{Narrator: tt.narrator})
			key := e.Key(t)
			// Each case writes its own narrative: the cache is per (slug, version), so clear it.
			_ = e.Store.DeleteRecord(context.Background(), "export_narrative", "otolaryngology-supply:"+mustLookup(t, "otolaryngology-supply").MethodologyVersion(), 0)
			r := e.Get(t, "/v1/exports/otolaryngology-supply/llm-ready?format=ndjson", key)
			got := narrative(t, r.Raw)
			isTemplate := strings.HasPrefix(got, "Otolaryngology supply by state: ")
			if isTemplate != tt.template {
				t.Errorf("narrative %q: template %v, want %v", got, isTemplate, tt.template)
			}
		})
	}
}

// A language model behind the OpenAI-compatible chat API words the narrative when its text
// passes the checks; an invented number, a link, markup, a malformed answer or a failing
// server leave the template's.
func TestChatNarrator(t *testing.T) {
	for _, tt := range []struct {
		name     string
		answer   func(draft string) (int, string)
		template bool
	}{
		{"a rewording", func(string) (int, string) { return 200, completion("A short summary of the figures.") }, false},
		{"an invented number", func(d string) (int, string) { return 200, completion("Roughly 98765 providers.") }, true},
		{"a link", func(string) (int, string) { return 200, completion("See https://example.org for more.") }, true},
		{"markup", func(string) (int, string) { return 200, completion("<b>Summary</b> of the figures.") }, true},
		{"malformed JSON", func(string) (int, string) { return 200, `{"choices": [` }, true},
		{"a server error", func(string) (int, string) { return 500, `{"error":"overloaded"}` }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Messages []chat.Message `json:"messages"`
				}
				if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Messages) != 2 {
					http.Error(w, "unexpected request", http.StatusBadRequest)
					return
				}
				status, body := tt.answer(req.Messages[1].Content)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				_, _ = io.WriteString(w, body)
			}))
			defer model.Close()
			client := chat.New(chat.Config{BaseURL: model.URL + "/v1", Model: "test", Timeout: 5 * time.Second})
			e := demo(t, export.Options{Narrator: export.ChatNarrator{Model: client}})
			key := e.Key(t)
			_ = e.Store.DeleteRecord(context.Background(), "export_narrative", "otolaryngology-supply:"+mustLookup(t, "otolaryngology-supply").MethodologyVersion(), 0)
			got := narrative(t, e.Get(t, "/v1/exports/otolaryngology-supply/llm-ready?format=ndjson", key).Raw)
			if isTemplate := strings.HasPrefix(got, "Otolaryngology supply by state: "); isTemplate != tt.template {
				t.Errorf("narrative %q: template %v, want %v", got, isTemplate, tt.template)
			}
		})
	}
}

// completion is a chat completions answer whose first choice says text.
func completion(text string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": text}}}})
	return string(b)
}
