package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// openLoop runs every scenario at each of its offered rates, against the server and against the
// ceiling alternating in o.rounds rounds, each with its own warm-up, which share o.duration. Load
// from other processes on the machine comes and goes; alternating lets it fall on both sides
// alike, and a row's figures, the medians of its rounds, let one disturbed round move none of
// them.
func openLoop(client *http.Client, base, ceiling string, scenarios []scenario, o options) ([]row, error) {
	var rows []row
	round := o.duration / time.Duration(o.rounds)
	for _, sc := range scenarios {
		rates := o.rates
		if sc.rates != nil {
			rates = sc.rates
		}
		for _, rate := range rates {
			if err := sc.prepare(int(float64(rate) * (time.Duration(o.rounds)*o.warmup + o.duration).Seconds())); err != nil {
				return nil, fmt.Errorf("%s: %w", sc.name, err)
			}
			r := row{scenario: sc.name, rate: rate}
			if sc.target != nil && sc.target.rate == rate {
				r.target = sc.target
			}
			var next int64
			for range o.rounds {
				// The ceiling's rounds send the same requests as the server's, which its
				// recorded answers do not check; the server's are numbered on from round to
				// round, so that one-time credentials prepared for them are never sent twice.
				srv, after := load(client, base, sc, rate, o.warmup, round, o.inflight, next)
				ceil, _ := load(client, ceiling, sc, rate, o.warmup, round, o.inflight, next)
				r.server = append(r.server, srv)
				r.ceiling = append(r.ceiling, ceil)
				next = after
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// saturation: as many requests as o.clients closed-loop clients get through, against the server
// and against the ceiling. The two alternate in short rounds rather than one after the other, so
// that load from other processes on the machine, which comes and goes, falls on both alike; the
// spread of the rounds' ratios shows how much it moved them. Metered scenarios are left out: an
// unbounded closed loop would exhaust their quotas and presigned assertions.
func saturation(out io.Writer, client *http.Client, base, ceilURL string, scenarios []scenario, o options) error {
	round := o.duration / time.Duration(o.rounds)
	fmt.Fprintf(out, "\nsaturation: %d closed-loop clients, %s per scenario, server and ceiling alternating in %d rounds of %s\n\n",
		o.clients, o.duration, o.rounds, round)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\treq/s\terrors\tceiling req/s\tthroughput/ceiling\tround ratios\t")
	for _, sc := range scenarios {
		if sc.metered {
			continue
		}
		var srv, ceil []tally
		for range o.rounds {
			srv = append(srv, saturate(client, base, sc, o.clients, round, 0))
			ceil = append(ceil, saturate(client, ceilURL, sc, o.clients, round, 0))
		}
		s, c := sum(srv), sum(ceil)
		lo, hi := spread(srv, ceil)
		fmt.Fprintf(tw, "%s\t%.0f\t%d\t%.0f\t%.2f\t%.2f–%.2f\t\n", sc.name, s.rate(), s.failed, c.rate(), s.rate()/c.rate(), lo, hi)
	}
	return tw.Flush()
}

// tally is what a saturation run got through.
type tally struct {
	ok, failed int64
	elapsed    time.Duration
}

func (t tally) rate() float64 { return perSecond(t.ok, t.elapsed) }

func sum(ts []tally) tally {
	var out tally
	for _, t := range ts {
		out.ok += t.ok
		out.failed += t.failed
		out.elapsed += t.elapsed
	}
	return out
}

// spread returns the lowest and the highest ratio of a server round to the ceiling round after it.
func spread(srv, ceil []tally) (lo, hi float64) {
	return extremes(len(srv), func(i int) float64 { return srv[i].rate() / ceil[i].rate() })
}

// extremes returns the lowest and the highest of f(0) to f(n-1).
func extremes(n int, f func(i int) float64) (lo, hi float64) {
	for i := range n {
		x := f(i)
		if i == 0 || x < lo {
			lo = x
		}
		if i == 0 || x > hi {
			hi = x
		}
	}
	return lo, hi
}

// saturate runs clients closed-loop clients on sc against base for d and counts the requests
// answered 200 and the others (errors and other statuses). Its requests are numbered from
// after from on.
func saturate(c *http.Client, base string, sc scenario, clients int, d time.Duration, from int64) tally {
	var ok, failed, next atomic.Int64
	next.Store(from)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if do(c, sc.request(context.Background(), base, int(next.Add(1)))) {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return tally{ok: ok.Load(), failed: failed.Load(), elapsed: time.Since(start)}
}

// do sends req, reads the whole answer and reports whether it was a 200.
func do(c *http.Client, req *http.Request) bool {
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// result holds the latencies of one measured run.
type result struct {
	latencies []time.Duration
	errors    int64
	elapsed   time.Duration
}

func (r result) quantile(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(q*float64(len(r.latencies))))]
}

// perSecond is n over d, or 0 for no time at all.
func perSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// rounds are the measured runs of one side of a row, one a round.
type rounds []result

// quantile is the median of the rounds' q-quantiles (of the middle two, their mean).
func (rs rounds) quantile(q float64) time.Duration {
	if len(rs) == 0 {
		return 0
	}
	qs := make([]time.Duration, len(rs))
	for i, r := range rs {
		qs[i] = r.quantile(q)
	}
	slices.Sort(qs)
	m := len(qs) / 2
	if len(qs)%2 == 0 {
		return (qs[m-1] + qs[m]) / 2
	}
	return qs[m]
}

// throughput is the answers of all the rounds over their measured time together.
func (rs rounds) throughput() float64 {
	var answered int
	var elapsed time.Duration
	for _, r := range rs {
		answered += len(r.latencies)
		elapsed += r.elapsed
	}
	return perSecond(int64(answered), elapsed)
}

func (rs rounds) errors() int64 {
	var n int64
	for _, r := range rs {
		n += r.errors
	}
	return n
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// load issues sc's requests against base at rate for warmup (discarded) then d (measured),
// numbered from from on, and returns the measured run and the number after the last it issued.
func load(c *http.Client, base string, sc scenario, rate int, warmup, d time.Duration, inflight int, from int64) (result, int64) {
	warm := fire(c, base, sc, fired{scheduled: from}, rate, warmup, inflight, nil)
	var mu sync.Mutex
	res := result{latencies: make([]time.Duration, 0, int(float64(rate)*d.Seconds()))}
	start := time.Now()
	done := fire(c, base, sc, warm, rate, d, inflight, func(d time.Duration) {
		mu.Lock()
		res.latencies = append(res.latencies, d)
		mu.Unlock()
	})
	res.errors = done.errors
	res.elapsed = time.Since(start)
	slices.Sort(res.latencies)
	return res, done.scheduled
}

// fired is what one schedule issued: the requests it scheduled and how many of them failed.
type fired struct{ scheduled, errors int64 }

// fire runs the open-loop schedule of sc's requests, numbered from after.scheduled on. A request
// that cannot start because inflight are outstanding is counted as an error, not delayed:
// delaying it would hide the server's stall from the latencies.
func fire(c *http.Client, base string, sc scenario, after fired, rate int, d time.Duration, inflight int, record func(time.Duration)) fired {
	interval := time.Second / time.Duration(rate)
	n := int(d / interval)
	sem := make(chan struct{}, inflight)
	var errs atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithTimeout(context.Background(), d+15*time.Second)
	defer cancel()
	start := time.Now()
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		select {
		case sem <- struct{}{}:
		default:
			errs.Add(1)
			continue
		}
		req := sc.request(ctx, base, int(after.scheduled)+i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if !do(c, req) {
				errs.Add(1)
				return
			}
			if record != nil {
				record(time.Since(due))
			}
		}()
	}
	wg.Wait()
	return fired{scheduled: after.scheduled + int64(n), errors: errs.Load()}
}
