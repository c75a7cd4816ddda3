package evidence

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// voiced is one question of testdata/voices.json: a question as an analyst, a journalist or an
// agent calling the API would put it, labelled from the contract (docs/contracts/supply-api.md §4)
// with what the evidence query must make of it.
type voiced struct {
	Q     string `json:"q"`
	Voice string `json:"voice"`  // analyst, journalist or agent
	State string `json:"status"` // "ok" or "refused"
	Code  string `json:"code"`   // the refusal code of a refused question
	// Specialty is the registered slug an answered question is about.
	Specialty string `json:"specialty"`
	// States are the codes of the 51 it names, comma-separated, in any order.
	States string `json:"states"`
	// Scope is what the answer covers: "state" (one state), "national" (the 51 together),
	// "compare" (two or more states), "extreme" (the first or last state), "underserved" (the
	// underserved states) or "county" (a county, answered with its state).
	Scope string `json:"scope"`
	// Figure is the by-state field the answer gives: per_100k, active_providers, rank_density
	// or underserved.
	Figure string `json:"figure"`
	// Lowest asks for the last state of an extreme instead of the first.
	Lowest bool   `json:"lowest"`
	Tag    string `json:"tag"`
	// Required marks the questions that must be read right whatever the overall score.
	Required bool `json:"required"`
}

// want is the intent a label stands for.
func (v voiced) want() Intent {
	kind := map[string]string{"per_100k": KindDensity, "active_providers": KindCount,
		"rank_density": KindRank, "underserved": KindUnderserved}[v.Figure]
	in := Intent{Kind: kind, Dataset: v.Specialty + "-supply"}
	if v.States != "" {
		in.States = strings.Split(v.States, ",")
	}
	switch v.Scope {
	case "compare":
		in.Kind, in.ByCount = KindCompare, v.Figure == "active_providers"
	case "extreme":
		in.Kind, in.ByCount, in.Lowest = KindRank, v.Figure == "active_providers", v.Lowest
	}
	return in
}

// misread names what the service made of a question that its label does not say ("" when
// nothing): the outcome (answered, refused, which code), the specialty, the place, or the
// scope (kind of figure, county, first or last).
func misread(v voiced, in Intent, code string) string {
	if v.State == "refused" {
		if code != v.Code {
			return fmt.Sprintf("outcome: got %q, want refusal %s", code, v.Code)
		}
		return ""
	}
	if code != "" {
		return "outcome: refused " + code
	}
	w := v.want()
	if in.Dataset != w.Dataset {
		return fmt.Sprintf("specialty: got %s, want %s", in.Dataset, w.Dataset)
	}
	got, exp := slices.Clone(in.States), slices.Clone(w.States)
	slices.Sort(got)
	slices.Sort(exp)
	if !slices.Equal(got, exp) {
		return fmt.Sprintf("place: got %v, want %v", in.States, w.States)
	}
	// ByCount and Lowest mean something only to a comparison and to the first or last state.
	ordered := w.Kind == KindCompare || v.Scope == "extreme"
	if in.Kind != w.Kind || (ordered && (in.ByCount != w.ByCount || in.Lowest != w.Lowest)) || (in.County != "") != (v.Scope == "county") {
		return fmt.Sprintf("scope: got %+v, want %s %s (lowest %v)", in, v.Scope, v.Figure, v.Lowest)
	}
	return ""
}

// tally counts right answers out of questions per category.
type tally map[string][2]int

func (t tally) add(key string, right bool) {
	n := t[key]
	n[1]++
	if right {
		n[0]++
	}
	t[key] = n
}

func (t tally) String() string {
	var out []string
	for k, n := range t {
		out = append(out, fmt.Sprintf("%s %d/%d", k, n[0], n[1]))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// The questions of testdata/voices.json, read by the screening and the local classifier as the
// service reads them without a language model: the score is logged per outcome, per kind of
// question and per voice; every required question must be read right, and at least
// minVoicedScore of them all.
func TestVoicedQuestions(t *testing.T) {
	const minVoicedScore = 0.97
	raw, err := os.ReadFile("testdata/voices.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus []voiced
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus) < 100 {
		t.Fatalf("%d questions, fewer than 100", len(corpus))
	}
	s := &Service{}
	right := 0
	byOutcome, byTag, byVoice, wrongBy := tally{}, tally{}, tally{}, map[string]int{}
	for _, v := range corpus {
		in, _, no := s.intentOf(context.Background(), newQuestion(v.Q))
		code := ""
		if no != nil {
			code = no.Code
		}
		problem := misread(v, in, code)
		ok := problem == ""
		if ok {
			right++
		} else {
			wrongBy[strings.SplitN(problem, ":", 2)[0]]++
			if v.Required {
				t.Errorf("%q: %s", v.Q, problem)
			} else {
				t.Logf("misread: %q: %s", v.Q, problem)
			}
		}
		outcome := v.State
		if v.Code != "" {
			outcome = v.Code
		}
		byOutcome.add(outcome, ok)
		byTag.add(v.Tag, ok)
		byVoice.add(v.Voice, ok)
	}
	score := float64(right) / float64(len(corpus))
	t.Logf("voiced questions: %d of %d read as labelled (%.1f%%); misread by %v", right, len(corpus), 100*score, wrongBy)
	t.Logf("by outcome: %s", byOutcome)
	t.Logf("by kind: %s", byTag)
	t.Logf("by voice: %s", byVoice)
	if score < minVoicedScore {
		t.Errorf("score %.1f%% is below %.0f%%", 100*score, 100*minVoicedScore)
	}
}
