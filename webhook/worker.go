package webhook

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"providerdir/internal/buildinfo"
	"providerdir/store"
)

// Worker defaults.
const (
	DefaultConcurrency = 32
	// DefaultLease is how long a claim holds a delivery: longer than an attempt may take, so
	// only a worker that died loses its claims.
	DefaultLease = 2 * time.Minute
	// DefaultAttemptTimeout bounds one POST, from dialling to the end of the response headers
	// and the part of the body read.
	DefaultAttemptTimeout = 15 * time.Second
	// DefaultPollInterval is how long an idle worker waits before it looks for due deliveries
	// again.
	DefaultPollInterval = time.Second
	// DefaultFanoutInterval is how often the worker looks for new change sets to turn into
	// events.
	DefaultFanoutInterval = 5 * time.Second
)

// WorkerOptions configure a Worker. Store is required; the rest have defaults.
type WorkerOptions struct {
	Store  store.Store
	Policy AddressPolicy
	// Now is the clock every decision is taken by (due, lease, retry window); tests move it to
	// run a day's schedule in seconds. Nil means time.Now.
	Now func() time.Time
	// ID names the worker in the leases it takes; empty picks a random one.
	ID             string
	Concurrency    int
	Lease          time.Duration
	AttemptTimeout time.Duration
	PollInterval   time.Duration
	FanoutInterval time.Duration
	Log            *slog.Logger
	// Notifier renders the notification Bundles of FHIR subscriptions; without one their
	// attempts fail.
	Notifier Notifier
	// Owners says whether a subscription's owner may still receive deliveries, and what a
	// SMART client may read. Before each delivery the worker asks it (through a cache of
	// OwnerCheckInterval): a delivery whose owner is not active fails with the reason, and
	// the subscription is disabled by DisabledByOwner; an event whose focus the client may
	// not read is sent with its reference alone. Every FanoutInterval it also disables the
	// subscriptions of owners that stopped being active and makes those it disabled active
	// again once their owners are. The zero value checks nothing.
	Owners Owners
}

// Worker delivers due deliveries of the outbox and turns new change sets into deliveries. Any
// number of workers, in one process or in several sharing a store, may run at once: a delivery
// is sent by the worker whose compare-and-swap claimed it.
type Worker struct {
	o      WorkerOptions
	client *http.Client
	// inflight holds the deliveries this worker has claimed and not finished, so its scans pass
	// over their queue entries without reading them.
	inflight sync.Map // delivery id -> struct{}
	// subs holds decoded subscriptions by id, each with the record version it was decoded
	// from: a delivery reads the record (cheap) and decodes it again only when it changed,
	// since a watch list of a thousand NPIs costs more to decode than the rest of a delivery.
	subs sync.Map // subscription id -> Subscription
	// owners answers o.Owners' questions from its recent answers.
	owners *ownerCache
}

// subscription reads a subscription, decoding it only when its version moved.
func (w *Worker) subscription(ctx context.Context, id string) (Subscription, error) {
	rec, err := w.o.Store.GetRecord(ctx, subscriptionKind, id)
	if errors.Is(err, store.ErrNotFound) {
		w.subs.Delete(id)
		return Subscription{}, ErrNotFound
	}
	if err != nil {
		return Subscription{}, err
	}
	if v, ok := w.subs.Load(id); ok && v.(Subscription).version == rec.Version {
		return v.(Subscription), nil
	}
	s, err := decodeSubscription(rec)
	if err == nil {
		w.subs.Store(id, s)
	}
	return s, err
}

// NewWorker returns a worker with o's defaults filled in.
func NewWorker(o WorkerOptions) *Worker {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ID == "" {
		b := make([]byte, 6)
		_, _ = rand.Read(b)
		o.ID = "worker-" + hex.EncodeToString(b)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.AttemptTimeout <= 0 {
		o.AttemptTimeout = DefaultAttemptTimeout
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.FanoutInterval <= 0 {
		o.FanoutInterval = DefaultFanoutInterval
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Worker{o: o, client: deliveryClient(o.Policy, o.AttemptTimeout, o.Concurrency), owners: newOwnerCache(o.Owners)}
}

// deliveryClient is the HTTP client of deliveries: every connection goes through the address
// policy's dialer, no proxy, no redirect followed (a 3xx is a failed attempt), each attempt
// bounded by timeout.
func deliveryClient(p AddressPolicy, timeout time.Duration, conns int) *http.Client {
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           p.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          conns * 4,
			MaxIdleConnsPerHost:   conns,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// job is a due queue entry and the delivery it names, for a sender to claim and send.
type job struct {
	entry, id string
}

// Run delivers and fans out until ctx ends. It returns when every attempt it began has
// ended.
func (w *Worker) Run(ctx context.Context) {
	jobs := make(chan job, w.o.Concurrency)
	var wg sync.WaitGroup
	for range w.o.Concurrency {
		wg.Go(func() {
			for j := range jobs {
				w.claimAndDeliver(ctx, j)
				w.inflight.Delete(j.id)
			}
		})
	}
	wg.Go(func() { w.fanoutLoop(ctx) })
	if w.o.Owners.checks() {
		wg.Go(func() { w.ownersLoop(ctx) })
	}
	for ctx.Err() == nil {
		n, err := w.scan(ctx, jobs)
		if err != nil && ctx.Err() == nil {
			w.o.Log.Warn("webhook outbox scan", slog.Any("error", err))
		}
		if n == 0 {
			sleep(ctx, w.o.PollInterval)
		}
	}
	close(jobs)
	wg.Wait()
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// scanPage is how many queue entries one read of the due queue returns.
const scanPage = 256

// scan walks the due queue from its start for entries due now and hands each to the senders,
// which claim and send them (so that the claims' writes go on in parallel); it returns how
// many it handed over. It stops at the first entry not yet due, so it reads little beyond what
// is sent, and passes over entries this worker is already sending.
func (w *Worker) scan(ctx context.Context, jobs chan<- job) (int, error) {
	handed := 0
	after := ""
	for {
		recs, err := w.o.Store.ListRecords(ctx, dueKind, after, scanPage)
		if err != nil {
			return handed, err
		}
		now := w.o.Now().UnixNano()
		for _, rec := range recs {
			at, id, ok := parseDueID(rec.ID)
			if !ok {
				_ = w.o.Store.DeleteRecord(ctx, dueKind, rec.ID, 0) // not an entry this package wrote
				continue
			}
			if at > now {
				return handed, nil
			}
			if _, busy := w.inflight.LoadOrStore(id, struct{}{}); busy {
				continue
			}
			select {
			case jobs <- job{entry: rec.ID, id: id}:
				handed++
			case <-ctx.Done():
				w.inflight.Delete(id)
				return handed, nil
			}
		}
		if len(recs) < scanPage {
			return handed, nil
		}
		after = recs[len(recs)-1].ID
	}
}

// claimAndDeliver claims a due entry's delivery and, when the claim is won, sends it.
func (w *Worker) claimAndDeliver(ctx context.Context, j job) {
	d, ok, err := w.claim(ctx, j.entry, j.id, w.o.Now())
	if err != nil {
		if ctx.Err() == nil {
			w.o.Log.Warn("webhook outbox claim", slog.String("delivery", j.id), slog.Any("error", err))
		}
		return
	}
	if ok {
		w.deliver(ctx, j.entry, d)
	}
}

// claim takes the delivery of a due entry by compare-and-swap: it sets this worker's lease and
// counts the attempt. It tidies the queue on the way: an entry of a delivery that is finished
// or gone is deleted, and one of a delivery due later is moved to its due time. ok is false
// when there is nothing to send now (someone else holds it, or it is not due).
func (w *Worker) claim(ctx context.Context, entry, id string, now time.Time) (Delivery, bool, error) {
	rec, err := w.o.Store.GetRecord(ctx, deliveryKind, id)
	if errors.Is(err, store.ErrNotFound) {
		return Delivery{}, false, w.dropEntry(ctx, entry)
	}
	if err != nil {
		return Delivery{}, false, err
	}
	d, err := decodeDelivery(rec)
	if err != nil {
		return Delivery{}, false, err
	}
	switch {
	case d.Status != DeliveryPending:
		return Delivery{}, false, w.dropEntry(ctx, entry)
	case d.LeaseUntil.After(now):
		return Delivery{}, false, nil
	case d.NextAttemptAt.After(now):
		return Delivery{}, false, w.moveEntry(ctx, entry, d.NextAttemptAt, id)
	}
	d.LeaseOwner, d.LeaseUntil = w.o.ID, now.Add(w.o.Lease)
	d.Attempts++
	next, err := d.record()
	if err != nil {
		return Delivery{}, false, err
	}
	stored, err := w.o.Store.PutRecord(ctx, next)
	if errors.Is(err, store.ErrConflict) {
		return Delivery{}, false, nil // another worker claimed it first
	}
	if err != nil {
		return Delivery{}, false, err
	}
	d.version = stored.Version
	return d, true, nil
}

// moveEntry puts a delivery's queue entry at a new due time: the new entry is written before
// the old one is deleted, so that a crash between leaves two entries (one is tidied away
// later) and never none.
func (w *Worker) moveEntry(ctx context.Context, entry string, at time.Time, id string) error {
	_, err := w.o.Store.PutRecord(ctx, store.Record{Kind: dueKind, ID: dueID(at, id)})
	if err != nil && !errors.Is(err, store.ErrConflict) {
		return err
	}
	return w.dropEntry(ctx, entry)
}

func (w *Worker) dropEntry(ctx context.Context, entry string) error {
	err := w.o.Store.DeleteRecord(ctx, dueKind, entry, 0)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// deliver makes one attempt of a claimed delivery and records its outcome. When ctx ends
// during the attempt nothing is recorded: the claim lapses with its lease and another worker
// (or this one, restarted) sends the delivery again under the same event id.
func (w *Worker) deliver(ctx context.Context, entry string, d Delivery) {
	sub, err := w.subscription(ctx, d.Subscription)
	if err != nil && !errors.Is(err, ErrNotFound) {
		w.o.Log.Warn("webhook delivery: read subscription", slog.String("delivery", d.ID), slog.Any("error", err))
		return
	}
	refused, ownerOff, err := w.refusal(ctx, sub, d, err)
	if err != nil {
		w.o.Log.Warn("webhook delivery: check the owner", slog.String("delivery", d.ID), slog.Any("error", err))
		return
	}
	var disable bool
	if refused != "" {
		d.Status, d.FailReason = DeliveryFailed, refused
	} else {
		if sub, err = w.prepare(ctx, sub, &d); err != nil {
			w.o.Log.Warn("webhook delivery: prepare the notification", slog.String("delivery", d.ID), slog.Any("error", err))
			return
		}
		a, retryAfter := w.attempt(ctx, sub, d)
		if ctx.Err() != nil {
			return
		}
		disable = applyAttempt(&d, a, retryAfter)
		if d.Event == EventHandshake && sub.FHIR != nil && !retryHandshake(&d, a) {
			if err := settleHandshake(ctx, w.o.Store, &d, a); err != nil {
				w.o.Log.Warn("webhook delivery: settle the handshake", slog.String("delivery", d.ID), slog.Any("error", err))
				return
			}
		}
	}
	// The subscription is disabled first, so that a crash before the outcome is stored still
	// leaves it disabled.
	switch {
	case disable:
		w.disable(ctx, sub.ID, DisabledByReceiver, "the receiver answered 410 Gone")
	case ownerOff != "":
		w.disable(ctx, sub.ID, DisabledByOwner, ownerOff)
	}
	d.LeaseOwner, d.LeaseUntil = "", time.Time{}
	if err := w.finish(ctx, entry, d); err != nil && ctx.Err() == nil {
		w.o.Log.Warn("webhook delivery: record outcome", slog.String("delivery", d.ID), slog.Any("error", err))
	}
}

// refusal says why delivery d to sub (read with error readErr) is not to be sent, "" when it
// is: the subscription is gone or disabled, a FHIR subscription's handshake has not succeeded,
// or its owner is no longer active (ownerOff then holds the owner's reason, to disable the
// subscription by).
func (w *Worker) refusal(ctx context.Context, sub Subscription, d Delivery, readErr error) (refused, ownerOff string, err error) {
	switch {
	case errors.Is(readErr, ErrNotFound):
		return "subscription deleted", "", nil
	case sub.Status != StatusActive && sub.DisabledReason != "":
		return "subscription disabled: " + sub.DisabledReason, "", nil
	case sub.Status != StatusActive:
		return "subscription disabled", "", nil
	case sub.FHIR != nil && d.Event != EventHandshake && sub.FHIR.State != FHIRActive:
		return "subscription not active", "", nil
	}
	active, reason, err := w.owners.status(ctx, sub.Owner)
	if err != nil || active {
		return "", "", err
	}
	return "not delivered: " + reason, reason, nil
}

// prepare readies a FHIR event notification before its attempt: it numbers the event at its
// first attempt, and withholds the focus from an owner that may not read its type now. It
// returns the subscription the attempt renders, a copy where it differs from the cached one
// other senders read.
func (w *Worker) prepare(ctx context.Context, sub Subscription, d *Delivery) (Subscription, error) {
	if sub.FHIR == nil || d.Event != EventProviderChanged {
		return sub, nil
	}
	c := *sub.FHIR
	if c.Content != "empty" { // asked first: a number given is not to be lost to its failure
		may, err := w.owners.mayRead(ctx, sub.Owner, c.FocusType)
		if err != nil {
			return sub, err
		}
		c.FocusWithheld = !may
	}
	if d.EventNumber == 0 {
		n, err := numberEvent(ctx, w.o.Store, sub.ID)
		if err != nil {
			return sub, err
		}
		d.EventNumber, c.Events = n, n
	}
	sub.FHIR = &c
	return sub, nil
}

// applyAttempt records an attempt's outcome in d: delivered on a 2xx, failed on 410 (and the
// subscription is to be disabled: it reports true) or when the retry window is over, else due
// again by the schedule or the receiver's Retry-After.
func applyAttempt(d *Delivery, a Attempt, retryAfter time.Duration) (disable bool) {
	d.Log = append(d.Log, a)
	if len(d.Log) > MaxLoggedAttempts {
		d.Log = d.Log[len(d.Log)-MaxLoggedAttempts:]
	}
	switch {
	case a.Status >= 200 && a.Status < 300:
		d.Status, d.DeliveredAt = DeliveryDelivered, &a.At
	case a.Status == http.StatusGone:
		d.Status, d.FailReason = DeliveryFailed, "the receiver answered 410 Gone; the subscription is disabled"
		return true
	default:
		next, ok := nextAttempt(d.CreatedAt, a.At, d.Attempts, retryAfter)
		if !ok {
			d.Status, d.FailReason = DeliveryFailed, "no 2xx answer within 24 hours"
		} else {
			d.NextAttemptAt = next
		}
	}
	return false
}

// finish stores the delivery's new state at the version this worker's claim wrote, then moves
// or drops its queue entry. A lost compare-and-swap means the lease lapsed and another worker
// took the delivery over; its outcome is the one kept.
func (w *Worker) finish(ctx context.Context, entry string, d Delivery) error {
	rec, err := d.record()
	if err != nil {
		return err
	}
	if d.Status != DeliveryPending {
		rec.ExpiresAt = w.o.Now().Add(DeliveryRetention)
	}
	if _, err := w.o.Store.PutRecord(ctx, rec); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil
		}
		return err
	}
	if d.Status == DeliveryPending {
		return w.moveEntry(ctx, entry, d.NextAttemptAt, d.ID)
	}
	return w.dropEntry(ctx, entry)
}

// maxResponseRead is how much of a receiver's response body is read (and discarded) so the
// connection can be reused.
const maxResponseRead = 4 << 10

// userAgent names the sender to receivers.
var userAgent = "providerdir-webhook/" + buildinfo.PipelineVersion()

// attempt POSTs the delivery, signed, and returns how it went and the receiver's Retry-After.
func (w *Worker) attempt(ctx context.Context, sub Subscription, d Delivery) (Attempt, time.Duration) {
	at := w.o.Now().UTC()
	a := Attempt{At: at}
	body, ct := withDeliveredAt(d.Payload, at), "application/json"
	if sub.FHIR != nil {
		var err error
		if body, err = fhirBody(ctx, w.o.Notifier, sub, d, at); err != nil {
			a.Error = "cannot render the notification: " + err.Error()
			return a, 0
		}
		ct = cmp.Or(sub.FHIR.Payload, "application/fhir+json")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.URL, bytes.NewReader(body))
	if err != nil {
		a.Error = "cannot build the request: " + err.Error()
		return a, 0
	}
	h := req.Header
	if sub.FHIR != nil {
		setChannelHeaders(h, sub.FHIR.Headers)
	}
	h.Set("Content-Type", ct)
	h.Set("User-Agent", userAgent)
	h.Set(HeaderEventID, d.EventID)
	h.Set(HeaderEvent, d.Event)
	h.Set(HeaderSignature, Sign(at, body, sub.secrets(at)...))
	began := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		a.Error = attemptNoResponse // with no duration, which would tell the cause apart
		return a, 0
	}
	a.DurationMS = time.Since(began).Milliseconds()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseRead))
	resp.Body.Close()
	a.Status = resp.StatusCode
	return a, parseRetryAfter(resp.Header.Get("Retry-After"), at)
}

// attemptNoResponse is the delivery log's reason for every POST that got no HTTP answer:
// an address the policy refuses, a connection refused, reset or unreachable, a timeout or a
// failed TLS handshake alike, and never the address or the URL. One reason for them all, and
// no duration, keep the log from telling which hosts and ports exist, as a port scanner would.
const attemptNoResponse = "no response"

// disable marks a subscription disabled, by whom and why.
func (w *Worker) disable(ctx context.Context, id, by, reason string) {
	_, err := disableSubscription(ctx, w.o.Store, id, by, reason)
	if err != nil && !errors.Is(err, ErrNotFound) {
		w.o.Log.Warn("webhook: disable subscription", slog.String("subscription", id), slog.Any("error", err))
	}
}

// ownersLoop keeps subscriptions in step with their owners every FanoutInterval until ctx ends.
func (w *Worker) ownersLoop(ctx context.Context) {
	for ctx.Err() == nil {
		if err := w.followOwners(ctx); err != nil && ctx.Err() == nil {
			w.o.Log.Warn("webhook: follow the owners of subscriptions", slog.Any("error", err))
		}
		sleep(ctx, w.o.FanoutInterval)
	}
}

// followOwners disables the active subscriptions whose owner is not active, with the owner's
// reason, and makes active again those disabled for their owner once it is, so a subscription's
// status tells its owner's state even while nothing is being delivered.
func (w *Worker) followOwners(ctx context.Context) error {
	states, err := subscriptionStates(ctx, w.o.Store)
	if err != nil {
		return err
	}
	for _, s := range states {
		active, reason, err := w.owners.status(ctx, s.Owner)
		if err != nil {
			return err
		}
		switch {
		case s.Status == StatusActive && !active:
			_, err = disableSubscription(ctx, w.o.Store, s.ID, DisabledByOwner, reason)
		case s.Status == StatusDisabled && s.DisabledBy == DisabledByOwner && active:
			_, _, err = enableSubscription(ctx, w.o.Store, s.ID, func(cur Subscription) bool { return cur.DisabledBy == DisabledByOwner }, w.o.Now())
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	}
	return nil
}
