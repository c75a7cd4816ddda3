package fhir

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/internal/logging"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/webhook"
)

// Config configures the FHIR surface.
type Config struct {
	Store store.Store
	// BaseURL is the FHIR base URL clients use, without a trailing slash (for example
	// https://directory.example/fhir). Every absolute URL served (fullUrl, links, provenance tag
	// systems, the CapabilityStatement's) is built from it, never from the request.
	BaseURL string
	// TokenURL is the SMART token endpoint advertised in the CapabilityStatement; empty means
	// BaseURL + "/token".
	TokenURL string
	// PublicRead says the deployment admits reads without a token (Plan-Net's public directory
	// mode, decided by the SMART layer); the CapabilityStatement says so.
	PublicRead bool
	// CORSOrigins are the origins the HTTP server answers CORS requests from (httpserver's
	// CORSOrigins, "*" for any); the CapabilityStatement's security.cors says whether there are
	// any, and its description which.
	CORSOrigins []string
	// GrantFrom returns the grant the SMART layer in front put into a request's context, and
	// false when there is none; nil means no request has one, so every interaction but
	// /metadata answers 401.
	GrantFrom func(context.Context) (Grant, bool)
	// Log receives the start-up line; nil means slog.Default(). Requests log through the
	// request's logger (logging.Logger).
	Log *slog.Logger
	// MaxIncludes caps the resources _include and _revinclude add to one page; 0 means
	// DefaultMaxIncludes.
	MaxIncludes int
	// MaxChain caps the resources a chained or _has parameter may match; 0 means
	// DefaultMaxChain.
	MaxChain int
	// SnapshotTTL is how long the serving snapshot pointer is reused before it is read again.
	// Reading and decoding it on every request would cost as much as the rest of a read; with
	// the default a snapshot switch reaches this server within DefaultSnapshotTTL. Negative
	// reads it on every request.
	SnapshotTTL time.Duration
	// Now is the clock (tests pin it); nil means time.Now.
	Now func() time.Time
	// Subscriptions, when set, offers FHIR subscriptions (subscription.go) whose endpoints
	// this address policy admits (the webhooks' policy); nil offers none.
	Subscriptions *webhook.AddressPolicy
}

// DefaultSnapshotTTL bounds how long after a snapshot switch the FHIR surface may still serve
// the previous snapshot.
const DefaultSnapshotTTL = time.Second

// Server serves the read-only FHIR R4 REST API from the stored resources.
type Server struct {
	st         store.Store
	grantFrom  func(context.Context) (Grant, bool)
	base       string
	tags       tagSets
	log        *slog.Logger
	now        func() time.Time
	capability []byte
	maxInc     int
	maxChain   int
	ttl        time.Duration
	snap       atomic.Pointer[cachedView]
	counts     countCache
	starts     startIndex
	tagIndex   tagIndex
	// subPolicy admits subscription endpoints; nil when subscriptions are not offered.
	subPolicy *webhook.AddressPolicy
	// publicRead says reads need no token (Config.PublicRead).
	publicRead bool
}

type cachedView struct {
	v    view
	read time.Time
}

// New builds the FHIR server. The CapabilityStatement is rendered once, here.
func New(cfg Config) *Server {
	s := &Server{st: cfg.Store, grantFrom: cfg.GrantFrom, base: strings.TrimSuffix(cfg.BaseURL, "/"), log: cfg.Log, now: cfg.Now, maxInc: cfg.MaxIncludes, subPolicy: cfg.Subscriptions,
		publicRead: cfg.PublicRead}
	if s.maxInc <= 0 {
		s.maxInc = DefaultMaxIncludes
	}
	if s.maxChain = cfg.MaxChain; s.maxChain <= 0 {
		s.maxChain = DefaultMaxChain
	}
	if s.ttl = cfg.SnapshotTTL; s.ttl == 0 {
		s.ttl = DefaultSnapshotTTL
	}
	if s.grantFrom == nil {
		s.grantFrom = func(context.Context) (Grant, bool) { return nil, false }
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.tags = tagSets{st: cfg.Store, base: s.base + "/provenance/"}
	token := cfg.TokenURL
	if token == "" {
		token = s.base + "/token"
	}
	cs := capabilityStatement(s.base, token, cfg.PublicRead, cfg.CORSOrigins, s.now().UTC().Format("2006-01-02"), s.maxInc, s.maxChain, s.subPolicy != nil)
	var err error
	if s.capability, err = json.Marshal(cs); err != nil {
		panic("fhir: CapabilityStatement does not encode: " + err.Error())
	}
	s.log.Info("FHIR surface ready", slog.String("base_url", s.base), slog.String("token_url", token),
		slog.Bool("public_read", cfg.PublicRead), slog.Int("max_includes", s.maxInc), slog.Int("max_chain", s.maxChain))
	return s
}

// typePattern is the mux pattern of the served resource types; other types are 404s.
var typePattern = "{type:" + strings.Join(fhirmap.Types, "|") + "}"

// idPattern and versionPattern are the mux patterns of a resource id and a version id, both
// FHIR's id type.
const (
	idPattern      = `{id:[A-Za-z0-9\-\.]{1,64}}`
	versionPattern = `{vid:[A-Za-z0-9\-\.]{1,64}}`
)

// Routes registers the FHIR interactions on the /fhir subrouter. Authentication (SMART's
// Protect) wraps the subrouter; the handlers check the grant's scopes themselves.
func (s *Server) Routes(r *mux.Router) {
	r.HandleFunc("/metadata", s.metadata).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/SearchParameter/"+idPattern, s.searchParameter).Methods(http.MethodGet, http.MethodHead)
	if s.subPolicy != nil {
		s.topicRoutes(r)
		s.subscriptionRoutes(r)
	}
	s.bulkRoutes(r)
	r.HandleFunc("/"+typePattern, s.searchGET).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/"+typePattern+"/_search", s.searchPOST).Methods(http.MethodPost)
	r.HandleFunc("/"+typePattern+"/"+idPattern, s.read).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc("/"+typePattern+"/"+idPattern+"/_history/"+versionPattern, s.read).Methods(http.MethodGet, http.MethodHead)
}

// view is the generations one request reads: the serving snapshot, or the previous one for a
// page of a search that started before the last switch.
type view struct {
	gens map[string]string
	prev map[string]string
}

func (v view) gen(resourceType string) string { return v.gens[catalog.FHIRCollection(resourceType)] }

// holds reports whether gen is the serving or the previous generation of a collection: the
// generations whose documents stay readable until the next snapshot switch collects them.
func (v view) holds(coll, gen string) bool { return gen == v.gens[coll] || gen == v.prev[coll] }

func (s *Server) serving(ctx context.Context) (view, error) {
	now := time.Now()
	if c := s.snap.Load(); c != nil && s.ttl > 0 && now.Sub(c.read) < s.ttl {
		return c.v, nil
	}
	snap, err := store.Serving(ctx, s.st)
	if err != nil {
		return view{}, err
	}
	v := view{gens: snap.Collections, prev: snap.Previous}
	s.snap.Store(&cachedView{v: v, read: now})
	return v, nil
}

// write sends a FHIR body. HEAD gets the headers alone (net/http drops the body).
//
// The body is complete before it is written, so its length is sent: without it net/http frames
// any body over 2 KB in chunks, which costs a write to the connection more per response (the
// closing chunk) and the client the parsing of the chunks.
func (s *Server) write(w http.ResponseWriter, status int, ct string, body []byte, pretty bool) {
	if pretty {
		var buf bytes.Buffer
		if json.Indent(&buf, body, "", "  ") == nil {
			body = buf.Bytes()
		}
	}
	h := w.Header()
	h.Set("Content-Type", ct+"; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// fail writes a server-side failure as a fatal OperationOutcome, logging the cause. A store that
// cannot be reached is 503 with the issue code transient and a Retry-After, which a client may
// retry; anything else is 500.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return // the client went away
	}
	logging.Logger(r.Context()).Error("fhir request failed", slog.Any("error", err))
	if errors.Is(err, store.ErrUnavailable) {
		w.Header().Set("Retry-After", strconv.Itoa(store.RetryAfterSeconds))
		Error(w, r, http.StatusServiceUnavailable, "", "the data store is unavailable; retry after "+strconv.Itoa(store.RetryAfterSeconds)+" seconds")
		return
	}
	Error(w, r, http.StatusInternalServerError, "internal_error", "the request could not be served")
}
