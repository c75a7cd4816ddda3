// Package auditpack owns the audit packs of the supply API (docs/contracts/supply-api.md §2 and
// §4): for each of the sixteen studies (twelve specialty supply, four facility quality) one
// document that lets an auditor check the published figures: the figures themselves, the
// methodology version, the provenance of every field, reproducibility steps that recompute the
// figures from the public files, the limitations, the version history and a compliance Q&A. It
// serves the catalog and the packs on /v1 (bearer keys), the same envelope and a PDF on the
// service host (/api, no key, limited per client address), and gives the web pages the same packs
// as Go values (Service.Build, Service.Catalog).
package auditpack

import (
	"context"
	"errors"
	"strings"

	"providerdir/catalog"
	"providerdir/quota"
	"providerdir/rest"
	"providerdir/rest/dataset"
	"providerdir/store"
)

// SchemaVersion is the audit pack envelope's schema_version (docs/contracts/supply-api.md §2).
const SchemaVersion = "1.0"

// ErrNoPack: the slug names no audit pack.
var ErrNoPack = errors.New("auditpack: no audit pack has that slug")

// ErrNotLoaded: the pack's sources are not in the serving snapshot.
var ErrNotLoaded = dataset.ErrNotLoaded

// Pack is one audit pack: the data of /v1/audit-pack/{slug}.
type Pack struct {
	SchemaVersion      string                     `json:"schema_version"`
	DatasetSlug        string                     `json:"dataset_slug"`
	DisplayName        string                     `json:"display_name"`
	Kind               string                     `json:"kind"`
	Description        string                     `json:"description"`
	MethodologyVersion string                     `json:"methodology_version"`
	MethodologyURL     string                     `json:"methodology_url"`
	SnapshotDate       string                     `json:"snapshot_date"`
	RefreshCadence     string                     `json:"refresh_cadence"`
	LastRefreshed      string                     `json:"last_refreshed"`
	Figures            Figures                    `json:"figures"`
	Provenance         map[string]FieldProvenance `json:"provenance"`
	Reproducibility    Reproducibility            `json:"reproducibility"`
	Limitations        []string                   `json:"limitations"`
	VersionHistory     []dataset.Version          `json:"version_history"`
	Compliance         []QA                       `json:"compliance"`
	Citation           string                     `json:"citation"`
	Links              Links                      `json:"links"`
}

// Figures are the published figures the pack documents.
type Figures struct {
	Unit     string                  `json:"unit"`
	National dataset.NationalFigures `json:"national"`
	States   []dataset.StateFigures  `json:"states"`
}

// FieldProvenance says where one field of the state figures comes from.
type FieldProvenance struct {
	// Source is the publisher's dataset the value is read from, or "computed" for a figure
	// derived from others by Derivation.
	Source      string `json:"source"`
	SourceURL   string `json:"source_url,omitempty"`
	DatasetID   string `json:"dataset_id,omitempty"`
	Snapshot    string `json:"snapshot,omitempty"`
	LastChecked string `json:"last_checked,omitempty"`
	License     string `json:"license,omitempty"`
	Column      string `json:"column,omitempty"`
	Derivation  string `json:"derivation"`
	// Confidence is 1 for values read from one source record; null for computed figures.
	Confidence *float64 `json:"confidence_score"`
	Limitation string   `json:"limitation,omitempty"`
}

// QA is one question of the compliance Q&A.
type QA struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// Links are the pack's three public forms.
type Links struct {
	Web  string `json:"web"`
	PDF  string `json:"pdf"`
	JSON string `json:"json"`
}

// Entry is one audit pack of the catalog (GET /v1/audit-pack).
type Entry struct {
	DatasetSlug        string `json:"dataset_slug"`
	DisplayName        string `json:"display_name"`
	Kind               string `json:"kind"`
	MethodologyVersion string `json:"methodology_version"`
	RefreshCadence     string `json:"refresh_cadence"`
	Links              Links  `json:"links"`
}

// Paths of the public forms of a pack, under the configured base URL.
const (
	// PathWeb is the prefix of a pack's web page, followed by its slug; the web surface renders it.
	PathWeb = "/audit/"
	// PathAPI is the service host prefix of the JSON and PDF forms.
	PathAPI = "/api/audit-pack/"
)

// Service builds audit packs from one store.
type Service struct {
	source  *dataset.Source
	baseURL string
}

// New returns the packs of the store s; baseURL (without /v1) is what links are built from.
func New(s store.Store, baseURL string) *Service {
	return &Service{source: dataset.NewSource(s), baseURL: strings.TrimRight(baseURL, "/")}
}

// Datasets returns the datasets that have an audit pack, in docs/contracts/supply-api.md's order.
func Datasets() []dataset.Dataset {
	var out []dataset.Dataset
	for _, d := range dataset.All() {
		if d.AuditPack {
			out = append(out, d)
		}
	}
	return out
}

// lookup returns the dataset of a pack's slug.
func lookup(slug string) (dataset.Dataset, error) {
	d, ok := dataset.Lookup(slug)
	if !ok || !d.AuditPack {
		return dataset.Dataset{}, ErrNoPack
	}
	return d, nil
}

// Slugs lists the slugs of the sixteen packs.
func Slugs() []string {
	var out []string
	for _, d := range Datasets() {
		out = append(out, d.Slug)
	}
	return out
}

// links are the public forms of a pack.
func (s *Service) links(slug string) Links {
	return Links{Web: s.baseURL + PathWeb + slug, PDF: s.baseURL + PathAPI + slug + "/pdf", JSON: s.baseURL + PathAPI + slug + "/json"}
}

// Catalog lists the sixteen packs. It reads nothing from the store: the catalog is what is
// published, whether or not a pack's sources are loaded now.
func (s *Service) Catalog() []Entry {
	var out []Entry
	for _, d := range Datasets() {
		out = append(out, Entry{DatasetSlug: d.Slug, DisplayName: d.DisplayName, Kind: string(d.Kind),
			MethodologyVersion: d.MethodologyVersion(), RefreshCadence: d.Cadence(), Links: s.links(d.Slug)})
	}
	return out
}

// Build returns the audit pack of a slug from the serving snapshot: ErrNoPack for a slug
// without a pack, ErrNotLoaded when its sources are not loaded.
func (s *Service) Build(ctx context.Context, slug string) (Pack, error) {
	d, err := lookup(slug)
	if err != nil {
		return Pack{}, err
	}
	f, err := s.source.Load(ctx, d)
	if err != nil {
		return Pack{}, err
	}
	ms, err := s.source.Freshness(ctx, d)
	if err != nil {
		return Pack{}, err
	}
	return Pack{
		SchemaVersion: SchemaVersion, DatasetSlug: d.Slug, DisplayName: d.DisplayName, Kind: string(d.Kind),
		Description: d.OneLiner, MethodologyVersion: d.MethodologyVersion(), MethodologyURL: d.MethodologyURL(s.baseURL),
		SnapshotDate: f.SnapshotDate, RefreshCadence: d.Cadence(), LastRefreshed: rest.Timestamp(f.LastRefreshed),
		Figures: figures(f), Provenance: provenance(f), Reproducibility: reproducibility(f, ms),
		Limitations: d.Limitations(), VersionHistory: d.History(), Compliance: compliance(d),
		Citation: dataset.Citation(f, s.links(d.Slug).JSON), Links: s.links(d.Slug),
	}, nil
}

func figures(f *dataset.Figures) Figures {
	out := Figures{Unit: f.Dataset.Unit, National: f.PublishedNational()}
	for _, r := range f.Rows {
		out.States = append(out.States, f.Published(r))
	}
	return out
}

// familyFiles returns the files of the serving manifests, by family.
func familyFiles(ms []catalog.Manifest) map[string]catalog.Manifest {
	out := map[string]catalog.Manifest{}
	for _, m := range ms {
		out[m.Family] = m
	}
	return out
}

// Policy is the per-address limit of the service host's JSON and PDF forms: rendering a PDF
// costs a chart and some 60 KB, so one address gets 100 per rolling hour, enough for a person
// reading every pack several times.
var Policy = quota.Policy{Name: "audit-pack", Windows: []quota.Window{quota.RollingHour(100)}}
