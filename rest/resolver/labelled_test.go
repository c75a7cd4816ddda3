package resolver_test

import (
	"net/http"
	"testing"

	"providerdir/match/queryset"
	"providerdir/rest/apikey"
	"providerdir/testing/demostore"
)

// Targets of the labelled query set.
const (
	minPrecisionAt1 = 0.95
	minRecallAt10   = 0.99
	// Each kind searched without a state (queryset.Nationwide) on its own.
	minNationwideRecallAt10 = 0.95
)

// The labelled query set drawn from the demo drop (names deformed by initials, nicknames,
// accents, punctuation, word order and one-edit typos in a state; typos in two words, a title
// with initials and a typo, a split word and two words run together without one; each with
// the NPI it should find), run through GET /search over HTTP: precision@1 and recall@10 meet
// their targets, and recall@10 of each kind searched without a state its own.
func TestSearchLabelledQueries(t *testing.T) {
	d := demostore.Open(t)
	e := newEnv(t, d.Store)
	key := e.Key(t, apikey.TierPro)
	qs, err := queryset.Build(d.Drop, 1000, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 500 {
		t.Fatalf("only %d labelled queries drawn", len(qs))
	}
	rep, err := queryset.Evaluate(t.Context(), qs, queryset.HTTPSearch(http.DefaultClient, e.URL+"/resolver/v1", key))
	if err != nil {
		t.Fatal(err)
	}
	for kind, tally := range rep.ByDeformation {
		t.Logf("%-12s %4d queries  precision@1 %.4f  recall@10 %.4f", kind, tally.Queries, tally.PrecisionAt1(), tally.RecallAt10())
	}
	t.Logf("all          %4d queries  precision@1 %.4f  recall@10 %.4f", rep.Queries, rep.PrecisionAt1(), rep.RecallAt10())
	if len(rep.ByDeformation) != len(queryset.Kinds) {
		t.Errorf("deformations %v, want all of %v", rep.ByDeformation, queryset.Kinds)
	}
	for _, kind := range queryset.Kinds {
		if tally := rep.ByDeformation[kind]; queryset.Nationwide(kind) && tally.RecallAt10() < minNationwideRecallAt10 {
			t.Errorf("%s without a state: recall@10 %.4f of %d queries (want >= %.2f)", kind, tally.RecallAt10(), tally.Queries, minNationwideRecallAt10)
		}
	}
	if rep.PrecisionAt1() < minPrecisionAt1 || rep.RecallAt10() < minRecallAt10 {
		t.Errorf("precision@1 %.4f (want >= %.2f), recall@10 %.4f (want >= %.2f); misses %+v",
			rep.PrecisionAt1(), minPrecisionAt1, rep.RecallAt10(), minRecallAt10, rep.Misses)
	}
}
