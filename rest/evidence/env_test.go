package evidence_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/llm"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/evidence"
	"providerdir/rest/gate"
	"providerdir/rest/supply"
	"providerdir/store"
	"providerdir/testing/apiclient"
	"providerdir/testing/demostore"
	"providerdir/testing/handclock"
	"providerdir/testing/liveserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// env is one running server as providerd wires it: the supply API and the evidence query on
// /v1 behind the gate, the demo on /api behind the per-address limiter, and the client address a
// test plays against it.
type env struct {
	apiclient.Client
	clock *handclock.Clock
	log   *liveserver.SyncBuffer
}

// newEnv serves over st; model, when not nil, is the language model the evidence query uses.
func newEnv(tb testing.TB, st store.Store, model llm.Completer) *env {
	tb.Helper()
	e := &env{clock: handclock.New(), log: &liveserver.SyncBuffer{}}
	srv := liveserver.Start(tb, st, liveserver.Options{Now: e.clock.Now, Log: e.log}, func(base string, g *gate.Gate) []httpserver.Surface {
		ask := evidence.New(evidence.Config{Store: st, Studies: supply.New(st, base), BaseURL: base, Model: model})
		return []httpserver.Surface{
			liveserver.Supply(st, base, g, ask.Routes),
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) { ask.RegisterDemo(r, g.LimitIP(gate.EvidenceDemoPolicy)) }},
		}
	})
	e.Client = apiclient.NewClient(srv)
	return e
}

// demoEnv serves the shared demo snapshot.
func demoEnv(tb testing.TB, model llm.Completer) *env {
	return newEnv(tb, demostore.Open(tb).Store, model)
}

// key issues a pilot key.
func (e *env) key(tb testing.TB) string {
	tb.Helper()
	return e.Key(tb, apikey.TierPilot)
}

// response is what a test looks at.
type response struct{ apiclient.Response }

// do sends one request with the content type and key (each left out when empty).
func (e *env) do(tb testing.TB, method, path, contentType string, body []byte, key string) response {
	tb.Helper()
	var header []string
	if contentType != "" {
		header = append(header, "Content-Type", contentType)
	}
	if key != "" {
		header = append(header, apiclient.Bearer(key)...)
	}
	return response{e.Do(tb, method, path, body, header...)}
}

// ask posts a question to /v1/evidence-query with key.
func (e *env) ask(tb testing.TB, key, question string, maxItems ...int) response {
	tb.Helper()
	body := map[string]any{"query": question}
	if len(maxItems) > 0 {
		body["options"] = map[string]any{"max_evidence_items": maxItems[0]}
	}
	raw, _ := json.Marshal(body)
	return e.do(tb, http.MethodPost, "/v1/evidence-query", "application/json", raw, key)
}

// result decodes the data of an evidence-query response.
func (r response) result(tb testing.TB) evidence.Result {
	tb.Helper()
	var env struct {
		Data evidence.Result `json:"data"`
	}
	if err := json.Unmarshal(r.Raw, &env); err != nil {
		tb.Fatal(err)
	}
	return env.Data
}
