package mapping

import (
	"providerdir/source/census"
	"providerdir/stored"
)

// CensusState maps one state row of the population estimates to its record and keys; the id
// is the state's USPS code.
func CensusState(s *census.State) (stored.CensusStateRecord, stored.Keys) {
	var k stored.Keys
	k.Add(stored.KeyState, s.Code)
	k.Add(stored.KeyFIPS, s.FIPS)
	return stored.CensusStateRecord(*s), k
}

// CensusCounty maps one county row of the population estimates to its record and keys; the id
// is the county's FIPS code.
func CensusCounty(c *census.County) (stored.CensusCountyRecord, stored.Keys) {
	var k stored.Keys
	k.Add(stored.KeyState, c.StateCode)
	k.Add(stored.KeyFIPS, c.FIPS)
	k.AddText(stored.KeyName, c.Name)
	return stored.CensusCountyRecord(*c), k
}
