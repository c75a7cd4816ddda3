package evidence_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/mapping/study"
	"providerdir/rest/evidence"
	"providerdir/specialty"
)

// labelled is one question of testdata/corpus.json with the answer expected.
type labelled struct {
	Q    string `json:"q"`
	Want string `json:"want"` // "ok" or a refusal code
	// Dataset, Field and Of say which figure an "ok" answer gives: Field of the by-state row of
	// the state Of; or of the 51 together (Of "national"); or of the first or last state
	// ("highest", "lowest" by density, "most", "fewest" by count); "underserved" with Field
	// underserved_count is the number of underserved states; Of "TX,FL" is a comparison, whose
	// summary states each state's Field. Field "underserved" is one state's flag.
	Dataset    string `json:"dataset"`
	Field      string `json:"field"`
	Of         string `json:"of"`
	GeoWidened bool   `json:"geo_widened"`
	// Tag groups the questions by what they test; a tag ending in -2 or -3 marks a batch
	// written after the classifier, to measure it on questions it was not written against.
	Tag string `json:"tag"`
}

// row is a by-state row's values as GET /v1/specialties/{code}/by-state serves them.
type row struct {
	State       string
	Per100k     float64
	Active      int64
	Population  int64
	Rank        int64
	Quartile    int64
	Underserved bool
}

// byState reads every registered specialty's rows through real HTTP from the same server.
func (e *env) byState(t *testing.T, key string) map[string]map[string]row {
	t.Helper()
	out := map[string]map[string]row{}
	for _, sp := range specialty.Registered {
		e.clock.Advance(2 * time.Second) // a pilot key's 60 per minute
		r := e.do(t, http.MethodGet, "/v1/specialties/"+sp.Slug+"/by-state", "", nil, key)
		if r.Status != http.StatusOK {
			t.Fatalf("by-state %s: %d %s", sp.Slug, r.Status, r.Raw)
		}
		var body struct {
			Data []map[string]struct {
				Value any `json:"value"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Raw, &body); err != nil {
			t.Fatal(err)
		}
		rows := map[string]row{}
		for _, f := range body.Data {
			n := func(k string) float64 { v, _ := f[k].Value.(float64); return v }
			u, _ := f["underserved"].Value.(bool)
			code, _ := f["state_code"].Value.(string)
			rows[code] = row{State: code, Per100k: n("per_100k"), Active: int64(n("active_providers")), Population: int64(n("population_2024")),
				Rank: int64(n("rank_density")), Quartile: int64(n("quartile")), Underserved: u}
		}
		if len(rows) != 51 {
			t.Fatalf("by-state %s: %d rows", sp.Slug, len(rows))
		}
		out[sp.Slug+specialty.StudySuffix] = rows
	}
	return out
}

// The labelled corpus, asked through real HTTP of the demo snapshot: every refusal must carry
// the labelled code, every number an answer states must be one the by-state endpoint serves (or
// a sum or count of them, or one of the method's constants), and at least 95% of the questions
// must be answered exactly as labelled.
func TestCorpus(t *testing.T) {
	raw, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []labelled
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 150 {
		t.Fatalf("the corpus has %d questions, fewer than 150", len(corpus))
	}
	covered := map[string]bool{}
	for _, c := range corpus {
		covered[c.Want] = true
	}
	for _, code := range append([]string{"ok"}, evidence.RefusalCodes...) {
		if !covered[code] {
			t.Errorf("the corpus has no question labelled %s", code)
		}
	}

	e := demoEnv(t, nil)
	key := e.key(t)
	figures := e.byState(t, key)
	right := 0
	perTag := map[string][2]int{}
	for _, c := range corpus {
		e.clock.Advance(2 * time.Second)
		res := e.ask(t, key, c.Q)
		if res.Status != http.StatusOK {
			t.Fatalf("%q: %d %s", c.Q, res.Status, res.Raw)
		}
		got := res.result(t)
		problem := judge(c, got, figures)
		if got.Status == evidence.StatusOK {
			if bad := foreignNumbers(got, figures[got.Answer.DatasetSlug]); bad != "" {
				t.Errorf("%q: the answer states %s, which is not a figure of the by-state endpoint", c.Q, bad)
			}
		}
		if c.Want != "ok" && problem != "" {
			t.Errorf("%q: %s", c.Q, problem)
		}
		n := perTag[c.Tag]
		n[1]++
		if problem == "" {
			right++
			n[0]++
		} else {
			t.Logf("wrong: %q: %s", c.Q, problem)
		}
		perTag[c.Tag] = n
	}
	accuracy := float64(right) / float64(len(corpus))
	var tags []string
	for tag, n := range perTag {
		tags = append(tags, fmt.Sprintf("%s %d/%d", tag, n[0], n[1]))
	}
	slices.Sort(tags)
	t.Logf("corpus accuracy: %d of %d questions answered as labelled (%.1f%%); by tag: %s", right, len(corpus), 100*accuracy, strings.Join(tags, ", "))
	if accuracy < 0.95 {
		t.Errorf("accuracy %.1f%% is below 95%%", 100*accuracy)
	}
}

// judge says what is wrong with a result against its label, or "".
func judge(c labelled, got evidence.Result, figures map[string]map[string]row) string {
	if c.Want != "ok" {
		if got.Status != evidence.StatusRefusal || got.Refusal == nil || got.Refusal.Code != c.Want {
			return fmt.Sprintf("got %s %+v, want refusal %s", got.Status, got.Refusal, c.Want)
		}
		if got.Answer != nil || len(got.Evidence) != 0 || got.Refusal.Message == "" {
			return "a refusal with an answer, evidence or no message"
		}
		return ""
	}
	if got.Status != evidence.StatusOK || got.Answer == nil {
		return fmt.Sprintf("refused %+v, want an answer", got.Refusal)
	}
	a := got.Answer
	if a.DatasetSlug != c.Dataset {
		return fmt.Sprintf("dataset %s, want %s", a.DatasetSlug, c.Dataset)
	}
	if a.GeoWidened != c.GeoWidened {
		return fmt.Sprintf("geo_widened %v, want %v", a.GeoWidened, c.GeoWidened)
	}
	rows := figures[c.Dataset]
	if strings.Contains(c.Of, ",") || c.Field == "underserved" {
		if a.Value != nil {
			return fmt.Sprintf("value %v, want null", *a.Value)
		}
		for _, st := range strings.Split(c.Of, ",") {
			r := rows[st]
			want := formatFigure(c.Field, r)
			if c.Field == "underserved" {
				want = map[bool]string{true: " is underserved", false: " is not underserved"}[r.Underserved]
			}
			if !strings.Contains(a.Summary, want) {
				return fmt.Sprintf("the summary %q does not state %s of %s (%s)", a.Summary, c.Field, st, want)
			}
		}
		return ""
	}
	want, ok := expected(c, rows)
	if !ok {
		return "the label names no figure"
	}
	if a.Value == nil || *a.Value != want {
		return fmt.Sprintf("value %v, want %v (%s of %s)", deref(a.Value), want, c.Field, c.Of)
	}
	if c.GeoWidened && !strings.Contains(strings.Join(got.Evidence[0].Methodology.Limitations, " "), "county") {
		return "a widened answer without its county limitation"
	}
	return ""
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// expected is the figure a label names, computed from the by-state rows.
func expected(c labelled, rows map[string]row) (float64, bool) {
	get := func(r row) float64 {
		switch c.Field {
		case "per_100k":
			return r.Per100k
		case "active_providers":
			return float64(r.Active)
		case "rank_density":
			return float64(r.Rank)
		}
		return -1
	}
	switch c.Of {
	case "national":
		var n, p int64
		for _, r := range rows {
			n, p = n+r.Active, p+r.Population
		}
		if c.Field == "active_providers" {
			return float64(n), true
		}
		return study.Per100k(n, p), true
	case "highest", "most", "lowest", "fewest":
		var vals []float64
		for _, r := range rows {
			vals = append(vals, get(r))
		}
		if c.Of == "lowest" || c.Of == "fewest" {
			return slices.Min(vals), true
		}
		return slices.Max(vals), true
	case "underserved":
		n := 0
		for _, r := range rows {
			if r.Underserved {
				n++
			}
		}
		return float64(n), true
	}
	r, ok := rows[c.Of]
	return get(r), ok
}

// formatFigure writes a row's figure as an answer states it.
func formatFigure(field string, r row) string {
	if field == "active_providers" {
		return thousands(r.Active)
	}
	return strconv.FormatFloat(r.Per100k, 'f', -1, 64)
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

var number = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// foreignNumbers returns a number of an answer's summary or claims that is none of the study's
// by-state figures, their sums over the 51, the count of underserved states, or the method's
// constants (100,000 residents, the 51, the 50 states, 2024 populations, 3/4 and 4 quartiles).
func foreignNumbers(got evidence.Result, rows map[string]row) string {
	allowed := map[float64]bool{100000: true, 51: true, 50: true, 2024: true, 3: true, 4: true}
	var n, p int64
	under := 0
	for _, r := range rows {
		for _, v := range []float64{r.Per100k, float64(r.Active), float64(r.Population), float64(r.Rank), float64(r.Quartile)} {
			allowed[v] = true
		}
		n, p = n+r.Active, p+r.Population
		if r.Underserved {
			under++
		}
	}
	allowed[float64(n)], allowed[float64(p)], allowed[study.Per100k(n, p)], allowed[float64(under)] = true, true, true, true
	texts := []string{got.Answer.Summary}
	for _, it := range got.Evidence {
		texts = append(texts, it.Claim)
	}
	for _, s := range texts {
		for _, m := range number.FindAllString(s, -1) {
			f, err := strconv.ParseFloat(strings.TrimRight(strings.ReplaceAll(m, ",", ""), "."), 64)
			if err != nil || !allowed[f] {
				return m
			}
		}
	}
	return ""
}
