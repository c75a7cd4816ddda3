// Package resolverclient is the public Go client of the resolver API (/resolver/v1,
// docs/contracts/resolver-api.md): provider by NPI with or without its cross-dataset facts,
// facility by CCN, search, quality, payments and batch resolution, each as a typed result that
// keeps the resolver's 14-key provenance unchanged. It sends the key in X-Service-Key and follows
// the contract's retry guidance: only 429, 500 and 503 are retried, with exponential backoff and
// jitter, a Retry-After taking precedence over the computed backoff; every other status is
// returned at once as *Error. Every call honours its context. It depends on the standard library
// only.
package resolverclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of Options.
const (
	// DefaultMaxAttempts is the most requests one call makes: the first and three retries.
	DefaultMaxAttempts = 4
	// DefaultBaseDelay is the backoff ceiling before the first retry; it doubles each retry.
	DefaultBaseDelay = 500 * time.Millisecond
	// DefaultMaxDelay caps the backoff ceiling.
	DefaultMaxDelay = 8 * time.Second
	// DefaultMaxRetryAfter is the longest Retry-After a call waits out. A longer one (a spent
	// hourly budget) is returned as the *Error at once, for the caller to schedule.
	DefaultMaxRetryAfter = 30 * time.Second
	// DefaultTimeout bounds one request of the default HTTP client.
	DefaultTimeout = 30 * time.Second
	// MaxResponseBytes bounds a response body read: a full batch of 1,000 records fits many
	// times over.
	MaxResponseBytes = 32 << 20
)

// HeaderServiceKey carries the API key.
const HeaderServiceKey = "X-Service-Key"

// Options configure a Client. Zero values take the defaults above.
type Options struct {
	// APIKey is sent in X-Service-Key on every request; without one only Sandbox is answered.
	APIKey string
	// HTTPClient sends the requests. The default has DefaultTimeout and does not follow
	// redirects, so the key never travels to another location.
	HTTPClient *http.Client
	// UserAgent is sent as User-Agent.
	UserAgent     string
	MaxAttempts   int
	BaseDelay     time.Duration
	MaxDelay      time.Duration
	MaxRetryAfter time.Duration
	// Sleep waits d or until ctx is done, whichever is first; tests replace it to record the
	// waits instead of spending them.
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a duration in [0, n); the default draws it uniformly at random.
	Jitter func(n time.Duration) time.Duration
	// Now is the clock an HTTP-date Retry-After and a context deadline are read against.
	Now func() time.Time
}

// Client calls one resolver. It is safe for concurrent use.
type Client struct {
	base string // without a trailing slash
	opt  Options
}

// New returns a client of the resolver at baseURL, the resolver's base ending in /v1 (for
// providerd, http://HOST/resolver/v1).
func New(baseURL string, opt Options) (*Client, error) {
	baseURL = strings.TrimRight(baseURL, "/")
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("resolverclient: base URL %q is not an http(s) URL with a host and no query", baseURL)
	}
	if opt.HTTPClient == nil {
		opt.HTTPClient = &http.Client{
			Timeout:       DefaultTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if opt.UserAgent == "" {
		opt.UserAgent = "providerdir-resolverclient"
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	if opt.BaseDelay <= 0 {
		opt.BaseDelay = DefaultBaseDelay
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = DefaultMaxDelay
	}
	if opt.MaxRetryAfter <= 0 {
		opt.MaxRetryAfter = DefaultMaxRetryAfter
	}
	if opt.Sleep == nil {
		opt.Sleep = sleep
	}
	if opt.Jitter == nil {
		opt.Jitter = func(n time.Duration) time.Duration { return rand.N(n) }
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Client{base: baseURL, opt: opt}, nil
}

// ErrInvalidArgument is returned, wrapped, for an identifier that cannot be one segment of a
// request path: empty, a dot segment ("." or ".."), or holding a slash or backslash. A server or
// proxy that normalizes paths would send such a request to another resource, so none is sent.
var ErrInvalidArgument = errors.New("resolverclient: invalid argument")

// NPI resolves one NPI to its provider record.
func (c *Client) NPI(ctx context.Context, npi string) (*Provider, error) {
	return decode[Provider](c.NPIRaw(ctx, npi))
}

// NPIWithFacts resolves one NPI to its provider record with its facts (include=facts).
func (c *Client) NPIWithFacts(ctx context.Context, npi string) (*ProviderWithFacts, error) {
	return decode[ProviderWithFacts](c.NPIWithFactsRaw(ctx, npi))
}

// CCN resolves a CMS Certification Number to its facility record.
func (c *Client) CCN(ctx context.Context, ccn string) (*Facility, error) {
	return decode[Facility](c.CCNRaw(ctx, ccn))
}

// Search returns the ranked candidates for a query.
func (c *Client) Search(ctx context.Context, p SearchParams) (*SearchResult, error) {
	return decode[SearchResult](c.SearchRaw(ctx, p))
}

// Quality returns the quality record of the facility with the CCN, of a type in QualityTypes.
func (c *Client) Quality(ctx context.Context, facilityType, ccn string) (*Quality, error) {
	return decode[Quality](c.QualityRaw(ctx, facilityType, ccn))
}

// Payments returns the industry payments record of an NPI.
func (c *Client) Payments(ctx context.Context, npi string) (*Payments, error) {
	return decode[Payments](c.PaymentsRaw(ctx, npi))
}

// BatchNPI resolves up to MaxBatch NPIs in one request; the resolver refuses more with 400
// batch_too_large.
func (c *Client) BatchNPI(ctx context.Context, npis []string) (*BatchResult, error) {
	return decode[BatchResult](c.BatchNPIRaw(ctx, npis))
}

// Sandbox fetches the service's published sandbox key and its limits (GET /sandbox). The
// resolver serves it without a key: a client without one of its own calls this first.
func (c *Client) Sandbox(ctx context.Context) (*Sandbox, error) {
	return decode[Sandbox](c.get(ctx, nil, "sandbox"))
}

// The Raw methods return the resolver's answer as it sent it: the JSON body of the 200,
// undecoded, with every field the resolver adds within v1, for a caller that passes the record
// on whole. The typed methods above decode these same bodies.

// NPIRaw is NPI's answer undecoded.
func (c *Client) NPIRaw(ctx context.Context, npi string) (json.RawMessage, error) {
	return c.get(ctx, nil, "npi", npi)
}

// NPIWithFactsRaw is NPIWithFacts's answer undecoded.
func (c *Client) NPIWithFactsRaw(ctx context.Context, npi string) (json.RawMessage, error) {
	return c.get(ctx, url.Values{"include": {"facts"}}, "npi", npi)
}

// CCNRaw is CCN's answer undecoded.
func (c *Client) CCNRaw(ctx context.Context, ccn string) (json.RawMessage, error) {
	return c.get(ctx, nil, "ccn", ccn)
}

// SearchRaw is Search's answer undecoded.
func (c *Client) SearchRaw(ctx context.Context, p SearchParams) (json.RawMessage, error) {
	q := url.Values{}
	for k, v := range map[string]string{"q": p.Q, "state": p.State, "taxonomy": p.Taxonomy, "near": p.Near} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Page != 0 {
		q.Set("page", strconv.Itoa(p.Page))
	}
	if p.RadiusMiles != 0 {
		q.Set("radius", strconv.FormatFloat(p.RadiusMiles, 'f', -1, 64))
	}
	return c.get(ctx, q, "search")
}

// QualityRaw is Quality's answer undecoded.
func (c *Client) QualityRaw(ctx context.Context, facilityType, ccn string) (json.RawMessage, error) {
	return c.get(ctx, nil, "quality", facilityType, ccn)
}

// PaymentsRaw is Payments's answer undecoded.
func (c *Client) PaymentsRaw(ctx context.Context, npi string) (json.RawMessage, error) {
	return c.get(ctx, nil, "payments", npi)
}

// BatchNPIRaw is BatchNPI's answer undecoded.
func (c *Client) BatchNPIRaw(ctx context.Context, npis []string) (json.RawMessage, error) {
	if npis == nil {
		npis = []string{} // the body is {"npis": [...]}, never null
	}
	body, err := json.Marshal(struct {
		NPIs []string `json:"npis"`
	}{npis})
	if err != nil {
		return nil, err
	}
	return c.do(ctx, http.MethodPost, "/batch/npi", nil, body)
}

// decode is the typed result of a raw answer, or the call's error.
func decode[T any](raw json.RawMessage, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("resolverclient: decode the response: %w", err)
	}
	return &v, nil
}

// get sends GET of the path of segments with the query q and returns the body of a 200.
func (c *Client) get(ctx context.Context, q url.Values, segments ...string) (json.RawMessage, error) {
	path, err := requestPath(segments...)
	if err != nil {
		return nil, err
	}
	return c.do(ctx, http.MethodGet, path, q, nil)
}

// requestPath joins segments into a request path, each escaped as one segment, and refuses a
// segment that would not stay one (see ErrInvalidArgument).
func requestPath(segments ...string) (string, error) {
	var b strings.Builder
	for _, s := range segments {
		if s == "" || s == "." || s == ".." || strings.ContainsAny(s, `/\`) {
			return "", fmt.Errorf("%w: %.40q is not one path segment", ErrInvalidArgument, s)
		}
		b.WriteString("/" + url.PathEscape(s))
	}
	return b.String(), nil
}

// do sends the request, retrying what the contract allows, and returns the body of a 200, which
// must be one JSON value.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte) (json.RawMessage, error) {
	target := c.base + path // path's segments are escaped (requestPath)
	if len(q) > 0 {
		target += "?" + q.Encode()
	}
	for attempt := 1; ; attempt++ {
		raw, err := c.once(ctx, method, target, body)
		var rerr *Error
		if !errors.As(err, &rerr) {
			if err != nil {
				return nil, err
			}
			if !json.Valid(raw) {
				return nil, fmt.Errorf("resolverclient: %s %s: the response is not JSON", method, path)
			}
			return raw, nil
		}
		rerr.Attempts = attempt
		wait, retry := c.nextWait(ctx, rerr, attempt)
		if !retry {
			return nil, rerr
		}
		if err := c.opt.Sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("resolverclient: %s %s: gave up waiting to retry: %w (last answer: %w)", method, path, err, rerr)
		}
	}
}

// nextWait decides whether a failed attempt is retried and after how long: never for a status
// the contract makes terminal, nor after the last attempt; Retry-After when the response gave
// one (beyond MaxRetryAfter the call gives up instead), else the backoff of the attempt. It does
// not wait past the context's deadline: when the wait would end after it, the call gives up now.
func (c *Client) nextWait(ctx context.Context, e *Error, attempt int) (time.Duration, bool) {
	if !e.Retryable() || attempt >= c.opt.MaxAttempts {
		return 0, false
	}
	wait := c.backoff(attempt)
	if e.RetryAfter > 0 {
		if e.RetryAfter > c.opt.MaxRetryAfter {
			return 0, false
		}
		wait = e.RetryAfter
	}
	if dl, ok := ctx.Deadline(); ok && c.opt.Now().Add(wait).After(dl) {
		return 0, false
	}
	return wait, true
}

// backoff is the wait before retry number attempt (from 1): "equal jitter" over an exponential
// ceiling, half of the ceiling fixed and half drawn at random, so that waits grow with each
// retry while clients that failed together spread out.
func (c *Client) backoff(attempt int) time.Duration {
	ceiling := c.opt.MaxDelay
	if shift := attempt - 1; shift < 32 && c.opt.BaseDelay<<shift < c.opt.MaxDelay && c.opt.BaseDelay<<shift > 0 {
		ceiling = c.opt.BaseDelay << shift
	}
	half := ceiling / 2
	return half + c.opt.Jitter(ceiling-half)
}

// once sends one request and returns the body of a 200, or an *Error for any other status.
func (c *Client) once(ctx context.Context, method, target string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("resolverclient: %w", err)
	}
	if c.opt.APIKey != "" {
		req.Header.Set(HeaderServiceKey, c.opt.APIKey)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.opt.UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.opt.HTTPClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("resolverclient: %s %s: read the response: %w", method, req.URL.Path, err)
	}
	if len(raw) > MaxResponseBytes {
		return nil, fmt.Errorf("resolverclient: %s %s: response over %d bytes", method, req.URL.Path, MaxResponseBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, parseError(resp, raw, c.opt.Now())
	}
	return raw, nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
