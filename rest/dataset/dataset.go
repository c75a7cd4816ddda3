// Package dataset owns the published datasets of the supply API's exports and audit packs
// (docs/contracts/supply-api.md §2, "Export dataset slugs"): the seventeen slugs, what
// each one is, and its per-state figures read from the serving snapshot. The twelve specialty
// supply studies are read as the ingest computed them; chiropractor supply is counted from the
// registry by the same rules; the four facility studies are counted from the Care Compare files.
// Exports, audit packs and the web pages read the same figures through here, so they cannot
// disagree.
package dataset

import (
	"providerdir/docs"
	"providerdir/mapping/study"
	"providerdir/specialty"
	"providerdir/stored"
)

// Kind says how a dataset's figures are computed.
type Kind string

// The kinds of dataset.
const (
	// SpecialtySupply is a supply study of registry providers per state.
	SpecialtySupply Kind = "specialty_supply_study"
	// FacilityQuality is a study of Care Compare facilities per state.
	FacilityQuality Kind = "facility_quality_study"
)

// QualityMethodologyVersion is the version of the facility studies' method, read from the
// title of its document as the specialty studies' is.
var QualityMethodologyVersion = study.DocumentVersion(QualityMethodologyDocument)

// QualityMethodologyDocument is the path in docs.Files of the facility studies' method.
var QualityMethodologyDocument = docs.Methodology("facility-quality")

// Dataset is one registered export dataset.
type Dataset struct {
	Slug        string
	DisplayName string
	// OneLiner says in one sentence what the dataset measures.
	OneLiner string
	Kind     Kind
	// Specialty is the counted specialty of a supply dataset.
	Specialty specialty.Specialty
	// Quality is the Care Compare facility type of a facility dataset.
	Quality stored.QualityType
	// AuditPack reports whether the dataset has an audit pack: every dataset but chiropractor
	// supply, which is not one of the twelve studies (docs/contracts/supply-api.md: 12 + 4 packs).
	AuditPack bool
	// Unit names what a facility or supply count counts, in the plural.
	Unit string
	// Families are the source families the figures are computed from.
	Families []string
	// Primary is the dataset the counts come from (NPPES or a Care Compare topic).
	Primary stored.Dataset
}

// MethodologyVersion is the version of the method the dataset's figures follow.
func (d Dataset) MethodologyVersion() string {
	if d.Kind == FacilityQuality {
		return QualityMethodologyVersion
	}
	return study.MethodologyVersion
}

// MethodologyDocument is the path, in the repository's docs directory, of the method in prose.
func (d Dataset) MethodologyDocument() string {
	if d.Kind == FacilityQuality {
		return "docs/" + QualityMethodologyDocument
	}
	return study.MethodologyDocument
}

// Cadence is the refresh cadence of the dataset: its primary source's.
func (d Dataset) Cadence() string { return d.Primary.Cadence }

// Source families of the datasets.
const (
	familyRegistry = "nppes"
	familyCensus   = "census"
	familyQuality  = "carecompare"
)

// registered is docs/contracts/supply-api.md's list of export dataset slugs, in its order.
var registered = buildRegistry()

func buildRegistry() []Dataset {
	names := map[string]string{
		"cardiology": "Cardiology", "dermatology": "Dermatology", "gastroenterology": "Gastroenterology",
		"neurology": "Neurology", "obgyn": "Obstetrics & gynecology", "oncology": "Medical oncology",
		"ophthalmology": "Ophthalmology", "orthopedic": "Orthopaedic surgery", "otolaryngology": "Otolaryngology",
		"pediatrics": "Pediatrics", "psychiatry": "Psychiatry", "urology": "Urology", "chiropractor": "Chiropractic",
	}
	supply := func(sp specialty.Specialty, pack bool) Dataset {
		return Dataset{Slug: sp.Study(), DisplayName: names[sp.Slug] + " supply by state", Kind: SpecialtySupply,
			OneLiner: names[sp.Slug] + " providers (individual NPIs with taxonomy " + codeList(sp.Codes) +
				") per 100,000 residents in each of the 50 states and DC, from the NPPES registry and Census Vintage 2024 population.",
			Specialty: sp, AuditPack: pack, Unit: "providers", Families: []string{familyRegistry, familyCensus}, Primary: stored.NPPES}
	}
	quality := func(slug, name, what string, t stored.QualityType) Dataset {
		return Dataset{Slug: slug, DisplayName: name, Kind: FacilityQuality,
			OneLiner: what + " listed in CMS Care Compare per 100,000 residents in each of the 50 states and DC, with their mean overall star rating.",
			Quality:  t, AuditPack: true, Unit: "facilities", Families: []string{familyQuality, familyCensus}, Primary: t.Dataset}
	}
	byOrder := map[string]specialty.Specialty{}
	for _, sp := range specialty.Registered {
		byOrder[sp.Slug] = sp
	}
	out := make([]Dataset, 0, 17)
	for _, slug := range []string{"dermatology", "psychiatry", "cardiology", "obgyn", "pediatrics", "neurology", "oncology",
		"orthopedic", "ophthalmology", "gastroenterology", "urology", "otolaryngology"} {
		out = append(out, supply(byOrder[slug], true))
	}
	out = append(out, supply(specialty.Chiropractor, false))
	qt := map[string]stored.QualityType{}
	for _, t := range stored.QualityTypes {
		qt[t.Slug] = t
	}
	return append(out,
		quality("nursing-home-quality", "Nursing home quality by state", "Medicare-certified nursing homes", qt["nursing-home"]),
		quality("dialysis-quality", "Dialysis facility quality by state", "Medicare-certified dialysis facilities", qt["dialysis"]),
		quality("home-health-quality", "Home health agency quality by state", "Medicare-certified home health agencies", qt["home-health"]),
		quality("hospice-availability", "Hospice availability by state", "Medicare-certified hospices", qt["hospice"]),
	)
}

func codeList(codes []string) string {
	out := ""
	for i, c := range codes {
		switch {
		case i == 0:
		case i == len(codes)-1:
			out += " or "
		default:
			out += ", "
		}
		out += c
	}
	return out
}

// All returns the seventeen registered datasets in docs/contracts/supply-api.md's order. The slice
// is the caller's.
func All() []Dataset { return append([]Dataset(nil), registered...) }

// Slugs returns the seventeen slugs in docs/contracts/supply-api.md's order.
func Slugs() []string {
	out := make([]string, len(registered))
	for i, d := range registered {
		out[i] = d.Slug
	}
	return out
}

// Lookup returns the registered dataset with the given slug.
func Lookup(slug string) (Dataset, bool) {
	for _, d := range registered {
		if d.Slug == slug {
			return d, true
		}
	}
	return Dataset{}, false
}
