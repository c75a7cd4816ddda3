package mapping

import (
	"strconv"

	"providerdir/source/qpp"
	"providerdir/stored"
)

// MIPSScore maps one scores row of a performance year (0 when unknown) to its document id,
// record and keys. The file has no row id: a clinician has one row per practice and source, so
// those, with the year, identify it.
func MIPSScore(s *qpp.Score, year int) (string, stored.MIPSScoreRecord, stored.Keys) {
	rec := stored.MIPSScoreRecord{
		NPI: s.NPI, PerformanceYear: year, OrgPACID: s.OrgPACID, Source: s.Source, LastName: s.LastName,
		FirstName: s.FirstName, FacilityCCN: s.FacilityCCN, FacilityName: s.FacilityName,
		Quality: s.Quality, PI: s.PI, IA: s.IA, Cost: s.Cost, FinalWithoutCPB: s.FinalWithoutCPB, Final: s.Final,
	}
	py := ""
	if year > 0 {
		py = strconv.Itoa(year)
	}
	var k stored.Keys
	k.Add(stored.KeyNPI, s.NPI)
	k.Add(stored.KeyPerformanceYear, py)
	return digest(s.NPI, py, s.OrgPACID, s.Source, s.FacilityCCN), rec, k
}
