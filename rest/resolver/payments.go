package resolver

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/gorilla/mux"

	"providerdir/catalog"
	"providerdir/rest"
	"providerdir/rest/internal/records"
	"providerdir/store"
	"providerdir/stored"
)

// CodeInvalidProgramYear is an addition: program_year, when given, is a four-digit year.
const CodeInvalidProgramYear = "invalid_program_year"

// familyOpenPayments is the source family of the payments.
const familyOpenPayments = "openpayments"

// Payments is the payments record of GET /payments/{npi} (docs/contracts/resolver-api.md §2): one
// program year's general payments tied to the NPI. Its provenance is the payment file's, with
// _confidence the weakest match among the year's records (see paymentsConfidence).
type Payments struct {
	NPI            string    `json:"npi"`
	ProgramYear    int       `json:"program_year"`
	TotalAmountUSD float64   `json:"total_amount_usd"`
	RecordCount    int       `json:"record_count"`
	Records        []Payment `json:"records"`
	// ProgramYears lists every program year the loaded files hold payments to the NPI for.
	ProgramYears []int `json:"program_years"`
	stored.Provenance
}

// Payment is one general payment, with how strongly its recipient was tied to the NPI.
type Payment struct {
	RecordID     string  `json:"record_id"`
	Manufacturer string  `json:"manufacturer"`
	AmountUSD    float64 `json:"amount_usd"`
	Nature       string  `json:"nature,omitempty"`
	Date         string  `json:"date,omitempty"`
	MatchMethod  string  `json:"match_method"`
	Confidence   float64 `json:"_confidence"`
}

// payments serves GET /payments/{npi}: the latest program year the loaded files hold payments to
// the NPI for, or the year program_year names. An NPI with no payments that the registry holds
// gets an empty year with the searched file's provenance (availability absent); one the
// registry does not hold either is 404 not_found.
func (a *API) payments(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	npi := mux.Vars(r)["npi"]
	if !validNPI(w, r, npi) {
		return
	}
	year := 0
	if s := r.URL.Query().Get("program_year"); s != "" {
		y, err := strconv.Atoi(s)
		if err != nil || y < 1000 || y > 9999 {
			rest.ResolverError(w, r, http.StatusBadRequest, CodeInvalidProgramYear, "program_year is a four-digit year such as 2023.")
			return
		}
		year = y
	}
	v, err := a.records.Serving(ctx)
	if err != nil {
		fail(w, r, "payments: read the serving snapshot", err)
		return
	}
	m, loaded, err := v.Manifest(ctx, familyOpenPayments)
	if err != nil {
		fail(w, r, "payments: read the manifest", err)
		return
	}
	if !loaded || v.Snap.Generation(catalog.Payments) == "" {
		unavailable(w, r, "Open Payments is not loaded; retry later.")
		return
	}
	docs, err := v.Keyed(ctx, catalog.Payments, stored.KeyNPI, npi)
	if err != nil {
		fail(w, r, "payments: read the payments", err)
		return
	}
	out, err := paymentsOf(npi, year, docs)
	if err != nil {
		fail(w, r, "payments: decode", err)
		return
	}
	if out.RecordCount > 0 {
		rest.WriteJSON(w, r, http.StatusOK, out)
		return
	}
	if _, _, err := v.Registry(ctx, npi); errors.Is(err, store.ErrNotFound) && len(out.ProgramYears) == 0 {
		rest.ResolverError(w, r, http.StatusNotFound, rest.CodeNotFound, "NPI "+npi+" is neither in the national registry nor a recipient in the loaded Open Payments files.")
		return
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		fail(w, r, "payments: read the registry", err)
		return
	}
	out.Provenance = records.Searched(m, records.SourceName(m))
	if out.ProgramYear == 0 {
		out.ProgramYear = programYearOf(m.Coverage.End)
	}
	rest.WriteJSON(w, r, http.StatusOK, out)
}

// paymentsOf builds the payments record of one program year (the latest when year is 0) from
// the NPI's payment documents of every year.
func paymentsOf(npi string, year int, docs []store.Document) (Payments, error) {
	out := Payments{NPI: npi, ProgramYear: year, Records: []Payment{}, ProgramYears: []int{}}
	type row struct {
		rec  stored.PaymentRecord
		prov stored.Provenance
	}
	var rows []row
	for _, d := range docs {
		b, err := stored.DecodeBody[stored.PaymentRecord](d)
		if err != nil {
			return out, fmt.Errorf("decode payment %s: %w", d.ID, err)
		}
		rows = append(rows, row{b.Record, b.Provenance})
		if !slices.Contains(out.ProgramYears, b.Record.ProgramYear) {
			out.ProgramYears = append(out.ProgramYears, b.Record.ProgramYear)
		}
	}
	slices.Sort(out.ProgramYears)
	if year == 0 && len(out.ProgramYears) > 0 {
		out.ProgramYear = out.ProgramYears[len(out.ProgramYears)-1]
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.rec.Date, b.rec.Date), cmp.Compare(a.rec.RecordID, b.rec.RecordID))
	})
	var cents int64
	for _, x := range rows {
		if x.rec.ProgramYear != out.ProgramYear {
			continue
		}
		if out.RecordCount == 0 {
			out.Provenance = x.prov
		}
		out.RecordCount++
		cents += x.rec.AmountCents
		out.Records = append(out.Records, Payment{RecordID: x.rec.RecordID, Manufacturer: x.rec.Manufacturer, AmountUSD: x.rec.AmountUSD,
			Nature: x.rec.Nature, Date: x.rec.Date, MatchMethod: x.rec.Match.Method, Confidence: x.rec.Match.Confidence})
	}
	out.TotalAmountUSD = float64(cents) / 100
	out.Provenance.Confidence = paymentsConfidence(out.Records, out.Provenance.Confidence)
	return out, nil
}

// paymentsConfidence is the _confidence of a year's payments: the weakest name-and-address
// match among its records (stored.MatchConfidence: 1.00 for a published NPI whose registry
// last name agrees, 0.85 for a unique registry individual by name, state and ZIP, 0.70 by name
// and state, 0.60 for a published NPI whose registry name differs, 0.50 for an NPI no registry
// could check, 0.30 for one the registry lacks). A total is only as sure as its least sure
// record. With no records it is the given confidence (that of the searched file).
func paymentsConfidence(recs []Payment, none float64) float64 {
	if len(recs) == 0 {
		return none
	}
	c := recs[0].Confidence
	for _, r := range recs[1:] {
		c = min(c, r.Confidence)
	}
	return c
}

// programYearOf is the program year a payment file's coverage names (Open Payments files carry
// their program year in their names, and ingest dates their coverage by it), for an NPI without
// payments; 0 when the coverage is not a dated year.
func programYearOf(coverageEnd string) int {
	if len(coverageEnd) < 4 {
		return 0
	}
	y, err := strconv.Atoi(coverageEnd[:4])
	if err != nil {
		return 0
	}
	return y
}
