// Command providerd serves every HTTP surface of the provider directory from one store. It only
// runs: configuration, logger, metrics, store, the service package builds, listener. Behaviour
// lives in the packages service wires, where it is tested.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"providerdir/geo"
	"providerdir/ingest"
	"providerdir/internal/buildinfo"
	"providerdir/internal/config"
	"providerdir/internal/httpserver"
	"providerdir/internal/logging"
	"providerdir/internal/metrics"
	"providerdir/internal/storeopen"
	"providerdir/service"
	"providerdir/source/reference"
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
		// A reference directory that does not exist is reported at start, not at the first use
		// of a reference file.
		_, err = reference.Open(cfg.Reference)
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
	// raw answers readiness: the backend's own Ping, if it has one.
	svc, err := service.New(ctx, cfg, service.Options{Store: st, Ready: raw, Metrics: m, Log: log})
	if err != nil {
		return err
	}
	defer svc.Close() // after the server has drained, before the store closes
	// The ZIP code grid that searches near a place read is built once a process; building it
	// beside the listener spares the first such search the wait. An error is the searches' to
	// report: they refuse near with it.
	go func() { _, _ = geo.ZCTAs() }()

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
	return httpserver.Serve(ctx, ln, svc.Handler, httpserver.ServerOptions{
		DrainDelay:      cfg.DrainDelay,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Logger:          log,
	})
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
