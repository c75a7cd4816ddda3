// Package nppes reads the NPPES (National Plan and Provider Enumeration System) full
// dissemination files that CMS publishes monthly as NPPES_Data_Dissemination_<Month>_<Year>.zip:
//
//   - npidata_pfile_<from>-<to>.csv: one row per NPI, 330 columns (layout of the "NPPES Data
//     Dissemination Readme" and its June 2025 V2 header, which says "Provider Sex Code" where
//     older files say "Provider Gender Code"; both are read). Read with Open.
//   - pl_pfile_<from>-<to>.csv: secondary practice locations, one row per location (note its
//     header's "Address-  Address Line 2" with two spaces). Read with OpenLocations.
//   - othername_pfile_<from>-<to>.csv: other organization names. Read with OpenOtherNames.
//   - endpoint_pfile_<from>-<to>.csv: the Endpoint Reference File, one row per electronic
//     endpoint (Direct address, FHIR or other URL) of an NPI, 19 columns. Read with
//     OpenEndpoints.
//
// Values are double-quoted, dates MM/DD/YYYY, and some releases are ISO-8859-1; package source
// handles all three. Rows whose NPI fails its check digit, whose dates are impossible, whose
// entity type is not 1 or 2, or whose taxonomy codes are malformed are rejected and reported.
// A deactivated NPI is published with little more than its NPI and deactivation date, so a blank
// entity type is accepted on a row that carries a deactivation date.
package nppes

import (
	"io"
	"strconv"

	"providerdir/source"
)

// EntityType is NPPES's Entity Type Code.
type EntityType uint8

// Entity types. EntityUnknown appears only on deactivated NPIs, which NPPES publishes blank.
const (
	EntityUnknown      EntityType = 0
	EntityIndividual   EntityType = 1
	EntityOrganization EntityType = 2
)

func (e EntityType) String() string {
	switch e {
	case EntityIndividual:
		return "individual"
	case EntityOrganization:
		return "organization"
	}
	return "unknown"
}

// Name is a person's name as NPPES records it.
type Name struct {
	Prefix, First, Middle, Last, Suffix, Credential string
}

// Address is a mailing or practice location address. State is published as entered: a USPS
// code for US addresses, free text or blank for foreign ones, so it is not validated here.
type Address struct {
	Line1, Line2, City, State, PostalCode, Country, Phone, Fax string
}

// Taxonomy is one of the 15 taxonomy slots of an NPI.
type Taxonomy struct {
	Code         string // NUCC code, e.g. "207RC0000X"
	License      string // license number
	LicenseState string // state that issued the license
	Primary      bool   // the primary taxonomy switch is "Y"
	Group        string // "Healthcare Provider Taxonomy Group", e.g. "193200000X SINGLE SPECIALTY GROUP"
}

// OtherIdentifier is one of the 50 legacy identifier slots (Medicaid numbers and the like).
type OtherIdentifier struct {
	ID, TypeCode, State, Issuer string
}

// Official is the authorized official of an organization NPI.
type Official struct {
	Name
	Title, Phone string
}

// MaxTaxonomies is the number of taxonomy slots in npidata_pfile.
const MaxTaxonomies = 15

// Provider is one row of npidata_pfile. Absent dates are zero source.Dates.
type Provider struct {
	NPI                string
	EntityType         EntityType
	ReplacementNPI     string
	EIN                string
	OrgName            string // legal business name of an organization
	Name               Name   // legal name of an individual
	OtherOrgName       string
	OtherOrgNameType   string
	OtherName          Name
	OtherNameType      string
	Sex                string // Provider Sex Code (Provider Gender Code in older files), as published
	Mailing            Address
	Practice           Address
	EnumerationDate    source.Date
	LastUpdate         source.Date
	CertificationDate  source.Date
	DeactivationReason string
	DeactivationDate   source.Date
	ReactivationDate   source.Date
	Official           Official
	Taxonomies         [MaxTaxonomies]Taxonomy // slots as published; unused slots are empty
	OtherIdentifiers   []OtherIdentifier       // the non-empty slots only
	SoleProprietor     source.YesNo
	OrgSubpart         source.YesNo
	ParentOrgLBN       string
	ParentOrgTIN       string
}

// Deactivated reports whether the NPI is deactivated and not since reactivated.
func (p *Provider) Deactivated() bool {
	return !p.DeactivationDate.IsZero() && (p.ReactivationDate.IsZero() || p.ReactivationDate.Before(p.DeactivationDate))
}

// PrimaryTaxonomy returns the slot marked primary; failing that, the first filled slot.
func (p *Provider) PrimaryTaxonomy() (Taxonomy, bool) {
	first := -1
	for i, t := range p.Taxonomies {
		if t.Code == "" {
			continue
		}
		if t.Primary {
			return t, true
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return Taxonomy{}, false
	}
	return p.Taxonomies[first], true
}

type addressCols struct {
	line1, line2, city, state, postal, country, phone, fax source.Col
}

func (a addressCols) read(r *source.Row) Address {
	return Address{
		Line1: r.Str(a.line1), Line2: r.Str(a.line2), City: r.Str(a.city), State: r.Str(a.state),
		PostalCode: r.Str(a.postal), Country: r.Str(a.country), Phone: r.Str(a.phone), Fax: r.Str(a.fax),
	}
}

func addressColumns(s *source.Schema, kind string) addressCols {
	p := "Provider Business " + kind + " Address "
	return addressCols{
		line1:   s.Required("Provider First Line Business " + kind + " Address"),
		line2:   s.Required("Provider Second Line Business " + kind + " Address"),
		city:    s.Required(p + "City Name"),
		state:   s.Required(p + "State Name"),
		postal:  s.Required(p + "Postal Code"),
		country: s.Required(p + "Country Code (If outside U.S.)"),
		phone:   s.Required(p + "Telephone Number"),
		fax:     s.Required(p + "Fax Number"),
	}
}

type nameCols struct{ prefix, first, middle, last, suffix, credential source.Col }

func (n nameCols) read(r *source.Row) Name {
	return Name{Prefix: r.Str(n.prefix), First: r.Str(n.first), Middle: r.Str(n.middle),
		Last: r.Str(n.last), Suffix: r.Str(n.suffix), Credential: r.Str(n.credential)}
}

// Unavailable is what NPPES writes in a field whose value it does not publish (an EIN, another
// organization name): read as no value.
const Unavailable = "<UNAVAIL>"

var (
	schema         = source.NewSchema("NPPES npidata_pfile").Placeholders(Unavailable)
	colNPI         = schema.Required("NPI")
	colEntity      = schema.Required("Entity Type Code")
	colReplacement = schema.Required("Replacement NPI")
	colEIN         = schema.Required("Employer Identification Number (EIN)")
	colOrgName     = schema.Required("Provider Organization Name (Legal Business Name)")
	colName        = nameCols{
		prefix:     schema.Required("Provider Name Prefix Text"),
		first:      schema.Required("Provider First Name"),
		middle:     schema.Required("Provider Middle Name"),
		last:       schema.Required("Provider Last Name (Legal Name)"),
		suffix:     schema.Required("Provider Name Suffix Text"),
		credential: schema.Required("Provider Credential Text"),
	}
	colOtherOrg     = schema.Required("Provider Other Organization Name")
	colOtherOrgType = schema.Required("Provider Other Organization Name Type Code")
	colOtherName    = nameCols{
		prefix:     schema.Required("Provider Other Name Prefix Text"),
		first:      schema.Required("Provider Other First Name"),
		middle:     schema.Required("Provider Other Middle Name"),
		last:       schema.Required("Provider Other Last Name"),
		suffix:     schema.Required("Provider Other Name Suffix Text"),
		credential: schema.Required("Provider Other Credential Text"),
	}
	colOtherNameType = schema.Required("Provider Other Last Name Type Code")
	colMailing       = addressColumns(schema, "Mailing")
	colPractice      = addressColumns(schema, "Practice Location")
	colEnumerated    = schema.Required("Provider Enumeration Date")
	colLastUpdate    = schema.Required("Last Update Date")
	colDeactReason   = schema.Required("NPI Deactivation Reason Code")
	colDeactivated   = schema.Required("NPI Deactivation Date")
	colReactivated   = schema.Required("NPI Reactivation Date")
	colSex           = schema.Required("Provider Sex Code", "Provider Gender Code")
	colOfficial      = nameCols{
		prefix:     schema.Optional("Authorized Official Name Prefix Text"),
		first:      schema.Required("Authorized Official First Name"),
		middle:     schema.Required("Authorized Official Middle Name"),
		last:       schema.Required("Authorized Official Last Name"),
		suffix:     schema.Optional("Authorized Official Name Suffix Text"),
		credential: schema.Optional("Authorized Official Credential Text"),
	}
	colOfficialTitle = schema.Required("Authorized Official Title or Position")
	colOfficialPhone = schema.Required("Authorized Official Telephone Number")
	colSoleProp      = schema.Required("Is Sole Proprietor")
	colSubpart       = schema.Required("Is Organization Subpart")
	colParentLBN     = schema.Required("Parent Organization LBN")
	colParentTIN     = schema.Required("Parent Organization TIN")
	colCertified     = schema.Optional("Certification Date")
	colTaxonomy      [MaxTaxonomies]struct{ code, license, state, primary, group source.Col }
	colOtherID       [50]struct{ id, typ, state, issuer source.Col }
)

func init() {
	for i := range colTaxonomy {
		n := strconv.Itoa(i + 1)
		t := &colTaxonomy[i]
		t.code = schema.Required("Healthcare Provider Taxonomy Code_" + n)
		t.license = schema.Required("Provider License Number_" + n)
		t.state = schema.Required("Provider License Number State Code_" + n)
		t.primary = schema.Required("Healthcare Provider Primary Taxonomy Switch_" + n)
		t.group = schema.Optional("Healthcare Provider Taxonomy Group_" + n)
	}
	for i := range colOtherID {
		n := strconv.Itoa(i + 1)
		o := &colOtherID[i]
		o.id = schema.Optional("Other Provider Identifier_" + n)
		o.typ = schema.Optional("Other Provider Identifier Type Code_" + n)
		o.state = schema.Optional("Other Provider Identifier State_" + n)
		o.issuer = schema.Optional("Other Provider Identifier Issuer_" + n)
	}
}

func decodeProvider(r *source.Row) (Provider, bool) {
	p := Provider{
		NPI:                r.NPI(colNPI),
		ReplacementNPI:     r.OptionalNPI(colReplacement),
		EIN:                r.Str(colEIN),
		OrgName:            r.Str(colOrgName),
		Name:               colName.read(r),
		OtherOrgName:       r.Str(colOtherOrg),
		OtherOrgNameType:   r.Str(colOtherOrgType),
		OtherName:          colOtherName.read(r),
		OtherNameType:      r.Str(colOtherNameType),
		Sex:                r.Str(colSex),
		Mailing:            colMailing.read(r),
		Practice:           colPractice.read(r),
		EnumerationDate:    r.Date(colEnumerated),
		LastUpdate:         r.Date(colLastUpdate),
		CertificationDate:  r.Date(colCertified),
		DeactivationReason: r.Str(colDeactReason),
		DeactivationDate:   r.Date(colDeactivated),
		ReactivationDate:   r.Date(colReactivated),
		Official:           Official{Name: colOfficial.read(r), Title: r.Str(colOfficialTitle), Phone: r.Str(colOfficialPhone)},
		SoleProprietor:     r.Flag(colSoleProp),
		OrgSubpart:         r.Flag(colSubpart),
		ParentOrgLBN:       r.Str(colParentLBN),
		ParentOrgTIN:       r.Str(colParentTIN),
	}
	if p.OtherOrgName == "" {
		p.OtherOrgNameType = "" // the type of a name that is not published describes nothing
	}

	switch v := r.Str(colEntity); v {
	case "1":
		p.EntityType = EntityIndividual
	case "2":
		p.EntityType = EntityOrganization
	case "":
		if p.DeactivationDate.IsZero() {
			r.Fail(colEntity, "missing value", "")
		}
	default:
		r.Fail(colEntity, "entity type not 1 or 2", v)
	}
	for i, c := range colTaxonomy {
		t := &p.Taxonomies[i]
		t.Code = r.Taxonomy(c.code)
		t.License = r.Str(c.license)
		t.LicenseState = r.Str(c.state)
		t.Primary = r.Flag(c.primary) == source.Yes
		t.Group = r.Str(c.group)
	}
	for _, c := range colOtherID {
		if id := r.Str(c.id); id != "" {
			p.OtherIdentifiers = append(p.OtherIdentifiers, OtherIdentifier{
				ID: id, TypeCode: r.Str(c.typ), State: r.Str(c.state), Issuer: r.Str(c.issuer)})
		}
	}
	return p, true
}

// HeaderFile is the path, in a reference set (see source/reference), of the header line of the
// release the readers are written to.
const HeaderFile = "nppes/npidata_pfile_header.csv"

// Open opens an npidata_pfile.
func Open(path string, opts ...source.Option) (*source.Reader[Provider], error) {
	return source.Open(path, schema, decodeProvider, opts...)
}

// NewReader reads an npidata_pfile from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Provider], error) {
	return source.NewReader(r, name, schema, decodeProvider, opts...)
}
