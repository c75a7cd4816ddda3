// Package llm is the optional language model the JSON APIs word text with: a client of the
// OpenAI-compatible chat completions API (POST <base>/chat/completions), the interface served
// by the llama.cpp server (llama-server, base http://HOST:8080/v1), Ollama (base
// http://HOST:11434/v1) and vLLM (base http://HOST:8000/v1), and the Completer interface its
// users hold it by. The client sends one non-streaming request and returns the first choice's
// text; it knows nothing of what the text is for, and trusts none of it. CheckGrounded holds a
// text that was to reword figures to the source it was given.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Config locates a chat completions endpoint.
type Config struct {
	// BaseURL is the API's base, up to and including its version segment
	// ("http://127.0.0.1:11434/v1"); the client posts to BaseURL + "/chat/completions".
	BaseURL string
	// Model is the model name the server knows ("llama3.1:8b" on Ollama, the served model id on
	// vLLM; llama-server accepts any).
	Model string
	// APIKey, when not empty, is sent as a bearer token. It is never logged nor put in an error.
	APIKey string
	// Timeout bounds one completion, connection included.
	Timeout time.Duration
	// HTTP is the client requests go through; nil is a client of its own.
	HTTP *http.Client
}

// Completer is a chat completions endpoint: *Client, or a stand-in a test serves.
type Completer interface {
	Complete(ctx context.Context, messages []Message) (string, error)
}

// Client asks one endpoint for completions.
type Client struct {
	cfg  Config
	http *http.Client
}

// New returns a client of the endpoint cfg names.
func New(cfg Config) *Client {
	hc := cfg.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Client{cfg: cfg, http: hc}
}

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"` // "system", "user" or "assistant"
	Content string `json:"content"`
}

// request is the body of POST /chat/completions. Temperature 0 asks for the most likely text,
// so that one question is phrased the same way each time.
type request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens"`
	Stream      bool      `json:"stream"`
}

type response struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// maxTokens bounds a completion: the answers asked for are two sentences or a small JSON object.
const maxTokens = 300

// maxResponse bounds the bytes read of an answer, so that a misbehaving server cannot make the
// caller hold an unbounded body.
const maxResponse = 64 << 10

// ErrBadAnswer: the server answered, but not with a completion.
var ErrBadAnswer = errors.New("llm: no completion in the answer")

// Complete sends messages and returns the text of the first choice. Any failure (timeout,
// refused connection, a status other than 200, a body that is not a completion) is an error; the
// caller falls back to what it does without a model.
func (c *Client) Complete(ctx context.Context, messages []Message) (string, error) {
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	body, err := json.Marshal(request{Model: c.cfg.Model, Messages: messages, MaxTokens: maxTokens})
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("llm: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("llm: %w", err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponse+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("llm: read the answer: %w", err)
	case res.StatusCode != http.StatusOK:
		return "", fmt.Errorf("llm: the server answered %d", res.StatusCode)
	case len(raw) > maxResponse:
		return "", fmt.Errorf("%w: over %d bytes", ErrBadAnswer, maxResponse)
	}
	var out response
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
		return "", ErrBadAnswer
	}
	return *out.Choices[0].Message.Content, nil
}
