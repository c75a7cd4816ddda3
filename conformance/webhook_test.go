package conformance

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/internal/httpserver"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/gate"
	"providerdir/rest/webhooks"
	"providerdir/testing/backends"
	"providerdir/webhook"
)

// The webhook checks pass against the real registration endpoints with a live key, and with
// the sandbox key pass the 401 and 403 checks and skip exactly those that need a live key. The lifecycle check
// registers a loopback receiver, which the service admits here as with --webhook-allow-loopback,
// so no check resolves a name or reaches beyond the machine.
func TestWebhookChecks(t *testing.T) {
	st := backends.Embedded(t)
	ctx := context.Background()
	g := gate.New(st, gate.Options{})
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := httpserver.New(httpserver.Options{
		Logger: slog.New(slog.DiscardHandler),
		Surfaces: []httpserver.Surface{{Name: "resolver", Prefix: "/resolver/v1", Error: rest.ResolverError,
			Routes: gate.Guard(g.RequireResolverKey, func(r *mux.Router) { webhooks.NewAPI(st, webhook.AddressPolicy{AllowLoopback: true}, nil).Routes(r) })}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	live, _, err := g.Keys().Create(ctx, apikey.TierStarter, "conformance", apikey.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sandbox, _, err := g.Keys().Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		key     string
		passing int // the first checks pass, the others skip
	}{
		{"live key", live.Reveal(), len(webhookChecks())},
		{"sandbox key", sandbox.Reveal(), 2}, // no key, and the read-only key refused
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := RunChecks(ctx, Options{Credentials: Credentials{BaseURL: srv.URL, ResolverKey: c.key},
				WebhookURL: srv.URL + "/conformance-receiver"}, webhookChecks())
			if len(rep.Results) != len(webhookChecks()) {
				t.Fatalf("%d results, want %d", len(rep.Results), len(webhookChecks()))
			}
			for i, r := range rep.Results {
				want, reason := Pass, ""
				if i >= c.passing {
					want, reason = Skip, "the given resolver key is read-only; webhooks need a live key"
				}
				if r.Status != want || (want == Skip && r.Reason != reason) {
					t.Errorf("%s: %s %s, want %s %s", r.Name, r.Status, r.Reason, want, reason)
				}
			}
		})
	}
}
