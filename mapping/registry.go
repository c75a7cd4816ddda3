package mapping

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"providerdir/match"
	"providerdir/source"
	"providerdir/source/nppes"
)

// RegistryRecord is an NPPES registry entry as stored and served: the published fields in a
// stable JSON shape, blank fields omitted rather than invented.
type RegistryRecord struct {
	NPI                 string             `json:"npi"`
	EntityType          string             `json:"entity_type"` // individual, organization, unknown
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
)

// MatchKey is the value of a recipient-matching key: family and given name values (as the
// family and given keys hold them), state, and, for KeyMatchZip, the 5-digit ZIP. An active
// individual carries one per combination of its values, so that "the active individuals with
// this family name, this given name, in this state (at this ZIP)" is one posting list instead of
// the intersection of five large ones. Normalized text has no "|"; a state or ZIP published with
// one gets no matching key (and is matched the long way).
func MatchKey(family, given, state string, zip ...string) string {
	return strings.Join(append([]string{family, given, state}, zip...), "|")
}

// Registry maps one npidata_pfile row to its record and search keys.
func Registry(p *nppes.Provider) (RegistryRecord, Keys) {
	rec := RegistryRecord{
		NPI:                 p.NPI,
		EntityType:          p.EntityType.String(),
		ReplacementNPI:      p.ReplacementNPI,
		OrganizationName:    p.OrgName,
		OtherName:           p.OtherOrgName,
		Sex:                 p.Sex,
		PracticeAddress:     address(p.Practice),
		MailingAddress:      address(p.Mailing),
		EnumerationDate:     p.EnumerationDate.String(),
		LastUpdated:         p.LastUpdate.String(),
		CertificationDate:   p.CertificationDate.String(),
		DeactivationReason:  p.DeactivationReason,
		DeactivationDate:    p.DeactivationDate.String(),
		ReactivationDate:    p.ReactivationDate.String(),
		Active:              !p.Deactivated(),
		OrganizationSubpart: p.OrgSubpart == source.Yes,
		ParentOrganization:  p.ParentOrgLBN,
		Taxonomies:          []RegistryTaxonomy{},
	}
	if p.EntityType == nppes.EntityIndividual {
		n := personName(p.Name)
		rec.Name = &n
	}
	if p.Official.Last != "" || p.Official.First != "" {
		rec.AuthorizedOfficial = &Official{Name: personName(p.Official.Name), Title: p.Official.Title, Phone: p.Official.Phone}
	}
	// No npi key: the document's id is the NPI, and a lookup by NPI is a read by id.
	var k Keys
	k.Add(KeyEntity, rec.EntityType)
	k.Add(KeyActive, boolKey(rec.Active))
	k.Add(KeyState, p.Practice.State)
	k.Add(KeyPostal, postalKeys(p.Practice.PostalCode)...)
	for _, t := range p.Taxonomies {
		if t.Code == "" {
			continue
		}
		rec.Taxonomies = append(rec.Taxonomies, RegistryTaxonomy{Code: t.Code, License: t.License, LicenseState: t.LicenseState, Primary: t.Primary})
		k.Add(KeyTaxonomy, t.Code)
	}
	if t, ok := p.PrimaryTaxonomy(); ok {
		rec.PrimaryTaxonomy = t.Code
	}
	// Names are searched through the resolver's tokens (addSearch) and matched through the
	// family, given and match keys; no query reads a whole-name key of a registry record.
	if rec.Name != nil {
		k.AddText(KeyFamily, rec.Name.Last)
		k.AddText(KeyGiven, rec.Name.First)
		k.AddText(KeyGiven, rec.Name.Middle)
	}
	k.addSearch(rec)
	if state := p.Practice.State; rec.Name != nil && rec.Active && state != "" && !strings.Contains(state, "|") {
		zip := postalKeys(p.Practice.PostalCode)[0]
		if strings.Contains(zip, "|") {
			zip = ""
		}
		for _, f := range k {
			if f.Param != KeyFamily {
				continue
			}
			for _, g := range k {
				if g.Param != KeyGiven {
					continue
				}
				k.Add(KeyMatchState, MatchKey(f.Value, g.Value, state))
				if zip != "" {
					k.Add(KeyMatchZip, MatchKey(f.Value, g.Value, state, zip))
				}
			}
		}
	}
	return rec, k
}

// RegistryLocation maps one pl_pfile row (a secondary practice location) to its document id,
// record and keys. The id is the NPI and a digest of the address, stable across snapshots so a
// location that did not move is not reported as changed.
func RegistryLocation(l *nppes.Location) (string, Address, Keys) {
	a := address(l.Address)
	if l.Extension != "" {
		a.Phone += " x" + l.Extension
	}
	var k Keys
	k.Add(KeyNPI, l.NPI)
	return l.NPI + "." + digest(a.Line1, a.Line2, a.City, a.State, a.PostalCode, a.Country), a, k
}

// OtherNameRecord is one othername_pfile row.
type OtherNameRecord struct {
	NPI      string `json:"npi"`
	Name     string `json:"name"`
	TypeCode string `json:"type_code,omitempty"`
}

// RegistryOtherName maps one othername_pfile row to its document id, record and keys.
func RegistryOtherName(o *nppes.OtherName) (string, OtherNameRecord, Keys) {
	var k Keys
	k.Add(KeyNPI, o.NPI)
	return o.NPI + "." + digest(o.Name, o.TypeCode), OtherNameRecord{NPI: o.NPI, Name: o.Name, TypeCode: o.TypeCode}, k
}

func address(a nppes.Address) Address {
	return Address{Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, PostalCode: a.PostalCode,
		Country: a.Country, Phone: a.Phone, Fax: a.Fax}
}

func personName(n nppes.Name) PersonName {
	return PersonName{Prefix: n.Prefix, First: n.First, Middle: n.Middle, Last: n.Last, Suffix: n.Suffix, Credential: n.Credential}
}

// postalKeys indexes a ZIP code by its 5-digit form and, for ZIP+4, the full 9 digits, so a
// search by either finds it.
func postalKeys(zip string) []string {
	if len(zip) > 5 {
		return []string{zip[:5], zip}
	}
	return []string{zip}
}

func boolKey(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// digest is a short stable id part derived from field values.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// addSearch adds the provider-search keys of package match: the folded tokens of the person's
// name or the organization's names, the same tokens qualified by the practice state, and the
// tokens paired with the initials of the name's other words. Typos
// are found through the name lexicon (NameWord), which ingest writes once per distinct token.
func (k *Keys) addSearch(rec RegistryRecord) {
	var toks, pairs []string
	if rec.Name != nil {
		toks = match.RecordTokens(rec.Name.First, rec.Name.Middle, rec.Name.Last)
		pairs = match.PersonInitialPairs(rec.Name.First, rec.Name.Middle, rec.Name.Last)
	} else {
		toks = match.RecordTokens(rec.OrganizationName, rec.OtherName)
		pairs = match.OrgInitialPairs(rec.OrganizationName, rec.OtherName)
	}
	*k = slices.Grow(*k, 2*len(toks)+len(pairs))
	k.Add(match.ParamToken, toks...)
	k.Add(match.ParamStateToken, match.InState(rec.PracticeAddress.State, toks)...)
	k.Add(match.ParamTokenInitial, pairs...)
}

// NameWordRecord is a word of the name lexicon (catalog.RegistryNameWords): a folded token some
// registry record's name holds, long enough to tolerate a typo (match.InLexicon).
type NameWordRecord struct {
	Word string `json:"word"`
}

// NameWord returns the lexicon record and keys of a record token, whose document id is the
// word itself: the keys are its single-character deletions, by which a query within one edit
// of it finds it.
func NameWord(word string) (NameWordRecord, Keys) {
	var keys Keys
	keys.Add(match.ParamDeletion, match.Deletions(word)...)
	return NameWordRecord{Word: word}, keys
}
