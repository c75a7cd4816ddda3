// Package supply computes the specialty supply studies of the supply data API (seeds/000): for
// each of the twelve registered specialties, and for each of their registered taxonomy codes, the
// active registry providers per state of the 51, their density per 100,000 residents, the rank
// and quartile of that density and the underserved flag. It is pure computation over values the
// caller has read (registry records, Census rows, NUCC display names): the ingest projection
// feeds it from the store, the REST layer reads what it produced, and nothing here touches the
// store, so the rules are tested on their own.
package supply

import "slices"

// Specialty is one registered specialty of the supply API with its NUCC taxonomy codes.
type Specialty struct {
	// Slug is the path `code` of /v1/specialties/{code}/...
	Slug string
	// Codes are the registered taxonomy codes in the order seeds/000 lists them; Codes[0] is the
	// parent (or only) code. A provider belongs to the specialty when its taxonomy list
	// contains any of them; each code is also a valid subspecialty filter.
	Codes []string
}

// registry is seeds/000 section 2, "Registered subspecialty codes per primary specialty", in
// slug order. Oncology and psychiatry list one code that seeds/000 does not call a parent; it is
// still their parent for the filter rules (rule 3: a filter equal to the only code matches).
var registry = []Specialty{
	{"cardiology", []string{"207RC0000X"}},
	{"dermatology", []string{"207N00000X", "207ND0900X", "207NI0002X", "207NP0225X", "207NS0135X"}},
	{"gastroenterology", []string{"207RG0100X"}},
	{"neurology", []string{"2084N0400X"}},
	{"obgyn", []string{"207V00000X", "207VX0000X", "207VG0400X"}},
	{"oncology", []string{"207RX0202X"}},
	{"ophthalmology", []string{"207W00000X"}},
	{"orthopedic", []string{"207X00000X"}},
	{"otolaryngology", []string{"207Y00000X"}},
	{"pediatrics", []string{"208000000X", "2080A0000X", "2080P0006X", "2080P0008X", "2080N0001X",
		"2080P0202X", "2080P0203X", "2080P0204X", "2080P0205X", "2080P0206X", "2080P0207X",
		"2080P0208X", "2080P0210X", "2080P0214X", "2080P0216X", "2080I0007X", "2080S0010X",
		"2080S0012X", "2080T0002X", "2080H0002X"}},
	{"psychiatry", []string{"2084P0800X"}},
	{"urology", []string{"208800000X"}},
}

// StudySuffix turns a specialty slug into its study's dataset slug ("cardiology-supply"), the
// slug of its methodology and of its export.
const StudySuffix = "-supply"

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

// Study is the dataset slug of the specialty's supply study.
func (s Specialty) Study() string { return s.Slug + StudySuffix }

// Parent is the specialty's parent (or only) code.
func (s Specialty) Parent() string { return s.Codes[0] }

// Supports reports whether code is registered for the specialty, and so a valid subspecialty
// filter of it (seeds/000 section 4 rules 3 and 4). Codes compare exactly: NUCC codes are
// uppercase as published.
func (s Specialty) Supports(code string) bool { return slices.Contains(s.Codes, code) }

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
