package smart

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"providerdir/catalog"
	"providerdir/store"
)

// ClientKind is the record kind of registered clients.
const ClientKind = "smart_client"

// Client is a registered backend client. It authenticates with a private key whose public half
// is in JWKS (inline) or served at JWKSURL; the service never holds a client secret.
type Client struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	JWKS    json.RawMessage `json:"jwks,omitempty"`
	JWKSURL string          `json:"jwks_url,omitempty"`
	// Scopes are the scopes the client may be granted, in canonical SMART syntax.
	Scopes  []string `json:"scopes"`
	Enabled bool     `json:"enabled"`
	// Sandbox confines the client's grants to the sandbox subset.
	Sandbox bool `json:"sandbox,omitempty"`
	// Budget is the client's FHIR requests per rolling minute (ParseBudget): nil, as in a
	// record that has no budget field, means ClientPolicy; 0 means unmetered. The sandbox
	// client is metered by SandboxPolicy whatever it says.
	Budget    *int64    `json:"budget,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	RotatedAt time.Time `json:"rotated_at,omitzero"`
	// Version is the record version, for compare-and-swap updates.
	Version int64 `json:"-"`
}

// ClientSpec is what an operator gives to register a client: a name, exactly one of an inline
// JWKS or a JWKS URL, the scopes it may be granted, and its budget (nil for the default).
type ClientSpec struct {
	Name    string
	JWKS    []byte
	JWKSURL string
	Scopes  []string
	Budget  *int64
}

// Registry errors; test with errors.Is.
var (
	// ErrClientNotFound: no client with that id.
	ErrClientNotFound = errors.New("no such client")
	// ErrInvalidSpec: a registration or change was refused (bad name, keys, scopes or budget).
	ErrInvalidSpec = errors.New("invalid client registration")
)

const maxNameLen = 200

// AddClient registers a client under a fresh random id, enabled.
func AddClient(ctx context.Context, st store.Store, spec ClientSpec) (Client, error) {
	name := strings.TrimSpace(spec.Name)
	if name == "" || len(name) > maxNameLen || !utf8.ValidString(name) {
		return Client{}, fmt.Errorf("%w: a name of 1 to %d characters is required", ErrInvalidSpec, maxNameLen)
	}
	scopes, err := ValidateAllowed(spec.Scopes)
	if err != nil {
		return Client{}, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	jwks, jwksURL, err := checkKeySource(spec.JWKS, spec.JWKSURL)
	if err != nil {
		return Client{}, err
	}
	if err := checkBudget(spec.Budget); err != nil {
		return Client{}, err
	}
	c := Client{Name: name, JWKS: jwks, JWKSURL: jwksURL, Scopes: scopes, Budget: spec.Budget, Enabled: true, CreatedAt: time.Now().UTC()}
	for range 3 { // a collision of 128 random bits will not happen; retry rather than assume
		c.ID = newClientID()
		if c, err = putClient(ctx, st, c); !errors.Is(err, store.ErrConflict) {
			return c, err
		}
	}
	return Client{}, err
}

// checkKeySource validates exactly one of an inline JWKS and a JWKS URL and returns the JWKS
// re-encoded without any private member.
func checkKeySource(jwks []byte, jwksURL string) (json.RawMessage, string, error) {
	switch {
	case len(jwks) > 0 && jwksURL != "":
		return nil, "", fmt.Errorf("%w: give either an inline JWKS or a JWKS URL, not both", ErrInvalidSpec)
	case len(jwks) > 0:
		clean, err := validateJWKS(jwks)
		if err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrInvalidSpec, err)
		}
		return clean, "", nil
	case jwksURL != "":
		if err := checkJWKSURL(jwksURL); err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrInvalidSpec, err)
		}
		return nil, jwksURL, nil
	}
	return nil, "", fmt.Errorf("%w: a JWKS or a JWKS URL is required", ErrInvalidSpec)
}

func newClientID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// GetClient reads a client.
func GetClient(ctx context.Context, st store.Store, id string) (Client, error) {
	if !plausibleClientID(id) {
		return Client{}, ErrClientNotFound
	}
	rec, err := st.GetRecord(ctx, ClientKind, id)
	if err != nil {
		return Client{}, clientError(id, err)
	}
	return decodeClient(rec)
}

// plausibleClientID rules out ids no client can have before they reach the store.
func plausibleClientID(id string) bool { return id != "" && len(id) <= 128 }

// clientError turns the store's word for an id with no client into ErrClientNotFound.
func clientError(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrInvalid) {
		return fmt.Errorf("%w: %q", ErrClientNotFound, id)
	}
	return err
}

func decodeClient(rec store.Record) (Client, error) {
	var c Client
	if err := json.Unmarshal(rec.Body, &c); err != nil {
		return Client{}, fmt.Errorf("decode client %q: %w", rec.ID, err)
	}
	c.ID, c.Version = rec.ID, rec.Version
	return c, nil
}

// putClient creates (Version 0) or compare-and-swaps a client record.
func putClient(ctx context.Context, st store.Store, c Client) (Client, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return Client{}, err
	}
	rec, err := st.PutRecord(ctx, store.Record{Kind: ClientKind, ID: c.ID, Version: c.Version, Body: body})
	if err != nil {
		return Client{}, err
	}
	c.Version = rec.Version
	return c, nil
}

// ListClients returns every registered client, by id.
func ListClients(ctx context.Context, st store.Store) ([]Client, error) {
	return store.DecodeRecords(ctx, st, ClientKind, decodeClient)
}

// SetClientEnabled enables or disables a client. A disabled client's assertions are refused at
// once by every replica (the token endpoint reads the record on each request), and the access
// tokens it already holds within ClientCheckInterval (Protect rereads the record that often).
func SetClientEnabled(ctx context.Context, st store.Store, id string, enabled bool) (Client, error) {
	return updateClient(ctx, st, id, func(c *Client) error {
		c.Enabled = enabled
		return nil
	})
}

// SetClientScopes replaces the scopes a client may be granted, validated as at registration.
// Access tokens already issued keep the scopes they were granted until they expire; what the
// client's FHIR subscriptions may carry follows the new scopes at their next notification.
func SetClientScopes(ctx context.Context, st store.Store, id string, scopes []string) (Client, error) {
	allowed, err := ValidateAllowed(scopes)
	if err != nil {
		return Client{}, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	return updateClient(ctx, st, id, func(c *Client) error {
		if c.Sandbox {
			return fmt.Errorf("%w: the sandbox client's scopes are managed by the server", ErrInvalidSpec)
		}
		c.Scopes = allowed
		return nil
	})
}

// SetClientBudget sets a client's FHIR budget (nil: the default, 0: unmetered; see
// Client.Budget). Every replica meters the client's requests by it within ClientCheckInterval.
func SetClientBudget(ctx context.Context, st store.Store, id string, budget *int64) (Client, error) {
	if err := checkBudget(budget); err != nil {
		return Client{}, err
	}
	return updateClient(ctx, st, id, func(c *Client) error {
		if c.Sandbox {
			return fmt.Errorf("%w: the sandbox client's budget is SandboxPolicy, per client address", ErrInvalidSpec)
		}
		c.Budget = budget
		return nil
	})
}

// Registry answers from the client records for the clients that own FHIR subscriptions: the
// webhook worker asks it before each notification (it is a webhook.ClientChecker), so that a
// disabled client is sent nothing and a client gets no resource its scopes do not read.
type Registry struct {
	Store store.Store
}

// ClientStatus reports whether client id is registered and enabled, and why not.
func (r Registry) ClientStatus(ctx context.Context, id string) (active bool, reason string, err error) {
	c, err := GetClient(ctx, r.Store, id)
	switch {
	case errors.Is(err, ErrClientNotFound):
		return false, "the SMART client " + id + " is no longer registered", nil
	case err != nil:
		return false, "", err
	case !c.Enabled:
		return false, "the SMART client " + id + " is disabled", nil
	}
	return true, "", nil
}

// ClientMayRead reports whether client id's registered scopes let it read resourceType: a
// token it could be granted would allow the read. An unknown client may read nothing.
func (r Registry) ClientMayRead(ctx context.Context, id, resourceType string) (bool, error) {
	c, err := GetClient(ctx, r.Store, id)
	if errors.Is(err, ErrClientNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return Grant{ClientID: c.ID, Scopes: c.Scopes, Sandbox: c.Sandbox}.Allows(resourceType, catalog.Read), nil
}

// RotateClient replaces a client's keys with a new inline JWKS or JWKS URL.
func RotateClient(ctx context.Context, st store.Store, id string, jwks []byte, jwksURL string) (Client, error) {
	newJWKS, newURL, err := checkKeySource(jwks, jwksURL)
	if err != nil {
		return Client{}, err
	}
	return updateClient(ctx, st, id, func(c *Client) error {
		if c.Sandbox {
			return fmt.Errorf("%w: the sandbox client's key is managed by the server", ErrInvalidSpec)
		}
		c.JWKS, c.JWKSURL, c.RotatedAt = newJWKS, newURL, time.Now().UTC()
		return nil
	})
}

// updateClient applies change to the stored client through store.Update, so a concurrent
// update is never lost; change may run more than once and must only edit the client.
func updateClient(ctx context.Context, st store.Store, id string, change func(*Client) error) (Client, error) {
	if !plausibleClientID(id) {
		return Client{}, ErrClientNotFound
	}
	var c Client
	rec, err := store.Update(ctx, st, ClientKind, id, func(old store.Record) (store.Record, error) {
		cur, err := decodeClient(old)
		if err != nil {
			return old, err
		}
		if err := change(&cur); err != nil {
			return old, err
		}
		if old.Body, err = json.Marshal(cur); err != nil {
			return old, err
		}
		c = cur
		return old, nil
	})
	if err != nil {
		return Client{}, clientError(id, err)
	}
	c.Version = rec.Version
	return c, nil
}
