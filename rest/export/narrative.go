package export

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"providerdir/llm"
	"providerdir/rest/dataset"
	"providerdir/store"
)

// Narrator words a dataset's narrative. The template (Template) is the default and the
// fallback; a deployment may plug a language model in here. draft is the template's narrative,
// which states every figure a narrative may use: a narrator's text is discarded for the draft
// unless it is grounded in it (llm.CheckGrounded: every sentence states the draft's figures as
// the draft writes them, no other number, no address, link, instruction or hidden character),
// so a narrator can rephrase but never invent nor address the reader.
type Narrator interface {
	Narrate(ctx context.Context, f *dataset.Figures, draft string) (string, error)
}

// narrativeKind is the store record kind of cached narratives, one per (dataset slug,
// methodology version).
const narrativeKind = "export_narrative"

// cachedNarrative is a cached narrative and the figures it was written from: a narrative of the
// same slug and version written from older figures is replaced, never served.
type cachedNarrative struct {
	FiguresKey  string    `json:"figures_key"`
	Narrative   string    `json:"narrative"`
	Generator   string    `json:"generator"`
	GeneratedAt time.Time `json:"generated_at"`
}

// narrativeID is the record id of a dataset's narrative under one methodology version.
func narrativeID(f *dataset.Figures) string {
	return f.Dataset.Slug + ":" + f.Dataset.MethodologyVersion()
}

// narrative returns the dataset's narrative and whether it came from the cache. The first
// request for a (slug, methodology version), or the first after the figures changed, writes it.
func (a *API) narrative(ctx context.Context, f *dataset.Figures) (string, bool, error) {
	id := narrativeID(f)
	rec, err := a.store.GetRecord(ctx, narrativeKind, id)
	switch {
	case err == nil:
		var c cachedNarrative
		if json.Unmarshal(rec.Body, &c) == nil && c.FiguresKey == f.Key && c.Narrative != "" {
			return c.Narrative, true, nil
		}
	case !errors.Is(err, store.ErrNotFound):
		return "", false, err
	}
	text, generator := a.generate(ctx, f)
	body, err := json.Marshal(cachedNarrative{FiguresKey: f.Key, Narrative: text, Generator: generator, GeneratedAt: a.now().UTC()})
	if err != nil {
		return "", false, err
	}
	_, err = store.Update(ctx, a.store, narrativeKind, id, func(store.Record) (store.Record, error) {
		return store.Record{Body: body}, nil
	}, store.CreateIfAbsent())
	if err != nil {
		return "", false, err
	}
	return text, false, nil
}

// generate writes a narrative: the narrator's when one is set and its text is grounded in the
// draft, the template's otherwise. It names the generator that wrote it.
func (a *API) generate(ctx context.Context, f *dataset.Figures) (string, string) {
	draft := Template(f)
	if a.narrator == nil {
		return draft, "template"
	}
	text, err := a.narrator.Narrate(ctx, f, draft)
	text = strings.TrimSpace(text)
	if err != nil || text == "" || llm.CheckGrounded(text, draft) != nil {
		return draft, "template"
	}
	return text, "narrator"
}

// Template is the narrative of a dataset's figures written by rule: a paragraph on the national
// figure and the extremes, one on the underserved states. Equal figures give equal text.
func Template(f *dataset.Figures) string {
	d := f.Dataset
	top, bottom := extremes(f.Rows)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s across the 50 states and DC, %s per 100,000 residents (%s snapshot %s; Census Vintage 2024 population). ",
		d.DisplayName, dataset.Grouped(f.National.ActiveProviders), d.Unit, dataset.Decimal(f.National.Per100k), f.Primary.Source, f.SnapshotDate)
	fmt.Fprintf(&b, "Density is highest in %s and lowest in %s.", top, bottom)
	if d.Kind == dataset.FacilityQuality && f.MeanStar != nil {
		fmt.Fprintf(&b, " The %s rated facilities average %.2f stars overall.", dataset.Grouped(f.Rated), *f.MeanStar)
	}
	under := f.Underserved()
	b.WriteString("\n\n")
	if len(under) == 0 {
		fmt.Fprintf(&b, "No state falls below the underserved threshold of %s per 100,000 (3/4 of the national density).", dataset.Decimal(f.Threshold()))
	} else {
		names := make([]string, len(under))
		for i, r := range under {
			names[i] = r.StateName + " (" + dataset.Decimal(r.Per100k) + ")"
		}
		fmt.Fprintf(&b, "%d of the 51 fall below the underserved threshold of %s per 100,000 (3/4 of the national density): %s.",
			len(under), dataset.Decimal(f.Threshold()), strings.Join(names, ", "))
	}
	fmt.Fprintf(&b, " Methodology %s.", d.MethodologyVersion())
	return b.String()
}

// extremes names the states of the best and the worst rank with their densities.
func extremes(rows []dataset.Row) (string, string) {
	if len(rows) == 0 {
		return "no state", "no state"
	}
	best, worst := rows[0].Rank, rows[0].Rank
	for _, r := range rows {
		best, worst = min(best, r.Rank), max(worst, r.Rank)
	}
	name := func(rank int) string {
		var names []string
		var per string
		for _, r := range rows {
			if r.Rank == rank {
				names = append(names, r.StateName)
				per = dataset.Decimal(r.Per100k)
			}
		}
		if len(names) > 3 {
			return fmt.Sprintf("%d states tied (%s)", len(names), per)
		}
		return strings.Join(names, ", ") + " (" + per + ")"
	}
	return name(best), name(worst)
}
