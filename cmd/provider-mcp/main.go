// Command provider-mcp is the agent tool server: the resolver API offered as MCP tools over
// standard input and output (package mcptools), a client of a running providerd. It reads
// SERVICE_API_KEY and SERVICE_BASE_URL; without a key it uses the sandbox key the service
// publishes at SERVICE_BASE_URL (GET /resolver/v1/sandbox). It needs no store and no checkout:
// it depends on the resolver's Go client and the MCP SDK only. A line on standard input that is
// not JSON is answered with a JSON-RPC parse error and the session goes on. It logs to standard
// error only: standard output is the protocol's. Exit status 0 when the client closes the
// session, 1 on failure with one line on stderr, 2 on bad usage. An interrupt or SIGTERM stops
// it with status 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"providerdir/cmd/provider-mcp/internal/mcptools"
	"providerdir/internal/buildinfo"
	"providerdir/resolverclient"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.As(err, new(usageError)):
		fmt.Fprintln(os.Stderr, "provider-mcp:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "provider-mcp:", err)
		os.Exit(1)
	}
}

type usageError struct{ error }

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("provider-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("takes no arguments, got %q", fs.Arg(0))}
	}
	s, err := mcptools.Load(ctx, getenv)
	if err != nil {
		return err
	}
	version := buildinfo.PipelineVersion()
	c, err := resolverclient.New(s.ResolverURL, resolverclient.Options{APIKey: s.APIKey, UserAgent: mcptools.Name + "/" + version})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "provider-mcp %s: tools over stdio for the resolver at %s, key from %s\n", version, s.ResolverURL, s.KeyFrom)
	if err := mcptools.New(c, version).Run(ctx, mcptools.Stdio(os.Stdin, os.Stdout)); err != nil && ctx.Err() == nil {
		return err
	}
	return nil // the client closed the session, or a signal asked the server to stop
}
