// Package study computes the specialty supply studies of the supply data API
// (docs/contracts/supply-api.md): for each of the twelve registered specialties, and for each of
// their registered taxonomy codes, the active registry providers per state of the 51, their
// density per 100,000 residents, the rank and quartile of that density and the underserved flag.
// It is pure computation over values the caller has read (registry records, Census rows, NUCC
// display names): the ingest projection feeds it from the store, the REST layer reads what it
// produced, and nothing here touches the store, so the rules are tested on their own.
package study

import (
	"slices"

	"providerdir/specialty"
)

// Specialty is one registered specialty with its NUCC taxonomy codes (package specialty).
type Specialty = specialty.Specialty

// registry is the registered specialties, in slug order.
var registry = specialty.Registered

// StudySuffix turns a specialty slug into its study's dataset slug (package specialty).
const StudySuffix = specialty.StudySuffix

// Specialties returns the registered specialties in slug order. The slice is the caller's.
func Specialties() []Specialty {
	out := make([]Specialty, len(registry))
	for i, s := range registry {
		out[i] = Specialty{Slug: s.Slug, Codes: slices.Clone(s.Codes)}
	}
	return out
}

// Lookup returns the registered specialty with the given slug.
func Lookup(slug string) (Specialty, bool) {
	for _, s := range registry {
		if s.Slug == slug {
			return Specialty{Slug: s.Slug, Codes: slices.Clone(s.Codes)}, true
		}
	}
	return Specialty{}, false
}

// LookupStudy returns the specialty whose study has the given dataset slug ("cardiology-supply").
func LookupStudy(dataset string) (Specialty, bool) {
	for _, s := range registry {
		if s.Study() == dataset {
			return Lookup(s.Slug)
		}
	}
	return Specialty{}, false
}

// AllCodes returns every registered code of every specialty, sorted and distinct.
func AllCodes() []string {
	var out []string
	for _, s := range registry {
		out = append(out, s.Codes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Of returns the specialties whose codes the taxonomy list contains, in slug order.
func Of(codes []string) []Specialty {
	var out []Specialty
	for _, s := range registry {
		if slices.ContainsFunc(codes, s.Supports) {
			out = append(out, Specialty{Slug: s.Slug, Codes: slices.Clone(s.Codes)})
		}
	}
	return out
}

// Primary picks the one specialty a provider is reported under when its taxonomy list matches
// several (neurologists who also hold the psychiatry code, say): the specialty of its primary
// taxonomy when that is a registered code, else the first matching specialty in slug order.
// It reports false when the list matches none.
func Primary(primary string, codes []string) (Specialty, bool) {
	matched := Of(codes)
	if len(matched) == 0 {
		return Specialty{}, false
	}
	for _, s := range matched {
		if s.Supports(primary) {
			return s, true
		}
	}
	return matched[0], true
}
