package queryset

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"time"
)

// Search runs one query and returns the NPIs it found, best first (at least the first ten).
type Search func(ctx context.Context, q Query) ([]string, error)

// Tally counts the hits of a group of queries.
type Tally struct {
	Queries int `json:"queries"`
	Top1    int `json:"top1"`  // the labelled NPI came first
	Top10   int `json:"top10"` // the labelled NPI was among the first ten
}

// PrecisionAt1 is the share of queries whose first result is the labelled NPI: each query has
// exactly one right answer, so precision at rank 1 is the share of right first answers.
func (t Tally) PrecisionAt1() float64 { return ratio(t.Top1, t.Queries) }

// RecallAt10 is the share of queries whose labelled NPI is among the first ten results.
func (t Tally) RecallAt10() float64 { return ratio(t.Top10, t.Queries) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Report is the outcome of a set: the whole, each deformation, and the queries' latencies.
type Report struct {
	Tally
	ByDeformation map[string]Tally `json:"by_deformation"`
	// Misses are the first queries whose label was not first, for a reader to look at.
	Misses    []Query         `json:"misses,omitempty"`
	Latencies []time.Duration `json:"-"`
}

// maxMisses bounds the misses a report keeps.
const maxMisses = 20

// Evaluate runs every query through search, one at a time, and tallies where the labelled NPI
// came. A search error stops it.
func Evaluate(ctx context.Context, qs []Query, search Search) (Report, error) {
	rep := Report{ByDeformation: map[string]Tally{}}
	for _, q := range qs {
		start := time.Now()
		npis, err := search(ctx, q)
		if err != nil {
			return rep, fmt.Errorf("query %q: %w", q.Q, err)
		}
		rep.Latencies = append(rep.Latencies, time.Since(start))
		t := rep.ByDeformation[q.Deformation]
		t.Queries++
		rep.Queries++
		for i, npi := range npis[:min(len(npis), 10)] {
			if npi != q.NPI {
				continue
			}
			if i == 0 {
				t.Top1++
				rep.Top1++
			}
			t.Top10++
			rep.Top10++
			break
		}
		if (len(npis) == 0 || npis[0] != q.NPI) && len(rep.Misses) < maxMisses {
			rep.Misses = append(rep.Misses, q)
		}
		rep.ByDeformation[q.Deformation] = t
	}
	return rep, nil
}

// Percentile is the p-th percentile (0 < p <= 100) of the report's latencies, nearest rank.
func (r Report) Percentile(p float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	l := append([]time.Duration(nil), r.Latencies...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	i := int(p/100*float64(len(l))+0.999999) - 1
	return l[max(0, min(i, len(l)-1))]
}

// HTTPSearch searches through a resolver's GET /search at base (the resolver's base URL, ending
// in /v1) with the key in X-Service-Key, asking for the first ten candidates. A response other
// than 200 is an error naming its status and body.
func HTTPSearch(client *http.Client, base, key string) Search {
	return func(ctx context.Context, q Query) ([]string, error) {
		v := url.Values{"q": {q.Q}, "limit": {"10"}}
		if q.State != "" {
			v.Set("state", q.State)
		}
		if q.Taxonomy != "" {
			v.Set("taxonomy", q.Taxonomy)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/search?"+v.Encode(), nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-Service-Key", key)
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("search: %s: %.200s", resp.Status, raw)
		}
		var body struct {
			Results []struct {
				NPI string `json:"npi"`
			} `json:"results"`
		}
		if err := json.Unmarshal(raw, &body); err != nil {
			return nil, fmt.Errorf("search: decode: %w", err)
		}
		out := make([]string, len(body.Results))
		for i, c := range body.Results {
			out[i] = c.NPI
		}
		return out, nil
	}
}
