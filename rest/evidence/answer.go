package evidence

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/mapping/study"
	"providerdir/stored"
)

// Result is the data of an evidence-query response (docs/contracts/supply-api.md §2).
type Result struct {
	Status   string   `json:"status"`
	Answer   *Answer  `json:"answer"`
	Evidence []Item   `json:"evidence"`
	Refusal  *Refusal `json:"refusal"`
}

// Statuses of a result.
const (
	StatusOK      = "ok"
	StatusRefusal = "refusal"
)

// Answer is the one-to-two sentence answer with the figure it states.
type Answer struct {
	Summary            string   `json:"summary"`
	Value              *float64 `json:"value"`
	Unit               *string  `json:"unit"`
	Dataset            string   `json:"dataset"`
	DatasetSlug        string   `json:"dataset_slug"`
	MethodologyVersion string   `json:"methodology_version"`
	GeoWidened         bool     `json:"geo_widened"`
}

// Item is the evidence of one claim.
type Item struct {
	Claim       string      `json:"claim"`
	Source      Source      `json:"source"`
	Methodology Methodology `json:"methodology"`
}

// Source is where a claim's figure comes from. Tier 1 is a federal source read record by record
// (the registry, the Census estimates); tier 2 is a figure this service computed from tier-1
// sources under the study's published methodology.
type Source struct {
	Name        string  `json:"name"`
	Tier        int     `json:"tier"`
	URL         *string `json:"url"`
	LastChecked string  `json:"last_checked"`
	Confidence  float64 `json:"confidence"`
}

// Methodology is the method a claim's figure was produced under and its caveats.
type Methodology struct {
	URL         string   `json:"url"`
	Version     string   `json:"version"`
	Limitations []string `json:"limitations"`
}

// Source tiers.
const (
	TierPrimary = 1
	TierDerived = 2
)

// builder composes the answer to one intent from one study.
type builder struct {
	in     Intent
	st     *study.Study
	label  string
	method string // the study's methodology URL
	// county is the Census name of the county a question asked about, and widened the
	// limitation of answering it with its state's figures.
	county, widened string
	items           []Item
}

// origins of a study's figures.
func (b *builder) registry() Source { return provSource(b.st.Registry, TierPrimary) }
func (b *builder) census() Source   { return provSource(b.st.Census, TierPrimary) }
func (b *builder) derived() Source {
	st := b.st
	url := b.method
	return Source{
		Name: fmt.Sprintf("Specialty supply study %s %s, computed from %s (snapshot %s) and %s (snapshot %s)",
			st.Dataset, st.MethodologyVersion, st.Registry.DatasetID, st.Registry.Snapshot, st.Census.DatasetID, st.Census.Snapshot),
		Tier: TierDerived, URL: &url, LastChecked: max(st.Registry.LastChecked, st.Census.LastChecked),
		Confidence: min(st.Registry.Confidence, st.Census.Confidence),
	}
}

func provSource(p stored.Provenance, tier int) Source {
	s := Source{Name: p.Source, Tier: tier, LastChecked: p.LastChecked, Confidence: p.Confidence}
	if p.Snapshot != "" {
		s.Name += ", snapshot " + p.Snapshot
	}
	if p.SourceURL != "" {
		u := p.SourceURL
		s.URL = &u
	}
	return s
}

// claim adds one evidence item: its figure's field names the field's own caveat, which comes
// first, after the county caveat of a widened answer, then the study's.
func (b *builder) claim(text string, src Source, field string) {
	var lim []string
	if b.widened != "" {
		lim = append(lim, b.widened)
	}
	sp, _ := study.Lookup(b.st.Specialty)
	if l := study.FieldLimitation(field, sp, "", b.st.National.Per100k); l != "" {
		lim = append(lim, l)
	}
	lim = append(lim, study.Limitations...)
	b.items = append(b.items, Item{Claim: text, Source: src,
		Methodology: Methodology{URL: b.method, Version: b.st.MethodologyVersion, Limitations: lim}})
}

// Claims about one state's row.
func (b *builder) densityClaim(r study.Row) {
	b.claim(fmt.Sprintf("%s (%s) has %s per 100,000 residents.", r.StateName, r.StateCode, b.density(r.Per100k)),
		b.derived(), study.FieldPer100k)
}
func (b *builder) countClaim(r study.Row) {
	b.claim(fmt.Sprintf("%s (%s) has %s in the registry.", r.StateName, r.StateCode, b.count(r.ActiveProviders)),
		b.registry(), study.FieldActiveProviders)
}
func (b *builder) populationClaim(r study.Row) {
	b.claim(fmt.Sprintf("%s (%s) had a resident population of %s in 2024.", r.StateName, r.StateCode, study.FormatCount(r.Population)),
		b.census(), study.FieldPopulation)
}
func (b *builder) rankClaim(r study.Row) {
	b.claim(fmt.Sprintf("%s (%s) ranks %d of 51 by %s density (1 is the highest), in quartile %d of 4.", r.StateName, r.StateCode, r.Rank, b.label, r.Quartile),
		b.derived(), study.FieldRank)
}

// Claims about the 51 together.
func (b *builder) nationalClaims() {
	n := b.st.National
	b.claim(fmt.Sprintf("The 50 states and DC together have %s per 100,000 residents.", b.density(n.Per100k)), b.derived(), study.FieldPer100k)
	b.claim(fmt.Sprintf("The registry lists %s in the 50 states and DC.", b.count(n.ActiveProviders)), b.registry(), study.FieldActiveProviders)
	b.claim(fmt.Sprintf("The 50 states and DC had a resident population of %s in 2024.", study.FormatCount(n.Population)), b.census(), study.FieldPopulation)
}

// answer composes the answer to the builder's intent. It fails only on an intent whose states
// the study has no row for, which validate rules out for a whole study.
func (b *builder) answer() (*Answer, error) {
	rows := make([]study.Row, 0, len(b.in.States))
	for _, c := range b.in.States {
		r, ok := b.st.Row(c)
		if !ok {
			return nil, fmt.Errorf("evidence: study %s has no row for %s", b.st.Dataset, c)
		}
		rows = append(rows, r)
	}
	a := &Answer{Dataset: "Specialty supply study: " + b.st.DisplayName, DatasetSlug: b.st.Dataset,
		MethodologyVersion: b.st.MethodologyVersion, GeoWidened: b.widened != ""}
	n := b.st.National
	switch {
	case b.in.Kind == KindCompare:
		a.Summary = b.compare(rows)
	case b.in.Kind == KindUnderserved && len(rows) == 1:
		r := rows[0]
		is, side := "is not", "at or above"
		if r.Underserved {
			is, side = "is", "below"
		}
		a.Summary = fmt.Sprintf("%s %s underserved for %s: its density of %s per 100,000 residents is %s 3/4 of the national density of %s.",
			r.StateName, is, b.label, noun(r.Per100k == 1, "1 provider", per(r.Per100k)+" providers"), side, per(n.Per100k))
		b.claim(fmt.Sprintf("%s (%s) %s underserved: %s per 100,000 against a threshold of 3/4 of the national %s per 100,000.",
			r.StateName, r.StateCode, is, per(r.Per100k), per(n.Per100k)), b.derived(), study.FieldUnderserved)
		b.densityClaim(r)
	case b.in.Kind == KindUnderserved:
		a.Summary = b.underserved(a)
	case b.in.Kind == KindRank && len(rows) == 1:
		r := rows[0]
		a.Summary = fmt.Sprintf("%s ranks %d of 51 for %s density, with %s per 100,000 residents (quartile %d of 4).",
			r.StateName, r.Rank, b.label, noun(r.Per100k == 1, "1 provider", per(r.Per100k)+" providers"), r.Quartile)
		a.Value, a.Unit = num(float64(r.Rank)), unit("rank of 51 by density (1 is the highest)")
		b.rankClaim(r)
		b.densityClaim(r)
	case b.in.Kind == KindRank:
		a.Summary = b.extreme(a)
	case b.in.Kind == KindCount && len(rows) == 1:
		r := rows[0]
		a.Summary = fmt.Sprintf("%s has %s in the registry (%s per 100,000 residents).", r.StateName, b.count(r.ActiveProviders), per(r.Per100k))
		a.Value, a.Unit = num(float64(r.ActiveProviders)), unit("providers")
		b.countClaim(r)
		b.densityClaim(r)
	case b.in.Kind == KindCount:
		a.Summary = fmt.Sprintf("The registry lists %s in the 50 states and DC (%s per 100,000 residents).", b.count(n.ActiveProviders), per(n.Per100k))
		a.Value, a.Unit = num(float64(n.ActiveProviders)), unit("providers")
		b.nationalClaims()
	case len(rows) == 1:
		r := rows[0]
		a.Summary = fmt.Sprintf("%s has %s per 100,000 residents (%s, 2024 population %s), rank %d of 51 by density.",
			r.StateName, b.density(r.Per100k), providerCount(r.ActiveProviders), study.FormatCount(r.Population), r.Rank)
		a.Value, a.Unit = num(r.Per100k), unit("providers per 100,000 residents")
		b.densityClaim(r)
		b.countClaim(r)
		b.populationClaim(r)
		b.rankClaim(r)
	default:
		a.Summary = fmt.Sprintf("The 50 states and DC together have %s per 100,000 residents (%s, 2024 population %s).",
			b.density(n.Per100k), providerCount(n.ActiveProviders), study.FormatCount(n.Population))
		a.Value, a.Unit = num(n.Per100k), unit("providers per 100,000 residents")
		b.nationalClaims()
	}
	if b.widened != "" {
		a.Summary = fmt.Sprintf("County-level supply is not available, so %s is answered with the state-level figures of %s: %s",
			b.county, rows[0].StateName, a.Summary)
	}
	return a, nil
}

func (b *builder) compare(rows []study.Row) string {
	var parts []string
	best := rows[0]
	for _, r := range rows {
		if b.in.ByCount {
			parts = append(parts, fmt.Sprintf("%s %s", r.StateName, study.FormatCount(r.ActiveProviders)))
			b.countClaim(r)
			if r.ActiveProviders > best.ActiveProviders {
				best = r
			}
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (rank %d)", r.StateName, per(r.Per100k), r.Rank))
		b.densityClaim(r)
		if r.Rank < best.Rank {
			best = r
		}
	}
	tied := 0
	for _, r := range rows {
		if b.in.ByCount && r.ActiveProviders == best.ActiveProviders || !b.in.ByCount && r.Rank == best.Rank {
			tied++
		}
	}
	if b.in.ByCount {
		s := fmt.Sprintf("Active %s providers: %s.", b.label, strings.Join(parts, ", "))
		if tied == 1 {
			s += fmt.Sprintf(" %s has the most of the states compared.", best.StateName)
		}
		return s
	}
	s := fmt.Sprintf("Active %s providers per 100,000 residents: %s.", b.label, strings.Join(parts, ", "))
	if tied == 1 {
		s += fmt.Sprintf(" %s has the highest density of the states compared.", best.StateName)
	}
	return s
}

// extreme answers which state has the highest (or lowest) density, or the most (or fewest)
// providers; states that tie are all named.
func (b *builder) extreme(a *Answer) string {
	key := func(r study.Row) float64 { return r.Per100k }
	if b.in.ByCount {
		key = func(r study.Row) float64 { return float64(r.ActiveProviders) }
	}
	better := func(x, y study.Row) bool { // x ranks before y
		if b.in.ByCount {
			return x.ActiveProviders > y.ActiveProviders
		}
		return x.Rank < y.Rank
	}
	if b.in.Lowest {
		ahead := better
		better = func(x, y study.Row) bool { return ahead(y, x) }
	}
	var top []study.Row
	for _, r := range b.st.Rows {
		switch {
		case len(top) == 0 || better(r, top[0]):
			top = []study.Row{r}
		case !better(top[0], r):
			top = append(top, r)
		}
	}
	var names []string
	for _, r := range top {
		names = append(names, r.StateName)
		if b.in.ByCount {
			b.countClaim(r)
		} else {
			b.densityClaim(r)
			b.rankClaim(r)
		}
	}
	who := joinNames(names)
	a.Value = num(key(top[0]))
	if b.in.ByCount {
		a.Unit = unit("providers")
		most := "the most"
		if b.in.Lowest {
			most = "the fewest"
		}
		return fmt.Sprintf("%s %s %s active %s providers of the 50 states and DC, %s.", who, has(len(top)), most, b.label, study.FormatCount(top[0].ActiveProviders))
	}
	a.Unit = unit("providers per 100,000 residents")
	highest := "the highest"
	if b.in.Lowest {
		highest = "the lowest"
	}
	return fmt.Sprintf("%s %s %s %s density of the 50 states and DC, %s per 100,000 residents.", who, has(len(top)), highest, b.label,
		noun(top[0].Per100k == 1, "1 provider", per(top[0].Per100k)+" providers"))
}

// underserved lists the underserved states.
func (b *builder) underserved(a *Answer) string {
	n := b.st.National
	var under []study.Row
	for _, r := range b.st.Rows {
		if r.Underserved {
			under = append(under, r)
		}
	}
	a.Value, a.Unit = num(float64(len(under))), unit("states")
	if len(under) == 0 {
		b.claim(fmt.Sprintf("No state has a %s density below 3/4 of the national %s per 100,000 residents.", b.label, per(n.Per100k)), b.derived(), study.FieldUnderserved)
		return fmt.Sprintf("No state is underserved for %s: none has a density below 3/4 of the national %s per 100,000 residents.", b.label, nationalDensity(n))
	}
	var names []string
	for _, r := range under {
		names = append(names, r.StateName)
	}
	b.claim(fmt.Sprintf("%d of the 50 states and DC %s a %s density below 3/4 of the national %s per 100,000 residents: %s.",
		len(under), noun(len(under) == 1, "has", "have"), b.label, per(n.Per100k), joinNames(names)), b.derived(), study.FieldUnderserved)
	for _, r := range under {
		b.claim(fmt.Sprintf("%s (%s) has %s per 100,000 residents, below the underserved threshold.", r.StateName, r.StateCode, b.density(r.Per100k)),
			b.derived(), study.FieldUnderserved)
	}
	return fmt.Sprintf("%d of the 50 states and DC %s underserved for %s, with a density below 3/4 of the national %s per 100,000 residents: %s.",
		len(under), noun(len(under) == 1, "is", "are"), b.label, nationalDensity(n), joinNames(names))
}

// count writes a number of active providers of the builder's specialty, the noun agreeing
// with it: "1 active dermatology provider", "2,048 active dermatology providers".
func (b *builder) count(n int64) string {
	return fmt.Sprintf("%s active %s %s", study.FormatCount(n), b.label, noun(n == 1, "provider", "providers"))
}

// density writes a density of active providers of the builder's specialty, to be followed by
// "per 100,000 residents".
func (b *builder) density(f float64) string {
	return fmt.Sprintf("%s active %s %s", per(f), b.label, noun(f == 1, "provider", "providers"))
}

// providerCount writes a number of providers without the specialty: "1 provider".
func providerCount(n int64) string {
	return study.FormatCount(n) + " " + noun(n == 1, "provider", "providers")
}

// nationalDensity writes the national density with its noun: "1 provider", "3.1 providers".
func nationalDensity(n study.National) string {
	return noun(n.Per100k == 1, "1 provider", per(n.Per100k)+" providers")
}

// noun picks the singular or the plural form.
func noun(one bool, singular, plural string) string {
	if one {
		return singular
	}
	return plural
}

func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "share"
}

func joinNames(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// per writes a density as the API serves it: up to 4 decimals, no trailing zeros.
func per(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func num(f float64) *float64 { return &f }
func unit(s string) *string  { return &s }

// countyOf finds the county a question named among the Census counties of its state: the exact
// name (with or without its "County" word), else the one name within a few edits. It reports
// false when the state has no such county.
func (s *Service) countyOf(ctx context.Context, state, name string) (stored.CensusCountyRecord, bool, error) {
	v, err := s.records.Serving(ctx)
	if err != nil {
		return stored.CensusCountyRecord{}, false, err
	}
	docs, err := v.Keyed(ctx, catalog.CensusCounties, stored.KeyState, state)
	if err != nil {
		return stored.CensusCountyRecord{}, false, err
	}
	want := stored.NormalizeText(name)
	byName := map[string]stored.CensusCountyRecord{}
	var names []string
	for _, d := range docs {
		b, err := stored.DecodeBody[stored.CensusCountyRecord](d)
		if err != nil {
			return stored.CensusCountyRecord{}, false, err
		}
		n := countyName(b.Record.Name)
		byName[n] = b.Record
		names = append(names, n)
	}
	slices.Sort(names)
	// The words read before "County" may begin with a word of the sentence ("serve Hennepin"):
	// the longest tail of them that names a county is the county.
	// Exact names first, then names within a few edits.
	words := strings.Fields(want)
	for i := range words {
		if c, ok := byName[strings.Join(words[i:], " ")]; ok {
			return c, true, nil
		}
	}
	for i := range words {
		if n, ok := closest(strings.Join(words[i:], " "), names, tolerance); ok {
			return byName[n], true, nil
		}
	}
	return stored.CensusCountyRecord{}, false, nil
}

// countyName folds a Census county name and drops its kind ("Los Angeles County" is "los
// angeles"), as questions name counties.
func countyName(name string) string {
	n := stored.NormalizeText(name)
	for _, suffix := range []string{" city and borough", " census area", " municipality", " county", " parish", " borough", " planning region"} {
		if t, ok := strings.CutSuffix(n, suffix); ok {
			return t
		}
	}
	return n
}

// stateName is the name of one of the 51.
func stateName(code string) string {
	s, _ := ident.LookupState(code)
	return s.Name
}
