package main

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/catalog"
	"providerdir/conformance"
	"providerdir/fhir"
	"providerdir/fileperm"
	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/mapping/fhirmap"
	"providerdir/rest/apikey"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/webhook"
)

func init() {
	register(&command{
		name:    "demo",
		args:    "[--store STORE] [--base-url URL] [--metrics-url URL] [--dir DIR] [--json FILE] [--receiver-port N]",
		summary: "prepare the demo credentials (a pilot key, the resolver sandbox key, the SMART sandbox client; with a receiver, a webhook and a subscribing client) and print how to use them",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			storeSpec := config.StoreFlag(fs, e.getenv)
			baseURL := fs.String("base-url", config.DefaultBaseURL(config.DefaultAddr), "the URL providerd will serve on")
			dir := fs.String("dir", "", "directory for the demo's key files (default: beside an embedded store, where providerd writes the sandbox key; data with MongoDB)")
			metricsURL := fs.String("metrics-url", "", "the URL of providerd's admin listener (--metrics-addr), if it has one")
			jsonFile := fs.String("json", "", "also write the credentials to this file (mode 0600) for providerctl conformance --credentials")
			receiver := fs.Int("receiver-port", 0, "port on 127.0.0.1 of the demo's webhook receiver, for a providerd started with --webhook-allow-loopback; only with an embedded store and a loopback --base-url (0: the tour leaves webhooks and FHIR subscriptions out)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				spec, err := storeSpec()
				if err != nil {
					return usageError{err}
				}
				urls := demoURLs{base: strings.TrimRight(*baseURL, "/"), metrics: strings.TrimRight(*metricsURL, "/"), receiver: *receiver, ctl: os.Args[0]}
				if err := checkReceiver(urls, spec); err != nil {
					return usageError{err}
				}
				s, err := storeopen.Open(ctx, spec)
				if err != nil {
					return fmt.Errorf("open store %s: %w", spec, err)
				}
				defer s.Close()
				log := newLineLogger(e.stderr, "demo", slog.LevelInfo)
				return demo(ctx, e.stdout, log, s, urls, demoDir(*dir, spec), *jsonFile)
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

// demoURLs say where the tour's commands point: providerd's public base URL, its admin listener
// ("" when it serves no metrics), the port of the demo's webhook receiver on 127.0.0.1 (0 when
// providerd admits no loopback receiver: the tour then leaves webhooks and FHIR subscriptions
// out) and the providerctl command as it was run ("": bin/providerctl).
type demoURLs struct {
	base, metrics string
	receiver      int
	ctl           string
}

// checkReceiver admits a loopback receiver for the demo's own deployment only: an embedded store
// (a local one, as the demo's is) and a base URL on a loopback address, the conditions under
// which `make run` passes providerd --webhook-allow-loopback.
func checkReceiver(urls demoURLs, spec storeopen.Spec) error {
	if urls.receiver == 0 {
		return nil
	}
	if urls.receiver < 0 || urls.receiver > 65535 {
		return fmt.Errorf("--receiver-port %d is not a port", urls.receiver)
	}
	if spec.LocalDir() == "" {
		return errors.New("--receiver-port needs an embedded store: loopback receivers are for the local demo only")
	}
	u, err := url.Parse(urls.base)
	if err != nil || !loopbackHost(u.Hostname()) {
		return fmt.Errorf("--receiver-port needs a --base-url on a loopback address, not %q", urls.base)
	}
	return nil
}

// loopbackHost reports whether host is localhost or a loopback IP address.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

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
	ctl := cmp.Or(urls.ctl, "bin/providerctl")
	receivers := "  webhooks, FHIR subscriptions: need a receiver on a public https URL; make run admits one on\n" +
		"                    127.0.0.1 only with its embedded store on a loopback ADDR\n"
	if urls.receiver > 0 {
		if receivers, err = demoReceivers(ctx, s, keys, urls, dir, npi, ctl); err != nil {
			return err
		}
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
                    TOKEN=$(%[9]s clients token --key %[7]s --token-url %[1]s/fhir/token)
                    curl -H "Authorization: Bearer $TOKEN" %[1]s/fhir/Practitioner/%[5]s
  bulk export       curl -D - -H "Authorization: Bearer $TOKEN" -H "Accept: application/fhir+json" -H "Prefer: respond-async" '%[1]s/fhir/$export?_type=Practitioner'
                    then curl -H "Authorization: Bearer $TOKEN" the Content-Location it answers, and the files it lists
  discovery         curl %[1]s/fhir/.well-known/smart-configuration
  MCP tools         npx -y @modelcontextprotocol/inspector --cli %[10]s -e SERVICE_BASE_URL=%[1]s -e SERVICE_API_KEY=%[4]s --method tools/list
%[11]s
`, base, pilot, filepath.Join(dir, demoKeyFile), sandbox.Reveal(), npi, smart.SandboxClientID, jwkFile, metrics,
		ctl, siblingCommand(ctl, "provider-mcp"), receivers)
	return nil
}

// siblingCommand names the program name built beside the command ctl, as ctl names itself.
func siblingCommand(ctl, name string) string {
	dir, _ := filepath.Split(ctl)
	return dir + name
}

// Files the demo keeps its receivers' credentials in, beside the pilot key.
const (
	// demoResolverKeyFile keeps the live resolver key that owns the demo's webhook (the
	// sandbox key is read-only and may not register one).
	demoResolverKeyFile = "demo-resolver.key"
	// demoBearerFile keeps the token the demo's FHIR subscription channel sends its receiver.
	demoBearerFile = "demo-receiver.token"
	// demoSubscriberKeyFile keeps the private JWK of the demo's subscribing SMART client.
	demoSubscriberKeyFile = "demo-subscriber.jwk"
)

// demoSubscriberName names the demo's SMART client that may hold FHIR subscriptions; the sandbox
// client may not.
const demoSubscriberName = "Demo subscriber (FHIR subscriptions)"

// demoSubscriberScopes are the demo subscriber's scopes, which its token command asks for.
var demoSubscriberScopes = []string{"system/Subscription.cruds", "system/*.read"}

// demoReceivers prepares what the tour's webhook and FHIR subscription commands need, kept
// between runs like the pilot key: a live resolver key owning a webhook to the receiver, the
// bearer token FHIR channels send the receiver, and a SMART client that may subscribe. It
// returns the tour's lines for them.
func demoReceivers(ctx context.Context, s store.Store, keys *apikey.Manager, urls demoURLs, dir, npi, ctl string) (string, error) {
	receiverURL := fmt.Sprintf("http://127.0.0.1:%d/", urls.receiver)
	liveFile := filepath.Join(dir, demoResolverKeyFile)
	live, err := keptCredential(liveFile, func(k string) bool {
		_, err := keys.Authenticate(ctx, apikey.Resolver, k)
		return err == nil
	}, func() (string, error) {
		secret, _, err := keys.Create(ctx, apikey.TierStarter, "demo webhooks", apikey.CreateOptions{})
		return secret.Reveal(), err
	})
	if err != nil {
		return "", fmt.Errorf("demo resolver key: %w", err)
	}
	k, err := keys.Authenticate(ctx, apikey.Resolver, live)
	if err != nil {
		return "", fmt.Errorf("demo resolver key: %w", err)
	}
	hook, err := demoWebhook(ctx, s, k.ID, receiverURL, npi)
	if err != nil {
		return "", fmt.Errorf("demo webhook: %w", err)
	}
	bearer, err := keptCredential(filepath.Join(dir, demoBearerFile), isBearerToken, newBearerToken)
	if err != nil {
		return "", fmt.Errorf("demo receiver token: %w", err)
	}
	keyFile := filepath.Join(dir, demoSubscriberKeyFile)
	client, err := demoSubscriber(ctx, s, keyFile)
	if err != nil {
		return "", fmt.Errorf("demo subscriber client: %w", err)
	}
	sub, err := demoSubscription(urls.base, receiverURL, npi, bearer)
	if err != nil {
		return "", err
	}
	scopes := strings.Join(demoSubscriberScopes, " ")
	return fmt.Sprintf(`  webhook receiver  in another terminal; it prints each delivery it verifies, and refuses others with 401
                    %[1]s webhook-listen --port %[2]d --secret %[3]s --bearer %[4]s
  webhooks          live resolver key %[5]s   (starter tier, kept in %[6]s)
                    owns webhook %[7]s to %[8]s (its signing secret is the --secret above)
                    curl -X POST -H "X-Service-Key: %[5]s" %[9]s/resolver/v1/webhooks/%[7]s/test
                    curl -H "X-Service-Key: %[5]s" %[9]s/resolver/v1/webhooks/%[7]s/deliveries
  FHIR subscription client id %[10]q (%[11]s), private key %[12]s
                    SUBTOKEN=$(%[1]s clients token --key %[12]s --client-id %[10]s --token-url %[9]s/fhir/token --scope "%[11]s")
                    curl -H "Authorization: Bearer $SUBTOKEN" -H "Content-Type: application/fhir+json" -d '%[13]s' %[9]s/fhir/Subscription
                    the receiver prints the handshake; GET the Subscription it answers, or its /$status, with the same token
`, ctl, urls.receiver, hook.Secret, bearer, live, liveFile, hook.ID, receiverURL, urls.base, client, scopes, keyFile, sub), nil
}

// demoWebhook returns owner's webhook to receiverURL, for every event and the NPI npi: the one kept from
// an earlier run while it is active, else a new one (a disabled one, whose receiver was away, is
// replaced). The demo registers it as the API would, past the address policy providerd applies
// with --webhook-allow-loopback.
func demoWebhook(ctx context.Context, s store.Store, owner, receiverURL, npi string) (webhook.Subscription, error) {
	svc := webhook.NewService(s, webhook.AddressPolicy{AllowLoopback: true}, nil)
	mine, err := svc.List(ctx, owner)
	if err != nil {
		return webhook.Subscription{}, err
	}
	for _, h := range mine {
		switch {
		case h.URL != receiverURL || h.FHIR != nil:
		case h.Status == webhook.StatusActive:
			return h, nil
		default:
			if err := svc.Delete(ctx, h); err != nil {
				return webhook.Subscription{}, err
			}
		}
	}
	return svc.Create(ctx, owner, webhook.Registration{URL: receiverURL, Events: webhook.Events, NPIs: []string{npi}})
}

// demoSubscription is the body of the tour's FHIR Subscription: the practitioner-changed topic
// for npi, notified by rest-hook to the receiver with its bearer token in channel.header.
func demoSubscription(base, receiverURL, npi, bearer string) (string, error) {
	b, err := json.Marshal(map[string]any{
		"resourceType": "Subscription",
		"status":       "requested",
		"reason":       "demo",
		"criteria":     base + "/fhir/SubscriptionTopic/practitioner-changed",
		"_criteria": map[string]any{"extension": []map[string]string{{
			"url":         "http://hl7.org/fhir/uv/subscriptions-backport/StructureDefinition/backport-filter-criteria",
			"valueString": "Practitioner?identifier=" + fhirmap.SystemNPI + "|" + npi,
		}}},
		"channel": map[string]any{
			"type":     "rest-hook",
			"endpoint": receiverURL,
			"payload":  fhir.ContentType,
			"header":   []string{"Authorization: Bearer " + bearer},
		},
	})
	return string(b), err
}

// demoSubscriber returns the id of the demo's subscribing SMART client: the enabled client of
// that name whose keys hold the kept private key's kid, else one registered now (with a new key
// when none is kept).
func demoSubscriber(ctx context.Context, s store.Store, keyFile string) (string, error) {
	raw, err := keptCredential(keyFile, func(k string) bool {
		key, err := jwk.ParseKey([]byte(k))
		if err != nil {
			return false
		}
		priv, _ := jwk.IsPrivateKey(key)
		return priv
	}, newSubscriberKey)
	if err != nil {
		return "", err
	}
	priv, err := jwk.ParseKey([]byte(raw))
	if err != nil {
		return "", err
	}
	kid, _ := priv.KeyID()
	clients, err := smart.ListClients(ctx, s)
	if err != nil {
		return "", err
	}
	for _, c := range clients {
		set, err := jwk.Parse(c.JWKS)
		if err != nil || c.Name != demoSubscriberName || !c.Enabled {
			continue
		}
		if _, found := set.LookupKeyID(kid); found {
			return c.ID, nil
		}
	}
	pub, err := priv.PublicKey()
	if err != nil {
		return "", err
	}
	set := jwk.NewSet()
	if err := set.AddKey(pub); err != nil {
		return "", err
	}
	jwks, err := json.Marshal(set)
	if err != nil {
		return "", err
	}
	c, err := smart.AddClient(ctx, s, smart.ClientSpec{Name: demoSubscriberName, JWKS: jwks, Scopes: demoSubscriberScopes})
	return c.ID, err
}

// newSubscriberKey makes a private JWK for ES384 (EC P-384) with its thumbprint as kid.
func newSubscriberKey() (string, error) {
	raw, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		return "", err
	}
	k, err := jwk.Import(raw)
	if err != nil {
		return "", err
	}
	if err := jwk.AssignKeyID(k); err != nil {
		return "", err
	}
	b, err := json.Marshal(k)
	return string(b), err
}

// isBearerToken and newBearerToken: the receiver's token is 32 random bytes in hex.
func isBearerToken(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32
}

func newBearerToken() (string, error) {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b), nil
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
	key, err := keptCredential(file, func(k string) bool {
		_, err := keys.Authenticate(ctx, apikey.Supply, k)
		return err == nil
	}, func() (string, error) {
		secret, _, err := keys.Create(ctx, apikey.TierPilot, "demo", apikey.CreateOptions{})
		return secret.Reveal(), err
	})
	if err != nil {
		return "", fmt.Errorf("demo pilot key: %w", err)
	}
	return key, nil
}

// keptCredential returns the credential kept in file when valid accepts it, else a new one from
// create, kept in file (mode 0600) for the next run. A file that other users may read is
// refused, as the server refuses such a store or key file.
func keptCredential(file string, valid func(string) bool, create func() (string, error)) (string, error) {
	if err := fileperm.CheckPrivate(file); err != nil {
		return "", err
	}
	if b, err := os.ReadFile(file); err == nil {
		if kept := strings.TrimSpace(string(b)); valid(kept) {
			return kept, nil
		}
	}
	fresh, err := create()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(file, []byte(fresh+"\n"), 0o600); err != nil {
		return "", err
	}
	return fresh, nil
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
