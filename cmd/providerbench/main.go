// Command providerbench drives a running providerd over loopback at fixed request rates and
// reports latency percentiles and throughput per scenario, next to a ceiling measured in the same
// run: a server in this process that answers the same paths with the same bytes from memory. The
// ratio to the ceiling is the figure to compare across machines and runs; absolute timings on a
// shared 2-core machine are not.
//
//	providerbench --base-url http://127.0.0.1:8080 --rate 1000 --duration 10s
//
// The load is open-loop: requests are issued on a fixed schedule whether or not earlier ones have
// answered, and each latency is measured from its scheduled start, so a stalled server shows as
// latency rather than as a politely slowed client. The FHIR scenarios need the server to run with
// --fhir-public-read (token checks are measured by the smart package's benchmarks).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "providerbench:", err)
		os.Exit(1)
	}
}

type options struct {
	baseURL  string
	rate     int
	duration time.Duration
	warmup   time.Duration
	inflight int
	clients  int
	rounds   int
}

func run(args []string, out io.Writer) error {
	var o options
	fs := flag.NewFlagSet("providerbench", flag.ContinueOnError)
	fs.StringVar(&o.baseURL, "base-url", "http://127.0.0.1:8080", "providerd to measure (serving with --fhir-public-read)")
	fs.IntVar(&o.rate, "rate", 1000, "requests per second per scenario")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured time per scenario")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured time before each scenario")
	fs.IntVar(&o.inflight, "inflight", 512, "most requests in flight at once")
	fs.IntVar(&o.clients, "clients", 32, "concurrent clients of the saturation run (0 skips it)")
	fs.IntVar(&o.rounds, "rounds", 5, "rounds of the saturation run, server and ceiling alternating")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.rate <= 0 || o.duration <= 0 || o.inflight <= 0 || o.rounds <= 0 {
		return errors.New("--rate, --duration, --inflight and --rounds must be positive")
	}
	base := strings.TrimRight(o.baseURL, "/")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.inflight, MaxConnsPerHost: o.inflight}, Timeout: 10 * time.Second}

	scenarios, err := discover(client, base)
	if err != nil {
		return err
	}
	ceiling, err := startCeiling(client, base, scenarios)
	if err != nil {
		return err
	}
	defer ceiling.Close()

	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(out, "rate %d req/s, %s per scenario after %s warm-up, at most %d in flight\n\n", o.rate, o.duration, o.warmup, o.inflight)
	fmt.Fprintln(tw, "scenario\ttarget\tp50 ms\tp95 ms\tp99 ms\treq/s\terrors\tceiling p99 ms\tceiling req/s\tthroughput/ceiling\t")
	for _, sc := range scenarios {
		srv := load(client, base+sc.path, o)
		ceil := load(client, ceiling.URL+sc.path, o)
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.2f\t%.0f\t%d\t%.2f\t%.0f\t%.2f\t\n", sc.name, o.rate,
			ms(srv.quantile(0.50)), ms(srv.quantile(0.95)), ms(srv.quantile(0.99)), srv.throughput(), srv.errors,
			ms(ceil.quantile(0.99)), ceil.throughput(), srv.throughput()/ceil.throughput())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if o.clients <= 0 {
		return nil
	}
	// Saturation: as many requests as o.clients closed-loop clients get through, against the
	// server and against the ceiling. The two alternate in short rounds rather than one after
	// the other, so that load from other processes on the machine, which comes and goes, falls
	// on both alike; the spread of the rounds' ratios shows how much it moved them.
	round := o.duration / time.Duration(o.rounds)
	fmt.Fprintf(out, "\nsaturation: %d closed-loop clients, %s per scenario, server and ceiling alternating in %d rounds of %s\n\n",
		o.clients, o.duration, o.rounds, round)
	fmt.Fprintln(tw, "scenario\treq/s\terrors\tceiling req/s\tthroughput/ceiling\tround ratios\t")
	for _, sc := range scenarios {
		var srv, ceil []tally
		for range o.rounds {
			srv = append(srv, saturate(client, base+sc.path, o.clients, round))
			ceil = append(ceil, saturate(client, ceiling.URL+sc.path, o.clients, round))
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

func (t tally) rate() float64 {
	if t.elapsed <= 0 {
		return 0
	}
	return float64(t.ok) / t.elapsed.Seconds()
}

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
	for i := range srv {
		r := srv[i].rate() / ceil[i].rate()
		if i == 0 || r < lo {
			lo = r
		}
		if i == 0 || r > hi {
			hi = r
		}
	}
	return lo, hi
}

// saturate runs clients closed-loop clients on url for d and counts the requests answered 200
// and the others (errors and other statuses).
func saturate(c *http.Client, url string, clients int, d time.Duration) tally {
	var ok, failed atomic.Int64
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				resp, err := c.Get(url)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
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

// scenario is one request shape, with a concrete path found in the served data.
type scenario struct {
	name string
	path string
}

// discover picks real ids and codes from the server so that every scenario hits data.
func discover(c *http.Client, base string) ([]scenario, error) {
	var bundle struct {
		Entry []struct {
			Resource struct {
				ID         string `json:"id"`
				Identifier []struct {
					System, Value string
				} `json:"identifier"`
				Name []struct {
					Family string `json:"family"`
				} `json:"name"`
			} `json:"resource"`
		} `json:"entry"`
	}
	if err := getJSON(c, base+"/fhir/Practitioner?_count=1", &bundle); err != nil {
		return nil, fmt.Errorf("find a practitioner (is providerd running with --fhir-public-read?): %w", err)
	}
	if len(bundle.Entry) == 0 {
		return nil, errors.New("the server holds no Practitioner")
	}
	p := bundle.Entry[0].Resource
	npi := p.ID
	for _, id := range p.Identifier {
		if id.System == "http://hl7.org/fhir/sid/us-npi" {
			npi = id.Value
		}
	}
	family := "a"
	if len(p.Name) > 0 && p.Name[0].Family != "" {
		family = namePrefix(p.Name[0].Family)
	}
	return []scenario{
		{"read Practitioner by id", "/fhir/Practitioner/" + p.ID},
		{"Practitioner?identifier=", "/fhir/Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|" + npi},
		{"PractitionerRole?specialty=&_include", "/fhir/PractitionerRole?specialty=http://nucc.org/provider-taxonomy|207RC0000X&_include=PractitionerRole:practitioner"},
		{"Practitioner?name= (prefix)", "/fhir/Practitioner?name=" + url.QueryEscape(family)},
	}, nil
}

// namePrefix is the prefix a person might type for a family name: its first three letters, in
// lower case, cut at a character boundary (a name may be accented).
func namePrefix(family string) string {
	r := []rune(strings.ToLower(family))
	return string(r[:min(3, len(r))])
}

func getJSON(c *http.Client, url string, v any) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// ceiling serves, for each scenario path, the exact bytes and headers the real server gave
// (Date aside, which net/http sets), so that the client parses the same response from both: the
// same framing (a Content-Length or chunks), the same header lines.
type ceiling struct {
	URL string
	srv *http.Server
}

func (c *ceiling) Close() { _ = c.srv.Close() }

func startCeiling(c *http.Client, base string, scenarios []scenario) (*ceiling, error) {
	type canned struct {
		body   []byte
		header http.Header
	}
	bodies := map[string]canned{}
	for _, sc := range scenarios {
		resp, err := c.Get(base + sc.path)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %s", sc.path, resp.Status)
		}
		h := resp.Header.Clone()
		h.Del("Date")
		bodies[sc.path] = canned{b, h}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		for k, v := range b.header {
			w.Header()[k] = v
		}
		_, _ = w.Write(b.body)
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &ceiling{URL: "http://" + ln.Addr().String(), srv: srv}, nil
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

func (r result) throughput() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(len(r.latencies)) / r.elapsed.Seconds()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// load issues GETs of url at o.rate for o.warmup (discarded) then o.duration (measured).
func load(c *http.Client, url string, o options) result {
	fire(c, url, o.rate, o.warmup, o.inflight, nil)
	var mu sync.Mutex
	res := result{latencies: make([]time.Duration, 0, int(float64(o.rate)*o.duration.Seconds()))}
	start := time.Now()
	res.errors = fire(c, url, o.rate, o.duration, o.inflight, func(d time.Duration) {
		mu.Lock()
		res.latencies = append(res.latencies, d)
		mu.Unlock()
	})
	res.elapsed = time.Since(start)
	slices.Sort(res.latencies)
	return res
}

// fire runs the open-loop schedule and returns the number of failed requests. A request that
// cannot start because o.inflight are outstanding is counted as an error, not delayed: delaying
// it would hide the server's stall from the latencies.
func fire(c *http.Client, url string, rate int, d time.Duration, inflight int, record func(time.Duration)) int64 {
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
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := c.Do(req)
			if err != nil {
				errs.Add(1)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs.Add(1)
				return
			}
			if record != nil {
				record(time.Since(due))
			}
		}()
	}
	wg.Wait()
	return errs.Load()
}
