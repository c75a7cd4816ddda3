package nppes

import (
	"io"

	"providerdir/source"
)

// Endpoint is one row of endpoint_pfile, the Endpoint Reference File: an electronic endpoint
// (a Direct address, a FHIR, REST, SOAP or CONNECT URL, a web site) a provider registered for
// an NPI. One NPI may have many; the file has no id of its own for a row.
type Endpoint struct {
	NPI string
	// Type is the NPPES endpoint type code (DIRECT, FHIR, REST, SOAP, CONNECT, OTHERS, ...) and
	// TypeDescription its description as published ("Direct Messaging Address").
	Type, TypeDescription string
	// Address is the endpoint itself: a Direct address or a URL, as entered.
	Address     string
	Description string
	// Affiliated says the endpoint belongs to another organization, named by AffiliationName
	// (its legal business name); the file carries no NPI for it.
	Affiliated      source.YesNo
	AffiliationName string
	// Use and Content are the code, description and free-text "other" description of what the
	// endpoint is used for (DIRECT, HIE, OTHER) and carries (CSV, OTHER).
	UseCode, UseDescription, OtherUseDescription             string
	ContentType, ContentDescription, OtherContentDescription string
	// Location is the affiliation's address (no telephone or fax in this file).
	Location Address
}

// The header is that of the June 2025 V2 release (19 columns). The Readme's layout table names
// the last column "Affiliation Address Line Postal Code"; the file says "Affiliation Address
// Postal Code". Both are read.
var (
	epSchema          = source.NewSchema("NPPES endpoint_pfile").Placeholders(Unavailable)
	epNPI             = epSchema.Required("NPI")
	epType            = epSchema.Required("Endpoint Type")
	epTypeDesc        = epSchema.Required("Endpoint Type Description")
	epAddress         = epSchema.Required("Endpoint")
	epAffiliation     = epSchema.Required("Affiliation")
	epDescription     = epSchema.Required("Endpoint Description")
	epAffiliationName = epSchema.Required("Affiliation Legal Business Name")
	epUseCode         = epSchema.Required("Use Code")
	epUseDesc         = epSchema.Required("Use Description")
	epOtherUse        = epSchema.Required("Other Use Description")
	epContentType     = epSchema.Required("Content Type")
	epContentDesc     = epSchema.Required("Content Description")
	epOtherContent    = epSchema.Required("Other Content Description")
	epCols            = addressCols{
		line1:   epSchema.Required("Affiliation Address Line One"),
		line2:   epSchema.Required("Affiliation Address Line Two"),
		city:    epSchema.Required("Affiliation Address City"),
		state:   epSchema.Required("Affiliation Address State"),
		country: epSchema.Required("Affiliation Address Country"),
		postal:  epSchema.Required("Affiliation Address Postal Code", "Affiliation Address Line Postal Code"),
		phone:   source.NoCol,
		fax:     source.NoCol,
	}
)

// decodeEndpoint reads one row. A row without an endpoint or a type says nothing and is
// rejected; the other columns are optional.
func decodeEndpoint(r *source.Row) (Endpoint, bool) {
	return Endpoint{
		NPI:                     r.NPI(epNPI),
		Type:                    r.Required(epType),
		TypeDescription:         r.Str(epTypeDesc),
		Address:                 r.Required(epAddress),
		Description:             r.Str(epDescription),
		Affiliated:              r.Flag(epAffiliation),
		AffiliationName:         r.Str(epAffiliationName),
		UseCode:                 r.Str(epUseCode),
		UseDescription:          r.Str(epUseDesc),
		OtherUseDescription:     r.Str(epOtherUse),
		ContentType:             r.Str(epContentType),
		ContentDescription:      r.Str(epContentDesc),
		OtherContentDescription: r.Str(epOtherContent),
		Location:                epCols.read(r),
	}, true
}

// OpenEndpoints opens an endpoint_pfile.
func OpenEndpoints(path string, opts ...source.Option) (*source.Reader[Endpoint], error) {
	return source.Open(path, epSchema, decodeEndpoint, opts...)
}

// NewEndpointReader reads an endpoint_pfile from r, named name in reports.
func NewEndpointReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Endpoint], error) {
	return source.NewReader(r, name, epSchema, decodeEndpoint, opts...)
}
