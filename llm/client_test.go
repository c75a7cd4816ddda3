package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The client posts one non-streaming request at temperature 0 to <base>/chat/completions, with
// the bearer key only when one is configured, and returns the first choice's text.
func TestComplete(t *testing.T) {
	var got struct {
		path, auth string
		body       map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.path, got.auth = r.URL.Path, r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&got.body)
		_, _ = w.Write([]byte(`{"choices": [{"message": {"role": "assistant", "content": "first"}}, {"message": {"content": "second"}}]}`))
	}))
	defer srv.Close()
	for _, key := range []string{"", "sk-x"} {
		c := New(Config{BaseURL: srv.URL + "/v1/", Model: "m", APIKey: key})
		out, err := c.Complete(context.Background(), []Message{{Role: "user", Content: "hi"}})
		if err != nil || out != "first" {
			t.Fatalf("%q, %v", out, err)
		}
		wantAuth := ""
		if key != "" {
			wantAuth = "Bearer " + key
		}
		if got.path != "/v1/chat/completions" || got.auth != wantAuth || got.body["model"] != "m" || got.body["temperature"] != 0.0 || got.body["stream"] != false {
			t.Errorf("request %+v", got)
		}
	}
}

// Answers that are not a completion are errors, and no error carries the key.
func TestCompleteFailures(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
	}{
		{"server error", 500, `{"error": "x"}`},
		{"not JSON", 200, `<html>`},
		{"no choices", 200, `{"choices": []}`},
		{"null content", 200, `{"choices": [{"message": {"content": null}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := New(Config{BaseURL: srv.URL, Model: "m", APIKey: "sk-secret"}).Complete(context.Background(), nil)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.status == 200 && !errors.Is(err, ErrBadAnswer) {
				t.Errorf("error %v is not ErrBadAnswer", err)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("error %q carries the key", err)
			}
		})
	}
}
