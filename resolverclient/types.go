package resolverclient

import "encoding/json"

// Provenance is the 14-key provenance record the resolver binds to every record, fact and batch
// result (docs/contracts/resolver-api.md §2). Every key is always written back, null where the
// resolver sent null, so a record decoded here and encoded again carries its provenance unchanged.
type Provenance struct {
	Source           string   `json:"_source"`
	SourceURL        string   `json:"_source_url"`
	DatasetID        string   `json:"_dataset_id"`
	Snapshot         string   `json:"_snapshot"`
	Methodology      string   `json:"_methodology"`
	LastChecked      string   `json:"_last_checked"`
	Confidence       float64  `json:"_confidence"`
	DataAvailability []string `json:"_data_availability"`
	PipelineVersion  string   `json:"_pipeline_version"`
	// DOI is null until a DOI exists for the dataset.
	DOI                 *string `json:"_doi"`
	License             string  `json:"_license"`
	CoveragePeriodStart string  `json:"_coverage_period_start"`
	// CoveragePeriodEnd is a date or the literal "ongoing".
	CoveragePeriodEnd string `json:"_coverage_period_end"`
	// SLSAProvenanceURL is null until a build attestation is published.
	SLSAProvenanceURL *string `json:"_slsa_provenance_url"`
}

// Provider is the provider record of GET /npi/{npi} and of a batch result.
type Provider struct {
	NPI              string      `json:"npi"`
	EntityType       string      `json:"entity_type"`
	OrganizationName string      `json:"organization_name,omitempty"`
	Name             *PersonName `json:"name,omitempty"`
	PrimaryTaxonomy  string      `json:"primary_taxonomy,omitempty"`
	EnumerationDate  string      `json:"enumeration_date,omitempty"`
	Address          Address     `json:"address"`
	// PecosEnrolled is absent when the enrollment file is not loaded: unknown, not false.
	PecosEnrolled *bool `json:"pecos_enrolled,omitempty"`
	Provenance
}

// PersonName is an individual practitioner's name as the registry records it.
type PersonName struct {
	Prefix     string `json:"prefix,omitempty"`
	First      string `json:"first,omitempty"`
	Middle     string `json:"middle,omitempty"`
	Last       string `json:"last,omitempty"`
	Suffix     string `json:"suffix,omitempty"`
	Credential string `json:"credential,omitempty"`
}

// Address is a provider's practice address.
type Address struct {
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postal_code,omitempty"`
}

// ProviderWithFacts is the provider record with include=facts.
type ProviderWithFacts struct {
	Provider
	Facts []Fact `json:"facts"`
}

// Fact is one sourced statement about a provider with its own provenance. A fact the resolver
// cannot establish is absent from the list: a missing fact means unknown, never negative.
type Fact struct {
	Type string `json:"type"`
	// Value is kept as sent: its shape depends on the type (a boolean for exclusion and
	// pecos_enrolled, an integer for care_compare_star) and new types may come.
	Value json.RawMessage `json:"value"`
	// CCN names the facility a care_compare_star fact is about.
	CCN string `json:"ccn,omitempty"`
	Provenance
}

// Fact types the resolver documents.
const (
	FactExclusion       = "exclusion"
	FactPECOSEnrolled   = "pecos_enrolled"
	FactCareCompareStar = "care_compare_star"
)

// Fact returns the first fact of the type, or nil when the record has none: unknown.
func (p *ProviderWithFacts) Fact(typ string) *Fact {
	for i := range p.Facts {
		if p.Facts[i].Type == typ {
			return &p.Facts[i]
		}
	}
	return nil
}

// Facility is the facility record of GET /ccn/{ccn}. Every field is present; a nil one is null,
// no source stating it.
type Facility struct {
	// CCN is six characters, or an ambulatory surgical center's ten-character supplier number.
	CCN           string          `json:"ccn"`
	FacilityName  string          `json:"facility_name"`
	FacilityType  *string         `json:"facility_type"`
	OwnershipType *string         `json:"ownership_type"`
	Address       FacilityAddress `json:"address"`
	OverallStar   *int            `json:"overall_star"`
	Provenance
}

// FacilityAddress is a facility's city and state.
type FacilityAddress struct {
	City  *string `json:"city"`
	State string  `json:"state"`
}

// SearchParams are the query of GET /search. Zero values are left out of the request.
type SearchParams struct {
	// Q is the name; it may be empty when Near is given (a search by place alone).
	Q        string
	State    string
	Taxonomy string
	// Near is a 5-digit ZIP code or "latitude,longitude"; RadiusMiles the radius around it (the
	// resolver's default 10 when 0, capped at 100).
	Near        string
	RadiusMiles float64
	// Limit is the page size; the resolver caps it at 100.
	Limit int
	// Page is the page number, from 1.
	Page int
}

// SearchResult is a ranked candidate list.
type SearchResult struct {
	Query   SearchQuery `json:"query"`
	Total   int         `json:"total"`
	Results []Candidate `json:"results"`
}

// SearchQuery echoes the query the resolver answered; State and Taxonomy are nil when the
// request gave none.
type SearchQuery struct {
	Q        string  `json:"q"`
	State    *string `json:"state"`
	Taxonomy *string `json:"taxonomy"`
	Limit    int     `json:"limit"`
	Page     int     `json:"page"`
	// Near and Radius (miles, as served) are nil without near.
	Near   *string  `json:"near"`
	Radius *float64 `json:"radius"`
}

// Candidate is one search result: the registry record in brief with its provenance.
type Candidate struct {
	NPI        string `json:"npi"`
	Name       string `json:"name"`
	EntityType string `json:"entity_type"`
	Taxonomy   string `json:"taxonomy,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	// MatchScore is the entity-resolution confidence for the query, not record provenance.
	MatchScore float64 `json:"_match_score"`
	// DistanceMiles is the distance from near of the practice ZIP's ZCTA centroid, with near.
	DistanceMiles *float64 `json:"distance_miles,omitempty"`
	Provenance
}

// QualityTypes are the facility types of GET /quality/{type}/{id}.
var QualityTypes = []string{"hospital", "nursing-home", "home-health", "hospice", "dialysis", "asc"}

// Quality is the quality record of a facility.
type Quality struct {
	Type         string `json:"type"`
	CCN          string `json:"ccn"`
	FacilityName string `json:"facility_name,omitempty"`
	// OverallStar is nil (null) when Care Compare publishes no star for the facility.
	OverallStar *int `json:"overall_star"`
	// MeasurementPeriod is "<start date>/<end date>"; nil (null) when no source states it.
	MeasurementPeriod *string   `json:"measurement_period"`
	Measures          []Measure `json:"measures"`
	Provenance
}

// Measure is one quality measure. Value is null when the publisher suppressed it (small
// samples), never zero; NationalAvg is absent when no facility published the measure.
type Measure struct {
	ID          string   `json:"id"`
	Value       *float64 `json:"value"`
	NationalAvg *float64 `json:"national_avg,omitempty"`
}

// Payments is the industry payments record of an NPI for one program year.
type Payments struct {
	NPI            string          `json:"npi"`
	ProgramYear    int             `json:"program_year"`
	TotalAmountUSD float64         `json:"total_amount_usd"`
	RecordCount    int             `json:"record_count"`
	Records        []PaymentRecord `json:"records"`
	// ProgramYears lists every program year with payments to the NPI in the loaded files.
	ProgramYears []int `json:"program_years"`
	Provenance
}

// PaymentRecord is one payment, with how its recipient was matched to the NPI (MatchMethod)
// and how strongly (Confidence).
type PaymentRecord struct {
	RecordID     string  `json:"record_id"`
	Manufacturer string  `json:"manufacturer"`
	AmountUSD    float64 `json:"amount_usd"`
	Nature       string  `json:"nature,omitempty"`
	Date         string  `json:"date,omitempty"`
	MatchMethod  string  `json:"match_method"`
	Confidence   float64 `json:"_confidence"`
}

// MaxBatch is the most NPIs one POST /batch/npi takes.
const MaxBatch = 1000

// BatchResult answers POST /batch/npi: one entry per requested NPI in request order, nil where
// the NPI could not be resolved.
type BatchResult struct {
	Requested int         `json:"requested"`
	Resolved  int         `json:"resolved"`
	Results   []*Provider `json:"results"`
}

// Sandbox is the service's published sandbox key (GET /sandbox): shared, read-only, usable
// without signup, with the limits the resolver applies to it.
type Sandbox struct {
	Key    string        `json:"key"`
	Tier   string        `json:"tier"`
	Limits SandboxLimits `json:"limits"`
}

// SandboxLimits are the limits of the sandbox key.
type SandboxLimits struct {
	// RequestsPerHour is the hourly request budget, counted per client address (MeteredBy),
	// since everyone shares the key.
	RequestsPerHour int    `json:"requests_per_hour"`
	MeteredBy       string `json:"metered_by"`
	// BatchMaxNPIs is the most NPIs one batch takes; BatchNPIsPerHour the per-NPI ceiling.
	BatchMaxNPIs     int `json:"batch_max_npis"`
	BatchNPIsPerHour int `json:"batch_npis_per_hour"`
	// SearchMaxLimit caps a search's page size.
	SearchMaxLimit int `json:"search_max_limit"`
}
