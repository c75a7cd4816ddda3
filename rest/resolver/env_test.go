package resolver_test

import (
	"context"
	"net/http"
	"testing"

	"providerdir/internal/httpserver"
	"providerdir/rest/gate"
	"providerdir/store"
	"providerdir/testing/apiclient"
	"providerdir/testing/demostore"
	"providerdir/testing/handclock"
	"providerdir/testing/liveserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// env is one running server over a store, mounted as providerd mounts it: the resolver behind
// the gate's key check on /resolver/v1, and the supply API on /v1, which serves the interface
// description the responses are validated against; and the client address a test plays.
type env struct {
	apiclient.Client
	clock *handclock.Clock
}

func newEnv(tb testing.TB, st store.Store) *env {
	tb.Helper()
	clock := handclock.New()
	srv := liveserver.Start(tb, st, liveserver.Options{Now: clock.Now}, func(base string, g *gate.Gate) []httpserver.Surface {
		return []httpserver.Surface{liveserver.Supply(st, base, g), liveserver.Resolver(st, g)}
	})
	return &env{Client: apiclient.NewClient(srv), clock: clock}
}

// sandbox is the published sandbox key.
func (e *env) sandbox(tb testing.TB) string {
	tb.Helper()
	secret, _, err := e.Gate.Keys().Sandbox(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return secret.Reveal()
}

// response is what a test looks at.
type response = apiclient.Response

// do sends one request with the key (none when empty), as JSON when it has a body.
func (e *env) do(tb testing.TB, method, path, key string, body []byte) response {
	tb.Helper()
	var header []string
	if key != "" {
		header = append(header, gate.HeaderServiceKey, key)
	}
	if body != nil {
		header = append(header, "Content-Type", "application/json")
	}
	return e.Do(tb, method, path, body, header...)
}

func (e *env) get(tb testing.TB, path, key string) response {
	tb.Helper()
	return e.do(tb, http.MethodGet, path, key, nil)
}
