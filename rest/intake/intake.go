// Package intake owns the pilot access lifecycle of the supply API (docs/contracts/supply-api.md
// §1: keys are pilot keys, granted by the operator after an access request): the form posted to
// POST /api/access-requests, its validation, the stored requests, and their approval, which issues
// a pilot key through package apikey.
//
// Requests are store records of kind accessrequest with ids that sort by submission time
// ("ar_20250608T143000_x7Kq9P"), so listing them in id order lists them oldest first.
//
// Delivery is out of scope: nothing here sends e-mail. The operator lists pending requests
// (providerctl keys requests), approves one (providerctl keys approve ID), which prints the new
// key once, and hands it to the requester at the address on the form.
package intake

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"time"

	"providerdir/rest/apikey"
	"providerdir/store"
)

// RecordKind is the store record kind of access requests.
const RecordKind = "accessrequest"

// Status values of a request.
const (
	StatusPending  = "pending"
	StatusApproved = "approved"
)

// Request is one stored access request.
type Request struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	Email        string     `json:"email"`
	Organization string     `json:"organization"`
	IntendedUse  string     `json:"intended_use"`
	Status       string     `json:"status"`
	CreatedAt    time.Time  `json:"created_at"`
	DecidedAt    *time.Time `json:"decided_at,omitempty"`
	// KeyID is the key issued on approval.
	KeyID string `json:"key_id,omitempty"`

	version int64
}

// Service stores and decides access requests.
type Service struct {
	st   store.Store
	keys *apikey.Manager
	now  func() time.Time
}

// New returns a service over st issuing keys with keys. now is its clock; nil means time.Now.
func New(st store.Store, keys *apikey.Manager, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{st: st, keys: keys, now: now}
}

// ErrNotFound: no request with that id.
var ErrNotFound = errors.New("no such access request")

// Submit validates and stores a form as a pending request.
func (s *Service) Submit(ctx context.Context, f Form) (Request, error) {
	f = f.normalized()
	if errs := f.Validate(); len(errs) > 0 {
		return Request{}, ValidationError(errs)
	}
	now := s.now().UTC()
	req := Request{
		ID:           newID(now),
		Name:         f.Name,
		Email:        f.Email,
		Organization: f.Organization,
		IntendedUse:  f.IntendedUse,
		Status:       StatusPending,
		CreatedAt:    now,
	}
	rec, err := s.st.PutRecord(ctx, req.record())
	if err != nil {
		return Request{}, fmt.Errorf("intake: store request: %w", err)
	}
	req.version = rec.Version
	return req, nil
}

// Get returns one request.
func (s *Service) Get(ctx context.Context, id string) (Request, error) {
	if id == "" {
		return Request{}, ErrNotFound
	}
	rec, err := s.st.GetRecord(ctx, RecordKind, id)
	if errors.Is(err, store.ErrNotFound) {
		return Request{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Request{}, fmt.Errorf("intake: read %s: %w", id, err)
	}
	return decode(rec)
}

// List returns the requests oldest first; with pendingOnly, only those awaiting a decision.
func (s *Service) List(ctx context.Context, pendingOnly bool) ([]Request, error) {
	reqs, err := store.DecodeRecords(ctx, s.st, RecordKind, decode)
	if err != nil {
		return nil, fmt.Errorf("intake: list requests: %w", err)
	}
	if pendingOnly {
		reqs = slices.DeleteFunc(reqs, func(r Request) bool { return r.Status != StatusPending })
	}
	return reqs, nil
}

// Approve issues a pilot key for a pending request, named after the organization and linked to
// the request, and marks the request approved. The key's plaintext is returned this once. Of
// two operators approving the same request at once, one wins; the other's key is revoked at
// once and it gets an error.
func (s *Service) Approve(ctx context.Context, id string, o apikey.CreateOptions) (apikey.Secret, Request, error) {
	req, err := s.Get(ctx, id)
	if err != nil {
		return apikey.Secret{}, Request{}, err
	}
	if err := req.pending(); err != nil {
		return apikey.Secret{}, Request{}, err
	}
	o.AccessRequest = id
	secret, k, err := s.keys.Create(ctx, apikey.TierPilot, req.Organization, o)
	if err != nil {
		return apikey.Secret{}, Request{}, err
	}
	rec, err := store.Update(ctx, s.st, RecordKind, id, func(old store.Record) (store.Record, error) {
		cur, err := decode(old)
		if err != nil {
			return old, err
		}
		if err := cur.pending(); err != nil {
			return old, err
		}
		now := s.now().UTC()
		cur.Status, cur.DecidedAt, cur.KeyID = StatusApproved, &now, k.ID
		req = cur
		return cur.record(), nil
	})
	if err != nil {
		if _, _, rerr := s.keys.Revoke(ctx, k.ID); rerr != nil {
			err = errors.Join(err, fmt.Errorf("and revoking the unused key %s failed: %w", k.ID, rerr))
		}
		return apikey.Secret{}, Request{}, fmt.Errorf("intake: approve %s: %w", id, err)
	}
	req.version = rec.Version
	return secret, req, nil
}

// pending refuses a request that has been decided already.
func (r Request) pending() error {
	if r.Status != StatusPending {
		return fmt.Errorf("access request %s is already %s (key %s)", r.ID, r.Status, r.KeyID)
	}
	return nil
}

func (r Request) record() store.Record {
	body, _ := json.Marshal(r) // a Request always marshals
	return store.Record{Kind: RecordKind, ID: r.ID, Version: r.version, Body: body}
}

func decode(rec store.Record) (Request, error) {
	var r Request
	if err := json.Unmarshal(rec.Body, &r); err != nil {
		return Request{}, fmt.Errorf("intake: record %s: %w", rec.ID, err)
	}
	r.version = rec.Version
	return r, nil
}

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// newID makes a request id: the submission time, to the second, then six random characters
// that keep requests of the same second apart.
func newID(now time.Time) string {
	b := []byte("ar_" + now.UTC().Format("20060102T150405") + "_")
	for range 6 {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(idAlphabet))))
		b = append(b, idAlphabet[n.Int64()])
	}
	return string(b)
}
