package fhirmap

import (
	"strconv"
	"strings"

	"providerdir/mapping"
)

// TagSystemPrefix is the system prefix of the provenance tags as stored: one tag per provenance
// key, system TagSystemPrefix+key, code the value. Absolute URLs must come from configuration,
// which ingest does not know, so the stored bytes carry this fixed, valid URN, and the FHIR
// surface splices in the configured "<fhir base>/provenance/" when it serves them (Splice). The
// stored bytes stay reusable under any base URL and the served system is the deployment's own.
const TagSystemPrefix = "urn:providerdir:provenance:"

// absentReason is the data-absent-reason code of a provenance key whose value is null: the key
// is present as a tag, without a code, saying why (a DOI or build attestation does not exist).
const absentReason = "not-applicable"

// provenanceTags renders the 14 provenance keys as meta.tag codings, in contract order.
func provenanceTags(p mapping.Provenance) []Coding {
	tags := make([]Coding, 0, len(mapping.ProvenanceKeys))
	add := func(key, value string) {
		c := Coding{System: TagSystemPrefix + key, Code: tagCode(value)}
		if c.Code == "" {
			c.Extension = []Extension{{URL: ExtDataAbsentReason, ValueCode: absentReason}}
		}
		tags = append(tags, c)
	}
	opt := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	add("_source", p.Source)
	add("_source_url", p.SourceURL)
	add("_dataset_id", p.DatasetID)
	add("_snapshot", p.Snapshot)
	add("_methodology", p.Methodology)
	add("_last_checked", p.LastChecked)
	add("_confidence", strconv.FormatFloat(p.Confidence, 'f', -1, 64))
	add("_data_availability", strings.Join(p.DataAvailability, ","))
	add("_pipeline_version", p.PipelineVersion)
	add("_doi", opt(p.DOI))
	add("_license", p.License)
	add("_coverage_period_start", p.CoverageStart)
	add("_coverage_period_end", p.CoverageEnd)
	add("_slsa_provenance_url", opt(p.SLSAProvenanceURL))
	return tags
}

// tagCode makes a value a valid FHIR code: no leading, trailing or repeated whitespace.
func tagCode(v string) string {
	if strings.TrimSpace(v) == v && !strings.Contains(v, "  ") && !strings.ContainsAny(v, "\t\n\r") {
		return v
	}
	return strings.Join(strings.Fields(v), " ")
}

// newMeta builds a resource's meta: its profile, when its source record last changed, the source
// it was read from (the dataset's landing page, with the snapshot as fragment), and the record's
// provenance as tags.
func newMeta(resourceType, lastUpdated string, p mapping.Provenance) *Meta {
	m := &Meta{LastUpdated: instant(lastUpdated), Profile: []string{Profiles[resourceType]}, Tag: provenanceTags(p)}
	if p.SourceURL != "" {
		m.Source = p.SourceURL
		if p.Snapshot != "" {
			m.Source += "#" + p.Snapshot
		}
	}
	return m
}

// instant turns a source date (YYYY-MM-DD) into a FHIR instant at midnight UTC; the sources
// publish dates only. An already complete timestamp is kept.
func instant(date string) string {
	if len(date) == len("2006-01-02") {
		return date + "T00:00:00Z"
	}
	return date
}

// laterDate returns the later of two YYYY-MM-DD dates ("" counts as earliest).
func laterDate(a, b string) string { return max(a, b) }
