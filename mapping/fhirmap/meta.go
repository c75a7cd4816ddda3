package fhirmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"providerdir/store"
	"providerdir/stored"
)

// TagSystemPrefix is the system prefix of the provenance tags as stored: one tag per provenance
// key, system TagSystemPrefix+key, code the value. Absolute URLs must come from configuration,
// which ingest does not know, so the stored tag sets carry this fixed, valid URN, and the FHIR
// surface puts the configured "<fhir base>/provenance/" in its place when it serves them
// (RenderTags). The stored bytes stay reusable under any base URL and the served system is the
// deployment's own.
const TagSystemPrefix = "urn:providerdir:provenance:"

// absentReason is the data-absent-reason code of a provenance key whose value is null: the key
// is present as a tag, without a code, saying why (a DOI or build attestation does not exist).
const absentReason = "not-applicable"

// provenanceTags renders the 14 provenance keys as meta.tag codings, in contract order.
func provenanceTags(p stored.Provenance) []Coding {
	tags := make([]Coding, 0, len(stored.ProvenanceKeys))
	add := func(key, value string) {
		c := Coding{System: TagSystemPrefix + key, Code: tagCode(value)}
		if c.Code == "" {
			c.Extension = []Extension{{URL: ExtDataAbsentReason, ValueCode: absentReason}}
		}
		tags = append(tags, c)
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
	add("_doi", deref(p.DOI))
	add("_license", p.License)
	add("_coverage_period_start", p.CoverageStart)
	add("_coverage_period_end", p.CoverageEnd)
	add("_slsa_provenance_url", deref(p.SLSAProvenanceURL))
	return tags
}

// tagCode makes a value a valid FHIR code: no leading, trailing or repeated whitespace.
func tagCode(v string) string {
	if strings.TrimSpace(v) == v && !strings.Contains(v, "  ") && !strings.ContainsAny(v, "\t\n\r") {
		return v
	}
	return strings.Join(strings.Fields(v), " ")
}

// newMeta describes a resource's meta: its profile, when its source record last changed, the
// source it was read from (the dataset's landing page, with the snapshot as fragment), and the
// record's provenance, whose tags are a TagSet.
func newMeta(resourceType, lastUpdated string, p stored.Provenance) resourceMeta {
	return resourceMeta{resourceType: resourceType, lastUpdated: lastUpdated, prov: p}
}

// resourceMeta is a resource's meta as encode writes it: what the members of its own are made
// of, and the provenance whose tag set it names.
type resourceMeta struct {
	resourceType string
	lastUpdated  string // a source date; the meta holds it as an instant
	prov         stored.Provenance
	// planNet says the resource meets its type's Plan-Net profile (PlanNetProfiles), which
	// meta.profile then claims after the type's own.
	planNet bool
}

// meetsPlanNet is the meta of a resource that meets its type's Plan-Net profile when ok.
func (m resourceMeta) meetsPlanNet(ok bool) resourceMeta {
	m.planNet = ok && PlanNetProfiles[m.resourceType] != ""
	return m
}

// profiles are the profiles the resource claims.
func (m *resourceMeta) profiles() []string {
	if m.planNet {
		return []string{Profiles[m.resourceType], PlanNetProfiles[m.resourceType]}
	}
	return []string{Profiles[m.resourceType]}
}

// members returns the meta's own members; Tag stays nil, the tags are a TagSet.
func (m *resourceMeta) members() Meta {
	meta := Meta{LastUpdated: instant(m.lastUpdated), Profile: m.profiles()}
	if m.prov.SourceURL != "" {
		meta.Source = m.prov.SourceURL
		if m.prov.Snapshot != "" {
			meta.Source += "#" + m.prov.Snapshot
		}
	}
	return meta
}

// appendMembers appends the JSON of the meta's own members, as encoding/json writes members().
// A date, a landing page and a profile URL are written as they are, which spares building the
// Meta and a trip through the encoder for every resource; text that JSON would escape goes
// through the encoder.
func (m *resourceMeta) appendMembers(dst []byte) ([]byte, error) {
	profiles := m.profiles()
	if !plainJSON(m.lastUpdated) || !plainJSON(m.prov.SourceURL) || !plainJSON(m.prov.Snapshot) || !plainJSON(strings.Join(profiles, "")) {
		meta := m.members()
		return stored.AppendJSON(dst, &meta)
	}
	dst = append(dst, '{')
	if m.lastUpdated != "" {
		dst = append(dst, `"lastUpdated":"`...)
		dst = appendInstant(dst, m.lastUpdated)
		dst = append(dst, `",`...)
	}
	if m.prov.SourceURL != "" {
		dst = append(dst, `"source":"`...)
		dst = append(dst, m.prov.SourceURL...)
		if m.prov.Snapshot != "" {
			dst = append(dst, '#')
			dst = append(dst, m.prov.Snapshot...)
		}
		dst = append(dst, `",`...)
	}
	dst = append(dst, `"profile":["`...)
	for i, p := range profiles {
		if i > 0 {
			dst = append(dst, `","`...)
		}
		dst = append(dst, p...)
	}
	return append(dst, `"]}`...), nil
}

// plainJSON reports whether JSON writes s as it is between quotes: printable ASCII, without
// the quote and backslash, nor the <, > and & that encoding/json escapes for HTML.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// TagSet is the meta.tag of every resource stamped with one provenance: its fourteen codings,
// stored once per snapshot as a document of catalog.FHIRTags, which each stored resource names
// instead of carrying them. Carried, they would be about 1.3 KB of a registry resource's meta,
// about half the bytes a national ingest builds, sorts, compresses and writes, all identical
// across a dataset's records. The id is the digest of the JSON, so a set's id means the same
// codings in every snapshot and a server may keep what it read under it.
type TagSet struct {
	id   string
	json []byte // the codings as stored, systems under TagSystemPrefix
	sum  [sha256.Size]byte
}

// Document is the tag set as stored in catalog.FHIRTags.
func (t *TagSet) Document() store.Document { return store.Document{ID: t.id, Body: t.json} }

// RenderTags turns a stored tag set (a catalog.FHIRTags document's body) into the meta member a
// resource is served with, `"tag":[...]`, the systems under tagBase, the configured
// "<fhir base>/provenance/". It fails on a body that is not a list of codings whose systems are
// all provenance keys. Only the text of the systems changes, so that the codes are served in the
// bytes ingest wrote; a "system" member and its value's opening quote cannot occur inside a JSON
// string, where each quote is escaped. A server does this once per tag set it meets.
func RenderTags(stored []byte, tagBase string) ([]byte, error) {
	var tags []Coding
	if err := json.Unmarshal(stored, &tags); err != nil || tags == nil {
		return nil, fmt.Errorf("fhirmap: stored tag set is not a list of codings: %.40q", stored)
	}
	for _, t := range tags {
		if !strings.HasPrefix(t.System, TagSystemPrefix) {
			return nil, fmt.Errorf("fhirmap: stored tag set: system %q is not a provenance key", t.System)
		}
	}
	base, err := json.Marshal(tagBase)
	if err != nil {
		return nil, err
	}
	const system = `"system":`
	b := append([]byte(`"tag":`), stored...)
	return bytes.ReplaceAll(b, []byte(system+`"`+TagSystemPrefix), append([]byte(system), base[:len(base)-1]...)), nil
}

// tagCache holds the tag set of each provenance (tagKey to *TagSet). A projection stamps
// millions of resources with a handful of provenances, and marshaling their fourteen tags for
// each would be a large part of encoding a resource. A sync.Map, since every worker reads it for
// every resource and almost never writes it, where a read-locked mutex is contended. It is
// cleared whole if it ever fills.
var tagCache sync.Map

// tagCacheSize counts the entries of tagCache, which clears at tagCacheMax.
var tagCacheSize atomic.Int64

const tagCacheMax = 1024

// tagKey is everything of a provenance its tags say.
type tagKey struct {
	source, sourceURL, datasetID, snapshot, methodology, lastChecked string
	confidence                                                       float64
	availability, pipeline, doi, license, start, end, slsa           string
}

func tagsOf(p stored.Provenance) (*TagSet, error) {
	k := tagKey{p.Source, p.SourceURL, p.DatasetID, p.Snapshot, p.Methodology, p.LastChecked, p.Confidence,
		strings.Join(p.DataAvailability, ","), p.PipelineVersion, deref(p.DOI), p.License, p.CoverageStart, p.CoverageEnd, deref(p.SLSAProvenanceURL)}
	if t, ok := tagCache.Load(k); ok {
		return t.(*TagSet), nil
	}
	b, err := json.Marshal(provenanceTags(p))
	if err != nil {
		return nil, err
	}
	t := &TagSet{json: b, sum: sha256.Sum256(b)}
	t.id = hex.EncodeToString(t.sum[:digestLen/2])
	if tagCacheSize.Add(1) > tagCacheMax {
		tagCache.Clear()
		tagCacheSize.Store(1)
	}
	// The key's strings may share the memory of a whole decoded document (stored.DecodeJSON):
	// the cache keeps copies.
	k = tagKey{strings.Clone(k.source), strings.Clone(k.sourceURL), strings.Clone(k.datasetID), strings.Clone(k.snapshot),
		strings.Clone(k.methodology), strings.Clone(k.lastChecked), k.confidence, strings.Clone(k.availability),
		strings.Clone(k.pipeline), strings.Clone(k.doi), strings.Clone(k.license), strings.Clone(k.start), strings.Clone(k.end),
		strings.Clone(k.slsa)}
	tagCache.Store(k, t)
	return t, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// instant turns a source date (YYYY-MM-DD) into a FHIR instant at midnight UTC; the sources
// publish dates only. An already complete timestamp is kept.
func instant(date string) string { return string(appendInstant(nil, date)) }

// appendInstant appends instant(date) to dst.
func appendInstant(dst []byte, date string) []byte {
	dst = append(dst, date...)
	if len(date) == len("2006-01-02") {
		dst = append(dst, "T00:00:00Z"...)
	}
	return dst
}

// laterDate returns the later of two YYYY-MM-DD dates ("" counts as earliest).
func laterDate(a, b string) string { return max(a, b) }
