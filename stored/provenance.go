package stored

import (
	"time"

	"providerdir/internal/buildinfo"
)

// Provenance is the 14-key provenance record of the resolver contract, carried by every stored
// record, fact and batch result. Key names and order are the contract's.
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
	// DOI stays null until a DOI is minted for the dataset; it is never invented.
	DOI           *string `json:"_doi"`
	License       string  `json:"_license"`
	CoverageStart string  `json:"_coverage_period_start"`
	// CoverageEnd is a date or the literal "ongoing".
	CoverageEnd string `json:"_coverage_period_end"`
	// SLSAProvenanceURL stays null until a build attestation is published.
	SLSAProvenanceURL *string `json:"_slsa_provenance_url"`
}

// ProvenanceKeys lists the 14 keys in contract order, for tests and for FHIR meta.tag.
var ProvenanceKeys = []string{
	"_source", "_source_url", "_dataset_id", "_snapshot", "_methodology", "_last_checked",
	"_confidence", "_data_availability", "_pipeline_version", "_doi", "_license",
	"_coverage_period_start", "_coverage_period_end", "_slsa_provenance_url",
}

// Availability flags of _data_availability.
const (
	// AvailabilityPresent: the source holds the record and every field served was read from it.
	AvailabilityPresent = "present"
	// AvailabilitySuppressed: the publisher suppressed some values (small samples); they are null.
	AvailabilitySuppressed = "suppressed"
)

// SnapshotInfo is what one ingest of one dataset knows when it stamps provenance.
type SnapshotInfo struct {
	Dataset       Dataset
	Snapshot      string    // YYYY-MM-DD
	CheckedAt     time.Time // when this ingest reconciled the file
	CoverageStart string
	CoverageEnd   string
}

// Provenance returns the provenance record of one record of the snapshot, with the record's own
// confidence and availability flags.
func (s SnapshotInfo) Provenance(confidence float64, availability ...string) Provenance {
	if len(availability) == 0 {
		availability = []string{AvailabilityPresent}
	}
	return Provenance{
		Source:           s.Dataset.Source,
		SourceURL:        s.Dataset.SourceURL,
		DatasetID:        s.Dataset.ID,
		Snapshot:         s.Snapshot,
		Methodology:      s.Dataset.Methodology,
		LastChecked:      s.CheckedAt.UTC().Format(time.RFC3339),
		Confidence:       confidence,
		DataAvailability: availability,
		PipelineVersion:  buildinfo.PipelineVersion(),
		License:          s.Dataset.License,
		CoverageStart:    s.CoverageStart,
		CoverageEnd:      s.CoverageEnd,
	}
}
