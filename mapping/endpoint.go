package mapping

import (
	"providerdir/source/nppes"
	"providerdir/stored"
)

// RegistryEndpoint maps one endpoint_pfile row to its document id, record and keys. The id is
// the NPI and a digest of the endpoint's type, address and affiliation, so that the documents of an NPI
// sort together, after it, as the secondary locations do, and the same endpoint keeps its id
// from one release to the next. An endpoint affiliated elsewhere is keyed by its affiliation's
// legal name (stored.KeyAffiliationName), which its managing organization is found by.
func RegistryEndpoint(e *nppes.Endpoint) (string, stored.EndpointRecord, stored.Keys) {
	rec := stored.EndpointRecord{NPI: e.NPI, Type: e.Type, TypeDescription: e.TypeDescription, Address: e.Address,
		Description: e.Description, Affiliated: e.Affiliated.String(), AffiliationName: e.AffiliationName,
		UseCode: e.UseCode, UseDescription: e.UseDescription, OtherUseDescription: e.OtherUseDescription,
		ContentType: e.ContentType, ContentDescription: e.ContentDescription, OtherContentDescription: e.OtherContentDescription,
		Location: address(e.Location)}
	var k stored.Keys
	k.Add(stored.KeyNPI, e.NPI)
	if n := stored.LegalNameKey(rec.AffiliationName); n != "" && rec.AffiliatedElsewhere() {
		k.Add(stored.KeyAffiliationName, n)
	}
	return e.NPI + "." + digest(e.Type, e.Address, e.AffiliationName), rec, k
}
