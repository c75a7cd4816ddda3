package stored

import (
	"strings"
	"unicode"
)

// RegistryRecord is an NPPES registry entry as stored and served: the published fields in a
// stable JSON shape, blank fields omitted rather than invented.
type RegistryRecord struct {
	NPI                 string             `json:"npi"`
	EntityType          string             `json:"entity_type"` // EntityIndividual, EntityOrganization, EntityUnknown
	ReplacementNPI      string             `json:"replacement_npi,omitempty"`
	OrganizationName    string             `json:"organization_name,omitempty"`
	Name                *PersonName        `json:"name,omitempty"`
	OtherName           string             `json:"other_name,omitempty"`
	Sex                 string             `json:"sex,omitempty"`
	Taxonomies          []RegistryTaxonomy `json:"taxonomies"`
	PrimaryTaxonomy     string             `json:"primary_taxonomy,omitempty"`
	PracticeAddress     Address            `json:"practice_address"`
	MailingAddress      Address            `json:"mailing_address"`
	EnumerationDate     string             `json:"enumeration_date,omitempty"`
	LastUpdated         string             `json:"last_updated,omitempty"`
	CertificationDate   string             `json:"certification_date,omitempty"`
	DeactivationReason  string             `json:"deactivation_reason,omitempty"`
	DeactivationDate    string             `json:"deactivation_date,omitempty"`
	ReactivationDate    string             `json:"reactivation_date,omitempty"`
	Active              bool               `json:"active"`
	OrganizationSubpart bool               `json:"organization_subpart,omitempty"`
	ParentOrganization  string             `json:"parent_organization_name,omitempty"`
	AuthorizedOfficial  *Official          `json:"authorized_official,omitempty"`
}

// Entity types of a registry record.
const (
	EntityIndividual   = "individual"
	EntityOrganization = "organization"
	EntityUnknown      = "unknown"
)

// PersonName is an individual's legal name.
type PersonName struct {
	Prefix     string `json:"prefix,omitempty"`
	First      string `json:"first,omitempty"`
	Middle     string `json:"middle,omitempty"`
	Last       string `json:"last,omitempty"`
	Suffix     string `json:"suffix,omitempty"`
	Credential string `json:"credential,omitempty"`
}

// Address is a postal address with its telephone and fax numbers.
type Address struct {
	Line1      string `json:"line1,omitempty"`
	Line2      string `json:"line2,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	PostalCode string `json:"postal_code,omitempty"`
	Country    string `json:"country,omitempty"`
	Phone      string `json:"phone,omitempty"`
	Fax        string `json:"fax,omitempty"`
}

// RegistryTaxonomy is one filled taxonomy slot.
type RegistryTaxonomy struct {
	Code         string `json:"code"`
	License      string `json:"license,omitempty"`
	LicenseState string `json:"license_state,omitempty"`
	Primary      bool   `json:"primary"`
}

// Official is an organization's authorized official.
type Official struct {
	Name  PersonName `json:"name"`
	Title string     `json:"title,omitempty"`
	Phone string     `json:"phone,omitempty"`
}

// Search-key params of registry documents. Every key costs a national ingest an index entry per
// record, so registry records carry only the keys something reads: entity and status (the
// sandbox subset); state, postal code, family and given names and the matching keys (Open
// Payments recipients); taxonomy (the supply studies); the name words and state for provider
// search. Not the NPI, which is their id. Secondary locations and other names carry only their
// NPI.
const (
	KeyNPI      = "npi"
	KeyEntity   = "entity"
	KeyActive   = "active"
	KeyState    = "state"
	KeyPostal   = "postal"
	KeyTaxonomy = "taxonomy"
	KeyFamily   = "family"
	KeyGiven    = "given"
	// KeyMatchState and KeyMatchZip are the recipient-matching keys of an active individual
	// (see MatchKey): one per family and given value, in the practice state, and at its ZIP.
	KeyMatchState = "match_state"
	KeyMatchZip   = "match_zip"
	// KeyLegalName is the LegalNameKey of an organization that is not a subpart: the names a
	// subpart's Parent Organization LBN is looked up among.
	KeyLegalName = "legal_name"
	// KeyParentName is the LegalNameKey of a subpart's Parent Organization LBN: the subparts a
	// change of an organization's legal name concerns.
	KeyParentName = "parent_name"
)

// LegalNameKey is a legal business name as the parent lookup compares it: letters and digits,
// upper case, each run of anything else one space ("Acme Health, Inc." and "ACME HEALTH INC"
// are one name).
func LegalNameKey(name string) string {
	return strings.Join(strings.FieldsFunc(strings.ToUpper(name), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// MatchKey is the value of a recipient-matching key: family and given name values (as the
// family and given keys hold them), state, and, for KeyMatchZip, the 5-digit ZIP. An active
// individual carries one per combination of its values, so that "the active individuals with
// this family name, this given name, in this state (at this ZIP)" is one posting list instead of
// the intersection of five large ones. Normalized text has no "|"; a state or ZIP published with
// one gets no matching key (and is matched the long way).
func MatchKey(family, given, state string, zip ...string) string {
	return strings.Join(append([]string{family, given, state}, zip...), "|")
}

// OtherNameRecord is one othername_pfile row.
type OtherNameRecord struct {
	NPI      string `json:"npi"`
	Name     string `json:"name"`
	TypeCode string `json:"type_code,omitempty"`
}

// NameWordRecord is a word of the name lexicon (catalog.RegistryNameWords): a folded token some
// registry record's name holds, long enough to tolerate a typo (match.InLexicon).
type NameWordRecord struct {
	Word string `json:"word"`
}
