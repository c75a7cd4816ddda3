package supply

import (
	"providerdir/catalog"
	"providerdir/internal/buildinfo"
	"providerdir/rest/internal/records"
	"providerdir/stored"
)

// BlockProvenance is the 14-key provenance record of a source block. For a source with a record
// it is the record's own; for an ingested source without one, that of the snapshot that was
// searched; for a source family the serving snapshot does not hold, what is known of the source
// itself, with null for everything that would describe a snapshot: nothing is invented.
type BlockProvenance struct {
	Source           string   `json:"_source"`
	SourceURL        string   `json:"_source_url"`
	DatasetID        string   `json:"_dataset_id"`
	Snapshot         *string  `json:"_snapshot"`
	Methodology      *string  `json:"_methodology"`
	LastChecked      *string  `json:"_last_checked"`
	Confidence       *float64 `json:"_confidence"`
	DataAvailability []string `json:"_data_availability"`
	PipelineVersion  string   `json:"_pipeline_version"`
	DOI              *string  `json:"_doi"`
	License          string   `json:"_license"`
	CoverageStart    *string  `json:"_coverage_period_start"`
	CoverageEnd      *string  `json:"_coverage_period_end"`
	SLSAProvenance   *string  `json:"_slsa_provenance_url"`
}

// _data_availability flags of source blocks besides stored.AvailabilityPresent.
const (
	// AvailabilityAbsent: the source was searched, by the NPI it publishes, and holds no record.
	AvailabilityAbsent = records.AvailabilityAbsent
	// AvailabilityNotIngested: the serving snapshot holds no file of this source; nothing was
	// searched.
	AvailabilityNotIngested = "not_ingested"
)

func fromRecord(p stored.Provenance) BlockProvenance {
	c := p.Confidence
	return BlockProvenance{
		Source: p.Source, SourceURL: p.SourceURL, DatasetID: p.DatasetID,
		Snapshot: &p.Snapshot, Methodology: &p.Methodology, LastChecked: &p.LastChecked, Confidence: &c,
		DataAvailability: p.DataAvailability, PipelineVersion: p.PipelineVersion, DOI: p.DOI,
		License: p.License, CoverageStart: &p.CoverageStart, CoverageEnd: &p.CoverageEnd,
		SLSAProvenance: p.SLSAProvenanceURL,
	}
}

// searched is the provenance of a search that found nothing in an ingested snapshot.
func searched(m catalog.Manifest) BlockProvenance {
	return fromRecord(records.Searched(m, records.SourceName(m)))
}

// notIngested is the provenance of a source the serving snapshot holds nothing of: what is known
// without a snapshot (the publisher, its landing page, the dataset, the methodology this build
// applies to it, the license), null for what only a snapshot could say.
func notIngested(d stored.Dataset) BlockProvenance {
	return BlockProvenance{
		Source: d.Source, SourceURL: d.SourceURL, DatasetID: d.ID, Methodology: &d.Methodology,
		DataAvailability: []string{AvailabilityNotIngested}, PipelineVersion: buildinfo.PipelineVersion(),
		License: d.License,
	}
}
