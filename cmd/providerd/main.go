// Command providerd serves every HTTP surface of the provider directory from one store. This
// file only wires: configuration, logger, metrics, store, surfaces, listener. Behaviour lives in
// the packages it wires, where it is tested.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/gorilla/mux"

	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/internal/buildinfo"
	"providerdir/internal/config"
	"providerdir/internal/httpserver"
	"providerdir/internal/logging"
	"providerdir/internal/metrics"
	"providerdir/internal/storeopen"
	"providerdir/rest"
	"providerdir/rest/auditpack"
	"providerdir/rest/evidence"
	"providerdir/rest/evidence/chat"
	"providerdir/rest/export"
	"providerdir/rest/gate"
	"providerdir/rest/intake"
	"providerdir/rest/quota"
	"providerdir/rest/resolver"
	"providerdir/rest/supply"
	"providerdir/rest/webhooks"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/store/remote"
	"providerdir/web"
	"providerdir/webhook"
)

func main() {
	// The server's live heap is small (responses are composed from stored bytes), so Go's
	// default GOGC of 100 collects every few hundred requests; 400 trades a little heap for
	// more FHIR reads per second (docs/BENCHMARKS.md). GOGC in the environment wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
}

// run returns the exit status: 0 after a clean shutdown, 1 on a failure, 2 on bad usage.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := config.Parse(args, getenv)
	if errors.Is(err, config.ErrHelp) {
		config.Usage(stdout, "providerd")
		return 0
	}
	if err == nil {
		err = cfg.CheckReference()
	}
	if err != nil {
		fmt.Fprintf(stderr, "providerd: %v (run providerd --help)\n", err)
		return 2
	}
	log, err := logging.New(stderr, cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		fmt.Fprintf(stderr, "providerd: %v\n", err)
		return 2
	}
	slog.SetDefault(log)
	// Operators' ingests through the store socket run their bulk loads in this process, under
	// the same memory limit as providerctl ingest.
	config.ApplyMemoryLimit(getenv, ingest.MemoryLimit)
	if err := serve(cfg, log); err != nil {
		fmt.Fprintf(stderr, "providerd: %v\n", err) // one plain line, as every command fails
		return 1
	}
	log.Info("providerd stopped")
	return 0
}

// reclaimInterval is how often the server looks for a previous snapshot past its rollback
// window and for generations nothing references.
const reclaimInterval = time.Minute

func serve(cfg config.Config, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal, restore the default handling: a second Ctrl-C during a long drain
	// ends the process at once.
	go func() { <-ctx.Done(); stop() }()

	m := metrics.New()
	raw, err := storeopen.Open(ctx, cfg.Store)
	if err != nil {
		return fmt.Errorf("open store %s: %w", cfg.Store, err)
	}
	st := m.Store(raw)
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("close store", slog.Any("error", err))
		}
	}()
	reclaimed := make(chan struct{})
	defer func() { <-reclaimed }() // the reclaimer stops with ctx, before the store closes
	go func() {
		defer close(reclaimed)
		store.ReclaimEvery(ctx, st, cfg.RollbackWindow, reclaimInterval, func(dropped []string, err error) {
			switch {
			case err != nil:
				log.Warn("reclaim retired generations", slog.Any("error", err))
			case len(dropped) > 0:
				log.Info("retired generations dropped", slog.Any("generations", dropped))
			}
		})
	}()

	hooks := webhook.AddressPolicy{AllowLoopback: cfg.WebhookAllowLoopback}
	fsrv := fhir.New(fhirConfig(cfg, st, log, hooks))

	limiter := rateLimiter(cfg, st, log)
	defer func() { // after the server has drained, before the store closes
		if err := limiter.Close(); err != nil {
			log.Error("write the rate-limit windows", slog.Any("error", err))
		}
	}()
	g := gate.New(st, gate.Options{TrustedProxies: cfg.TrustedProxies, Limiter: limiter})
	if err := g.Start(ctx); err != nil { // publishes the resolver sandbox key on first start
		return fmt.Errorf("publish the resolver sandbox key: %w", err)
	}

	// Deliveries go only to owners still active: the SMART clients of FHIR subscriptions and the
	// resolver keys of webhooks.
	owners := webhook.Owners{Clients: smart.Registry{Store: st}, Keys: g.Keys()}
	hookCtx, stopHooks := context.WithCancel(ctx)
	delivered := make(chan struct{})
	defer func() { stopHooks(); <-delivered }() // the webhook worker stops before the store closes
	go func() {
		defer close(delivered)
		webhook.NewWorker(webhook.WorkerOptions{Store: st, Policy: hooks, Concurrency: cfg.WebhookConcurrency, Log: log,
			Notifier: fsrv, Owners: owners}).Run(hookCtx)
	}()
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
		return err // says "smart: ..." already
	}
	defer auth.Close() // before the store closes

	sup := supply.New(st, cfg.BaseURL)
	model := languageModel(cfg)
	ask := evidence.New(evidence.Config{Store: st, Studies: sup, BaseURL: cfg.BaseURL, Model: model})
	exports := export.Options{BaseURL: cfg.BaseURL}
	if model != nil {
		exports.Narrator = export.ChatNarrator{Model: model}
	}

	h, err := httpserver.New(httpserver.Options{
		Logger:         log,
		Metrics:        m,
		Ready:          httpserver.StoreCheck(raw), // raw: the backend's own Ping, if it has one
		TrustedProxies: cfg.TrustedProxies,
		CORSOrigins:    cfg.CORSOrigins,
		Surfaces: []httpserver.Surface{
			{Name: "v1", Prefix: "/v1", Error: rest.V1Error, CORS: true, Routes: gate.Guard(g.SupplySurface("/v1"), func(r *mux.Router) {
				sup.Routes(r)
				ask.Routes(r)
				export.New(st, exports).Routes(r)
				packs.Routes(r)
			})},
			{Name: "resolver", Prefix: "/resolver/v1", Error: rest.ResolverError, CORS: true, Routes: gate.Guard(g.ResolverSurface("/resolver/v1"), func(r *mux.Router) {
				resolver.New(st).Routes(r)
				webhooks.NewAPI(st, hooks, nil).Routes(r)
			})},
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
			{Name: "web", Prefix: "", Error: httpserver.TextError, Routes: web.New(st, web.Options{BaseURL: cfg.BaseURL, AuditPacks: auditPages(packs)}).Routes},
		},
	})
	if err != nil {
		return err
	}
	if cfg.Store.Backend == storeopen.BackendEmbedded {
		// Operator commands reach the store through this process while it holds it.
		admin, err := remote.Listen(remote.SocketPath(cfg.Store.Dir))
		if err != nil {
			return fmt.Errorf("store socket: %w", err)
		}
		adminSrv := &http.Server{Handler: remote.Handler(st), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = adminSrv.Serve(admin) }()
		defer adminSrv.Close()
	}

	if cfg.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(cfg.MetricsAddr, m, log)
		if err != nil {
			return err
		}
		defer stopMetrics() // after the public drain: the drain's own figures stay scrapable
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	log.Info("providerd listening",
		slog.String("addr", ln.Addr().String()),
		slog.String("base_url", cfg.BaseURL),
		slog.String("store", cfg.Store.String()),
		slog.String("commit", buildinfo.PipelineVersion()),
		slog.Bool("uncommitted_changes", buildinfo.Modified()))
	return httpserver.Serve(ctx, ln, h, httpserver.ServerOptions{
		DrainDelay:      cfg.DrainDelay,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Logger:          log,
	})
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
func languageModel(cfg config.Config) evidence.Completer {
	if cfg.LLMURL == "" {
		return nil
	}
	return chat.New(chat.Config{BaseURL: cfg.LLMURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Timeout: cfg.LLMTimeout})
}

// serveMetrics serves the metrics on their own listener at addr until the returned function is
// called.
func serveMetrics(addr string, m *metrics.Metrics, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener: %w", err)
	}
	log.Info("metrics listening", slog.String("addr", ln.Addr().String()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := httpserver.Serve(ctx, ln, httpserver.MetricsHandler(m), httpserver.ServerOptions{ShutdownTimeout: time.Second, Logger: log}); err != nil {
			log.Error("metrics listener", slog.Any("error", err))
		}
	}()
	return func() { cancel(); <-done }, nil
}
