package apikey

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// The resolver's sandbox key is one key shared by everyone and published (seeds/001 section 5:
// "shared, read-only, ... usable on every read endpoint without signup"). Its plaintext is not
// a secret, so besides the hashed key record like any other key, it is kept in plain in one
// record meant for publishing: published/resolver-sandbox-key. Nothing else is ever stored in
// plain. Whoever publishes it (make run, the documentation, the tool server's fallback) reads
// it from there with Sandbox.
const (
	publishedKind = "published"
	sandboxID     = "resolver-sandbox-key"
	// SandboxName names the sandbox key in keys list.
	SandboxName = "shared sandbox key (published)"
)

// published is the body of the published sandbox key record.
type published struct {
	Key         string    `json:"key"`
	KeyID       string    `json:"key_id"`
	PublishedAt time.Time `json:"published_at"`
}

// Sandbox returns the published sandbox key, making and publishing one when there is none or
// the published one no longer works (revoked or expired). Servers call it at start, so the key
// exists from the first start on; concurrent first starts publish one key between them.
func (m *Manager) Sandbox(ctx context.Context) (Secret, Key, error) {
	return m.publishSandbox(ctx, "", false)
}

// RotateSandbox replaces the published sandbox key with a new one named name (SandboxName when
// empty) and revokes the old one: clients of the old key must fetch the new.
func (m *Manager) RotateSandbox(ctx context.Context, name string) (Secret, Key, error) {
	return m.publishSandbox(ctx, name, true)
}

func (m *Manager) publishSandbox(ctx context.Context, name string, rotate bool) (Secret, Key, error) {
	if name == "" {
		name = SandboxName
	}
	for attempt := 0; attempt < 10; attempt++ {
		rec, err := m.st.GetRecord(ctx, publishedKind, sandboxID)
		var old *Key
		switch {
		case errors.Is(err, store.ErrNotFound):
			rec = store.Record{Kind: publishedKind, ID: sandboxID}
		case err != nil:
			return Secret{}, Key{}, fmt.Errorf("apikey: read published sandbox key: %w", err)
		default:
			var p published
			if err := json.Unmarshal(rec.Body, &p); err != nil {
				return Secret{}, Key{}, fmt.Errorf("apikey: published sandbox key: %w", err)
			}
			k, err := m.Find(ctx, p.Key)
			switch {
			case err == nil && !rotate && k.Status(m.now()) == StatusActive:
				return Secret{s: p.Key}, k, nil
			case err == nil:
				old = &k
			case !errors.Is(err, ErrNotFound):
				return Secret{}, Key{}, err
			}
		}

		secret, k, err := m.create(ctx, TierSandbox, name, CreateOptions{})
		if err != nil {
			return Secret{}, Key{}, err
		}
		rec.Body, _ = json.Marshal(published{Key: secret.Reveal(), KeyID: k.ID, PublishedAt: m.now().UTC()})
		_, err = m.st.PutRecord(ctx, rec)
		if err == nil {
			if old != nil {
				if _, _, err := m.revoke(ctx, *old); err != nil {
					return Secret{}, Key{}, err
				}
			}
			return secret, k, nil
		}
		// Another process published first: withdraw ours and take theirs.
		if _, _, rerr := m.revoke(ctx, k); rerr != nil {
			return Secret{}, Key{}, rerr
		}
		if !errors.Is(err, store.ErrConflict) {
			return Secret{}, Key{}, fmt.Errorf("apikey: publish sandbox key: %w", err)
		}
		rotate = false
	}
	return Secret{}, Key{}, errors.New("apikey: the published sandbox key keeps changing under us")
}
