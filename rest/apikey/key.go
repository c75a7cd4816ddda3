package apikey

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"providerdir/store"
)

// Record kinds of this package in the store.
const (
	keyKind    = "apikey" // id: hex HMAC of the key; body: Key
	secretKind = "secret" // id pepperID: the HMAC key
	pepperID   = "apikey-pepper"
)

// Key is what is stored of a key: everything but the key itself.
type Key struct {
	// ID is the key's public name, for operators and logs: "key_" and 16 hex digits (the start
	// of its hash, which is what makes it findable without a second record).
	ID string `json:"id"`
	// Hash is the hex HMAC-SHA256 of the key under the pepper; also the record id.
	Hash string `json:"hash"`
	// Prefix and Last4 are what may be shown of the key: enough to tell keys apart.
	Prefix string `json:"prefix"`
	Last4  string `json:"last4"`
	Tier   Tier   `json:"tier"`
	// Name says whose key it is.
	Name      string     `json:"name"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
	// AccessRequest is the pilot access request the key was issued for, if any.
	AccessRequest string `json:"access_request,omitempty"`

	version int64
}

// Hint is the key as it may be shown: prefix, an ellipsis and the last four characters.
func (k Key) Hint() string { return k.Prefix + "_…" + k.Last4 }

// ReadOnly reports whether the key may only read: the shared sandbox key. Surfaces with writes
// (webhook subscriptions) refuse it.
func (k Key) ReadOnly() bool { return k.Tier == TierSandbox }

// Status is a key's state at a moment.
type Status string

const (
	StatusActive  Status = "active"
	StatusRevoked Status = "revoked"
	StatusExpired Status = "expired"
)

// Status returns the key's state at now. Revocation wins over expiry: it is the operator's act.
func (k Key) Status(now time.Time) Status {
	switch {
	case k.RevokedAt != nil:
		return StatusRevoked
	case k.ExpiresAt != nil && !now.Before(*k.ExpiresAt):
		return StatusExpired
	}
	return StatusActive
}

func idFromHash(hash string) string { return "key_" + hash[:16] }

func decodeKey(rec store.Record) (Key, error) {
	var k Key
	if err := json.Unmarshal(rec.Body, &k); err != nil {
		return Key{}, fmt.Errorf("apikey: record %s: %w", rec.ID, err)
	}
	k.version = rec.Version
	return k, nil
}

func (k Key) record() store.Record {
	body, _ := json.Marshal(k) // a Key always marshals
	return store.Record{Kind: keyKind, ID: k.Hash, Version: k.version, Body: body}
}

// Errors of the lifecycle operations.
var (
	// ErrInvalidKey: the presented key is malformed, unknown, revoked, expired, or belongs to
	// the other API. Callers answer all of these alike (the contracts have one code for them);
	// the error's text says which, for the log.
	ErrInvalidKey = errors.New("invalid API key")
	// ErrNotFound: no key matches the reference given to Find or Revoke.
	ErrNotFound = errors.New("no such key")
	// ErrAmbiguous: a hint matches several keys.
	ErrAmbiguous = errors.New("several keys match")
)

func invalid(reason string) error { return fmt.Errorf("%w: %s", ErrInvalidKey, reason) }

// maxNameLen bounds a key's name.
const maxNameLen = 200

// checkName accepts 1 to maxNameLen bytes of printable UTF-8.
func checkName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("a key needs a name saying whose it is")
	case len(name) > maxNameLen:
		return fmt.Errorf("a key name is at most %d bytes", maxNameLen)
	case !utf8.ValidString(name):
		return errors.New("a key name must be UTF-8")
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return fmt.Errorf("a key name may not hold %q", r)
		}
	}
	return nil
}
