package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"providerdir/catalog"
	"providerdir/conformance"
	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/rest/apikey"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/store/embedded"
)

func init() {
	register(&command{
		name:    "demo",
		args:    "[--store STORE] [--base-url URL] [--dir DIR] [--json FILE]",
		summary: "prepare the demo credentials (a pilot key, the resolver sandbox key, the SMART sandbox client) and print how to use them",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			storeSpec := config.StoreFlag(fs, e.getenv)
			baseURL := fs.String("base-url", config.DefaultBaseURL(config.DefaultAddr), "the URL providerd will serve on")
			dir := fs.String("dir", "", "directory for the demo's key files (default: beside an embedded store, where providerd writes the sandbox key; data with MongoDB)")
			metricsURL := fs.String("metrics-url", "", "the URL of providerd's admin listener (--metrics-addr), if it has one")
			jsonFile := fs.String("json", "", "also write the credentials to this file (mode 0600) for providerctl conformance --credentials")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				spec, err := storeSpec()
				if err != nil {
					return usageError{err}
				}
				s, err := storeopen.Open(ctx, spec)
				if err != nil {
					return fmt.Errorf("open store %s: %w", spec, err)
				}
				defer s.Close()
				log := newLineLogger(e.stderr, "demo", slog.LevelInfo)
				return demo(ctx, e.stdout, log, s, demoURLs{base: strings.TrimRight(*baseURL, "/"), metrics: strings.TrimRight(*metricsURL, "/")}, demoDir(*dir, spec), *jsonFile)
			}
		},
	})
}

// demoDir is where the demo keeps its key files: dir when given; else beside an embedded store,
// where providerd also writes the sandbox key; else, for a MongoDB store, which has no local
// directory, where the default embedded store keeps them (data), so `make run` prints the same
// paths on either store.
func demoDir(dir string, spec storeopen.Spec) string {
	if dir != "" {
		return dir
	}
	if d := spec.LocalDir(); d != "" {
		return d
	}
	def, err := storeopen.Parse(config.DefaultStore)
	if err != nil {
		panic("config.DefaultStore does not parse: " + err.Error())
	}
	return def.LocalDir()
}

// demoKeyFile keeps the demo's pilot key between runs. Real keys are shown once and never stored
// in plaintext; a local demo key is kept so that `make run` prints the same working key each time.
const demoKeyFile = "demo-pilot.key"

// demoURLs are where providerd serves: its public base URL and its admin listener ("" when it
// serves no metrics).
type demoURLs struct{ base, metrics string }

// demo makes sure every demo credential exists, then prints a tour with each one in a command
// that works as printed once providerd is up, and writes them to jsonFile when it is not "".
func demo(ctx context.Context, w io.Writer, log *slog.Logger, s store.Store, urls demoURLs, dir, jsonFile string) error {
	base := urls.base
	keys := apikey.NewManager(s, nil)
	pilot, err := demoPilotKey(ctx, keys, filepath.Join(dir, demoKeyFile))
	if err != nil {
		return err
	}
	sandbox, _, err := keys.Sandbox(ctx)
	if err != nil {
		return fmt.Errorf("resolver sandbox key: %w", err)
	}
	jwkFile := filepath.Join(dir, config.SandboxKeyFile)
	auth, err := smart.New(smart.Config{Store: s, BaseURL: base, SandboxKeyFile: jwkFile, Log: log})
	if err != nil {
		return fmt.Errorf("SMART sandbox client: %w", err)
	}
	auth.Close()
	npi, err := firstSandboxNPI(ctx, s)
	if err != nil {
		return err
	}
	if jsonFile != "" {
		if err := writeDemoCredentials(jsonFile, base, pilot, sandbox.Reveal(), jwkFile); err != nil {
			return fmt.Errorf("write %s: %w", jsonFile, err)
		}
	}
	metrics := "not served (providerd --metrics-addr serves them)"
	if urls.metrics != "" {
		metrics = "curl " + urls.metrics + "/metrics"
	}
	fmt.Fprintf(w, `
providerd serves on %[1]s

  health            curl %[1]s/v1/health
  metrics           %[8]s
  supply API key    %[2]s   (pilot tier, kept in %[3]s)
                    curl -H "Authorization: Bearer %[2]s" %[1]s/v1/health
  resolver sandbox  %[4]s   (shared, read-only, 100 requests/hour)
                    curl -H "X-Service-Key: %[4]s" "%[1]s/resolver/v1/npi/%[5]s?include=facts"
  SMART client      client id %[6]q, private key %[7]s
                    TOKEN=$(bin/providerctl clients token --key %[7]s --token-url %[1]s/fhir/token)
                    curl -H "Authorization: Bearer $TOKEN" %[1]s/fhir/Practitioner/%[5]s
  bulk export       curl -D - -H "Authorization: Bearer $TOKEN" -H "Accept: application/fhir+json" -H "Prefer: respond-async" '%[1]s/fhir/$export?_type=Practitioner'
                    then curl -H "Authorization: Bearer $TOKEN" the Content-Location it answers, and the files it lists
  discovery         curl %[1]s/fhir/.well-known/smart-configuration

`, base, pilot, filepath.Join(dir, demoKeyFile), sandbox.Reveal(), npi, smart.SandboxClientID, jwkFile, metrics)
	return nil
}

// writeDemoCredentials writes the demo's credentials for a conformance run: the SMART sandbox
// client with its private JWK both inline and by path (the file providerd also reads), the
// pilot key and the resolver sandbox key.
func writeDemoCredentials(file, base, pilot, resolver, jwkFile string) error {
	jwk, err := os.ReadFile(jwkFile)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(jwkFile)
	if err != nil {
		return err
	}
	return conformance.WriteCredentials(file, conformance.Credentials{
		BaseURL: base, SMARTClientID: smart.SandboxClientID, SMARTKeyFile: abs, SMARTKey: jwk,
		SupplyKey: pilot, ResolverKey: resolver,
	})
}

// demoPilotKey returns the demo's pilot key, issuing a new one when the kept one is missing or
// no longer valid (a fresh store, or a revoked key). The file is the owner's only; one that other
// users may read is refused, as the server refuses such a store or key file.
func demoPilotKey(ctx context.Context, keys *apikey.Manager, file string) (string, error) {
	if err := embedded.CheckPrivate(file); err != nil {
		return "", err
	}
	if b, err := os.ReadFile(file); err == nil {
		kept := strings.TrimSpace(string(b))
		if _, err := keys.Authenticate(ctx, apikey.Supply, kept); err == nil {
			return kept, nil
		}
	}
	secret, _, err := keys.Create(ctx, apikey.TierPilot, "demo", apikey.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("demo pilot key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, []byte(secret.Reveal()+"\n"), 0o600); err != nil {
		return "", err
	}
	return secret.Reveal(), nil
}

// firstSandboxNPI names a provider the sandbox credentials may read, for the printed examples.
func firstSandboxNPI(ctx context.Context, s store.Store) (string, error) {
	snap, err := store.Serving(ctx, s)
	if err != nil {
		return "", err
	}
	gen := snap.Generation(catalog.SandboxNPIs)
	if gen == "" {
		return "", errors.New("no data loaded yet: run providerctl ingest first")
	}
	page, err := s.Find(ctx, store.Query{Collection: catalog.SandboxNPIs, Generation: gen, Limit: 1})
	if err != nil || len(page.Docs) == 0 {
		return "", fmt.Errorf("the sandbox subset is empty: %v", err)
	}
	return page.Docs[0].ID, nil
}
