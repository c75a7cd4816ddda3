package study

import "providerdir/stored"

// Study is one computed supply study as stored by the ingest projection: a whole specialty, or
// one specialty restricted to one of its registered codes (the subspecialty filter). It carries
// the figures and the provenance of both sources they were computed from, so a response needs
// nothing else to wrap every value.
type Study struct {
	// Dataset is the study's slug ("dermatology-supply"), also for filtered studies.
	Dataset   string `json:"dataset"`
	Specialty string `json:"specialty"`
	// DisplayName is the NUCC display name of the specialty's parent code.
	DisplayName string     `json:"display_name"`
	Codes       []CodeName `json:"codes"`
	// Filter is the applied subspecialty code; nil for the whole specialty.
	Filter             *CodeName `json:"filter,omitempty"`
	MethodologyVersion string    `json:"methodology_version"`
	// ReleaseDate is the snapshot date of the registry file the study was computed from: the
	// study is released anew with each registry snapshot.
	ReleaseDate string   `json:"release_date"`
	National    National `json:"national"`
	// Deactivated, Organizations and OutsideThe51 count the matching records left out (see
	// Counts).
	Deactivated   int64 `json:"deactivated"`
	Organizations int64 `json:"organizations"`
	OutsideThe51  int64 `json:"outside_the_51"`
	// Rows are the 51 states in state code order.
	Rows []Row `json:"rows"`
	// Registry, Census and Taxonomy are the provenance of the NPPES, Census and NUCC snapshots
	// the study was computed from (Taxonomy is nil when no NUCC code set was loaded, and the
	// display names are then the codes themselves).
	Registry stored.Provenance  `json:"registry"`
	Census   stored.Provenance  `json:"census"`
	Taxonomy *stored.Provenance `json:"taxonomy,omitempty"`
}

// CodeName is a taxonomy code with its NUCC display name.
type CodeName struct {
	Code        string `json:"code"`
	DisplayName string `json:"display_name"`
}

// Row returns the row of one state.
func (s *Study) Row(state string) (Row, bool) {
	for _, r := range s.Rows {
		if r.StateCode == state {
			return r, true
		}
	}
	return Row{}, false
}

// ID is the document id of a study: the specialty slug, or slug.code for a filtered one.
func ID(slug, code string) string {
	if code == "" {
		return slug
	}
	return slug + "." + code
}

// Inputs are the source figures the studies are computed from, besides the registry tally.
type Inputs struct {
	// States are the 51: code, name and Census Vintage 2024 population.
	States []Row
	// Names maps a taxonomy code to its NUCC display name; a code without one shows the code.
	Names    map[string]string
	Registry stored.Provenance
	Census   stored.Provenance
	Taxonomy *stored.Provenance
}

// Build computes every study from a finished tally: the twelve specialties in slug order, each
// followed by one filtered study per registered code.
func Build(t *Tally, in Inputs) []Study {
	name := func(code string) string {
		if n := in.Names[code]; n != "" {
			return n
		}
		return code
	}
	var out []Study
	for _, sp := range registry {
		base := Study{
			Dataset:            sp.Study(),
			Specialty:          sp.Slug,
			DisplayName:        name(sp.Parent()),
			MethodologyVersion: MethodologyVersion,
			ReleaseDate:        in.Registry.Snapshot,
			Registry:           in.Registry,
			Census:             in.Census,
			Taxonomy:           in.Taxonomy,
		}
		for _, c := range sp.Codes {
			base.Codes = append(base.Codes, CodeName{Code: c, DisplayName: name(c)})
		}
		whole := base
		whole.fill(t.Specialty(sp.Slug), in.States, false)
		out = append(out, whole)
		for _, c := range base.Codes {
			f := base
			f.Filter = &CodeName{Code: c.Code, DisplayName: c.DisplayName}
			f.fill(t.Code(c.Code), in.States, true)
			out = append(out, f)
		}
	}
	return out
}

func (s *Study) fill(c Counts, states []Row, filtered bool) {
	s.Rows, s.National = Rank(c.States, states, filtered)
	s.Deactivated, s.Organizations, s.OutsideThe51 = c.Deactivated, c.Organizations, c.OutsideThe51
}
