package supply

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/ident"
	"providerdir/mapping/study"
	"providerdir/rest"
)

// Coverage is the data of GET /v1/states/{state}/coverage: every specialty's row for one state.
type Coverage struct {
	StateCode          Field               `json:"state_code"`
	StateName          Field               `json:"state_name"`
	Population         Field               `json:"population_2024"`
	MethodologyVersion string              `json:"methodology_version"`
	Specialties        []SpecialtySupply   `json:"specialties"`
	Summary            CoverageUnderserved `json:"summary"`
}

// SpecialtySupply is one specialty's row for the state.
type SpecialtySupply struct {
	Slug        string   `json:"slug"`
	DisplayName string   `json:"display_name"`
	StudyURL    string   `json:"study_url"`
	Supply      StateRow `json:"supply"`
}

// CoverageUnderserved is the rollup's summary: how many specialties it lists, and the slugs of
// those in which the state is underserved.
type CoverageUnderserved struct {
	Specialties            int      `json:"specialties"`
	UnderservedSpecialties []string `json:"underserved_specialties"`
}

// coverage serves the per-specialty rollup of one of the 51. Any other code (a territory, an
// unknown or malformed code), or a snapshot without studies, is 404 state_not_found: there is
// no specialty data for it. Codes are taken in either case.
func (a *API) coverage(w http.ResponseWriter, r *http.Request) {
	raw := mux.Vars(r)["state"]
	code := strings.ToUpper(raw)
	notFound := func(why string) {
		rest.WriteV1Error(w, r, http.StatusNotFound, CodeStateNotFound, "No specialty data for "+quote(raw)+": "+why, nil)
	}
	if s, ok := ident.LookupState(code); !ok || !s.InThe51() {
		notFound("the studies cover the 50 states and DC.")
		return
	}
	ctx := r.Context()
	v, err := a.view(ctx)
	if err != nil {
		fail(w, r, "coverage: read the serving snapshot", err)
		return
	}
	var out Coverage
	for _, sp := range study.Specialties() {
		st, err := v.study(ctx, sp.Slug, "")
		if errors.Is(err, errNoStudy) {
			continue
		}
		if err != nil {
			fail(w, r, "coverage: read a study", err)
			return
		}
		row, ok := st.Row(code)
		if !ok {
			continue
		}
		wrapped := a.rowWrapper(st).wrap(row)
		if len(out.Specialties) == 0 {
			out.StateCode, out.StateName, out.Population = wrapped.StateCode, wrapped.StateName, wrapped.Population
			out.MethodologyVersion = st.MethodologyVersion
		}
		out.Specialties = append(out.Specialties, SpecialtySupply{Slug: sp.Slug, DisplayName: st.DisplayName,
			StudyURL: a.studyURL(sp.Slug), Supply: wrapped})
		if row.Underserved {
			out.Summary.UnderservedSpecialties = append(out.Summary.UnderservedSpecialties, sp.Slug)
		}
	}
	if len(out.Specialties) == 0 {
		notFound("no supply study is loaded.")
		return
	}
	out.Summary.Specialties = len(out.Specialties)
	if out.Summary.UnderservedSpecialties == nil {
		out.Summary.UnderservedSpecialties = []string{}
	}
	meta, err := a.meta(ctx, r, v, studyFamilies, a.methodologyPage())
	if err != nil {
		fail(w, r, "coverage: read the manifests", err)
		return
	}
	rest.WriteV1(w, r, http.StatusOK, out, meta)
}
