package conformance

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gorilla/mux"

	"providerdir/fhir"
	"providerdir/internal/httpserver"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/liveserver"
	"providerdir/webhook"
)

// The subscription checks pass against the real FHIR surface behind SMART, for a read-only
// client and for one registered with system/Subscription.* alike: the run asks for
// system/*.read, which grants no Subscription write.
func TestSubscriptionChecks(t *testing.T) {
	st := backends.Embedded(t)
	quiet := slog.New(slog.DiscardHandler)
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	auth, err := smart.New(smart.Config{Store: st, BaseURL: base, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer auth.Close()
	fsrv := fhir.New(fhir.Config{Store: st, BaseURL: base + "/fhir", Log: quiet, Subscriptions: &webhook.AddressPolicy{},
		GrantFrom: func(ctx context.Context) (fhir.Grant, bool) { return smart.GrantFrom(ctx) }})
	h, err := httpserver.New(httpserver.Options{Logger: quiet, Surfaces: []httpserver.Surface{{Name: "fhir", Prefix: "/fhir", Error: fhir.Error,
		Routes: func(r *mux.Router) { auth.Routes(r); r.Use(auth.Protect); fsrv.Routes(r) }}}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	defer srv.Close()

	for _, c := range []struct {
		scopes []string
		pass   int
	}{
		{[]string{"system/*.read"}, 3},
		{[]string{"system/*.read", "system/Subscription.*"}, 3},
	} {
		creds := subscriptionClient(t, st, base, c.scopes)
		rep := RunChecks(context.Background(), Options{Credentials: creds}, subscriptionChecks())
		passed := 0
		for _, r := range rep.Results {
			if r.Status == Fail {
				t.Errorf("%v: %s: %s", c.scopes, r.Name, r.Reason)
			}
			if r.Status == Pass {
				passed++
			}
		}
		if passed != c.pass {
			t.Errorf("%v: %d passed, want %d: %+v", c.scopes, passed, c.pass, rep.Results)
		}
	}
}

// subscriptionClient registers a SMART client allowed scopes and returns credentials for it.
func subscriptionClient(t *testing.T, st store.Store, base string, scopes []string) Credentials {
	t.Helper()
	cl := liveserver.AddSMARTClient(t, st, "conformance", scopes...)
	key, err := json.Marshal(cl.Key)
	if err != nil {
		t.Fatal(err)
	}
	return Credentials{BaseURL: base, SMARTClientID: cl.ID, SMARTKey: key}
}
