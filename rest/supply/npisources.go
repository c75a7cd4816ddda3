package supply

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"providerdir/catalog"
	"providerdir/store"
	"providerdir/stored"
)

// ExclusionData is the data of the oig_leie block: the list's rows for the NPI.
type ExclusionData struct {
	Excluded   bool                     `json:"excluded"`
	Exclusions []stored.ExclusionRecord `json:"exclusions"`
}

// EnrollmentData is the data of the pecos block: the NPI's Medicare enrollments.
type EnrollmentData struct {
	Enrolled    bool                      `json:"enrolled"`
	Enrollments []stored.EnrollmentRecord `json:"enrollments"`
}

// PaymentsData is the data of the open_payments block: the general payments tied to the NPI.
type PaymentsData struct {
	RecordCount    int64                  `json:"record_count"`
	TotalAmountUSD float64                `json:"total_amount_usd"`
	ProgramYears   []int                  `json:"program_years"`
	Records        []stored.PaymentRecord `json:"records"`
	// RecordsTruncated is true when Records holds the first MaxPaymentRecords of more.
	RecordsTruncated bool `json:"records_truncated"`
}

// MaxPaymentRecords bounds the payment records listed in one answer; the count and total cover
// them all.
const MaxPaymentRecords = 100

// SAMData is the data of the sam_gov block: the extract's records that carry the NPI.
type SAMData struct {
	Excluded   bool                        `json:"excluded"`
	Exclusions []stored.SAMExclusionRecord `json:"exclusions"`
}

// MIPSData is the data of the qpp_mips block: the NPI's MIPS final scores, latest performance
// year first (a clinician has a score per practice it was earned with).
type MIPSData struct {
	PerformanceYears []int                    `json:"performance_years"`
	Scores           []stored.MIPSScoreRecord `json:"scores"`
}

// exclusions answers the oig_leie block from the current exclusion list.
func (v view) exclusions(ctx context.Context, npi string) (SourceBlock, error) {
	recs, block, err := keyedRecords[stored.ExclusionRecord](ctx, v, catalog.Exclusions, "leie", stored.LEIE, npi)
	if err == nil && recs != nil {
		block.Data = ExclusionData{Excluded: true, Exclusions: recs}
	}
	return block, err
}

// enrollments answers the pecos block from the base enrollment file.
func (v view) enrollments(ctx context.Context, npi string) (SourceBlock, error) {
	recs, block, err := keyedRecords[stored.EnrollmentRecord](ctx, v, catalog.Enrollments, "pecos", stored.PECOS, npi)
	if err == nil && recs != nil {
		block.Data = EnrollmentData{Enrolled: true, Enrollments: recs}
	}
	return block, err
}

// samExclusions answers the sam_gov block from the exclusions extract.
func (v view) samExclusions(ctx context.Context, npi string) (SourceBlock, error) {
	recs, block, err := keyedRecords[stored.SAMExclusionRecord](ctx, v, catalog.SAMExclusions, "sam", stored.SAMExclusions, npi)
	if err == nil && recs != nil {
		block.Data = SAMData{Excluded: true, Exclusions: recs}
	}
	return block, err
}

// mipsScores answers the qpp_mips block. Each performance year is stamped with its own file's
// provenance; the block's is that of the latest year's scores.
func (v view) mipsScores(ctx context.Context, npi string) (SourceBlock, error) {
	docs, block, err := v.byNPI(ctx, catalog.MIPSScores, "qpp", stored.QPPMIPS, npi)
	if err != nil || len(docs) == 0 {
		return block, err
	}
	data := MIPSData{}
	latest := -1
	for _, d := range docs {
		b, err := stored.DecodeBody[stored.MIPSScoreRecord](d)
		if err != nil {
			return block, fmt.Errorf("decode %s %s: %w", catalog.MIPSScores, d.ID, err)
		}
		data.Scores = append(data.Scores, b.Record)
		if y := b.Record.PerformanceYear; y > latest {
			latest = y
			block.Provenance = fromRecord(b.Provenance)
		}
		if y := b.Record.PerformanceYear; y > 0 && !slices.Contains(data.PerformanceYears, y) {
			data.PerformanceYears = append(data.PerformanceYears, y)
		}
	}
	slices.SortFunc(data.Scores, func(a, b stored.MIPSScoreRecord) int {
		if a.PerformanceYear != b.PerformanceYear {
			return b.PerformanceYear - a.PerformanceYear
		}
		return strings.Compare(a.OrgPACID+a.Source, b.OrgPACID+b.Source)
	})
	slices.Sort(data.PerformanceYears)
	slices.Reverse(data.PerformanceYears)
	if data.PerformanceYears == nil {
		data.PerformanceYears = []int{}
	}
	block.Data = data
	return block, nil
}

// keyedRecords reads the records of a source collection keyed by the NPI, with the block to
// answer with: the last record's provenance when there are records (nil records otherwise, and
// the block byNPI gives).
func keyedRecords[T any](ctx context.Context, v view, collection, family string, d stored.Dataset, npi string) ([]T, SourceBlock, error) {
	docs, block, err := v.byNPI(ctx, collection, family, d, npi)
	if err != nil || len(docs) == 0 {
		return nil, block, err
	}
	recs := make([]T, 0, len(docs))
	for _, doc := range docs {
		b, err := stored.DecodeBody[T](doc)
		if err != nil {
			return nil, block, fmt.Errorf("decode %s %s: %w", collection, doc.ID, err)
		}
		recs = append(recs, b.Record)
		block.Provenance = fromRecord(b.Provenance)
	}
	return recs, block, nil
}

// payments answers the open_payments block. Payments are tied to NPIs by a match whose strength
// is each record's confidence; the block's provenance is that of its least confident record, so
// the block never claims more than its weakest match.
func (v view) payments(ctx context.Context, npi string) (SourceBlock, error) {
	docs, block, err := v.byNPI(ctx, catalog.Payments, "openpayments", stored.OpenPayments, npi)
	if err != nil || len(docs) == 0 {
		return block, err
	}
	data := PaymentsData{Records: []stored.PaymentRecord{}}
	var cents int64
	weakest := 2.0
	for _, d := range docs {
		b, err := stored.DecodeBody[stored.PaymentRecord](d)
		if err != nil {
			return block, fmt.Errorf("decode payment %s: %w", d.ID, err)
		}
		data.RecordCount++
		cents += b.Record.AmountCents
		if !slices.Contains(data.ProgramYears, b.Record.ProgramYear) {
			data.ProgramYears = append(data.ProgramYears, b.Record.ProgramYear)
		}
		if len(data.Records) < MaxPaymentRecords {
			data.Records = append(data.Records, b.Record)
		} else {
			data.RecordsTruncated = true
		}
		if b.Provenance.Confidence < weakest {
			weakest = b.Provenance.Confidence
			block.Provenance = fromRecord(b.Provenance)
		}
	}
	slices.Sort(data.ProgramYears)
	data.TotalAmountUSD = float64(cents) / 100
	block.Data = data
	return block, nil
}

// byNPI reads every document of a source collection keyed by the NPI. It returns the block to
// answer with when there is none: the searched snapshot's provenance, or, when the family is not
// loaded, the dataset's description marked not ingested.
func (v view) byNPI(ctx context.Context, collection, family string, d stored.Dataset, npi string) ([]store.Document, SourceBlock, error) {
	m, loaded, err := v.Manifest(ctx, family)
	if err != nil {
		return nil, SourceBlock{}, err
	}
	if !loaded || v.Snap.Generation(collection) == "" {
		return nil, SourceBlock{Provenance: notIngested(d)}, nil
	}
	docs, err := v.Keyed(ctx, collection, stored.KeyNPI, npi)
	if err != nil {
		return nil, SourceBlock{}, err
	}
	return docs, SourceBlock{Provenance: searched(m)}, nil
}
