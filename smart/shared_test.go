package smart_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"

	"providerdir/smart"
	"providerdir/testing/backends"
)

// TestReplicasShareState runs two Services on one store, as two providerd replicas behind one
// public URL: a token from one is good at the other, and an assertion used at one is a replay
// at the other.
func TestReplicasShareState(t *testing.T) {
	st := backends.Embedded(t)
	sameURL := func(c *smart.Config) { c.BaseURL = "https://directory.example" }
	a, b := newEnvOn(t, st, sameURL), newEnvOn(t, st, sameURL)
	k := rsaKey(t, "a")
	id := a.addClient(t, k)

	tok := a.token(t, id, k, "system/*.read").AccessToken
	if status, _, body := b.get(t, "/fhir/Practitioner/1", tok); status != http.StatusOK {
		t.Fatalf("replica b refuses replica a's token: %d %v", status, body)
	}
	assertion := sign(t, k.priv, k.alg, k.kid, a.claims(id), nil)
	if r := a.postToken(t, tokenForm(assertion, "system/*.read")); r.status != http.StatusOK {
		t.Fatalf("first use at a: %d %s", r.status, r.Error)
	}
	if r := b.postToken(t, tokenForm(assertion, "system/*.read")); r.status != http.StatusUnauthorized || r.Error != "invalid_client" {
		t.Fatalf("replay at b: %d %s, want 401 invalid_client", r.status, r.Error)
	}
	// Disabling through the registry reaches both at once: the record is read per request.
	if _, err := smart.SetClientEnabled(context.Background(), st, id, false); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*testEnv{"a": a, "b": b} {
		if r := e.postToken(t, tokenForm(sign(t, k.priv, k.alg, k.kid, e.claims(id), nil), "system/*.read")); r.status != http.StatusUnauthorized {
			t.Errorf("disabled client at %s: %d", name, r.status)
		}
	}
}

// TestFirstStartRace starts several Services on one fresh store at once: they must end with one
// token secret and one sandbox client and key, whichever won each create.
func TestFirstStartRace(t *testing.T) {
	st := backends.Embedded(t)
	const n = 4
	envs := make([]*testEnv, n)
	var wg sync.WaitGroup
	for i := range envs {
		wg.Go(func() {
			envs[i] = newEnvOn(t, st, func(c *smart.Config) { c.BaseURL = "https://directory.example" })
		})
	}
	wg.Wait()
	k := ecKey(t, "a")
	id := envs[0].addClient(t, k)
	tok := envs[n-1].token(t, id, k, "system/*.read").AccessToken
	first, err := os.ReadFile(envs[0].keyFile)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range envs {
		if status, _, _ := e.get(t, "/fhir/Practitioner/1", tok); status != http.StatusOK {
			t.Errorf("replica %d refuses the token: %d", i, status)
		}
		if b, _ := os.ReadFile(e.keyFile); string(b) != string(first) {
			t.Errorf("replica %d wrote another sandbox key", i)
		}
	}
	clients, err := smart.ListClients(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	sandboxes := 0
	for _, c := range clients {
		if c.Sandbox {
			sandboxes++
		}
	}
	if sandboxes != 1 {
		t.Errorf("%d sandbox clients", sandboxes)
	}
}
