package stored

// PaymentRecord is one general payment as stored and served.
type PaymentRecord struct {
	RecordID     string       `json:"record_id"`
	ProgramYear  int          `json:"program_year"`
	NPI          string       `json:"npi,omitempty"`
	Recipient    PaymentPayee `json:"recipient"`
	Manufacturer string       `json:"manufacturer"`
	AmountUSD    float64      `json:"amount_usd"`
	AmountCents  int64        `json:"amount_cents"`
	Nature       string       `json:"nature,omitempty"`
	Form         string       `json:"form,omitempty"`
	Date         string       `json:"date,omitempty"`
	Count        int64        `json:"number_of_payments,omitempty"`
	Match        PaymentMatch `json:"match"`
}

// PaymentPayee is the recipient as the payment file names them.
type PaymentPayee struct {
	Type       string `json:"type,omitempty"`
	ProfileID  string `json:"profile_id,omitempty"`
	First      string `json:"first,omitempty"`
	Middle     string `json:"middle,omitempty"`
	Last       string `json:"last,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postal_code,omitempty"`
	Specialty  string `json:"specialty,omitempty"`
}

// PaymentMatch says how a payment was tied to a registry NPI; its Confidence becomes the
// record's _confidence.
type PaymentMatch struct {
	Method     string  `json:"method"`
	Confidence float64 `json:"confidence"`
}

// Payment match methods and their confidence. Open Payments reports recipients by name and
// address; program years 2021 on also publish the NPI the manufacturer reported. The NPI is
// trusted only as far as the registry agrees with the name beside it.
const (
	MatchNPIAndName       = "npi_and_last_name"    // published NPI, registry last name agrees
	MatchNPIOnly          = "npi_name_differs"     // published NPI, registry last name differs
	MatchNameAddress      = "name_and_postal_code" // no NPI; one active registry individual by name, state and ZIP
	MatchNameState        = "name_and_state"       // no NPI; one active registry individual by name and state
	MatchNone             = "unmatched"            // no NPI and no unique registry match
	MatchNPINotInRegistry = "npi_not_in_registry"  // published NPI absent from the registry
	MatchNPIUnverified    = "npi_unverified"       // published NPI, no registry loaded to check it
)

// MatchConfidence is the confidence of a match method; 0 for a method not listed.
func MatchConfidence(method string) float64 { return matchConfidence[method] }

var matchConfidence = map[string]float64{
	MatchNPIAndName:       1.00,
	MatchNPIOnly:          0.60,
	MatchNameAddress:      0.85,
	MatchNameState:        0.70,
	MatchNone:             0.00,
	MatchNPINotInRegistry: 0.30,
	MatchNPIUnverified:    0.50,
}
