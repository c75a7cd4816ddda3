package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"providerdir/internal/safetext"
	"providerdir/webhook"
)

func init() {
	register(&command{
		name:    "webhook-listen",
		args:    "--port N (--secret S ... | --bearer T)",
		summary: "receive webhook deliveries and FHIR rest-hook notifications on 127.0.0.1, verify each and print it",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			port := fs.Int("port", 0, "the port to listen on, on 127.0.0.1 only (0: a free one, printed)")
			var secrets []string
			fs.Func("secret", "a webhook's signing secret (whsec_...): a delivery must carry an X-Service-Signature it verifies; repeat for several", func(s string) error {
				if s == "" {
					return errors.New("empty secret")
				}
				secrets = append(secrets, s)
				return nil
			})
			bearer := fs.String("bearer", "", `the token a FHIR subscription's channel.header sends as "Authorization: Bearer TOKEN"`)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				if len(secrets) == 0 && *bearer == "" {
					return usagef("needs --secret or --bearer: a receiver that verifies nothing would print whatever anyone sent")
				}
				if *port < 0 || *port > 65535 {
					return usagef("--port %d is not a port", *port)
				}
				ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
				if err != nil {
					return err
				}
				rc := &receiver{out: e.stdout, secrets: secrets, bearer: *bearer, now: time.Now}
				fmt.Fprintf(e.stdout, "listening on http://%s/ (Ctrl-C stops)\n", ln.Addr())
				return serveUntilDone(ctx, ln, rc)
			}
		},
	})
}

// serveUntilDone serves h on ln until ctx ends, then lets the requests under way finish.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan error, 1)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		stopped <- srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return <-stopped
}

// Limits of the receiver.
const (
	// maxDeliveryBytes bounds a request body: a full-resource notification Bundle fits.
	maxDeliveryBytes = 4 << 20
	// signatureTolerance is how far a signature's timestamp may be from the receiver's clock, as
	// a subscriber is advised to check, so a recorded delivery cannot be replayed later.
	signatureTolerance = 5 * time.Minute
)

// receiver answers webhook deliveries and FHIR rest-hook notifications as a subscriber should:
// a delivery proves it comes from the service by an X-Service-Signature that one of the secrets
// verifies (webhook.Verify), or by the bearer token its FHIR subscription's channel.header sends.
// It answers 204 and prints the delivery, or 401 and prints why, never the body it refused.
type receiver struct {
	out     io.Writer
	secrets []string
	bearer  string
	now     func() time.Time
	mu      sync.Mutex // one delivery's lines stay together
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDeliveryBytes))
	if err != nil {
		http.Error(w, fmt.Sprintf("the body is larger than %d bytes", maxDeliveryBytes), http.StatusRequestEntityTooLarge)
		return
	}
	now := rc.now()
	summary := fmt.Sprintf("%s %s %s", now.UTC().Format(time.RFC3339),
		headerOr(r, webhook.HeaderEvent, "(no event)"), headerOr(r, webhook.HeaderEventID, "(no event id)"))
	how, err := rc.verify(r, body, now)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if err != nil {
		fmt.Fprintf(rc.out, "%s refused with 401: %v\n", summary, err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	fmt.Fprintf(rc.out, "%s verified by its %s, %d bytes\n", summary, how, len(body))
	printBody(rc.out, body)
	w.WriteHeader(http.StatusNoContent)
}

// verify says how a delivery proved where it comes from ("signature" or "channel header"), or
// why it did not. An Authorization header is the FHIR channel's when a bearer token is set;
// anything else must be signed.
func (rc *receiver) verify(r *http.Request, body []byte, now time.Time) (string, error) {
	if auth := r.Header.Get("Authorization"); auth != "" && rc.bearer != "" {
		if subtle.ConstantTimeCompare([]byte(auth), []byte("Bearer "+rc.bearer)) != 1 {
			return "", errors.New("the Authorization header does not carry the channel's bearer token")
		}
		return "channel header", nil
	}
	sig := r.Header.Get(webhook.HeaderSignature)
	switch {
	case len(rc.secrets) == 0:
		return "", errors.New("no Authorization header with the channel's bearer token")
	case sig == "":
		return "", errors.New("no " + webhook.HeaderSignature + " header")
	}
	err := webhook.ErrSignatureMismatch
	for _, secret := range rc.secrets {
		switch e := webhook.Verify(sig, body, secret, now, signatureTolerance); {
		case e == nil:
			return "signature", nil
		case !errors.Is(e, webhook.ErrSignatureMismatch):
			err = e // a malformed or stale signature says more than a mismatch
		}
	}
	return "", fmt.Errorf("bad signature: %w", err)
}

// headerOr is a request header as the receiver prints it, escaped and bounded (anyone on this
// machine can send anything), or def when it is absent.
func headerOr(r *http.Request, name, def string) string {
	if v := r.Header.Get(name); v != "" {
		return safetext.EchoEscaped(v)
	}
	return def
}

// printBody prints a verified delivery's body: JSON indented, each line with what a terminal
// would act on escaped; anything else escaped as one line.
func printBody(w io.Writer, body []byte) {
	var b bytes.Buffer
	if json.Indent(&b, body, "", "  ") != nil {
		fmt.Fprintf(w, "(not JSON) %s\n", safetext.Terminal(string(body)))
		return
	}
	for line := range strings.Lines(b.String()) {
		fmt.Fprintln(w, safetext.Terminal(strings.TrimSuffix(line, "\n")))
	}
}
