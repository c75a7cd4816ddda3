// Package openpayments reads the CMS Open Payments general payments detail files
// (OP_DTL_GNRL_PGYR<year>_P<publication date>.csv, "Open Payments Public Use Files:
// Methodology and Data Dictionary", general payments). Program years 2021 and later name the
// recipient columns Covered_Recipient_*; 2013-2020 named them Physician_* (Physician_Profile_ID,
// Physician_First_Name, Physician_Specialty, ...). Both generations are read into one record.
//
// Amounts are read exactly, into cents; dates are MM/DD/YYYY. A recipient NPI, where present,
// must pass its check digit, and a teaching hospital CCN must have a valid CCN form.
package openpayments

import (
	"fmt"
	"io"
	"strings"

	"providerdir/source"
)

// Cents is an amount of US dollars in cents, exact.
type Cents int64

func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, int64(c)/100, int64(c)%100)
}

// Payment is one row of a general payments file.
type Payment struct {
	RecordID            string
	ChangeType          string // NEW, CHANGED, UNCHANGED, ADD
	RecipientType       string // e.g. "Covered Recipient Physician", "Covered Recipient Teaching Hospital"
	ProfileID           string // Covered_Recipient_Profile_ID (Physician_Profile_ID before 2021)
	NPI                 string // "" when not published (always, before program year 2021)
	FirstName           string
	MiddleName          string
	LastName            string
	NameSuffix          string
	TeachingHospitalCCN string
	TeachingHospitalID  string
	TeachingHospital    string
	Street1, Street2    string
	City, State, ZIP    string
	Country             string
	PrimaryType         string // first primary type (the only one before 2021)
	Specialty           string // first specialty (the only one before 2021)
	LicenseState        string // first license state
	Submitter           string // submitting manufacturer or GPO
	PayerID             string // manufacturer or GPO making the payment
	PayerName           string
	PayerState          string
	PayerCountry        string
	Amount              Cents
	Date                source.Date
	Count               int64 // Number_of_Payments_Included_in_Total_Amount
	Form                string
	Nature              string
	PhysicianOwnership  source.YesNo
	ThirdPartyPayment   string // Third_Party_Payment_Recipient_Indicator, as published ("No Third Party Payment", ...)
	Products            []string
	ProgramYear         int
	PublicationDate     source.Date
}

var (
	schema         = source.NewSchema("Open Payments general payments")
	colRecordID    = schema.Required("Record_ID")
	colChange      = schema.Optional("Change_Type")
	colRecipType   = schema.Required("Covered_Recipient_Type")
	colProfile     = schema.Optional("Covered_Recipient_Profile_ID", "Physician_Profile_ID")
	colNPI         = schema.Optional("Covered_Recipient_NPI", "Physician_NPI")
	colFirst       = schema.Optional("Covered_Recipient_First_Name", "Physician_First_Name")
	colMiddle      = schema.Optional("Covered_Recipient_Middle_Name", "Physician_Middle_Name")
	colLast        = schema.Optional("Covered_Recipient_Last_Name", "Physician_Last_Name")
	colSuffix      = schema.Optional("Covered_Recipient_Name_Suffix", "Physician_Name_Suffix")
	colTHCCN       = schema.Optional("Teaching_Hospital_CCN")
	colTHID        = schema.Optional("Teaching_Hospital_ID")
	colTHName      = schema.Optional("Teaching_Hospital_Name")
	colStreet1     = schema.Optional("Recipient_Primary_Business_Street_Address_Line1")
	colStreet2     = schema.Optional("Recipient_Primary_Business_Street_Address_Line2")
	colCity        = schema.Optional("Recipient_City")
	colState       = schema.Optional("Recipient_State")
	colZIP         = schema.Optional("Recipient_Zip_Code")
	colCountry     = schema.Optional("Recipient_Country")
	colPrimaryType = schema.Optional("Covered_Recipient_Primary_Type_1", "Physician_Primary_Type")
	colSpecialty   = schema.Optional("Covered_Recipient_Specialty_1", "Physician_Specialty")
	colLicense     = schema.Optional("Covered_Recipient_License_State_code1", "Physician_License_State_code1")
	colSubmitter   = schema.Optional("Submitting_Applicable_Manufacturer_or_Applicable_GPO_Name")
	colPayerID     = schema.Optional("Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_ID")
	colPayerName   = schema.Required("Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_Name")
	colPayerState  = schema.Optional("Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_State")
	colPayerCtry   = schema.Optional("Applicable_Manufacturer_or_Applicable_GPO_Making_Payment_Country")
	colAmount      = schema.Required("Total_Amount_of_Payment_USDollars")
	colDate        = schema.Required("Date_of_Payment")
	colCount       = schema.Optional("Number_of_Payments_Included_in_Total_Amount")
	colForm        = schema.Optional("Form_of_Payment_or_Transfer_of_Value")
	colNature      = schema.Required("Nature_of_Payment_or_Transfer_of_Value")
	colOwnership   = schema.Optional("Physician_Ownership_Indicator")
	colThirdParty  = schema.Optional("Third_Party_Payment_Recipient_Indicator")
	colYear        = schema.Optional("Program_Year")
	colPublished   = schema.Optional("Payment_Publication_Date")
	colProducts    = schema.Group(func(n string) bool {
		return strings.HasPrefix(source.HeaderKey(n), "name_of_drug_or_biological_or_device_or_medical_supply_")
	})
)

func decode(r *source.Row) (Payment, bool) {
	p := Payment{
		RecordID:            r.Required(colRecordID),
		ChangeType:          r.Str(colChange),
		RecipientType:       r.Str(colRecipType),
		ProfileID:           r.Str(colProfile),
		NPI:                 r.OptionalNPI(colNPI),
		FirstName:           r.Str(colFirst),
		MiddleName:          r.Str(colMiddle),
		LastName:            r.Str(colLast),
		NameSuffix:          r.Str(colSuffix),
		TeachingHospitalCCN: r.OptionalCCN(colTHCCN),
		TeachingHospitalID:  r.Str(colTHID),
		TeachingHospital:    r.Str(colTHName),
		Street1:             r.Str(colStreet1),
		Street2:             r.Str(colStreet2),
		City:                r.Str(colCity),
		State:               r.Str(colState),
		ZIP:                 r.Str(colZIP),
		Country:             r.Str(colCountry),
		PrimaryType:         r.Str(colPrimaryType),
		Specialty:           r.Str(colSpecialty),
		LicenseState:        r.Str(colLicense),
		Submitter:           r.Str(colSubmitter),
		PayerID:             r.Str(colPayerID),
		PayerName:           r.Required(colPayerName),
		PayerState:          r.Str(colPayerState),
		PayerCountry:        r.Str(colPayerCtry),
		Date:                r.Date(colDate),
		Form:                r.Str(colForm),
		Nature:              r.Str(colNature),
		PhysicianOwnership:  r.Flag(colOwnership),
		ThirdPartyPayment:   r.Str(colThirdParty),
		PublicationDate:     r.Date(colPublished),
	}
	if p.Date.IsZero() && !r.Failed() {
		r.Fail(colDate, "missing value", "")
	}
	amount := r.Str(colAmount)
	if c, ok := ParseCents(amount); ok {
		p.Amount = c
	} else {
		r.Fail(colAmount, "bad amount", amount)
	}
	p.Count, _ = r.Int(colCount)
	if y, ok := r.Int(colYear); ok {
		if y < 2013 || y > 2100 {
			r.Fail(colYear, "program year out of range", r.Str(colYear))
		}
		p.ProgramYear = int(y)
	}
	for _, i := range r.Group(colProducts) {
		if v := r.At(i); v != "" {
			p.Products = append(p.Products, v)
		}
	}
	return p, true
}

// ParseCents reads a dollar amount such as "1234.5", "1,234.56" or "-12" exactly. More than two
// decimal places, or anything that is not a number, is refused.
func ParseCents(s string) (Cents, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" && frac == "" || len(frac) > 2 || dot && frac == "" {
		return 0, false
	}
	var n int64
	digits := 0
	for i := 0; i < len(whole); i++ {
		switch c := whole[i]; {
		case c >= '0' && c <= '9':
			n = n*10 + int64(c-'0')
			if digits++; digits > 13 {
				return 0, false
			}
		case c == ',' && digits > 0 && i+1 < len(whole):
		default:
			return 0, false
		}
	}
	n *= 100
	for i, scale := 0, int64(10); i < len(frac); i, scale = i+1, scale/10 {
		c := frac[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n += int64(c-'0') * scale
	}
	if neg {
		n = -n
	}
	return Cents(n), true
}

// Open opens a general payments file of either generation.
func Open(path string, opts ...source.Option) (*source.Reader[Payment], error) {
	return source.Open(path, schema, decode, opts...)
}

// NewReader reads a general payments file from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Payment], error) {
	return source.NewReader(r, name, schema, decode, opts...)
}
