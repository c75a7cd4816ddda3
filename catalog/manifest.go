package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"providerdir/store"
)

// Manifest records one loaded snapshot of one source family: what was read, what was rejected,
// and when. The serving manifests answer /v1/health and every data_freshness block.
type Manifest struct {
	Family      string    `json:"family"`      // source family, e.g. "nppes", "oig_leie"
	DatasetID   string    `json:"dataset_id"`  // provenance _dataset_id of the family's main dataset
	Datasets    []string  `json:"datasets"`    // every dataset id the family's files held
	Source      string    `json:"source"`      // human name of the source
	SourceURL   string    `json:"source_url"`  // landing page
	Snapshot    string    `json:"snapshot"`    // snapshot date of the drop, YYYY-MM-DD
	Generation  string    `json:"generation"`  // store generation holding it
	Methodology string    `json:"methodology"` // <name>/<version>
	Cadence     string    `json:"cadence"`     // monthly, quarterly, annual
	License     string    `json:"license"`     // SPDX id
	Coverage    Coverage  `json:"coverage"`
	Files       []File    `json:"files"`
	Rows        int64     `json:"rows"`
	Rejected    int64     `json:"rejected"`
	StartedAt   time.Time `json:"started_at"`
	FinishedAt  time.Time `json:"finished_at"`

	// DatasetSnapshots are the snapshots of the datasets read from files of their own (each
	// Care Compare facility type is published on its own schedule); every other dataset of
	// Datasets has Snapshot. Such a dataset's snapshot is its files' date, or, when its files are
	// byte for byte those of the previous load, that load's snapshot of it.
	DatasetSnapshots []DatasetSnapshot `json:"dataset_snapshots,omitempty"`

	// Weekly are the NPPES weekly update files applied on top of Files since they loaded, in the
	// order they were applied; a full load of the family starts the list anew.
	Weekly []File `json:"weekly_files,omitempty"`
}

// DatasetSnapshot is one dataset's snapshot and the checksums of the files it was read from.
type DatasetSnapshot struct {
	DatasetID string   `json:"dataset_id"`
	Snapshot  string   `json:"snapshot"`
	SHA256    []string `json:"sha256"`
}

// SnapshotOf returns the snapshot of one of the family's datasets; false when the family holds
// no such dataset.
func (m Manifest) SnapshotOf(datasetID string) (string, bool) {
	for _, d := range m.DatasetSnapshots {
		if d.DatasetID == datasetID {
			return d.Snapshot, true
		}
	}
	if datasetID == m.DatasetID || slices.Contains(m.Datasets, datasetID) {
		return m.Snapshot, true
	}
	return "", false
}

// DatasetIDs lists the family's datasets: Datasets, or the main dataset when the manifest
// lists none.
func (m Manifest) DatasetIDs() []string {
	if len(m.Datasets) == 0 {
		return []string{m.DatasetID}
	}
	return m.Datasets
}

// Coverage is the period a snapshot covers; End is a date or "ongoing".
type Coverage struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// File is one source file read into a snapshot.
type File struct {
	Name     string `json:"name"`
	SHA256   string `json:"sha256"`
	Bytes    int64  `json:"bytes"`
	Rows     int64  `json:"rows"`
	Rejected int64  `json:"rejected"`
	// Errors are the first rejected rows of the file; Rejected counts them all.
	Errors []RowError `json:"errors,omitempty"`
}

// RowError locates one rejected row of a file.
type RowError struct {
	Line   int    `json:"line"`
	Column string `json:"column,omitempty"`
	Reason string `json:"reason"`
	Value  string `json:"value,omitempty"`
}

// ManifestCollection holds one document per source family, the family's manifest. It switches
// together with the family's data collections, so the manifests served always describe the data
// served, even when an ingest is interrupted between writing and switching.
const ManifestCollection = "manifests"

// Manifests returns the manifests of the serving snapshot, ordered by family.
func Manifests(ctx context.Context, s store.Store) ([]Manifest, error) {
	snap, err := store.Serving(ctx, s)
	if err != nil {
		return nil, err
	}
	return ManifestsAt(ctx, s, snap.Generation(ManifestCollection))
}

// ManifestsAt returns the manifests stored in one generation of the manifests collection, for
// a reader that already holds the serving pointer and must not read a newer one.
func ManifestsAt(ctx context.Context, s store.Store, gen string) ([]Manifest, error) {
	var out []Manifest
	if gen == "" {
		return out, nil
	}
	q := store.Query{Collection: ManifestCollection, Generation: gen, Limit: 1000}
	for {
		page, err := s.Find(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, d := range page.Docs {
			var m Manifest
			if err := json.Unmarshal(d.Body, &m); err != nil {
				return nil, fmt.Errorf("catalog: decode manifest %q: %w", d.ID, err)
			}
			out = append(out, m)
		}
		if page.Next == "" {
			return out, nil
		}
		q.After = page.Next
	}
}
