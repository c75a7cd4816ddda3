package supply

import (
	"context"
	"fmt"
	"slices"

	"providerdir/catalog"
	"providerdir/mapping"
	"providerdir/store"
)

// ExclusionData is the data of the oig_leie block: the list's rows for the NPI.
type ExclusionData struct {
	Excluded   bool                      `json:"excluded"`
	Exclusions []mapping.ExclusionRecord `json:"exclusions"`
}

// EnrollmentData is the data of the pecos block: the NPI's Medicare enrollments.
type EnrollmentData struct {
	Enrolled    bool                       `json:"enrolled"`
	Enrollments []mapping.EnrollmentRecord `json:"enrollments"`
}

// PaymentsData is the data of the open_payments block: the general payments tied to the NPI.
type PaymentsData struct {
	RecordCount    int64                   `json:"record_count"`
	TotalAmountUSD float64                 `json:"total_amount_usd"`
	ProgramYears   []int                   `json:"program_years"`
	Records        []mapping.PaymentRecord `json:"records"`
	// RecordsTruncated is true when Records holds the first MaxPaymentRecords of more.
	RecordsTruncated bool `json:"records_truncated"`
}

// MaxPaymentRecords bounds the payment records listed in one answer; the count and total cover
// them all.
const MaxPaymentRecords = 100

// exclusions answers the oig_leie block from the current exclusion list.
func (v view) exclusions(ctx context.Context, npi string) (SourceBlock, error) {
	docs, block, err := v.byNPI(ctx, catalog.Exclusions, "leie", mapping.LEIE, npi)
	if err != nil || len(docs) == 0 {
		return block, err
	}
	data := ExclusionData{Excluded: true}
	for _, d := range docs {
		b, err := mapping.DecodeBody[mapping.ExclusionRecord](d)
		if err != nil {
			return block, fmt.Errorf("decode exclusion %s: %w", d.ID, err)
		}
		data.Exclusions = append(data.Exclusions, b.Record)
		block.Provenance = fromRecord(b.Provenance)
	}
	block.Data = data
	return block, nil
}

// enrollments answers the pecos block from the base enrollment file.
func (v view) enrollments(ctx context.Context, npi string) (SourceBlock, error) {
	docs, block, err := v.byNPI(ctx, catalog.Enrollments, "pecos", mapping.PECOS, npi)
	if err != nil || len(docs) == 0 {
		return block, err
	}
	data := EnrollmentData{Enrolled: true}
	for _, d := range docs {
		b, err := mapping.DecodeBody[mapping.EnrollmentRecord](d)
		if err != nil {
			return block, fmt.Errorf("decode enrollment %s: %w", d.ID, err)
		}
		data.Enrollments = append(data.Enrollments, b.Record)
		block.Provenance = fromRecord(b.Provenance)
	}
	block.Data = data
	return block, nil
}

// payments answers the open_payments block. Payments are tied to NPIs by a match whose strength
// is each record's confidence; the block's provenance is that of its least confident record, so
// the block never claims more than its weakest match.
func (v view) payments(ctx context.Context, npi string) (SourceBlock, error) {
	docs, block, err := v.byNPI(ctx, catalog.Payments, "openpayments", mapping.OpenPayments, npi)
	if err != nil || len(docs) == 0 {
		return block, err
	}
	data := PaymentsData{Records: []mapping.PaymentRecord{}}
	var cents int64
	weakest := 2.0
	for _, d := range docs {
		b, err := mapping.DecodeBody[mapping.PaymentRecord](d)
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
func (v view) byNPI(ctx context.Context, collection, family string, d mapping.Dataset, npi string) ([]store.Document, SourceBlock, error) {
	m, loaded, err := v.Manifest(ctx, family)
	if err != nil {
		return nil, SourceBlock{}, err
	}
	if !loaded || v.Snap.Generation(collection) == "" {
		return nil, SourceBlock{Provenance: notIngested(d)}, nil
	}
	docs, err := v.Keyed(ctx, collection, mapping.KeyNPI, npi)
	if err != nil {
		return nil, SourceBlock{}, err
	}
	return docs, SourceBlock{Provenance: searched(m)}, nil
}
