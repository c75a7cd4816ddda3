package mapping

import (
	"providerdir/source"
	"providerdir/source/nppes"
)

// EndpointRecord is one endpoint_pfile row as stored: an electronic endpoint of an NPI, blank
// fields omitted.
type EndpointRecord struct {
	NPI                     string  `json:"npi"`
	Type                    string  `json:"type"`
	TypeDescription         string  `json:"type_description,omitempty"`
	Address                 string  `json:"address"`
	Description             string  `json:"description,omitempty"`
	Affiliated              string  `json:"affiliated,omitempty"` // yes, no, or unanswered
	AffiliationName         string  `json:"affiliation_name,omitempty"`
	UseCode                 string  `json:"use_code,omitempty"`
	UseDescription          string  `json:"use_description,omitempty"`
	OtherUseDescription     string  `json:"other_use_description,omitempty"`
	ContentType             string  `json:"content_type,omitempty"`
	ContentDescription      string  `json:"content_description,omitempty"`
	OtherContentDescription string  `json:"other_content_description,omitempty"`
	Location                Address `json:"location"`
}

// RegistryEndpoint maps one endpoint_pfile row to its document id, record and keys. The id is
// the NPI and a digest of the endpoint's type, address and affiliation, so that the documents of an NPI
// sort together, after it, as the secondary locations do, and the same endpoint keeps its id
// from one release to the next.
func RegistryEndpoint(e *nppes.Endpoint) (string, EndpointRecord, Keys) {
	rec := EndpointRecord{NPI: e.NPI, Type: e.Type, TypeDescription: e.TypeDescription, Address: e.Address,
		Description: e.Description, Affiliated: e.Affiliated.String(), AffiliationName: e.AffiliationName,
		UseCode: e.UseCode, UseDescription: e.UseDescription, OtherUseDescription: e.OtherUseDescription,
		ContentType: e.ContentType, ContentDescription: e.ContentDescription, OtherContentDescription: e.OtherContentDescription,
		Location: address(e.Location)}
	var k Keys
	k.Add(KeyNPI, e.NPI)
	return e.NPI + "." + digest(e.Type, e.Address, e.AffiliationName), rec, k
}

// AffiliatedElsewhere reports whether the record says the endpoint belongs to another
// organization than the NPI's own.
func (r *EndpointRecord) AffiliatedElsewhere() bool { return r.Affiliated == source.Yes.String() }
