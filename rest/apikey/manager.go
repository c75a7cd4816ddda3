package apikey

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"providerdir/store"
)

// Manager creates, checks and revokes keys in a store. It caches nothing but the pepper, which
// never changes once made.
type Manager struct {
	st  store.Store
	now func() time.Time

	mu     sync.Mutex
	pepper []byte
}

// NewManager returns a manager on st. now is its clock (expiry is decided by it); nil means
// time.Now.
func NewManager(st store.Store, now func() time.Time) *Manager {
	if now == nil {
		now = time.Now
	}
	return &Manager{st: st, now: now}
}

const pepperLen = 32

// loadPepper returns the HMAC key, making it on first use. Racing first uses, in this process
// or across replicas, agree: the create is conditional and the losers read the winner's.
func (m *Manager) loadPepper(ctx context.Context) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pepper != nil {
		return m.pepper, nil
	}
	rec, err := store.Update(ctx, m.st, secretKind, pepperID, func(old store.Record) (store.Record, error) {
		if old.Version != 0 {
			return old, store.SkipWrite
		}
		old.Body = make([]byte, pepperLen)
		_, _ = rand.Read(old.Body)
		return old, nil
	}, store.CreateIfAbsent())
	if err != nil {
		return nil, fmt.Errorf("apikey: pepper: %w", err)
	}
	if len(rec.Body) != pepperLen {
		return nil, fmt.Errorf("apikey: pepper record holds %d bytes, want %d", len(rec.Body), pepperLen)
	}
	m.pepper = rec.Body
	return m.pepper, nil
}

// digest returns the HMAC of key under the pepper.
func (m *Manager) digest(ctx context.Context, key string) ([]byte, error) {
	pepper, err := m.loadPepper(ctx)
	if err != nil {
		return nil, err
	}
	mac := hmac.New(sha256.New, pepper)
	mac.Write([]byte(key))
	return mac.Sum(nil), nil
}

// CreateOptions are the optional attributes of a new key.
type CreateOptions struct {
	// ExpiresAt, when not zero, is when the key stops working.
	ExpiresAt time.Time
	// AccessRequest links the key to the pilot access request it was issued for.
	AccessRequest string
}

// Create issues a new key of tier and returns it, the only time its plaintext exists outside
// the caller's hands. Sandbox keys are made through Sandbox and RotateSandbox, which keep there
// being exactly one.
func (m *Manager) Create(ctx context.Context, tier Tier, name string, o CreateOptions) (Secret, Key, error) {
	if tier == TierSandbox {
		return Secret{}, Key{}, errors.New("apikey: the sandbox key is shared: use RotateSandbox")
	}
	return m.create(ctx, tier, name, o)
}

func (m *Manager) create(ctx context.Context, tier Tier, name string, o CreateOptions) (Secret, Key, error) {
	if _, err := ParseTier(string(tier)); err != nil {
		return Secret{}, Key{}, err
	}
	secret := generate(tier.Prefix())
	k, err := m.store(ctx, secret.Reveal(), tier, name, o)
	if err != nil {
		return Secret{}, Key{}, err
	}
	return secret, k, nil
}

// Import stores an existing key, such as a pilot key issued under the legacy prefix before this
// service, so that it keeps working. The key must have a prefix the tier accepts.
func (m *Manager) Import(ctx context.Context, key string, tier Tier, name string, o CreateOptions) (Key, error) {
	if _, err := ParseTier(string(tier)); err != nil {
		return Key{}, err
	}
	prefix, ok := Parse(key)
	if !ok {
		return Key{}, errors.New("apikey: not a key of any known prefix and shape")
	}
	if !tier.accepts(prefix) {
		return Key{}, fmt.Errorf("apikey: a %s_ key cannot be of tier %s", prefix, tier)
	}
	return m.store(ctx, key, tier, name, o)
}

// store writes the record of key. A create that finds the hash taken means the key is already
// stored (importing it twice); a fresh random key never collides.
func (m *Manager) store(ctx context.Context, key string, tier Tier, name string, o CreateOptions) (Key, error) {
	if err := checkName(name); err != nil {
		return Key{}, err
	}
	sum, err := m.digest(ctx, key)
	if err != nil {
		return Key{}, err
	}
	prefix, _ := Parse(key)
	hash := hex.EncodeToString(sum)
	k := Key{
		ID:            idFromHash(hash),
		Hash:          hash,
		Prefix:        prefix,
		Last4:         key[len(key)-4:],
		Tier:          tier,
		Name:          name,
		CreatedAt:     m.now().UTC(),
		AccessRequest: o.AccessRequest,
	}
	if !o.ExpiresAt.IsZero() {
		e := o.ExpiresAt.UTC()
		k.ExpiresAt = &e
	}
	rec, err := m.st.PutRecord(ctx, k.record())
	if errors.Is(err, store.ErrConflict) {
		return Key{}, errors.New("apikey: this key is already stored")
	}
	if err != nil {
		return Key{}, fmt.Errorf("apikey: store key: %w", err)
	}
	k.version = rec.Version
	return k, nil
}

// Authenticate checks a presented key for an API and returns its record. Every failure is an
// ErrInvalidKey whose text gives the reason (for the log; the client hears one code). It reads
// the store on every call: revocation and expiry act on the next request everywhere.
func (m *Manager) Authenticate(ctx context.Context, api Surface, presented string) (Key, error) {
	prefix, ok := Parse(presented)
	if !ok {
		return Key{}, invalid("not a key")
	}
	if prefixSurface[prefix] != api {
		return Key{}, invalid(prefix + "_ keys open the " + string(prefixSurface[prefix]) + " API")
	}
	sum, err := m.digest(ctx, presented)
	if err != nil {
		return Key{}, err
	}
	rec, err := m.st.GetRecord(ctx, keyKind, hex.EncodeToString(sum))
	if errors.Is(err, store.ErrNotFound) {
		return Key{}, invalid("unknown key")
	}
	if err != nil {
		return Key{}, fmt.Errorf("apikey: look up key: %w", err)
	}
	k, err := decodeKey(rec)
	if err != nil {
		return Key{}, err
	}
	stored, err := hex.DecodeString(k.Hash)
	if err != nil || !hmac.Equal(stored, sum) {
		return Key{}, invalid("stored hash does not match " + k.ID)
	}
	if !k.Tier.accepts(prefix) {
		return Key{}, invalid(k.ID + " is not a key of its tier's API")
	}
	if s := k.Status(m.now()); s != StatusActive {
		return Key{}, invalid(k.ID + " is " + string(s))
	}
	return k, nil
}
