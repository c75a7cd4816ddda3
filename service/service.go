// Package service builds the provider directory service from its configuration: the gate, every
// HTTP surface on one handler, and the workers behind them (webhook and FHIR subscription
// delivery, the reclaimer of retired generations, the store socket of an embedded store).
// providerd serves what it builds; tests build the same service over their own store.
package service

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"time"

	"github.com/gorilla/mux"

	"providerdir/fhir"
	"providerdir/internal/config"
	"providerdir/internal/httpserver"
	"providerdir/internal/metrics"
	"providerdir/internal/storeopen"
	"providerdir/llm"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/auditpack"
	"providerdir/rest/evidence"
	"providerdir/rest/export"
	"providerdir/rest/gate"
	"providerdir/rest/intake"
	"providerdir/rest/resolver"
	"providerdir/rest/supply"
	"providerdir/rest/webhooks"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/store/remote"
	"providerdir/web"
	"providerdir/webhook"
)

// Options are what the caller gives the service beside its configuration.
type Options struct {
	// Store is the store the service serves and writes, opened by the caller, who closes it
	// after Close.
	Store store.Store
	// Ready is the store whose Ping answers the readiness probe: the backend itself when Store
	// wraps it (with metrics, say). Nil: Store.
	Ready store.Store
	// Metrics receives the HTTP surfaces' figures; nil records none.
	Metrics *metrics.Metrics
	// Log is the service's logger.
	Log *slog.Logger
}

// Service is the built service: its handler, and the workers New started.
type Service struct {
	// Handler serves every surface (httpserver.Serve runs it on a listener).
	Handler http.Handler
	// Gate admits the JSON APIs' callers: its Keys issue and revoke API keys.
	Gate *gate.Gate

	stop []func() // in the order Close runs them
}

// reclaimInterval is how often the service looks for a previous snapshot past its rollback
// window and for generations nothing references.
const reclaimInterval = time.Minute

// New builds the service over o.Store as cfg configures it and starts its workers, which run
// until Close. It publishes the resolver's sandbox key on a first start.
func New(ctx context.Context, cfg config.Config, o Options) (svc *Service, err error) {
	st, log := o.Store, o.Log
	svc = &Service{}
	defer func() {
		if err != nil {
			svc.Close()
		}
	}()
	workers, stopWorkers := context.WithCancel(ctx)

	reclaimed := make(chan struct{})
	go func() {
		defer close(reclaimed)
		store.ReclaimEvery(workers, st, cfg.RollbackWindow, reclaimInterval, func(dropped []string, err error) {
			switch {
			case err != nil:
				log.Warn("reclaim retired generations", slog.Any("error", err))
			case len(dropped) > 0:
				log.Info("retired generations dropped", slog.Any("generations", dropped))
			}
		})
	}()
	svc.onClose(func() { stopWorkers(); <-reclaimed }) // last: the reclaimer stops before the store closes

	hooks := webhook.AddressPolicy{AllowLoopback: cfg.WebhookAllowLoopback}
	fsrv := fhir.New(fhirConfig(cfg, st, log, hooks))

	limiter := rateLimiter(cfg, st, log)
	svc.onClose(func() { // after the server has drained
		if err := limiter.Close(); err != nil {
			log.Error("write the rate-limit windows", slog.Any("error", err))
		}
	})
	g := gate.New(st, gate.Options{TrustedProxies: cfg.TrustedProxies, Limiter: limiter})
	if err := g.Start(ctx); err != nil { // publishes the resolver sandbox key on first start
		return svc, fmt.Errorf("publish the resolver sandbox key: %w", err)
	}
	svc.Gate = g

	// Deliveries go only to owners still active: the SMART clients of FHIR subscriptions and the
	// resolver keys of webhooks.
	owners := webhook.Owners{Clients: smart.Registry{Store: st}, Keys: g.Keys()}
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		webhook.NewWorker(webhook.WorkerOptions{Store: st, Policy: hooks, Concurrency: cfg.WebhookConcurrency, Log: log,
			Notifier: fsrv, Owners: owners}).Run(workers)
	}()
	svc.onClose(func() { stopWorkers(); <-delivered })
	access := intake.New(st, g.Keys(), nil)
	packs := auditpack.New(st, cfg.BaseURL)

	// The sandbox client's private key is written beside an embedded store's directory, so the
	// demo can print it and a newcomer can sign an assertion with it.
	sandboxKey := ""
	if dir := cfg.Store.LocalDir(); dir != "" {
		sandboxKey = filepath.Join(dir, config.SandboxKeyFile)
	}
	auth, err := smart.New(smart.Config{Store: st, BaseURL: cfg.BaseURL, PublicRead: cfg.FHIRPublicRead, SandboxKeyFile: sandboxKey,
		TrustedProxies: cfg.TrustedProxies, Limiter: limiter, Log: log})
	if err != nil {
		return svc, err // says "smart: ..." already
	}
	svc.onClose(func() { _ = auth.Close() })

	sup := supply.New(st, cfg.BaseURL)
	model := languageModel(cfg)
	ask := evidence.New(evidence.Config{Store: st, Studies: sup, BaseURL: cfg.BaseURL, Model: model})
	exports := export.Options{BaseURL: cfg.BaseURL}
	if model != nil {
		exports.Narrator = export.ChatNarrator{Model: model}
	}

	ready := o.Ready
	if ready == nil {
		ready = st
	}
	svc.Handler, err = httpserver.New(httpserver.Options{
		Logger:         log,
		Metrics:        o.Metrics,
		Ready:          httpserver.StoreCheck(ready),
		TrustedProxies: cfg.TrustedProxies,
		CORSOrigins:    cfg.CORSOrigins,
		Surfaces: []httpserver.Surface{
			g.V1(sup.Routes, ask.Routes, export.New(st, exports).Routes, packs.Routes),
			g.Resolver(resolver.New(st).Routes, webhooks.NewAPI(st, hooks, nil).Routes),
			{Name: "fhir", Prefix: "/fhir", Error: fhir.Error, CORS: true, Routes: func(r *mux.Router) {
				auth.Routes(r)
				r.Use(auth.Protect)
				fsrv.Routes(r)
			}},
			{Name: "api", Prefix: "/api", Error: rest.APIError, Routes: func(r *mux.Router) {
				access.Register(r, g.LimitIP(gate.AccessRequestPolicy))
				packs.Register(r, g.LimitIP(auditpack.Policy))
				ask.RegisterDemo(r, g.LimitIP(gate.EvidenceDemoPolicy))
			}},
			{Name: "web", Prefix: "", Error: httpserver.TextError, Routes: web.New(st, web.Options{BaseURL: cfg.BaseURL, AuditPacks: packs}).Routes},
		},
	})
	if err != nil {
		return svc, err
	}
	if cfg.Store.Backend == storeopen.BackendEmbedded {
		// Operator commands reach the store through this process while it holds it.
		admin, err := remote.Listen(remote.SocketPath(cfg.Store.Dir))
		if err != nil {
			return svc, fmt.Errorf("store socket: %w", err)
		}
		adminSrv := &http.Server{Handler: remote.Handler(st), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = adminSrv.Serve(admin) }()
		svc.onClose(func() { _ = adminSrv.Close() })
	}
	return svc, nil
}

// onClose adds a step Close runs before those added earlier.
func (s *Service) onClose(f func()) { s.stop = append([]func(){f}, s.stop...) }

// Close stops the workers and writes what they hold back to the store: call it after the
// server has drained, before the store closes.
func (s *Service) Close() {
	for _, f := range s.stop {
		f()
	}
	s.stop = nil
}

// rateLimiter is the limiter of every budget the service meters. One process owns an embedded
// store, so it counts in memory and writes the windows behind its decisions; processes sharing
// a MongoDB store lease slots from the windows in the store, so that they enforce one quota
// without a round trip on every request.
func rateLimiter(cfg config.Config, st store.Store, log *slog.Logger) *quota.Limiter {
	if cfg.Store.Backend == storeopen.BackendEmbedded {
		return quota.NewLocal(st, nil, quota.WriteBehind, log)
	}
	return quota.NewLeased(st, nil, quota.WriteBehind, log)
}

// fhirConfig configures the FHIR surface behind SMART: the grant of a request is the one
// SMART's Protect put into its context.
func fhirConfig(cfg config.Config, st store.Store, log *slog.Logger, hooks webhook.AddressPolicy) fhir.Config {
	return fhir.Config{Store: st, BaseURL: cfg.BaseURL + "/fhir", PublicRead: cfg.FHIRPublicRead, CORSOrigins: cfg.CORSOrigins,
		GrantFrom: func(ctx context.Context) (fhir.Grant, bool) { return smart.GrantFrom(ctx) }, Log: log, Subscriptions: &hooks}
}

// languageModel is the language model the evidence query phrases answers with and the exports
// word their narratives with; nil without --llm-url.
func languageModel(cfg config.Config) llm.Completer {
	if cfg.LLMURL == "" {
		return nil
	}
	return llm.New(llm.Config{BaseURL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Timeout: cfg.LLMTimeout})
}
