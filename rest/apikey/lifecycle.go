package apikey

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"providerdir/store"
)

// List returns every stored key, revoked and expired ones included, ordered by hash (which is
// to say in no meaningful order; callers sort for display).
func (m *Manager) List(ctx context.Context) ([]Key, error) {
	keys, err := store.DecodeRecords(ctx, m.st, keyKind, decodeKey)
	if err != nil {
		return nil, fmt.Errorf("apikey: list keys: %w", err)
	}
	return keys, nil
}

// Find returns the key a reference names: its ID ("key_" and 16 hex digits), the key itself,
// or its hint as keys list shows it ("pdsupply_…wXyZ", with "..." accepted for the ellipsis).
func (m *Manager) Find(ctx context.Context, ref string) (Key, error) {
	ref = strings.TrimSpace(ref)
	if _, ok := Parse(ref); ok {
		sum, err := m.digest(ctx, ref)
		if err != nil {
			return Key{}, err
		}
		return m.get(ctx, hex.EncodeToString(sum))
	}
	if hexPart, ok := strings.CutPrefix(ref, "key_"); ok {
		return m.findByID(ctx, strings.ToLower(hexPart))
	}
	if prefix, last4, ok := splitHint(ref); ok {
		return m.findByHint(ctx, prefix, last4)
	}
	return Key{}, fmt.Errorf("%w: %q is neither a key id (key_...), a key, nor a hint (prefix_…last4)", ErrNotFound, ref)
}

func (m *Manager) get(ctx context.Context, hash string) (Key, error) {
	rec, err := m.st.GetRecord(ctx, keyKind, hash)
	if errors.Is(err, store.ErrNotFound) {
		return Key{}, ErrNotFound
	}
	if err != nil {
		return Key{}, fmt.Errorf("apikey: read key: %w", err)
	}
	return decodeKey(rec)
}

// findByID finds the one record whose hash starts with the id's hex digits: the first record
// after them in id order is it, if any is.
func (m *Manager) findByID(ctx context.Context, hexPart string) (Key, error) {
	if len(hexPart) != 16 {
		return Key{}, fmt.Errorf("%w: a key id is key_ and 16 hex digits", ErrNotFound)
	}
	if _, err := hex.DecodeString(hexPart); err != nil {
		return Key{}, fmt.Errorf("%w: a key id is key_ and 16 hex digits", ErrNotFound)
	}
	recs, err := m.st.ListRecords(ctx, keyKind, hexPart, 1)
	if err != nil {
		return Key{}, fmt.Errorf("apikey: find key: %w", err)
	}
	if len(recs) == 0 || !strings.HasPrefix(recs[0].ID, hexPart) {
		return Key{}, ErrNotFound
	}
	return decodeKey(recs[0])
}

func splitHint(ref string) (prefix, last4 string, ok bool) {
	for _, ellipsis := range []string{"_…", "_..."} {
		if p, l, found := strings.Cut(ref, ellipsis); found && len(l) == 4 {
			if _, known := prefixSurface[p]; known {
				return p, l, true
			}
		}
	}
	return "", "", false
}

func (m *Manager) findByHint(ctx context.Context, prefix, last4 string) (Key, error) {
	keys, err := m.List(ctx)
	if err != nil {
		return Key{}, err
	}
	var found []Key
	for _, k := range keys {
		if k.Prefix == prefix && k.Last4 == last4 {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return Key{}, ErrNotFound
	case 1:
		return found[0], nil
	}
	ids := make([]string, len(found))
	for i, k := range found {
		ids[i] = k.ID
	}
	return Key{}, fmt.Errorf("%w: %s; name one by id", ErrAmbiguous, strings.Join(ids, ", "))
}

// Revoke revokes the key ref names (see Find) and returns it. Revoking a revoked key changes
// nothing and reports changed false. The next request with the key fails on every replica.
func (m *Manager) Revoke(ctx context.Context, ref string) (k Key, changed bool, err error) {
	k, err = m.Find(ctx, ref)
	if err != nil {
		return Key{}, false, err
	}
	return m.revoke(ctx, k)
}

// revoke sets the key's revocation time unless it is revoked already, reporting whether it did.
func (m *Manager) revoke(ctx context.Context, k Key) (Key, bool, error) {
	var changed bool
	rec, err := store.Update(ctx, m.st, keyKind, k.Hash, func(old store.Record) (store.Record, error) {
		cur, err := decodeKey(old)
		if err != nil {
			return old, err
		}
		k, changed = cur, cur.RevokedAt == nil
		if !changed {
			return old, store.SkipWrite
		}
		now := m.now().UTC()
		k.RevokedAt = &now
		return k.record(), nil
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Key{}, false, ErrNotFound
	case err != nil:
		return Key{}, false, fmt.Errorf("apikey: revoke %s: %w", k.ID, err)
	}
	k.version = rec.Version
	return k, changed, nil
}

// KeyStatus reports whether the key with id ("key_" and 16 hex digits) is active now, and why
// not: revoked, expired or unknown. The webhook worker asks it before each delivery (it is a
// webhook.KeyChecker), so the webhooks of a key that lost its rights deliver nothing more.
func (m *Manager) KeyStatus(ctx context.Context, id string) (active bool, reason string, err error) {
	hexPart, ok := strings.CutPrefix(id, "key_")
	if !ok {
		return false, "the API key " + id + " is unknown", nil
	}
	k, err := m.findByID(ctx, hexPart)
	if errors.Is(err, ErrNotFound) {
		return false, "the API key " + id + " is unknown", nil
	}
	if err != nil {
		return false, "", err
	}
	if s := k.Status(m.now()); s != StatusActive {
		return false, "the API key " + k.ID + " is " + string(s), nil
	}
	return true, "", nil
}
