package synth

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestName is the file every drop ends with. It is written last, after every data file is
// in place, so its presence marks a complete drop.
const ManifestName = "manifest.json"

// ManifestFormat identifies the manifest layout.
const ManifestFormat = "providerdir-synth/1"

// Manifest describes a generated drop: how to regenerate it, what each file holds, which rows
// are deliberately bad, the expected counts, and for an evolved drop what changed.
type Manifest struct {
	Format string `json:"format"`
	Seed   uint64 `json:"seed"`
	// Providers is the scale of the base drop (--providers). An evolved drop keeps it and adds
	// records; ProviderRecords counts the records of this drop.
	Providers       int64 `json:"providers"`
	Generation      int   `json:"generation"`
	ProviderRecords int64 `json:"provider_records"`
	Facilities      int   `json:"facilities"`
	// Snapshot is this drop's date; BaseSnapshot the date of generation 0, which every record's
	// dates are drawn against; PreviousSnapshot the drop this one evolved from.
	Snapshot         string `json:"snapshot"`
	BaseSnapshot     string `json:"base_snapshot"`
	PreviousSnapshot string `json:"previous_snapshot,omitempty"`
	// SnapshotDates is the as-of date of each source family's files.
	SnapshotDates map[string]string `json:"snapshot_dates"`
	Files         []FileInfo        `json:"files"`
	BadRows       []BadRow          `json:"bad_rows"`
	Counts        Counts            `json:"counts"`
	Changes       *Changes          `json:"changes,omitempty"`
}

// FileInfo is one generated file. Rows counts data rows including the bad ones, so a reader
// should accept Rows-BadRows rows and reject exactly the bad rows listed for the file.
type FileInfo struct {
	Name    string `json:"name"`
	Family  string `json:"family"`
	Rows    int64  `json:"rows"`
	BadRows int64  `json:"bad_rows"`
	Columns int    `json:"columns"`
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"`
}

// Reasons a row is deliberately bad.
const (
	BadNPICheckDigit = "npi_check_digit"
	BadDate          = "invalid_date"
	BadColumnCount   = "column_count"
	BadCCN           = "invalid_ccn"
)

// BadRow is one deliberately malformed row: its file, physical line (the header is line 1) and
// why it must be rejected. Value is the row's key (NPI or CCN) or the malformed value.
type BadRow struct {
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Reason string `json:"reason"`
	Value  string `json:"value"`
}

// Counts are the expected contents of the drop, for tests that check a reader or the service
// end to end. Provider counts exclude bad rows.
type Counts struct {
	Individuals   int64 `json:"individuals"`
	Organizations int64 `json:"organizations"`
	Deactivated   int64 `json:"deactivated"` // deactivated and not reactivated
	Reactivated   int64 `json:"reactivated"`
	// ActiveIndividualsByState counts active individuals by practice state.
	ActiveIndividualsByState map[string]int64 `json:"active_individuals_by_state"`
	// Taxonomies counts active individuals per registered code (and chiropractor).
	Taxonomies          map[string]TaxonomyCount `json:"taxonomies"`
	SecondaryLocations  int64                    `json:"secondary_locations"`
	OtherNames          int64                    `json:"other_names"`
	Endpoints           int64                    `json:"endpoints"`
	ExcludedWithNPI     int64                    `json:"excluded_with_npi"`
	ExcludedWithoutNPI  int64                    `json:"excluded_without_npi"`
	PECOSEnrollments    int64                    `json:"pecos_enrollments"`
	PECOSReassignments  int64                    `json:"pecos_reassignments"`
	HospitalEnrollments int64                    `json:"hospital_enrollments"`
	// Facilities counts facilities per kind; terminated ones are in POS but not in Care Compare.
	Facilities        map[string]FacilityCount `json:"facilities"`
	PaymentRows       int64                    `json:"payment_rows"`
	PaymentRecipients int64                    `json:"payment_recipients"`
	LegacyPaymentRows int64                    `json:"legacy_payment_rows"`
	// SAMMirrored counts the SAM records of providers on the LEIE, SAMWithNPI those that carry
	// the NPI, SAMOther the records of other agencies (no NPI).
	SAMMirrored int64 `json:"sam_mirrored"`
	SAMWithNPI  int64 `json:"sam_with_npi"`
	SAMOther    int64 `json:"sam_other"`
	// MIPSRows and MIPSOlderRows count the score rows of the latest and the older performance
	// year; MIPSClinicians the clinicians scored in the latest.
	MIPSRows              int64 `json:"mips_rows"`
	MIPSOlderRows         int64 `json:"mips_older_rows"`
	MIPSClinicians        int64 `json:"mips_clinicians"`
	HospiceCAHPSStarRows  int64 `json:"hospice_cahps_star_rows"`
	RatingsNotAvailable   int64 `json:"ratings_not_available"`
	SuppressedMeasureRows int64 `json:"suppressed_measures"`
}

// TaxonomyCount counts active individuals holding a code in any slot, as primary, and by
// practice state (any slot).
type TaxonomyCount struct {
	Specialty string           `json:"specialty"`
	AnySlot   int64            `json:"any_slot"`
	Primary   int64            `json:"primary"`
	States    map[string]int64 `json:"states"`
}

// FacilityCount counts the facilities of one kind.
type FacilityCount struct {
	Total      int64 `json:"total"`
	Terminated int64 `json:"terminated"`
}

// Change kinds of an evolved drop.
const (
	ChangeMoved              = "moved"
	ChangeTaxonomyAdded      = "taxonomy_added"
	ChangeNewlyExcluded      = "newly_excluded"
	ChangeDeactivated        = "deactivated"
	ChangeNewProvider        = "new_provider"
	ChangeFacilityRating     = "facility_rating_changed"
	ChangeFacilityTerminated = "facility_terminated"
)

// Changes lists, by kind, the records that differ from the previous drop. NPI-keyed kinds carry
// NPIs, facility kinds CCNs. Every list is sorted by key.
type Changes struct {
	Moved              []Change `json:"moved"`
	TaxonomyAdded      []Change `json:"taxonomy_added"`
	NewlyExcluded      []Change `json:"newly_excluded"`
	Deactivated        []Change `json:"deactivated"`
	NewProviders       []Change `json:"new_providers"`
	FacilityRating     []Change `json:"facility_rating_changed"`
	FacilityTerminated []Change `json:"facility_terminated"`
}

// Change is one changed record: its key and the value before and after (a state, a taxonomy
// code, a date or a star rating, depending on the kind).
type Change struct {
	Key  string `json:"key"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// ReadManifest reads the manifest of a drop directory.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("synth: %s: %w", filepath.Join(dir, ManifestName), err)
	}
	if m.Format != ManifestFormat {
		return nil, fmt.Errorf("synth: %s: format %q, want %q", filepath.Join(dir, ManifestName), m.Format, ManifestFormat)
	}
	return &m, nil
}

// File returns the manifest entry of the named file.
func (m *Manifest) File(name string) (FileInfo, bool) {
	for _, f := range m.Files {
		if f.Name == name {
			return f, true
		}
	}
	return FileInfo{}, false
}

// FilesOf returns the entries of one family, in manifest order.
func (m *Manifest) FilesOf(family string) []FileInfo {
	var out []FileInfo
	for _, f := range m.Files {
		if f.Family == family {
			out = append(out, f)
		}
	}
	return out
}

// BadRowsOf returns the bad rows of one file.
func (m *Manifest) BadRowsOf(name string) []BadRow {
	var out []BadRow
	for _, b := range m.BadRows {
		if b.File == name {
			out = append(out, b)
		}
	}
	return out
}
