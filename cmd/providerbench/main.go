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
// by net/http from a file. --near-zip adds the resolver's search near that ZIP code, whose p99
// a line under the table sets against the name search's at each rate (target: twice it at most). Keys come in files, not on the command line, where any process of
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
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"providerdir/smart"
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
	// nearZIP, with serviceKeys, adds the resolver's search near that ZIP code.
	nearZIP string
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
	fs.StringVar(&o.nearZIP, "near-zip", "", "ZIP code, one dense with providers, the resolver's search near a ZIP runs around, with --queries (empty skips it)")
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
	if o.nearZIP != "" && o.queries == "" {
		return o, errors.New("--near-zip goes with --service-key-file and --queries")
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
