package stored

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

// AffiliatedYes is the Affiliated value of an endpoint its NPI says belongs to another
// organization ("no" and "" are the others).
const AffiliatedYes = "yes"

// AffiliatedElsewhere reports whether the record says the endpoint belongs to another
// organization than the NPI's own.
func (r *EndpointRecord) AffiliatedElsewhere() bool { return r.Affiliated == AffiliatedYes }

// KeyAffiliationName is the LegalNameKey of the Affiliation Legal Business Name of an endpoint
// affiliated elsewhere: the endpoints a change of an organization's legal name concerns.
const KeyAffiliationName = "affiliation_name"
