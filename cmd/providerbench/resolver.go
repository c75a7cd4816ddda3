package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"providerdir/match/queryset"
)

// resolverBase is the resolver's path prefix on providerd.
const resolverBase = "/resolver/v1"

// resolverScenarios are the resolver's NPI read and search, for the first query of a labelled
// query set (its search parameters, and the NPI it is labelled with), and its search near
// nearZIP when one is given, with each resolver key in turn: a key's hourly budget is metered,
// so the run spreads over as many keys as it is given.
func resolverScenarios(keys []string, qs []queryset.Query, nearZIP string) ([]scenario, error) {
	if len(qs) == 0 {
		return nil, errors.New("--queries holds no query")
	}
	q := qs[0]
	v := url.Values{"q": {q.Q}, "limit": {"10"}}
	if q.State != "" {
		v.Set("state", q.State)
	}
	if q.Taxonomy != "" {
		v.Set("taxonomy", q.Taxonomy)
	}
	header := func(i int) http.Header { return http.Header{"X-Service-Key": {keys[i%len(keys)]}} }
	npi := get("resolver npi", resolverBase+"/npi/"+q.NPI)
	search := get("resolver search", resolverBase+"/search?"+v.Encode())
	batch, err := batchScenario(keys, qs)
	if err != nil {
		return nil, err
	}
	scs := []scenario{npi, search, batch}
	if nearZIP != "" {
		v := url.Values{"near": {nearZIP}, "radius": {strconv.Itoa(nearRadiusMiles)}, "limit": {strconv.Itoa(nearPage)}}
		scs = append(scs, get(nearScenario, resolverBase+"/search?"+v.Encode()))
	}
	for i := range scs {
		if scs[i].header == nil {
			scs[i].header, scs[i].metered = header, true
		}
	}
	return scs, nil
}

// The near scenario: the resolver's search by place alone, nearRadiusMiles around a ZIP code
// dense with providers, nearPage results a page. The service's target for it is a p99 no more
// than nearOverName times the name search's at the same offered rate, in the same run.
const (
	nearScenario    = "resolver search near a ZIP"
	nameScenario    = "resolver search"
	nearRadiusMiles = 25
	nearPage        = 20
	nearOverName    = 2.0
)

// nearAgainstName is the line under the table that sets the near scenario's p99 against the name
// search's at each rate both ran at, and says whether each met the target; "" when the run has
// not both.
func nearAgainstName(rows []row) string {
	name := map[int]row{}
	for _, r := range rows {
		if r.scenario == nameScenario {
			name[r.rate] = r
		}
	}
	var parts, over []string
	for _, r := range rows {
		n, ok := name[r.rate]
		if r.scenario != nearScenario || !ok {
			continue
		}
		q := ratio(ms(r.server.quantile(0.99)), ms(n.server.quantile(0.99)))
		parts = append(parts, fmt.Sprintf("%s at %d req/s", f2(q), r.rate))
		if q > nearOverName {
			over = append(over, fmt.Sprintf("%d req/s", r.rate))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	verdict := "met at every rate"
	if len(over) > 0 {
		verdict = "short at " + strings.Join(over, ", ")
	}
	return fmt.Sprintf("The resolver's search near a ZIP (%d miles, pages of %d) against its name search, p99 over p99 in the same run: %s (target %s or less: %s).",
		nearRadiusMiles, nearPage, strings.Join(parts, ", "), trim(nearOverName), verdict)
}

// batchSize is the NPIs of one batch request: the contract's largest batch.
const batchSize = 1000

// batchRates are the offered rates of the batch scenario: each request resolves batchSize
// NPIs, and every NPI counts against the key's hourly NPI ceiling.
var batchRates = []int{10, 25}

// batchScenario posts batchSize of the labelled queries' NPIs (each repeated in turn when the set
// names fewer), with each key in turn.
func batchScenario(keys []string, qs []queryset.Query) (scenario, error) {
	var distinct []string
	seen := map[string]bool{}
	for _, q := range qs {
		if !seen[q.NPI] {
			seen[q.NPI] = true
			distinct = append(distinct, q.NPI)
		}
	}
	npis := make([]string, batchSize)
	for i := range npis {
		npis[i] = distinct[i%len(distinct)]
	}
	body, err := json.Marshal(map[string][]string{"npis": npis})
	if err != nil {
		return scenario{}, err
	}
	return scenario{
		name: fmt.Sprintf("resolver batch of %d NPIs", batchSize), method: http.MethodPost, path: resolverBase + "/batch/npi",
		header: func(i int) http.Header {
			return http.Header{"X-Service-Key": {keys[i%len(keys)]}, "Content-Type": {"application/json"}}
		},
		body:    func(int) string { return string(body) },
		prepare: func(int) error { return nil },
		metered: true,
		rates:   batchRates,
	}, nil
}

// searchQuality runs the labelled query set through the resolver's search, one query at a time
// with the keys in turn, and prints precision@1 and recall@10 overall and per deformation, and
// the searches' latency percentiles.
func searchQuality(out io.Writer, c *http.Client, base string, keys []string, qs []queryset.Query) error {
	n := 0
	search := func(ctx context.Context, q queryset.Query) ([]string, error) {
		n++
		return queryset.HTTPSearch(c, base+resolverBase, keys[n%len(keys)])(ctx, q)
	}
	rep, err := queryset.Evaluate(context.Background(), qs, search)
	if err != nil {
		return fmt.Errorf("search quality: %w", err)
	}
	fmt.Fprintf(out, "\nsearch quality: %d labelled queries, precision@1 %.4f, recall@10 %.4f; latency one query at a time p50 %.2f ms p99 %.2f ms\n",
		rep.Queries, rep.PrecisionAt1(), rep.RecallAt10(), ms(rep.Percentile(50)), ms(rep.Percentile(99)))
	kinds := make([]string, 0, len(rep.ByDeformation))
	for k := range rep.ByDeformation {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		t := rep.ByDeformation[k]
		fmt.Fprintf(out, "  %-12s %5d queries  precision@1 %.4f  recall@10 %.4f\n", k, t.Queries, t.PrecisionAt1(), t.RecallAt10())
	}
	return nil
}
