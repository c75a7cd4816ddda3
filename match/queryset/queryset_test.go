package queryset

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"providerdir/match"
	"providerdir/source/reference"
	"providerdir/source/synth"
)

// Each deformation changes how the name is written, and the folded result still relates to the
// name as the kind says.
func TestDeform(t *testing.T) {
	john := Name{First: "WILLIAM", Middle: "B", Last: "MARWOOD"}
	org := Name{Org: "ASHFORD FAMILY MEDICINE LLC"}
	for _, tt := range []struct {
		kind  string
		name  Name
		ok    bool
		check func(folded []string) bool
	}{
		{Initials, john, true, func(f []string) bool { return slices.Equal(f, []string{"w", "b", "marwood"}) }},
		{Initials, org, false, nil},
		{Nickname, john, true, func(f []string) bool { return match.Related(f[0], "william") && f[2] == "marwood" }},
		{Nickname, Name{First: "XQZY", Last: "MARWOOD"}, false, nil},
		{Accents, john, true, func(f []string) bool { return slices.Equal(f, []string{"william", "b", "marwood"}) }},
		{Punctuation, john, true, func(f []string) bool { return slices.Equal(f, []string{"william", "b", "marwood"}) }},
		{WordOrder, john, true, func(f []string) bool { return slices.Equal(f, []string{"marwood", "william", "b"}) }},
		{WordOrder, org, true, func(f []string) bool {
			return slices.Equal(slices.Sorted(slices.Values(f)), []string{"ashford", "family", "llc", "medicine"})
		}},
		{Typo, john, true, func(f []string) bool {
			return f[0] == "william" && match.OneEdit(f[2], "marwood") || f[2] == "marwood" && match.OneEdit(f[0], "william")
		}},
		{TwoTypos, john, true, func(f []string) bool {
			return len(f) == 3 && match.OneEdit(f[0], "william") && f[1] == "b" && match.OneEdit(f[2], "marwood")
		}},
		{TwoTypos, Name{First: "AMY", Last: "MARWOOD"}, false, nil},
		{TwoTypos, org, true, func(f []string) bool {
			return len(f) == 4 && match.OneEdit(f[0], "ashford") && match.OneEdit(f[2], "medicine")
		}},
		{TitleInitialTypo, john, true, func(f []string) bool {
			return len(f) == 4 && f[0] == "dr" && f[1] == "w" && f[2] == "b" && match.OneEdit(f[3], "marwood")
		}},
		{TitleInitialTypo, org, false, nil},
		{SplitName, john, true, func(f []string) bool {
			return len(f) == 4 && f[0] == "william" && f[2]+f[3] == "marwood" && len(f[2]) >= 3 && len(f[3]) >= 3
		}},
		{SplitName, Name{First: "WILLIAM", Last: "ELBY"}, false, nil},
		{SplitName, org, true, func(f []string) bool { return len(f) == 5 && f[2]+f[3] == "medicine" }},
		{JoinedNames, john, true, func(f []string) bool {
			return slices.Equal(f, []string{"williamb", "marwood"}) || slices.Equal(f, []string{"william", "bmarwood"})
		}},
		{JoinedNames, Name{First: "WILLIAM", Last: "MARWOOD"}, true, func(f []string) bool { return slices.Equal(f, []string{"williammarwood"}) }},
		{JoinedNames, Name{Org: "ASHFORD"}, false, nil},
	} {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 1))
			q, ok := Deform(tt.kind, tt.name, r)
			if ok != tt.ok {
				t.Fatalf("%s of %+v: ok %v", tt.kind, tt.name, ok)
			}
			if !ok {
				continue
			}
			if f := match.Tokens(q); !tt.check(f) {
				t.Errorf("%s (seed %d): %q folds to %v", tt.kind, seed, q, f)
			}
			if tt.kind == Accents && q == strings.Join([]string{john.First, john.Middle, john.Last}, " ") {
				t.Errorf("accents left %q unchanged", q)
			}
		}
	}
}

// A set drawn from a generated drop: deterministic for a seed, every label an NPI of the file,
// every kind present, written and read back unchanged.
func TestBuildWriteRead(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(context.Background(), synth.Config{Providers: 400, Seed: 3, Out: dir, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	a, err := Build(dir, 200, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Build(dir, 200, 9)
	if len(a) < 150 || !slices.Equal(a, b) {
		t.Fatalf("%d queries; deterministic %v", len(a), slices.Equal(a, b))
	}
	kinds := map[string]bool{}
	for _, q := range a {
		kinds[q.Deformation] = true
		if len(q.NPI) != 10 || q.Q == "" || (q.State == "") != Nationwide(q.Deformation) || Nationwide(q.Deformation) && q.Taxonomy != "" {
			t.Fatalf("query %+v", q)
		}
	}
	if len(kinds) != len(Kinds) {
		t.Errorf("kinds %v", kinds)
	}
	if err := Write(dir, a); err != nil {
		t.Fatal(err)
	}
	back, err := Read(filepath.Join(dir, FileName))
	if err != nil || !slices.Equal(back, a) {
		t.Fatalf("read back %d queries, %v", len(back), err)
	}
	if _, err := Build(t.TempDir(), 10, 1); err == nil {
		t.Error("a directory without an NPPES file gave a set")
	}
}

// Evaluate counts a hit at rank 1 and within the first ten, per deformation.
func TestEvaluate(t *testing.T) {
	qs := []Query{
		{Q: "a", NPI: "1", Deformation: Typo},
		{Q: "b", NPI: "2", Deformation: Typo},
		{Q: "c", NPI: "3", Deformation: Initials},
		{Q: "d", NPI: "4", Deformation: Initials},
	}
	results := map[string][]string{
		"a": {"1", "9"},
		"b": {"9", "2"},
		"c": {"9", "9", "9", "9", "9", "9", "9", "9", "9", "9", "3"}, // 11th: a miss
		"d": nil,
	}
	rep, err := Evaluate(context.Background(), qs, func(_ context.Context, q Query) ([]string, error) { return results[q.Q], nil })
	if err != nil {
		t.Fatal(err)
	}
	if rep.PrecisionAt1() != 0.25 || rep.RecallAt10() != 0.5 {
		t.Errorf("precision@1 %v recall@10 %v, want 0.25 0.5", rep.PrecisionAt1(), rep.RecallAt10())
	}
	if typo := rep.ByDeformation[Typo]; typo.Top1 != 1 || typo.Top10 != 2 {
		t.Errorf("typo tally %+v", typo)
	}
	if len(rep.Misses) != 3 || len(rep.Latencies) != 4 {
		t.Errorf("%d misses, %d latencies", len(rep.Misses), len(rep.Latencies))
	}
}

// A nationwide label is ambiguous when another provider's record fits every word the query
// means at least as well, wherever it practises; a record that fits one word worse, or the
// labelled provider's own, leaves it standing.
func TestRivals(t *testing.T) {
	label := entry{npi: "1000000001", state: "NJ", name: Name{First: "WILLIAM", Middle: "B", Last: "MARWOOD"}}
	for _, tt := range []struct {
		name      string
		kind, q   string
		other     entry
		ambiguous bool
	}{
		{"same name elsewhere", SplitName, "WILLIAM B MAR WOOD", entry{npi: "1000000002", state: "TX", name: label.name}, true},
		{"the label itself", SplitName, "WILLIAM B MAR WOOD", entry{npi: label.npi, state: "NJ", name: label.name}, false},
		{"another middle name", SplitName, "WILLIAM B MAR WOOD", entry{npi: "1000000002", name: Name{First: "WILLIAM", Middle: "C", Last: "MARWOOD"}}, false},
		{"within one edit of both typos", TwoTypos, "WILLAIM B MARWOD", entry{npi: "1000000002", name: Name{First: "WILLIAM", Middle: "B", Last: "MARWOD"}}, true},
		{"a nickname fits better", TwoTypos, "WILLAIM B MARWOD", entry{npi: "1000000002", name: Name{First: "BILL", Middle: "B", Last: "MARWOOD"}}, false},
		{"another initial", TitleInitialTypo, "Dr. W. B. MARWOD", entry{npi: "1000000002", name: Name{First: "JOHN", Middle: "B", Last: "MARWOOD"}}, false},
		{"the same initials", TitleInitialTypo, "Dr. W. B. MARWOD", entry{npi: "1000000002", name: Name{First: "WEI", Middle: "B", Last: "MARWOOD"}}, true},
	} {
		d := &draw{q: Query{Q: tt.q, NPI: label.npi, Deformation: tt.kind}, means: meaning(tt.kind, label.name, tt.q)}
		d.fit, d.anchor = fit(d.means, recordTokens(label.name)), len(d.means)-1
		rv := newRivals([]*draw{d})
		rv.judge(tt.other)
		if d.ambiguous != tt.ambiguous {
			t.Errorf("%s: ambiguous %v, want %v (means %v)", tt.name, d.ambiguous, tt.ambiguous, d.means)
		}
	}
}
