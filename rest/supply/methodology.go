package supply

import (
	"errors"
	"net/http"
	"slices"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/mapping/study"
	"providerdir/rest"
	"providerdir/stored"
)

// StudyMethodology is the data of /v1/methodology/{slug}-supply.
type StudyMethodology struct {
	Dataset            string            `json:"dataset"`
	Kind               string            `json:"kind"`
	Specialty          string            `json:"specialty"`
	DisplayName        string            `json:"display_name"`
	MethodologyVersion string            `json:"methodology_version"`
	TaxonomyCodes      []study.CodeName  `json:"taxonomy_codes"`
	ReleaseDate        *string           `json:"release_date"`
	Sources            []MethodSource    `json:"sources"`
	Rules              map[string]string `json:"rules"`
	Limitations        []string          `json:"limitations"`
	Per100kDecimals    int               `json:"per_100k_decimals"`
	Underserved        Threshold         `json:"underserved_threshold"`
	// National and LeftOut are the figures of the serving study; null before one is computed.
	National *study.National `json:"national"`
	LeftOut  *LeftOut        `json:"left_out"`
	Document string          `json:"document"`
}

// MethodSource is one dataset a study is computed from, as the serving snapshot holds it.
type MethodSource struct {
	DatasetID   string `json:"dataset_id"`
	Source      string `json:"source"`
	SourceURL   string `json:"source_url"`
	Snapshot    string `json:"snapshot,omitempty"`
	Methodology string `json:"methodology"`
	License     string `json:"license"`
}

// Threshold is the underserved rule in numbers.
type Threshold struct {
	FractionOfNationalDensity float64  `json:"fraction_of_national_density"`
	NationalPer100k           *float64 `json:"national_per_100k"`
}

// LeftOut counts the matching registry records a study did not count, by reason.
type LeftOut struct {
	Deactivated   int64 `json:"deactivated"`
	Organizations int64 `json:"organizations"`
	OutsideThe51  int64 `json:"outside_the_51"`
}

// DatasetMethodology is the data of /v1/methodology/{dataset_id} for a source dataset: the
// fixed facts of the dataset and the serving snapshot of its family.
type DatasetMethodology struct {
	Dataset       string            `json:"dataset"`
	Kind          string            `json:"kind"`
	Family        string            `json:"family"`
	Source        string            `json:"source"`
	SourceURL     string            `json:"source_url"`
	Methodology   string            `json:"methodology"`
	License       string            `json:"license"`
	Cadence       string            `json:"cadence"`
	Loaded        bool              `json:"loaded"`
	Snapshot      *string           `json:"snapshot"`
	LastRefreshed *string           `json:"last_refreshed"`
	Coverage      *catalog.Coverage `json:"coverage"`
}

// methodology serves GET /v1/methodology/{dataset}: a specialty study ("cardiology-supply") or
// an ingested source dataset by its provenance _dataset_id ("nppes"); anything else is 404
// methodology_not_found listing the slugs served.
func (a *API) methodology(w http.ResponseWriter, r *http.Request) {
	dataset := mux.Vars(r)["dataset"]
	ctx := r.Context()
	sp, isStudy := study.LookupStudy(dataset)
	ds, isDataset := stored.DatasetByID(dataset)
	if !isStudy && !isDataset {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeMethodologyNotFound,
			"No methodology is published for "+quote(dataset)+".", map[string]any{"supported_datasets": methodologySlugs()})
		return
	}
	v, err := a.view(ctx)
	if err != nil {
		fail(w, r, "methodology: read the serving snapshot", err)
		return
	}
	var data any
	families := studyFamilies
	if isStudy {
		if data, err = a.studyMethodology(r, v, sp); err != nil {
			fail(w, r, "methodology: read the study", err)
			return
		}
	} else {
		m, loaded, err := v.Manifest(ctx, ds.Family)
		if err != nil {
			fail(w, r, "methodology: read the manifests", err)
			return
		}
		data, families = datasetMethodology(ds, m, loaded), []string{ds.Family}
	}
	meta, err := a.meta(ctx, r, v, families, a.MethodologyURL(dataset))
	if err != nil {
		fail(w, r, "methodology: read the manifests", err)
		return
	}
	rest.WriteV1(w, r, http.StatusOK, data, meta)
}

func (a *API) studyMethodology(r *http.Request, v view, sp study.Specialty) (StudyMethodology, error) {
	out := StudyMethodology{
		Dataset: sp.Study(), Kind: "specialty_supply_study", Specialty: sp.Slug, DisplayName: sp.Parent(),
		MethodologyVersion: study.MethodologyVersion, Rules: study.Rules, Limitations: study.Limitations,
		Per100kDecimals: study.Per100kDecimals, Document: study.MethodologyDocument,
		Underserved: Threshold{FractionOfNationalDensity: float64(study.UnderservedNumerator) / float64(study.UnderservedDenominator)},
	}
	for _, c := range sp.Codes {
		out.TaxonomyCodes = append(out.TaxonomyCodes, study.CodeName{Code: c, DisplayName: c})
	}
	st, err := v.study(r.Context(), sp.Slug, "")
	switch {
	case errors.Is(err, errNoStudy):
		for _, d := range []stored.Dataset{stored.NPPES, stored.Census, stored.NUCC} {
			out.Sources = append(out.Sources, MethodSource{DatasetID: d.ID, Source: d.Source, SourceURL: d.SourceURL,
				Methodology: d.Methodology, License: d.License})
		}
		return out, nil
	case err != nil:
		return out, err
	}
	out.DisplayName, out.TaxonomyCodes, out.ReleaseDate = st.DisplayName, st.Codes, &st.ReleaseDate
	out.National = &st.National
	out.Underserved.NationalPer100k = &st.National.Per100k
	out.LeftOut = &LeftOut{Deactivated: st.Deactivated, Organizations: st.Organizations, OutsideThe51: st.OutsideThe51}
	provs := []stored.Provenance{st.Registry, st.Census}
	if st.Taxonomy != nil {
		provs = append(provs, *st.Taxonomy)
	}
	for _, p := range provs {
		out.Sources = append(out.Sources, MethodSource{DatasetID: p.DatasetID, Source: p.Source, SourceURL: p.SourceURL,
			Snapshot: p.Snapshot, Methodology: p.Methodology, License: p.License})
	}
	return out, nil
}

func datasetMethodology(d stored.Dataset, m catalog.Manifest, loaded bool) DatasetMethodology {
	out := DatasetMethodology{Dataset: d.ID, Kind: "source_dataset", Family: d.Family, Source: d.Source,
		SourceURL: d.SourceURL, Methodology: d.Methodology, License: d.License, Cadence: d.Cadence, Loaded: loaded}
	if loaded && (m.DatasetID == d.ID || slices.Contains(m.Datasets, d.ID)) {
		refreshed := rest.Timestamp(m.FinishedAt)
		out.Snapshot, out.LastRefreshed, out.Coverage = &m.Snapshot, &refreshed, &m.Coverage
	} else {
		out.Loaded = false
	}
	return out
}

// methodologySlugs lists every dataset slug /v1/methodology serves, studies first.
func methodologySlugs() []string {
	var out []string
	for _, sp := range study.Specialties() {
		out = append(out, sp.Study())
	}
	return append(out, stored.DatasetIDs()...)
}
