// Package ingest loads a drop of federal source files into a new store generation, records what
// it loaded (the manifest), and switches the serving snapshot when every family it read is whole.
package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"providerdir/store"
)

// ManifestKind is the store record kind of source manifests; the record id is the family name.
const ManifestKind = "manifest"

// Manifest records one loaded snapshot of one source family: what was read, what was rejected,
// and when. The serving manifests answer /v1/health and every data_freshness block.
type Manifest struct {
	Family      string    `json:"family"`      // source family, e.g. "nppes", "oig_leie"
	DatasetID   string    `json:"dataset_id"`  // provenance _dataset_id, e.g. "nppes"
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
}

// SaveManifest stores (creates or replaces) the manifest of a family.
func SaveManifest(ctx context.Context, s store.Store, m Manifest) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	for {
		cur, err := s.GetRecord(ctx, ManifestKind, m.Family)
		switch {
		case errors.Is(err, store.ErrNotFound):
			cur = store.Record{Kind: ManifestKind, ID: m.Family}
		case err != nil:
			return err
		}
		cur.Body = body
		if _, err = s.PutRecord(ctx, cur); !errors.Is(err, store.ErrConflict) {
			return err
		}
	}
}

// Manifests returns every stored manifest, ordered by family.
func Manifests(ctx context.Context, s store.Store) ([]Manifest, error) {
	var out []Manifest
	after := ""
	for {
		recs, err := s.ListRecords(ctx, ManifestKind, after, 100)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			var m Manifest
			if err := json.Unmarshal(r.Body, &m); err != nil {
				return nil, fmt.Errorf("ingest: decode manifest %q: %w", r.ID, err)
			}
			out = append(out, m)
			after = r.ID
		}
		if len(recs) < 100 {
			return out, nil
		}
	}
}
