package fhir

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"providerdir/catalog"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

// The parameters on meta: _profile and _tag. Every resource of a type claims the profile
// fhirmap.Profiles names, so _profile with it matches all of the type; the resources that meet
// their type's Plan-Net profile (fhirmap.PlanNetProfiles) claim it too and carry it as a search
// key (fhirmap.KeyProfile). Tags are the provenance codings of a resource's tag set, which a
// snapshot holds a handful of: a _tag search finds the sets that hold a matching tag, then the
// resources that name one of them (fhirmap.KeyTag), one index lookup.

// addProfileParam parses _profile: uris, each matched exactly against a profile canonical the
// type's resources claim.
func addProfileParam(q *query, modifier, name, value string) error {
	if modifier != "" {
		return unsupported(name, "modifier :%s is not supported on _profile", modifier)
	}
	var planNet bool
	for _, v := range splitValues(value) {
		switch unescape(v) {
		case fhirmap.Profiles[q.typ]:
			return nil // every resource of the type claims it
		case fhirmap.PlanNetProfiles[q.typ]:
			planNet = true
		}
	}
	if !planNet {
		q.empty = true
		return nil
	}
	q.where = append(q.where, store.Condition{Param: fhirmap.KeyProfile, Values: []string{fhirmap.PlanNetProfiles[q.typ]}, Match: store.Exact})
	return nil
}

// tagQuery is one _tag parameter: its alternatives, any of which a resource's tags must hold.
type tagQuery struct {
	name string
	alts []tagAlt
}

// tagAlt is one token: a code of any system (!hasSystem), system|code, or system| (any code).
type tagAlt struct {
	system, code string
	hasSystem    bool
}

// addTagParam parses _tag. A system is the served one, "<fhir base>/provenance/<key>", and is
// matched in the stored form (fhirmap.TagSystemPrefix); any other system matches nothing.
func addTagParam(q *query, modifier, name, value string) error {
	if modifier != "" {
		return unsupported(name, "modifier :%s is not supported on _tag", modifier)
	}
	t := tagQuery{name: name}
	served := q.base + "/provenance/"
	for _, a := range splitValues(value) {
		system, code, hasSystem := cutUnescaped(a, '|')
		if !hasSystem {
			code, system = system, ""
		}
		system, code = unescape(system), unescape(code)
		if hasSystem {
			key, ours := strings.CutPrefix(system, served)
			if !ours || key == "" {
				continue // another system, or |code (a tag without a system): none here
			}
			system = fhirmap.TagSystemPrefix + key
		}
		t.alts = append(t.alts, tagAlt{system: system, code: code, hasSystem: hasSystem})
	}
	if len(t.alts) == 0 {
		q.empty = true
		return nil
	}
	q.tags = append(q.tags, t)
	return nil
}

// matches reports whether a tag coding satisfies one of the alternatives.
func (t tagQuery) matches(c fhirmap.Coding) bool {
	return slices.ContainsFunc(t.alts, func(a tagAlt) bool {
		switch {
		case !a.hasSystem:
			return c.Code == a.code
		case a.code == "":
			return c.System == a.system
		}
		return c.System == a.system && c.Code == a.code
	})
}

// tagIndex holds the tag sets of the generations searched so far, by generation: a
// generation's sets never change once it is served.
type tagIndex struct {
	mu   sync.Mutex
	sets map[string]map[string][]fhirmap.Coding // generation -> set id -> codings
}

// maxTagGenerations bounds the generations kept; a server sees a handful in its life.
const maxTagGenerations = 8

// of returns the tag sets of generation gen, reading them on first use.
func (x *tagIndex) of(ctx context.Context, st store.Store, gen string) (map[string][]fhirmap.Coding, error) {
	x.mu.Lock()
	sets, ok := x.sets[gen]
	x.mu.Unlock()
	if ok {
		return sets, nil
	}
	sets = map[string][]fhirmap.Coding{}
	q := store.Query{Collection: catalog.FHIRTags, Generation: gen, Limit: store.MaxLimit}
	for {
		page, err := st.Find(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Docs {
			var codings []fhirmap.Coding
			if err := json.Unmarshal(d.Body, &codings); err != nil {
				return nil, fmt.Errorf("fhir: tag set %s of generation %s: %w", d.ID, gen, err)
			}
			sets[d.ID] = codings
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	x.mu.Lock()
	if x.sets == nil || len(x.sets) >= maxTagGenerations {
		x.sets = map[string]map[string][]fhirmap.Coding{}
	}
	x.sets[gen] = sets
	x.mu.Unlock()
	return sets, nil
}

// tagCondition turns a _tag parameter into a condition on the tag sets that hold a matching
// tag; nil when no set does.
func (s *Server) tagCondition(ctx context.Context, v view, t tagQuery) (*store.Condition, error) {
	gen := v.gens[catalog.FHIRTags]
	if gen == "" {
		return nil, nil
	}
	sets, err := s.tagIndex.of(ctx, s.st, gen)
	if err != nil {
		return nil, err
	}
	var ids []string
	for id, codings := range sets {
		if slices.ContainsFunc(codings, t.matches) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	slices.Sort(ids)
	return &store.Condition{Param: fhirmap.KeyTag, Values: ids, Match: store.Exact}, nil
}
