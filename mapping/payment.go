package mapping

import (
	"providerdir/source/openpayments"
	"providerdir/stored"
)

// Payment maps one payment row to its record and keys, with the NPI and match already decided.
func Payment(p *openpayments.Payment, npi, method string) (stored.PaymentRecord, stored.Keys) {
	rec := stored.PaymentRecord{
		RecordID: p.RecordID, ProgramYear: p.ProgramYear, NPI: npi,
		Recipient: stored.PaymentPayee{Type: p.RecipientType, ProfileID: p.ProfileID, First: p.FirstName, Middle: p.MiddleName,
			Last: p.LastName, City: p.City, State: p.State, PostalCode: p.ZIP, Specialty: p.Specialty},
		Manufacturer: p.PayerName,
		AmountUSD:    float64(p.Amount) / 100,
		AmountCents:  int64(p.Amount),
		Nature:       p.Nature, Form: p.Form, Date: p.Date.String(), Count: p.Count,
		Match: stored.PaymentMatch{Method: method, Confidence: stored.MatchConfidence(method)},
	}
	var k stored.Keys
	k.Add(stored.KeyNPI, npi)
	return rec, k
}
