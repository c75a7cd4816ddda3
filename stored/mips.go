package stored

// MIPSScoreRecord is one clinician's MIPS final score of one performance year, as earned with
// one practice, as stored and served. A category the clinician was not scored in is null.
type MIPSScoreRecord struct {
	NPI string `json:"npi"`
	// PerformanceYear is the year the score measures; 0 (absent) when the file's name does not
	// say it.
	PerformanceYear int      `json:"performance_year,omitempty"`
	OrgPACID        string   `json:"org_pac_id,omitempty"`
	Source          string   `json:"source"`
	LastName        string   `json:"last_name,omitempty"`
	FirstName       string   `json:"first_name,omitempty"`
	FacilityCCN     string   `json:"facility_ccn,omitempty"`
	FacilityName    string   `json:"facility_name,omitempty"`
	Quality         *float64 `json:"quality_category_score"`
	PI              *float64 `json:"pi_category_score"`
	IA              *float64 `json:"ia_category_score"`
	Cost            *float64 `json:"cost_category_score"`
	FinalWithoutCPB *float64 `json:"final_score_without_cpb"`
	Final           float64  `json:"final_score"`
}

// KeyPerformanceYear is the search-key param of a MIPS score's performance year.
const KeyPerformanceYear = "performance_year"
