package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// supplyBodyChecks hold the success bodies of the supply API's coverage and methodology
// endpoints, each against a figure another endpoint serves.
func supplyBodyChecks() []Check {
	const s = "supply"
	return []Check{
		{s, "GET /states/{state}/coverage: one row per specialty, agreeing with by-state", checkCoverage},
		{s, "GET /methodology/{dataset} of a source dataset: its source, licence and snapshot", checkDatasetMethodology},
		{s, "GET /methodology/{slug}-supply: the study's version, sources and threshold", checkStudyMethodology},
		{s, "an error answer carries the four rate-limit fields of a 1-day window", checkErrorRateLimitFields},
	}
}

// coverageBody is the part of /states/{state}/coverage the checks read.
type coverageBody struct {
	StateCode          json.RawMessage `json:"state_code"`
	MethodologyVersion string          `json:"methodology_version"`
	Specialties        []struct {
		Slug     string                     `json:"slug"`
		StudyURL string                     `json:"study_url"`
		Supply   map[string]json.RawMessage `json:"supply"`
	} `json:"specialties"`
	Summary struct {
		Specialties            int      `json:"specialties"`
		UnderservedSpecialties []string `json:"underserved_specialties"`
	} `json:"summary"`
}

// checkCoverage reads California's coverage: each registered specialty once, every row field a
// ProvenanceField for CA, the summary counting the rows and naming those marked underserved,
// and cardiology's per_100k the value by-state serves for CA.
func checkCoverage(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/states/CA/coverage", key, http.StatusOK)
	if err != nil {
		return err
	}
	if err := responseMeta(env.Meta); err != nil {
		return err
	}
	var c coverageBody
	if err := json.Unmarshal(env.Data, &c); err != nil {
		return fmt.Errorf("coverage data: %v", err)
	}
	if pf, err := provenanceField(c.StateCode); err != nil || pf.Value != "CA" {
		return fmt.Errorf("coverage state_code %s, want a ProvenanceField of CA (%v)", c.StateCode, err)
	}
	if c.MethodologyVersion == "" {
		return fmt.Errorf("coverage has no methodology_version")
	}
	var slugs, underserved []string
	var cardiology any
	for _, sp := range c.Specialties {
		slugs = append(slugs, sp.Slug)
		if !strings.HasPrefix(sp.StudyURL, "http") {
			return fmt.Errorf("coverage %s: study_url %q is not a URL", sp.Slug, sp.StudyURL)
		}
		row := map[string]provField{}
		for _, f := range stateRowFields {
			pf, err := provenanceField(sp.Supply[f])
			if err != nil {
				return fmt.Errorf("coverage %s supply.%s: %w", sp.Slug, f, err)
			}
			row[f] = pf
		}
		if row["state_code"].Value != "CA" {
			return fmt.Errorf("coverage %s: supply.state_code %v, want CA", sp.Slug, row["state_code"].Value)
		}
		if row["underserved"].Value == true {
			underserved = append(underserved, sp.Slug)
		}
		if sp.Slug == "cardiology" {
			cardiology = row["per_100k"].Value
		}
	}
	slices.Sort(slugs)
	if want := slices.Sorted(slices.Values(registeredSpecialties)); !slices.Equal(slugs, want) {
		return fmt.Errorf("coverage specialties %v, want each of %v once", slugs, want)
	}
	slices.Sort(underserved)
	got := slices.Sorted(slices.Values(c.Summary.UnderservedSpecialties))
	if c.Summary.Specialties != len(c.Specialties) || !slices.Equal(got, underserved) {
		return fmt.Errorf("coverage summary %d %v, want %d specialties and %v (the rows marked underserved)", c.Summary.Specialties, got, len(c.Specialties), underserved)
	}
	byState, err := e.v1Get(ctx, http.MethodGet, "/specialties/cardiology/by-state", key, http.StatusOK)
	if err != nil {
		return err
	}
	rows, err := stateRows(byState.Data)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if r["state_code"].Value == "CA" && fmt.Sprint(r["per_100k"].Value) != fmt.Sprint(cardiology) {
			return fmt.Errorf("cardiology per_100k for CA: coverage %v, by-state %v", cardiology, r["per_100k"].Value)
		}
	}
	return nil
}

// checkDatasetMethodology reads the registry's methodology: named by its provenance dataset id,
// with its source, an https source URL, a licence and a methodology, and loaded with a snapshot
// in a deployment that serves providers.
func checkDatasetMethodology(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/methodology/nppes", key, http.StatusOK)
	if err != nil {
		return err
	}
	var m struct {
		Dataset     string  `json:"dataset"`
		Source      string  `json:"source"`
		SourceURL   string  `json:"source_url"`
		Methodology string  `json:"methodology"`
		License     string  `json:"license"`
		Loaded      bool    `json:"loaded"`
		Snapshot    *string `json:"snapshot"`
	}
	if err := json.Unmarshal(env.Data, &m); err != nil {
		return fmt.Errorf("methodology data: %v", err)
	}
	var problems []string
	if m.Dataset != "nppes" {
		problems = append(problems, fmt.Sprintf("dataset %q, want nppes", m.Dataset))
	}
	if m.Source == "" || !strings.HasPrefix(m.SourceURL, "https://") || m.License == "" || !strings.Contains(m.Methodology, "/") {
		problems = append(problems, fmt.Sprintf("source %q, source_url %q, license %q, methodology %q: want each, the methodology as name/version", m.Source, m.SourceURL, m.License, m.Methodology))
	}
	if !m.Loaded || m.Snapshot == nil {
		problems = append(problems, "the registry is not loaded or has no snapshot")
	}
	if len(problems) > 0 {
		return fmt.Errorf("/methodology/nppes: %s", strings.Join(problems, "; "))
	}
	return nil
}

// checkStudyMethodology reads cardiology's study methodology: its version the one coverage
// states, the registry and Census among its sources, an underserved threshold that is a
// fraction of the national density, and the national figure.
func checkStudyMethodology(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/methodology/cardiology-supply", key, http.StatusOK)
	if err != nil {
		return err
	}
	var m struct {
		Dataset            string `json:"dataset"`
		MethodologyVersion string `json:"methodology_version"`
		Sources            []struct {
			DatasetID string `json:"dataset_id"`
		} `json:"sources"`
		Limitations []string `json:"limitations"`
		Threshold   struct {
			Fraction        float64  `json:"fraction_of_national_density"`
			NationalPer100k *float64 `json:"national_per_100k"`
		} `json:"underserved_threshold"`
	}
	if err := json.Unmarshal(env.Data, &m); err != nil {
		return fmt.Errorf("methodology data: %v", err)
	}
	var ids []string
	for _, src := range m.Sources {
		ids = append(ids, src.DatasetID)
	}
	if m.Dataset != "cardiology-supply" || m.MethodologyVersion == "" || !slices.Contains(ids, "nppes") || len(ids) < 2 || len(m.Limitations) == 0 {
		return fmt.Errorf("dataset %q, version %q, sources %v, %d limitations: want cardiology-supply with a version, the registry and Census among its sources, and its limitations", m.Dataset, m.MethodologyVersion, ids, len(m.Limitations))
	}
	if f := m.Threshold.Fraction; f <= 0 || f >= 1 || m.Threshold.NationalPer100k == nil {
		return fmt.Errorf("underserved_threshold %+v, want a fraction between 0 and 1 of a national per_100k", m.Threshold)
	}
	cov, err := e.v1Get(ctx, http.MethodGet, "/states/CA/coverage", key, http.StatusOK)
	if err != nil {
		return err
	}
	var c coverageBody
	if err := json.Unmarshal(cov.Data, &c); err != nil {
		return fmt.Errorf("coverage data: %v", err)
	}
	if c.MethodologyVersion != m.MethodologyVersion {
		return fmt.Errorf("coverage states methodology %q, the study's methodology %q", c.MethodologyVersion, m.MethodologyVersion)
	}
	return nil
}

// checkErrorRateLimitFields: every response carries the rate-limit fields (seed 000, section
// 8 rule 1), an error as well, and the window they describe is a rolling day.
func checkErrorRateLimitFields(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	res, err := e.v1(ctx, http.MethodGet, "/specialties/no-such-specialty/by-state", key)
	if err != nil {
		return err
	}
	if _, err := v1Answer(res, http.StatusNotFound); err != nil {
		return err
	}
	if w := res.header.Get("X-RateLimit-Window"); !dayWindow(w) {
		return fmt.Errorf("%s: X-RateLimit-Window %q does not name a 1-day window", res.url, w)
	}
	return nil
}

// dayWindow says whether a window's name names one day ("rolling-24h", "1d", "rolling day").
func dayWindow(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "24h") || strings.Contains(n, "1d") || strings.Contains(n, "day")
}

// checkSupplyBudget spends the supply key's per-minute quota to its 429 (seed 000, section 8):
// rate_limit_exceeded with Retry-After 60 and the four fields, and the 429 not counted: the
// day's remaining requests are what the last admitted request left, and stay so on a second 429.
func checkSupplyBudget(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	if !e.exhaust {
		return Skipf("opt-in (--exhaust-budgets): spending the supply key's minute locks it out for a minute")
	}
	const bound = 200 // well above the pilot tier's 60 a minute
	var admitted response
	n := 0
	for range bound {
		res, err := e.v1(ctx, http.MethodGet, "/specialties", key)
		if err != nil {
			return err
		}
		if res.status != http.StatusTooManyRequests {
			admitted, n = res, n+1
			continue
		}
		if _, err := v1Answer(res, http.StatusTooManyRequests); err != nil {
			return err
		}
		if err := wantV1Code(res, "rate_limit_exceeded"); err != nil {
			return err
		}
		if ra := res.header.Get("Retry-After"); ra != "60" {
			return fmt.Errorf("%s: 429 with Retry-After %q, want 60", res.url, ra)
		}
		if admitted.status == 0 {
			return fmt.Errorf("%s: the first request was refused", res.url)
		}
		again, err := e.v1(ctx, http.MethodGet, "/specialties", key)
		if err != nil {
			return err
		}
		left := admitted.header.Get("X-RateLimit-Remaining")
		for _, r := range []response{res, again} {
			if r.status != http.StatusTooManyRequests || r.header.Get("X-RateLimit-Remaining") != left {
				return fmt.Errorf("%s: %d with X-RateLimit-Remaining %q after the last admitted request left %q: a 429 is not counted",
					r.url, r.status, r.header.Get("X-RateLimit-Remaining"), left)
			}
		}
		e.note = fmt.Sprintf("429 after %d admitted requests; %s left of the day", n, left)
		return nil
	}
	return fmt.Errorf("no 429 after %d requests in a row", bound)
}

// wantV1Code holds a supply API error answer to its code.
func wantV1Code(res response, code string) error {
	var env v1Envelope
	if err := res.json(&env); err != nil {
		return err
	}
	if env.Error == nil || env.Error.Code != code || env.Error.Message == "" {
		return fmt.Errorf("%s: error %+v, want code %s with a message", res.url, env.Error, code)
	}
	return nil
}
