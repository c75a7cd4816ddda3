package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"providerdir/conformance"
)

func init() {
	register(&command{
		name:    "conformance",
		args:    "--base-url URL [--credentials FILE] [--smart-client-id ID] [--smart-key FILE] [--supply-key KEY] [--resolver-key KEY] [--junit FILE] [--only SURFACE[/CHECK],...] [--fhir-validator DIR] [--gone TYPE/ID] [--exhaust-budgets] [--webhook-url URL] [--webhook-receiver ADDR]",
		summary: "hold a running deployment to its contracts (SMART, FHIR, supply API) over HTTP; exit 1 on any failed check",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			baseURL := fs.String("base-url", "", "the deployment's service URL (default: the credentials file's base_url)")
			credFile := fs.String("credentials", "", "a credentials file, as providerctl demo --json writes")
			clientID := fs.String("smart-client-id", "", "SMART client id (overrides the file's)")
			keyFile := fs.String("smart-key", "", "file holding the SMART client's private JWK (overrides the file's)")
			supplyKey := fs.String("supply-key", "", "supply API bearer key (overrides the file's)")
			resolverKey := fs.String("resolver-key", "", "resolver API key (overrides the file's)")
			junit := fs.String("junit", "", "also write the results as JUnit XML to this file")
			only := fs.String("only", "", "run only these surfaces or surface/check names, comma-separated")
			validator := fs.String("fhir-validator", "", "directory where `npm install fhir` ran: validate every served FHIR resource with it (needs node)")
			gone := fs.String("gone", "", "a FHIR resource `TYPE/ID` the latest source snapshot removed: it must answer 410")
			webhookURL := fs.String("webhook-url", "", "the receiver URL the webhook lifecycle check registers and deletes (default "+conformance.DefaultWebhookURL+")")
			receiver := fs.String("webhook-receiver", "", "listen on `ADDR` (host:port) for webhook deliveries and check their signatures; the deployment must admit and reach it")
			exhaust := fs.Bool("exhaust-budgets", false, "spend the token endpoint's and the client's FHIR budgets to check their 429s (locks the client out until Retry-After)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				var creds conformance.Credentials
				if *credFile != "" {
					c, err := conformance.ReadCredentials(*credFile)
					if err != nil {
						return err
					}
					creds = c
				}
				override(&creds.BaseURL, *baseURL)
				override(&creds.SMARTClientID, *clientID)
				override(&creds.SupplyKey, *supplyKey)
				override(&creds.ResolverKey, *resolverKey)
				if *keyFile != "" {
					creds.SMARTKeyFile, creds.SMARTKey = *keyFile, nil
				}
				if creds.BaseURL == "" {
					return usagef("needs --base-url or a credentials file with base_url")
				}
				var sel []string
				if *only != "" {
					sel = strings.Split(*only, ",")
				}
				rep := conformance.Run(ctx, conformance.Options{Credentials: creds, Only: sel, FHIRValidator: *validator,
					Gone: *gone, ExhaustBudgets: *exhaust, WebhookURL: *webhookURL, WebhookReceiver: *receiver})
				if err := rep.WriteText(e.stdout); err != nil {
					return err
				}
				if *junit != "" {
					if err := writeJUnit(*junit, rep); err != nil {
						return fmt.Errorf("write %s: %w", *junit, err)
					}
				}
				if n := rep.Failed(); n > 0 {
					return fmt.Errorf("%d of %d checks failed", n, len(rep.Results))
				}
				return nil
			}
		},
	})
}

// override sets *dst to v when a flag gave one.
func override(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

func writeJUnit(file string, rep conformance.Report) error {
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := rep.WriteJUnit(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
