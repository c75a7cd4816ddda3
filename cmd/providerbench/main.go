// Command providerbench drives a running providerd over loopback at fixed offered request rates
// and reports latency percentiles and achieved throughput per scenario and rate, next to a
// ceiling measured in the same run: a server in this process that answers the same requests with
// the same bytes from memory. The ratio to the ceiling is the figure to compare across machines
// and runs; absolute timings on a shared 2-core machine are not.
//
//	providerbench --base-url http://127.0.0.1:8080 --rates 500,1000 --duration 10s
//
// Some scenarios need credentials and are run only when given them: the supply API's by-state
// table (--bearer-file, a file of supply API keys, one a line, used in turn so that no one key's
// quota is reached), the token endpoint (--smart-key, a client's private JWK; each request
// carries an assertion signed before the run, and an X-Forwarded-For address of its own so that
// the per-address token budget is not what is measured, which needs providerd to trust loopback
// with --trusted-proxies), the read by id with an access token of that client, and the
// resolver's (--service-key-file, a file of resolver keys, with --queries). --export-type adds
// the download of a FHIR bulk export file of that type, timed against the same bytes served
// by net/http from a file. Keys come in files, not on the command line, where any process of
// the machine could read them. With --smart-key the run also reports the token endpoint's own
// ceiling, the signature check alone, in process; and the read with a token against the same
// read without one as throughput, --token-clients closed-loop clients each, in alternating
// rounds: what the bearer check and the client's budget cost a client that reads as fast as
// it can.
//
// The load is open-loop: requests are issued on a fixed schedule whether or not earlier ones have
// answered, and each latency is measured from its scheduled start, so a stalled server shows as
// latency rather than as a politely slowed client. The server and the ceiling take turns in
// --rounds rounds, and a row's latencies are the medians of its rounds'. The FHIR scenarios
// need the server to run with --fhir-public-read, but for the read with a token.
//
// The service's targets for its FHIR reads and searches and its token endpoint are set at 2,000
// requests a second offered; the row of that rate says whether the run met its scenario's
// target, and by how much it fell short if not. The token read's line does the same for its
// own target.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"providerdir/match/queryset"
	"providerdir/smart"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "providerbench:", err)
		os.Exit(1)
	}
}

type options struct {
	baseURL  string
	rates    []int
	duration time.Duration
	warmup   time.Duration
	inflight int
	clients  int
	// tokenClients are the closed-loop clients of the read with a token against the read
	// without one.
	tokenClients int
	rounds       int
	bearer       []string
	smartKey     string
	clientID     string
	markdown     string
	chart        string
	// serviceKeys are resolver keys; with queries (a labelled query set) they add the
	// resolver scenarios and the search-quality run.
	serviceKeys []string
	queries     string
	// exportType, when set, adds the bulk export measurement of that type; its file is kept in
	// exportDir while the ceiling is measured.
	exportType string
	exportDir  string
}

func run(args []string, out io.Writer) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	base := strings.TrimRight(o.baseURL, "/")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.inflight, MaxConnsPerHost: o.inflight}, Timeout: 10 * time.Second}
	scenarios, labelled, err := buildScenarios(client, base, o)
	if err != nil {
		return err
	}
	ceiling, err := startCeiling(client, base, scenarios)
	if err != nil {
		return err
	}
	defer ceiling.Close()

	fmt.Fprintf(out, "%s per scenario and rate in %d rounds, server and ceiling alternating, each after %s warm-up; at most %d in flight\n\n",
		o.duration, o.rounds, o.warmup, o.inflight)
	rows, err := openLoop(client, base, ceiling.URL, scenarios, o)
	if err != nil {
		return err
	}
	// The token read's cost at saturation goes under the table, beside the token endpoint's
	// ceiling: with the open-loop rows it answers what a token costs a read.
	var tokenLine string
	if pair, ok := tokenPair(scenarios); ok && o.tokenClients > 0 {
		if tokenLine, err = tokenCost(client, base, pair, o); err != nil {
			return err
		}
	}
	if err := report(out, rows, o, tokenLine); err != nil {
		return err
	}
	if labelled != nil {
		if err := searchQuality(out, client, base, o.serviceKeys, labelled); err != nil {
			return err
		}
	}
	if o.exportType != "" {
		res, err := bulkExport(base, o.exportType, o.exportDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\n%s\n", res)
	}
	if o.clients <= 0 {
		return nil
	}
	return saturation(out, client, base, ceiling.URL, scenarios, o)
}

// parseOptions reads the command line.
func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("providerbench", flag.ContinueOnError)
	fs.StringVar(&o.baseURL, "base-url", "http://127.0.0.1:8080", "providerd to measure (serving with --fhir-public-read)")
	rates := fs.String("rates", "1000", "comma-separated offered rates, requests per second, each run for every scenario")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "measured time per scenario and rate")
	fs.DurationVar(&o.warmup, "warmup", 2*time.Second, "unmeasured time before each measured run")
	fs.IntVar(&o.inflight, "inflight", 512, "most requests in flight at once")
	fs.IntVar(&o.clients, "clients", 32, "concurrent clients of the saturation run (0 skips it)")
	fs.IntVar(&o.tokenClients, "token-clients", 8, "closed-loop clients of the run that sets the read with a SMART token against the same read without one, with --smart-key (0 skips it)")
	fs.IntVar(&o.rounds, "rounds", 3, "rounds of each measurement, server and ceiling alternating, which share its measured time")
	bearer := fs.String("bearer-file", "", "file of supply API keys, one a line, for the by-state scenario (empty skips it)")
	fs.StringVar(&o.smartKey, "smart-key", "", "file holding a SMART client's private JWK for the token scenario (empty skips it)")
	fs.StringVar(&o.clientID, "client-id", smart.SandboxClientID, "the SMART client id of --smart-key")
	fs.StringVar(&o.markdown, "markdown", "", "also write the open-loop table to this file as a Markdown table")
	fs.StringVar(&o.chart, "chart", "", "also draw each scenario's p99 latency against the offered rate to this PNG file")
	serviceKeys := fs.String("service-key-file", "", "file of resolver keys (X-Service-Key), one a line, for the resolver scenarios (empty skips them)")
	fs.StringVar(&o.queries, "queries", "", "labelled search query set (providerctl generate writes one) for the resolver scenarios and the search-quality run")
	fs.StringVar(&o.exportType, "export-type", "", "FHIR type whose bulk export file to download and time against its ceiling (empty skips it)")
	fs.StringVar(&o.exportDir, "export-dir", os.TempDir(), "directory the export file is kept in while its ceiling is measured")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.rates, err = parseRates(*rates); err != nil {
		return o, err
	}
	if o.duration <= 0 || o.inflight <= 0 || o.rounds <= 0 {
		return o, errors.New("--duration, --inflight and --rounds must be positive")
	}
	if o.tokenClients < 0 {
		return o, errors.New("--token-clients must not be negative")
	}
	if o.bearer, err = readKeys(*bearer); err != nil {
		return o, err
	}
	if o.serviceKeys, err = readKeys(*serviceKeys); err != nil {
		return o, err
	}
	if (len(o.serviceKeys) > 0) != (o.queries != "") {
		return o, errors.New("--service-key-file and --queries go together")
	}
	return o, nil
}

// readKeys reads a file of API keys, one a line, blank lines skipped; none for no file.
func readKeys(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	keys := strings.Fields(string(b))
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no key", path)
	}
	return keys, nil
}

// buildScenarios lists what is measured: the FHIR scenarios the server's data allows, and those
// whose credentials or query set the options give. It also returns the labelled query set.
func buildScenarios(client *http.Client, base string, o options) ([]scenario, []queryset.Query, error) {
	scenarios, err := discover(client, base)
	if err != nil {
		return nil, nil, err
	}
	if len(o.bearer) > 0 {
		sc, err := supplyScenario(client, base, o.bearer)
		if err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc, exportScenario(sc, o.bearer))
	}
	if o.smartKey != "" {
		sc, err := tokenScenario(o.smartKey, o.clientID, base+tokenPath)
		if err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc)
		if sc, err = tokenReadScenario(client, o.smartKey, o.clientID, base); err != nil {
			return nil, nil, err
		}
		scenarios = append(scenarios, sc)
	}
	if o.queries == "" {
		return scenarios, nil, nil
	}
	labelled, err := queryset.Read(o.queries)
	if err != nil {
		return nil, nil, err
	}
	sc, err := resolverScenarios(o.serviceKeys, labelled)
	if err != nil {
		return nil, nil, err
	}
	return append(scenarios, sc...), labelled, nil
}

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

// report prints the open-loop table and the notes under it (the token endpoint's ceiling, and
// tokenLine, the token read's cost, when there is one), and writes the Markdown table and the
// chart when asked.
func report(out io.Writer, rows []row, o options, tokenLine string) error {
	if err := writeTable(out, rows); err != nil {
		return err
	}
	note := ""
	if o.smartKey != "" {
		key, err := readKey(o.smartKey)
		if err != nil {
			return err
		}
		rate, err := verifyCeiling(key, o.duration)
		if err != nil {
			return err
		}
		note = fmt.Sprintf("The token endpoint's own ceiling, the signature check of an assertion alone (in process, %d cores): %.0f per second.", runtime.GOMAXPROCS(0), rate)
		fmt.Fprintln(out, "\n"+note)
	}
	if tokenLine != "" {
		fmt.Fprintln(out, "\n"+tokenLine)
		note = strings.TrimSpace(note + "\n\n" + tokenLine)
	}
	if o.markdown != "" {
		if err := writeMarkdown(o.markdown, rows, note); err != nil {
			return err
		}
	}
	if o.chart != "" {
		return writeChart(o.chart, rows)
	}
	return nil
}

// parseRates reads a comma-separated list of positive request rates.
func parseRates(s string) ([]int, error) {
	var rates []int
	for _, f := range strings.Split(s, ",") {
		r, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || r <= 0 {
			return nil, fmt.Errorf("--rates: %q is not a positive number of requests per second", f)
		}
		rates = append(rates, r)
	}
	return rates, nil
}

// row is one scenario at one offered rate, its rounds against the server and against the
// ceiling.
type row struct {
	scenario        string
	rate            int
	server, ceiling rounds
	target          *target // the scenario's, when it is for this row's rate
}

// cells are the row's figures as text, in the order of tableHeader.
func (r row) cells() []string {
	s, c := r.server, r.ceiling
	lo, hi := r.p99Spread()
	return []string{r.scenario, strconv.Itoa(r.rate),
		f2(ms(s.quantile(0.50))), f2(ms(s.quantile(0.95))), f2(ms(s.quantile(0.99))),
		fmt.Sprintf("%.0f", s.throughput()), strconv.FormatInt(s.errors(), 10),
		f2(ms(c.quantile(0.50))), f2(ms(c.quantile(0.99))), fmt.Sprintf("%.0f", c.throughput()),
		f2(ratio(s.throughput(), c.throughput())), f2(ratio(ms(s.quantile(0.99)), ms(c.quantile(0.99)))),
		f2(lo) + "–" + f2(hi), r.target.verdict(r)}
}

// p99Spread returns the lowest and the highest ratio of a server round's p99 to that of the
// ceiling round after it.
func (r row) p99Spread() (lo, hi float64) {
	return extremes(len(r.server), func(i int) float64 {
		return ratio(ms(r.server[i].quantile(0.99)), ms(r.ceiling[i].quantile(0.99)))
	})
}

var tableHeader = []string{"scenario", "offered req/s", "p50 ms", "p95 ms", "p99 ms", "achieved req/s", "errors",
	"ceiling p50 ms", "ceiling p99 ms", "ceiling req/s", "achieved/ceiling", "p99/ceiling p99", "rounds' p99/ceiling p99", "target"}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// ratio is a/b, or 0 when b is 0 (a run with no answer at all).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// target is a scenario's promise at one offered rate: every request answered and at least
// minAchieved of the offered rate achieved; when maxP99 is set, a p99 no longer than maxP99 and
// no more than maxOverCeiling times the ceiling's (the table's p99/ceiling p99).
type target struct {
	rate           int
	maxP99         time.Duration
	maxOverCeiling float64
}

// minAchieved is the share of the offered rate a run must achieve to have sustained it: an
// open-loop schedule ends with a few requests still in flight.
const minAchieved = 0.99

// latencyTarget is a target at rate of a p99 no longer than p99 and at least ofCeiling as good
// as the ceiling's (the ceiling's p99 over the server's): 0.6 allows 1/0.6 times its p99.
func latencyTarget(rate int, p99 time.Duration, ofCeiling float64) *target {
	return &target{rate: rate, maxP99: p99, maxOverCeiling: 1 / ofCeiling}
}

// verdict says whether r met t: "met" and the target, or "short" and by how much each part
// missed. It is empty for no target.
func (t *target) verdict(r row) string {
	if t == nil {
		return ""
	}
	var miss, terms []string
	achieved := r.server.throughput()
	if errs := r.server.errors(); errs > 0 {
		miss = append(miss, fmt.Sprintf("%d errors", errs))
	}
	if floor := minAchieved * float64(t.rate); achieved < floor {
		miss = append(miss, fmt.Sprintf("%.0f req/s achieved, %.0f under %d", achieved, float64(t.rate)-achieved, t.rate))
	}
	terms = append(terms, fmt.Sprintf("%d req/s sustained", t.rate))
	if t.maxP99 > 0 {
		p99 := r.server.quantile(0.99)
		over := ratio(ms(p99), ms(r.ceiling.quantile(0.99)))
		terms = append(terms, fmt.Sprintf("p99 ≤ %s ms and ≤ %s× the ceiling's", trim(ms(t.maxP99)), f2(t.maxOverCeiling)))
		if p99 > t.maxP99 {
			miss = append(miss, fmt.Sprintf("p99 %s ms, %s ms over %s ms", f2(ms(p99)), f2(ms(p99-t.maxP99)), trim(ms(t.maxP99))))
		}
		if over > t.maxOverCeiling {
			miss = append(miss, fmt.Sprintf("%s× the ceiling's p99, over %s", f2(over), f2(t.maxOverCeiling)))
		}
	}
	if len(miss) > 0 {
		return "short: " + strings.Join(miss, "; ")
	}
	return "met: " + strings.Join(terms, ", ")
}

// trim formats v rounded to two decimals, without trailing zeros.
func trim(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }

func writeTable(out io.Writer, rows []row) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(tableHeader, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r.cells(), "\t")+"\t")
	}
	return tw.Flush()
}

// writeMarkdown writes the table, and note, when there is one, as a paragraph after it.
func writeMarkdown(file string, rows []row, note string) error {
	var b strings.Builder
	b.WriteString("| " + strings.Join(tableHeader, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" ---: |", len(tableHeader)) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r.cells(), " | ") + " |\n")
	}
	if note != "" {
		b.WriteString("\n" + note + "\n")
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
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

// tokenPair returns the run's read by id with a SMART token, and the same request without the
// token, when the run has the former.
func tokenPair(scenarios []scenario) ([2]scenario, bool) {
	for _, sc := range scenarios {
		if sc.name == tokenReadName {
			return [2]scenario{get("the same read without a token", sc.path), sc}, true
		}
	}
	return [2]scenario{}, false
}

// tokenCost sets the read with a SMART token against the same read without one as throughput:
// o.tokenClients closed-loop clients each, in o.rounds rounds of a third of --duration a side,
// the two alternating so that other load on the machine falls on both alike. This is the
// bearer check's whole cost (the token's verification, the client's budget) as the requests
// per second it takes from a client that reads as fast as it can. It is measured twice: with
// each client address making addressReuse reads, as clients that read many times on one budget
// do, and with a new address for every read, each the first of a budget that has to be looked
// up and written. The token is fetched afresh before each round.
func tokenCost(c *http.Client, base string, pair [2]scenario, o options) (string, error) {
	round := o.duration / 3
	perRead := pair[1].header
	reused := pair[1]
	reused.header = func(i int) http.Header { return perRead(reusedAddresses + i/addressReuse) }
	runs := []struct {
		what string
		sc   scenario
	}{
		{fmt.Sprintf("each client address reading %d times", addressReuse), reused},
		{"a new client address for every read", pair[1]},
	}
	parts := make([]string, len(runs))
	var reusedShare float64
	for i, run := range runs {
		token, plain, err := tokenRounds(c, base, pair[0], run.sc, o.tokenClients, o.rounds, round)
		if err != nil {
			return "", err
		}
		t, p := sum(token), sum(plain)
		lo, hi := extremes(len(plain), func(i int) float64 { return token[i].rate() / plain[i].rate() })
		parts[i] = fmt.Sprintf("with %s, %.0f against %.0f reads/s, %.2f of it (rounds %.2f–%.2f)", run.what, t.rate(), p.rate(), t.rate()/p.rate(), lo, hi)
		if i == 0 {
			reusedShare = t.rate() / p.rate()
		}
	}
	return fmt.Sprintf("The read by id with a SMART token against the same read without one, %d closed-loop clients each, %d rounds of %s a side: %s. %s",
		o.tokenClients, o.rounds, round.Round(time.Millisecond), strings.Join(parts, "; "), tokenVerdict(reusedShare)), nil
}

// tokenReadTarget is the share of the plain read's throughput the service promises a read with
// a token, for a client that reads many times on one budget (tokenCost's first run).
const tokenReadTarget = 0.8

// tokenVerdict says whether share, the first run's, met tokenReadTarget.
func tokenVerdict(share float64) string {
	if share >= tokenReadTarget {
		return fmt.Sprintf("Target, %.1f of it with each address reading %d times: met.", tokenReadTarget, addressReuse)
	}
	return fmt.Sprintf("Target, %.1f of it with each address reading %d times: short by %.2f.", tokenReadTarget, addressReuse, tokenReadTarget-share)
}

// addressReuse is how many reads each client address makes in tokenCost's first run: well
// within the sandbox's 1,000 an hour per address.
const addressReuse = 100

// reusedAddresses is where the first run's address numbers start, past any the runs with an
// address per request reach, so that no address serves both.
const reusedAddresses = 1 << 23

// tokenRounds runs plain and token in turn, rounds of d each with clients closed-loop clients,
// token after a fresh prepare. The token requests keep counting from round to round, so an
// address numbered by request is not met again. A request that fails is an error.
func tokenRounds(c *http.Client, base string, plain, token scenario, clients, rounds int, d time.Duration) (tok, pl []tally, err error) {
	var from int64
	for range rounds {
		pl = append(pl, saturate(c, base, plain, clients, d, 0))
		if err := token.prepare(0); err != nil {
			return nil, nil, err
		}
		t := saturate(c, base, token, clients, d, from)
		from += t.ok + t.failed
		tok = append(tok, t)
	}
	if t, p := sum(tok), sum(pl); t.failed > 0 || p.failed > 0 {
		return nil, nil, fmt.Errorf("the read with a token failed %d times and without one %d times", t.failed, p.failed)
	}
	return tok, pl, nil
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

// scenario is one request shape, with a concrete path found in the served data. Request i of a
// run gets header(i) and body(i) when they are set; prepare readies n such requests before a run.
type scenario struct {
	name    string
	method  string
	path    string
	header  func(i int) http.Header
	body    func(i int) string
	prepare func(n int) error
	// metered scenarios count against a quota or consume one-time credentials.
	metered bool
	// rates, when set, are the offered rates of this scenario instead of the run's: a request
	// that carries a thousand look-ups is offered at tens a second, not thousands.
	rates []int
	// target, when set, is what the service promises of this scenario at one offered rate; the
	// row of that rate says whether the run met it.
	target *target
}

// get is a scenario of plain GETs of path.
func get(name, path string) scenario {
	return scenario{name: name, method: http.MethodGet, path: path, prepare: func(int) error { return nil }}
}

// request builds request i of sc against base.
func (sc scenario) request(ctx context.Context, base string, i int) *http.Request {
	var body io.Reader
	if sc.body != nil {
		body = strings.NewReader(sc.body(i))
	}
	req, _ := http.NewRequestWithContext(ctx, sc.method, base+sc.path, body)
	if sc.header != nil {
		req.Header = sc.header(i)
	}
	return req
}

// supplyScenario reads the by-state table of the first specialty the supply API lists, with each
// key in turn.
func supplyScenario(c *http.Client, base string, keys []string) (scenario, error) {
	req, _ := http.NewRequest(http.MethodGet, base+"/v1/specialties", nil)
	req.Header.Set("Authorization", "Bearer "+keys[0])
	var list struct {
		Data []struct {
			Slug string `json:"slug"`
		} `json:"data"`
	}
	if err := doJSON(c, req, &list); err != nil {
		return scenario{}, fmt.Errorf("list the specialties (are --bearer-file's keys supply API keys?): %w", err)
	}
	if len(list.Data) == 0 {
		return scenario{}, errors.New("the supply API lists no specialty")
	}
	sc := get("supply by-state", "/v1/specialties/"+url.PathEscape(list.Data[0].Slug)+"/by-state")
	sc.header = func(i int) http.Header {
		return http.Header{"Authorization": {"Bearer " + keys[i%len(keys)]}}
	}
	sc.metered = true
	return sc, nil
}

// exportRates are the offered rates of the export scenario: each answer is a whole dataset,
// tens of times a by-state answer.
var exportRates = []int{100, 250}

// exportScenario streams the LLM-ready export of the by-state scenario's specialty as ndjson,
// with the same keys in turn.
func exportScenario(byState scenario, keys []string) scenario {
	slug := strings.TrimSuffix(strings.TrimPrefix(byState.path, "/v1/specialties/"), "/by-state")
	sc := get("supply export ndjson", "/v1/exports/"+slug+"-supply/llm-ready?format=ndjson")
	sc.header, sc.metered, sc.rates = byState.header, true, exportRates
	return sc
}

const tokenPath = "/fhir/token"

// tokenScenario asks the token endpoint for a token with the client's key. prepare signs the
// assertions beforehand, so that the client's signing is not timed as the server's latency; each
// request also names a client address of its own in X-Forwarded-For (10.0.0.0/8, in turn), so
// that the endpoint's per-address budget does not refuse the run.
func tokenScenario(keyFile, clientID, tokenURL string) (scenario, error) {
	key, err := readKey(keyFile)
	if err != nil {
		return scenario{}, err
	}
	var assertions []string
	return scenario{
		name:   "token (client_credentials)",
		target: &target{rate: targetRate},
		method: http.MethodPost,
		path:   tokenPath,
		header: func(i int) http.Header {
			return http.Header{
				"Content-Type":    {"application/x-www-form-urlencoded"},
				"X-Forwarded-For": {fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)},
			}
		},
		body: func(i int) string {
			return url.Values{
				"grant_type":            {smart.GrantClientCredentials},
				"client_assertion_type": {smart.AssertionTypeJWTBearer},
				"client_assertion":      {assertions[i%len(assertions)]},
				"scope":                 {"system/*.read"},
			}.Encode()
		},
		prepare: func(n int) error {
			assertions = assertions[:0]
			now := time.Now()
			for range n + 1 {
				a, err := smart.SignAssertion(clientID, tokenURL, key, now)
				if err != nil {
					return err
				}
				assertions = append(assertions, a)
			}
			return nil
		},
		metered: true,
	}, nil
}

// readKey reads the one private JWK of --smart-key.
func readKey(keyFile string) (jwk.Key, error) {
	set, err := jwk.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("read --smart-key: %w", err)
	}
	key, ok := set.Key(0)
	if priv, _ := jwk.IsPrivateKey(key); !ok || set.Len() != 1 || !priv {
		return nil, errors.New("--smart-key must hold exactly one private JWK")
	}
	return key, nil
}

// tokenReadName names the read by id with a token, which tokenCost sets against the same read
// without one.
const tokenReadName = "read Practitioner by id (SMART token)"

// tokenReadScenario reads by id the first Practitioner the client may read, with an access token
// of the client: the read scenario with the bearer check and the client's budget added. prepare
// gets a fresh token before each run (a run is far shorter than a token's life). The sandbox
// client is metered per client address, so each request names an address of its own in
// X-Forwarded-For (11.0.0.0/8, in turn), as the token scenario does.
func tokenReadScenario(c *http.Client, keyFile, clientID, base string) (scenario, error) {
	key, err := readKey(keyFile)
	if err != nil {
		return scenario{}, err
	}
	var auth string
	fetch := func(int) error {
		tr, err := smart.RequestToken(context.Background(), c, base+tokenPath, clientID, key, "system/*.read")
		if err != nil {
			return fmt.Errorf("get an access token: %w", err)
		}
		auth = "Bearer " + tr.AccessToken
		return nil
	}
	if err := fetch(0); err != nil {
		return scenario{}, err
	}
	req, _ := http.NewRequest(http.MethodGet, base+"/fhir/Practitioner?_count=1", nil)
	req.Header.Set("Authorization", auth)
	var bundle struct {
		Entry []struct {
			Resource struct {
				ID string `json:"id"`
			} `json:"resource"`
		} `json:"entry"`
	}
	if err := doJSON(c, req, &bundle); err != nil {
		return scenario{}, fmt.Errorf("find a practitioner the client may read: %w", err)
	}
	if len(bundle.Entry) == 0 {
		return scenario{}, errors.New("the client may read no Practitioner")
	}
	sc := get(tokenReadName, "/fhir/Practitioner/"+bundle.Entry[0].Resource.ID)
	sc.header = func(i int) http.Header {
		return http.Header{"Authorization": {auth}, "X-Forwarded-For": {fmt.Sprintf("11.%d.%d.%d", i>>16&255, i>>8&255, i&255)}}
	}
	sc.prepare = fetch
	sc.metered = true
	return sc, nil
}

// verifyCeiling is the token endpoint's own ceiling: how many assertions signed with key the
// signature check alone verifies per second, on every core, in this process.
func verifyCeiling(key jwk.Key, d time.Duration) (float64, error) {
	pub, err := key.PublicKey()
	if err != nil {
		return 0, err
	}
	// The one algorithm the token endpoint accepts for the key's type.
	sa := jwa.RS384()
	if key.KeyType() == jwa.EC() {
		sa = jwa.ES384()
	}
	a, err := smart.SignAssertion(smart.SandboxClientID, "https://bench.invalid/fhir/token", key, time.Now())
	if err != nil {
		return 0, err
	}
	var n atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if _, err := jws.Verify([]byte(a), jws.WithKey(sa, pub)); err != nil {
					failed.Store(true)
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return 0, errors.New("the signature check failed on an assertion just signed")
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
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
		withTarget(get("read Practitioner by id", "/fhir/Practitioner/"+p.ID), latencyTarget(targetRate, 2*time.Millisecond, 0.6)),
		withTarget(get("Practitioner?identifier=", "/fhir/Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|"+npi), latencyTarget(targetRate, 2*time.Millisecond, 0.6)),
		withTarget(get("PractitionerRole?specialty=&_include", "/fhir/PractitionerRole?specialty=http://nucc.org/provider-taxonomy|207RC0000X&_include=PractitionerRole:practitioner"), latencyTarget(targetRate, 5*time.Millisecond, 0.4)),
		withTarget(get("Practitioner?name= (prefix)", "/fhir/Practitioner?name="+url.QueryEscape(family)), latencyTarget(targetRate, 5*time.Millisecond, 0.3)),
	}, nil
}

// targetRate is the offered rate the service's targets for FHIR reads, searches and tokens
// are set at (docs/BENCHMARKS.md, Method).
const targetRate = 2000

// withTarget returns sc with target t.
func withTarget(sc scenario, t *target) scenario {
	sc.target = t
	return sc
}

// namePrefix is the prefix a person might type for a family name: its first three letters, in
// lower case, cut at a character boundary (a name may be accented).
func namePrefix(family string) string {
	r := []rune(strings.ToLower(family))
	return string(r[:min(3, len(r))])
}

func getJSON(c *http.Client, url string, v any) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	return doJSON(c, req, v)
}

// doJSON sends req and decodes its 200 answer into v.
func doJSON(c *http.Client, req *http.Request, v any) error {
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", req.Method, req.URL, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// ceiling serves, for each scenario path, the exact bytes and headers the real server gave
// (Date aside, which net/http sets), so that the client parses the same response from both: the
// same framing (a Content-Length or chunks), the same header lines. It reads a request's body,
// as the server does, but does not look at it.
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
		if err := sc.prepare(1); err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		resp, err := c.Do(sc.request(context.Background(), base, 0))
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
		_, _ = io.Copy(io.Discard, r.Body)
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
