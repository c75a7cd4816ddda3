package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/internal/safetext"
	"providerdir/mapping/study"
	"providerdir/rest/supply"
	"providerdir/stored"
)

// supplyData is the supply page's content: one study's 51 rows as a map, a legend and a table,
// with the provenance and the caveats of the figures beside them.
type supplyData struct {
	Specialty   study.Specialty
	Study       *study.Study
	Filter      string // the applied subspecialty code, "" for the whole specialty
	Rows        []study.Row
	Map         stateMap
	Legend      []legendBand
	Underserved []study.Row
	Fields      []fieldNote
	Limitations []string
	Sources     []sourceNote
	// APIURL is the by-state request that serves the same figures as JSON.
	APIURL         string
	MethodologyAPI string
	Specialties    []study.Specialty
	// Near is the form and list of the specialty's providers near a ZIP code.
	Near nearData
}

// fieldNote is the caveat of one column, as each value's limitations carries it in the API.
type fieldNote struct {
	Field, Text string
}

// sourceNote is the provenance of one source snapshot the figures were computed from.
type sourceNote struct {
	Role string
	stored.Provenance
}

// supplyPage serves GET /supply/{specialty}[?subspecialty=CODE]: the figures of GET
// /v1/specialties/{specialty}/by-state, read through the supply API's reader. An empty
// subspecialty, the filter form's "all codes" choice, is the whole specialty.
func (s *Site) supplyPage(w http.ResponseWriter, r *http.Request) {
	slug := mux.Vars(r)["specialty"]
	sp, ok := study.Lookup(slug)
	if !ok {
		s.render(w, r, http.StatusNotFound, tmplError, layoutData{Title: "Specialty not found", Page: errorData{
			Heading: "Specialty not found",
			Message: fmt.Sprintf("No registered specialty has the slug %q.", safetext.Echo(slug)),
			Links:   specialtyLinks(),
		}})
		return
	}
	raw := r.URL.Query().Get("subspecialty")
	code := strings.ToUpper(strings.TrimSpace(raw))
	if code != "" && !sp.Supports(code) {
		s.render(w, r, http.StatusBadRequest, tmplError, layoutData{Title: "Subspecialty not registered", Page: errorData{
			Heading: "Subspecialty not registered",
			Message: fmt.Sprintf("The subspecialty %q is not registered for %s; supported codes: %s.",
				safetext.Echo(raw), sp.Slug, strings.Join(sp.Codes, ", ")),
			Links: []link{{PathSupply + "/" + sp.Slug, "All of " + sp.Slug}},
		}})
		return
	}
	st, rows, err := s.supply.Study(r.Context(), sp.Slug, code)
	if errors.Is(err, supply.ErrNoStudy) {
		s.render(w, r, http.StatusNotFound, tmplError, layoutData{Title: "No study loaded", Page: errorData{
			Heading: "No study loaded",
			Message: "No supply study of " + sp.Slug + " is loaded: the registry or the Census figures have not been ingested.",
			Links:   []link{{"/", "Home"}},
		}})
		return
	}
	if err != nil {
		s.fail(w, r, "supply page: read the study", err)
		return
	}
	d, status := s.supplyData(sp, st, rows, code), http.StatusOK
	near, nq, searched := parseNear(r.URL.Query())
	switch {
	case near.Error != "":
		status = http.StatusBadRequest
	case searched:
		codes := sp.Codes
		if code != "" {
			codes = []string{code}
		}
		if err := s.nearby(r.Context(), &near, nq, codes, *r.URL); err != nil {
			s.fail(w, r, "supply page: find the providers near a ZIP code", err)
			return
		}
	}
	d.Near = near
	s.render(w, r, status, tmplSupply, layoutData{
		Title:   st.DisplayName + " supply by state",
		Scripts: []string{"sort.js"},
		Page:    d,
	})
}

func (s *Site) supplyData(sp study.Specialty, st *study.Study, rows []study.Row, code string) supplyData {
	d := supplyData{
		Specialty:      sp,
		Study:          st,
		Filter:         code,
		Rows:           byName(rows),
		Limitations:    study.Limitations,
		APIURL:         s.baseURL + "/v1/specialties/" + sp.Slug + "/by-state",
		MethodologyAPI: s.supply.MethodologyURL(st.Dataset),
		Specialties:    study.Specialties(),
		Sources:        []sourceNote{{"Provider counts", st.Registry}, {"Population", st.Census}},
	}
	if code != "" {
		d.APIURL += "?subspecialty=" + url.QueryEscape(code)
	}
	if st.Taxonomy != nil {
		d.Sources = append(d.Sources, sourceNote{"Taxonomy names", *st.Taxonomy})
	}
	for _, f := range []string{study.FieldActiveProviders, study.FieldPopulation, study.FieldPer100k, study.FieldRank, study.FieldQuartile, study.FieldUnderserved} {
		d.Fields = append(d.Fields, fieldNote{f, study.FieldLimitation(f, sp, code, st.National.Per100k)})
	}
	if len(rows) > 0 {
		d.Map = newStateMap(rows)
		d.Legend = legend(rows)
	}
	for _, row := range rows {
		if row.Underserved {
			d.Underserved = append(d.Underserved, row)
		}
	}
	return d
}

// byName orders the rows by state name, the text the table shows, leaving rows as the API
// orders them.
func byName(rows []study.Row) []study.Row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b study.Row) int { return strings.Compare(a.StateName, b.StateName) })
	return out
}

// legendBand is one shade of the map: a density quartile and the range of per_100k it covers.
type legendBand struct {
	Quartile int
	Min, Max float64
	States   int
}

// Range is the band's densities as the legend says them: "none" for a band of states without
// a provider, one figure when every state of the band has it, else "low to high".
func (b legendBand) Range() string {
	switch {
	case b.Max == 0:
		return "none"
	case b.Min == b.Max:
		return strconv.FormatFloat(b.Min, 'f', -1, 64)
	}
	return strconv.FormatFloat(b.Min, 'f', -1, 64) + " to " + strconv.FormatFloat(b.Max, 'f', -1, 64)
}

// legend returns one band per quartile present in the rows, from the highest density down.
func legend(rows []study.Row) []legendBand {
	var bands []legendBand
	for q := 1; q <= 4; q++ {
		b := legendBand{Quartile: q}
		for _, row := range rows {
			if row.Quartile != q {
				continue
			}
			if b.States == 0 || row.Per100k < b.Min {
				b.Min = row.Per100k
			}
			if b.States == 0 || row.Per100k > b.Max {
				b.Max = row.Per100k
			}
			b.States++
		}
		if b.States > 0 {
			bands = append(bands, b)
		}
	}
	return bands
}

// specialtyLinks links the supply page of every registered specialty.
func specialtyLinks() []link {
	sps := study.Specialties()
	out := make([]link, len(sps))
	for i, sp := range sps {
		out[i] = link{PathSupply + "/" + sp.Slug, sp.Slug}
	}
	return out
}
