package apikey

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// The resolver's sandbox key is one key shared by everyone and published
// (docs/contracts/resolver-api.md §5 rule 2: one key, published and shared, read-only, for every
// read endpoint without signing up). Its plaintext is not a secret, so besides the hashed key
// record like any other key, it is kept in plain in one record meant for publishing:
// published/resolver-sandbox-key. Nothing else is ever stored in plain. Whoever publishes it (make
// run, the documentation, the tool server's fallback) reads it from there with Sandbox.
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

// publishSandbox mints a key and publishes it unless a working key is published already (and
// rotate is false). The key to replace is decided on one read; minting happens outside the
// compare-and-swap, which then publishes ours only over that key (or over a key that no longer
// works), and otherwise takes the working key another process published meanwhile and
// withdraws ours.
func (m *Manager) publishSandbox(ctx context.Context, name string, rotate bool) (Secret, Key, error) {
	if name == "" {
		name = SandboxName
	}
	stale := "" // the id of the published key ours replaces
	rec, err := m.st.GetRecord(ctx, publishedKind, sandboxID)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return Secret{}, Key{}, fmt.Errorf("apikey: read published sandbox key: %w", err)
	default:
		p, cur, err := m.publishedKey(ctx, rec)
		if err != nil {
			return Secret{}, Key{}, err
		}
		if cur != nil && !rotate && m.works(*cur) {
			return Secret{s: p.Key}, *cur, nil
		}
		if cur != nil {
			stale = cur.ID
		}
	}

	secret, k, err := m.create(ctx, TierSandbox, name, CreateOptions{})
	if err != nil {
		return Secret{}, Key{}, err
	}
	var theirs *published
	var theirKey, replaced *Key
	_, err = store.Update(ctx, m.st, publishedKind, sandboxID, func(old store.Record) (store.Record, error) {
		theirs, theirKey, replaced = nil, nil, nil
		if old.Version != 0 {
			p, cur, err := m.publishedKey(ctx, old)
			if err != nil {
				return old, err
			}
			if cur != nil && cur.ID != stale && m.works(*cur) {
				theirs, theirKey = &p, cur
				return old, store.SkipWrite
			}
			replaced = cur
		}
		old.Body, _ = json.Marshal(published{Key: secret.Reveal(), KeyID: k.ID, PublishedAt: m.now().UTC()})
		return old, nil
	}, store.CreateIfAbsent())
	if err != nil || theirs != nil {
		// Not published: withdraw ours.
		if _, _, rerr := m.revoke(ctx, k); rerr != nil {
			return Secret{}, Key{}, errors.Join(err, rerr)
		}
	}
	switch {
	case err != nil:
		return Secret{}, Key{}, fmt.Errorf("apikey: publish sandbox key: %w", err)
	case theirs != nil:
		return Secret{s: theirs.Key}, *theirKey, nil
	case replaced != nil:
		if _, _, err := m.revoke(ctx, *replaced); err != nil {
			return Secret{}, Key{}, err
		}
	}
	return secret, k, nil
}

// publishedKey decodes a published sandbox key record and finds the key it names; the key is
// nil when it is no longer stored.
func (m *Manager) publishedKey(ctx context.Context, rec store.Record) (published, *Key, error) {
	var p published
	if err := json.Unmarshal(rec.Body, &p); err != nil {
		return published{}, nil, fmt.Errorf("apikey: published sandbox key: %w", err)
	}
	k, err := m.Find(ctx, p.Key)
	switch {
	case errors.Is(err, ErrNotFound):
		return p, nil, nil
	case err != nil:
		return published{}, nil, err
	}
	return p, &k, nil
}

// works reports whether k opens the API now: neither revoked nor expired.
func (m *Manager) works(k Key) bool { return k.Status(m.now()) == StatusActive }
