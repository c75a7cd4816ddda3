package stored

// ExclusionRecord is one row of the OIG exclusion list as stored and served. The date of birth
// the list publishes is left out: the directory matches exclusions by NPI and name, and has no
// use for it.
type ExclusionRecord struct {
	NPI               string      `json:"npi,omitempty"`
	Name              *PersonName `json:"name,omitempty"`
	BusinessName      string      `json:"business_name,omitempty"`
	General           string      `json:"general,omitempty"`
	Specialty         string      `json:"specialty,omitempty"`
	UPIN              string      `json:"upin,omitempty"`
	Address           Address     `json:"address"`
	ExclusionType     string      `json:"exclusion_type"`
	ExclusionDate     string      `json:"exclusion_date,omitempty"`
	ReinstatementDate string      `json:"reinstatement_date,omitempty"`
	WaiverDate        string      `json:"waiver_date,omitempty"`
	WaiverState       string      `json:"waiver_state,omitempty"`
}

// SAMExclusionRecord is one record of the SAM.gov exclusions extract as stored and served.
type SAMExclusionRecord struct {
	NPI            string      `json:"npi,omitempty"`
	Classification string      `json:"classification"`
	Name           *PersonName `json:"name,omitempty"`
	EntityName     string      `json:"entity_name,omitempty"`
	Address        Address     `json:"address"`
	UEI            string      `json:"unique_entity_id,omitempty"`
	DUNS           string      `json:"duns,omitempty"`
	CAGE           string      `json:"cage,omitempty"`
	SAMNumber      string      `json:"sam_number,omitempty"`
	Program        string      `json:"exclusion_program,omitempty"`
	Agency         string      `json:"excluding_agency,omitempty"`
	CTCode         string      `json:"ct_code,omitempty"`
	ExclusionType  string      `json:"exclusion_type"`
	ActiveDate     string      `json:"active_date"`
	// TerminationDate is a date, the literal "indefinite" when the exclusion has no end, or
	// absent when the extract gives neither.
	TerminationDate string `json:"termination_date,omitempty"`
	CrossReference  string `json:"cross_reference,omitempty"`
	Comments        string `json:"additional_comments,omitempty"`
}

// SAMIndefinite is the termination date of an exclusion without an end.
const SAMIndefinite = "indefinite"
