package apikey

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/testing/backends"
	"providerdir/testing/handclock"
)

func TestAuthenticate(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, replica := b.Open(t)
		clock := handclock.New()
		m := NewManager(s, clock.Now)
		other := NewManager(replica(), clock.Now) // a second replica: its own pepper cache
		ctx := context.Background()

		pilot, pk, err := m.Create(ctx, TierPilot, "Acme Health", CreateOptions{ExpiresAt: clock.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		pro, _, err := m.Create(ctx, TierPro, "Beta Labs", CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		legacy := "pdpilot_" + strings.Repeat("Lg7", 12)
		if _, err := m.Import(ctx, legacy, TierPilot, "first pilot customer", CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		unknown := generate(PrefixSupply).Reveal()

		tests := []struct {
			name    string
			api     Surface
			key     string
			wantErr string // "" when valid
			tier    Tier
		}{
			{"pilot key on the supply API", Supply, pilot.Reveal(), "", TierPilot},
			{"legacy key on the supply API", Supply, legacy, "", TierPilot},
			{"pro key on the resolver", Resolver, pro.Reveal(), "", TierPro},
			{"pilot key on the resolver", Resolver, pilot.Reveal(), "keys open the supply API", ""},
			{"pro key on the supply API", Supply, pro.Reveal(), "keys open the resolver API", ""},
			{"unknown key", Supply, unknown, "unknown key", ""},
			{"malformed", Supply, "Bearer " + pilot.Reveal(), "not a key", ""},
			{"empty", Resolver, "", "not a key", ""},
			{"one character off", Supply, pilot.Reveal()[:len(pilot.Reveal())-1] + flip(pilot.Reveal()[len(pilot.Reveal())-1]), "unknown key", ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				for i, mgr := range []*Manager{m, other} {
					k, err := mgr.Authenticate(ctx, tt.api, tt.key)
					if tt.wantErr == "" {
						if err != nil || k.Tier != tt.tier {
							t.Fatalf("replica %d: %+v %v", i, k, err)
						}
						continue
					}
					if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), tt.wantErr) {
						t.Fatalf("replica %d: error %v, want ErrInvalidKey saying %q", i, err, tt.wantErr)
					}
				}
			})
		}

		// Expiry acts on the first check at or after ExpiresAt, on every replica.
		clock.Set(*pk.ExpiresAt)
		for _, mgr := range []*Manager{m, other} {
			if _, err := mgr.Authenticate(ctx, Supply, pilot.Reveal()); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "expired") {
				t.Fatalf("expired key: %v", err)
			}
		}
		// Revocation by one replica acts on the next check of the other.
		if _, err := other.Authenticate(ctx, Resolver, pro.Reveal()); err != nil {
			t.Fatal(err)
		}
		if _, changed, err := m.Revoke(ctx, pro.Reveal()); err != nil || !changed {
			t.Fatalf("revoke: %v %v", changed, err)
		}
		if _, err := other.Authenticate(ctx, Resolver, pro.Reveal()); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "revoked") {
			t.Fatalf("revoked key: %v", err)
		}
	})
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

func TestStoredOnlyAsHash(t *testing.T) {
	s := backends.Embedded(t)
	m := NewManager(s, nil)
	ctx := context.Background()
	secret, k, err := m.Create(ctx, TierStarter, "Gamma", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := secret.Reveal()
	random := key[len("pdlive_"):]
	for _, kind := range []string{keyKind, secretKind, publishedKind} {
		recs, err := s.ListRecords(ctx, kind, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if strings.Contains(string(r.Body), random[:20]) || strings.Contains(r.ID, random[:20]) {
				t.Fatalf("record %s/%s holds the key", kind, r.ID)
			}
		}
	}
	if len(k.Hash) != 64 || k.ID != "key_"+k.Hash[:16] || k.Hint() != "pdlive_…"+key[len(key)-4:] {
		t.Fatalf("key record %+v", k)
	}
}

func TestCreateRejects(t *testing.T) {
	m := NewManager(backends.Embedded(t), nil)
	ctx := context.Background()
	good := "pdpilot_" + strings.Repeat("x", 40)
	tests := []struct {
		name string
		do   func() error
	}{
		{"empty name", func() error { _, _, err := m.Create(ctx, TierPilot, " ", CreateOptions{}); return err }},
		{"long name", func() error {
			_, _, err := m.Create(ctx, TierPilot, strings.Repeat("n", 201), CreateOptions{})
			return err
		}},
		{"control character in name", func() error { _, _, err := m.Create(ctx, TierPilot, "a\nb", CreateOptions{}); return err }},
		{"unknown tier", func() error { _, _, err := m.Create(ctx, "gold", "x", CreateOptions{}); return err }},
		{"sandbox through Create", func() error { _, _, err := m.Create(ctx, TierSandbox, "x", CreateOptions{}); return err }},
		{"import of a malformed key", func() error { _, err := m.Import(ctx, "pdpilot_short", TierPilot, "x", CreateOptions{}); return err }},
		{"import into the wrong tier", func() error { _, err := m.Import(ctx, good, TierPro, "x", CreateOptions{}); return err }},
		{"import twice", func() error {
			if _, err := m.Import(ctx, good, TierPilot, "x", CreateOptions{}); err != nil {
				return nil
			}
			_, err := m.Import(ctx, good, TierPilot, "x", CreateOptions{})
			return err
		}},
	}
	for _, tt := range tests {
		if err := tt.do(); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
}

func TestFindAndRevoke(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, _ := b.Open(t)
		m := NewManager(s, nil)
		ctx := context.Background()
		secret, k, err := m.Create(ctx, TierPilot, "Delta", CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Two imported keys sharing their last four characters make a hint ambiguous.
		twinA := "pdpilot_" + strings.Repeat("A", 36) + "SAME"
		twinB := "pdpilot_" + strings.Repeat("B", 36) + "SAME"
		for _, tw := range []string{twinA, twinB} {
			if _, err := m.Import(ctx, tw, TierPilot, "twin", CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		tests := []struct {
			ref  string
			want string // key id, or the error it must be
			err  error
		}{
			{k.ID, k.ID, nil},
			{strings.ToUpper(k.ID[4:]), "", ErrNotFound},
			{"key_" + strings.ToUpper(k.ID[4:]), k.ID, nil},
			{secret.Reveal(), k.ID, nil},
			{" " + secret.Reveal() + "\n", k.ID, nil},
			{k.Hint(), k.ID, nil},
			{strings.Replace(k.Hint(), "…", "...", 1), k.ID, nil},
			{"pdpilot_…SAME", "", ErrAmbiguous},
			{"key_0000000000000000", "", ErrNotFound},
			{"key_12", "", ErrNotFound},
			{"pdsupply_…zzzz", "", ErrNotFound},
			{generate(PrefixSupply).Reveal(), "", ErrNotFound},
			{"nonsense", "", ErrNotFound},
		}
		for _, tt := range tests {
			got, err := m.Find(ctx, tt.ref)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("Find(%q): %v, want %v", tt.ref, err, tt.err)
				}
				continue
			}
			if err != nil || got.ID != tt.want {
				t.Errorf("Find(%q) = %s, %v; want %s", tt.ref, got.ID, err, tt.want)
			}
		}

		revoked, changed, err := m.Revoke(ctx, k.Hint())
		if err != nil || !changed || revoked.Status(time.Now()) != StatusRevoked {
			t.Fatalf("revoke: %+v %v %v", revoked, changed, err)
		}
		if _, changed, err := m.Revoke(ctx, k.ID); err != nil || changed {
			t.Fatalf("second revoke: changed %v, %v", changed, err)
		}
		keys, err := m.List(ctx)
		if err != nil || len(keys) != 3 {
			t.Fatalf("list: %d keys, %v", len(keys), err)
		}
		for _, got := range keys {
			if got.ID == k.ID && got.Status(time.Now()) != StatusRevoked {
				t.Fatalf("list shows %+v", got)
			}
		}
	})
}

func TestPepperRace(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, replica := b.Open(t)
		stores := []store.Store{s, replica()}
		ctx := context.Background()
		managers := make([]*Manager, 8)
		for i := range managers {
			managers[i] = NewManager(stores[i%2], nil)
		}
		var wg sync.WaitGroup
		peppers := make([][]byte, len(managers))
		for i, mgr := range managers {
			wg.Go(func() {
				p, err := mgr.loadPepper(ctx)
				if err != nil {
					t.Error(err)
				}
				peppers[i] = p
			})
		}
		wg.Wait()
		for i := range peppers {
			if string(peppers[i]) != string(peppers[0]) || len(peppers[i]) != pepperLen {
				t.Fatalf("manager %d has another pepper", i)
			}
		}
	})
}

func TestSandbox(t *testing.T) {
	backends.Each(t, func(t *testing.T, b backends.Backend) {
		s, replica := b.Open(t)
		ctx := context.Background()
		m := NewManager(s, nil)

		// Replicas starting together publish one key between them.
		var wg sync.WaitGroup
		keys := make([]string, 6)
		for i := range keys {
			mgr := NewManager([]store.Store{s, replica()}[i%2], nil)
			wg.Go(func() {
				sec, k, err := mgr.Sandbox(ctx)
				if err != nil || k.Tier != TierSandbox || !k.ReadOnly() {
					t.Errorf("sandbox: %+v %v", k, err)
				}
				keys[i] = sec.Reveal()
			})
		}
		wg.Wait()
		for _, k := range keys {
			if k != keys[0] {
				t.Fatalf("replicas disagree on the sandbox key")
			}
		}
		if _, err := m.Authenticate(ctx, Resolver, keys[0]); err != nil {
			t.Fatal(err)
		}

		// Revoked, it is replaced at the next Sandbox call.
		if _, _, err := m.Revoke(ctx, keys[0]); err != nil {
			t.Fatal(err)
		}
		again, _, err := m.Sandbox(ctx)
		if err != nil || again.Reveal() == keys[0] {
			t.Fatalf("after revocation: same key or %v", err)
		}
		// Rotation replaces it and revokes the old one.
		rotated, rk, err := m.RotateSandbox(ctx, "")
		if err != nil || rotated.Reveal() == again.Reveal() || rk.Name != SandboxName {
			t.Fatalf("rotate: %+v %v", rk, err)
		}
		if _, err := m.Authenticate(ctx, Resolver, again.Reveal()); !errors.Is(err, ErrInvalidKey) {
			t.Fatalf("the rotated-out key still works: %v", err)
		}
		if cur, _, err := m.Sandbox(ctx); err != nil || cur.Reveal() != rotated.Reveal() {
			t.Fatalf("published after rotation: %v", err)
		}
		// Operators rotating at once leave one of their keys published and the old one out;
		// every other key minted meanwhile is withdrawn (one active sandbox key, checked below).
		racing := make([]string, 4)
		for i := range racing {
			wg.Go(func() {
				sec, _, err := NewManager([]store.Store{s, replica()}[i%2], nil).RotateSandbox(ctx, "")
				if err != nil {
					t.Errorf("concurrent rotate: %v", err)
				}
				racing[i] = sec.Reveal()
			})
		}
		wg.Wait()
		cur, _, err := m.Sandbox(ctx)
		if err != nil || !slices.Contains(racing, cur.Reveal()) || slices.Contains(racing, rotated.Reveal()) {
			t.Fatalf("published after concurrent rotations: not one of theirs, or the old key: %v", err)
		}
		active := 0
		all, _ := m.List(ctx)
		for _, k := range all {
			if k.Tier == TierSandbox && k.Status(time.Now()) == StatusActive {
				active++
			}
		}
		if active != 1 {
			t.Fatalf("%d active sandbox keys, want 1", active)
		}
	})
}

// BenchmarkAuthenticate is the per-request key check on the embedded store: one HMAC and one
// point read.
func BenchmarkAuthenticate(b *testing.B) {
	m := NewManager(backends.Embedded(b), nil)
	secret, _, err := m.Create(context.Background(), TierPro, "bench", CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	key := secret.Reveal()
	for b.Loop() {
		if _, err := m.Authenticate(context.Background(), Resolver, key); err != nil {
			b.Fatal(err)
		}
	}
}
