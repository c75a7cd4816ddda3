package supply

import (
	"providerdir/catalog"
	"providerdir/internal/buildinfo"
	"providerdir/mapping"
	"providerdir/rest/internal/records"
)

// BlockProvenance is the 14-key provenance record of a source block. For a source with a record
// it is the record's own; for an ingested source without one, that of the snapshot that was
// searched; for a source the service does not ingest, what is known of the source itself, with
// null for everything that would describe a snapshot: nothing is invented.
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

// _data_availability flags of source blocks besides mapping.AvailabilityPresent.
const (
	// AvailabilityAbsent: the source was searched, by the NPI it publishes, and holds no record.
	AvailabilityAbsent = records.AvailabilityAbsent
	// AvailabilityNotIngested: the service does not load this source; nothing was searched.
	AvailabilityNotIngested = "not_ingested"
)

func fromRecord(p mapping.Provenance) BlockProvenance {
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

// Sources the service does not ingest: what is known of them is their publisher and landing page.
var (
	qppMIPS = mapping.Dataset{ID: "cms_qpp_mips",
		Source:    "CMS Quality Payment Program, Merit-based Incentive Payment System (MIPS)",
		SourceURL: "https://qpp.cms.gov/", License: mapping.LicensePublicDomainUSGov}
	samGov = mapping.Dataset{ID: "gsa_sam_exclusions",
		Source:    "GSA System for Award Management (SAM.gov), exclusions",
		SourceURL: "https://sam.gov/", License: mapping.LicensePublicDomainUSGov}
)

// notIngested is the provenance of a source the serving snapshot holds nothing of.
func notIngested(d mapping.Dataset) BlockProvenance {
	return BlockProvenance{
		Source: d.Source, SourceURL: d.SourceURL, DatasetID: d.ID,
		DataAvailability: []string{AvailabilityNotIngested}, PipelineVersion: buildinfo.PipelineVersion(),
		License: d.License,
	}
}
