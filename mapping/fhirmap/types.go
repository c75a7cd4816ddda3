// Package fhirmap builds the FHIR R4 resources the directory serves (US Core 6.1.0 Practitioner,
// PractitionerRole, Organization and Location; Plan-Net HealthcareService and Endpoint) from the stored source
// records, with their search keys and provenance, as stored documents.
//
// Resources are plain Go structs marshalled as JSON at ingest (package mapping's codec).
// google/fhir/go's jsonformat converts through protocol buffers, too costly per resource for a
// national ingest of millions of resources; instead the package's tests and the fhir package's
// tests validate every resource the builders produce with google/fhir/go (parse plus base
// validation) and check the US Core mandatory elements and invariants on top. The stored bytes
// are served as they are: the FHIR surface composes Bundles from them without decoding.
//
// The package knows the shape of the stored source records (package mapping) and nothing of how
// they are looked up: the ingest projection gathers a provider's records and hands them in.
package fhirmap

// The R4 datatypes the builders use, with only the elements they fill. Every field is omitempty:
// FHIR JSON forbids empty strings, empty arrays and empty objects.

// Meta is Resource.meta.
type Meta struct {
	VersionID   string   `json:"versionId,omitempty"`
	LastUpdated string   `json:"lastUpdated,omitempty"`
	Source      string   `json:"source,omitempty"`
	Profile     []string `json:"profile,omitempty"`
	Tag         []Coding `json:"tag,omitempty"`
}

// Extension is a FHIR extension with the value types the builders use.
type Extension struct {
	URL                  string           `json:"url"`
	ValueCode            string           `json:"valueCode,omitempty"`
	ValueCodeableConcept *CodeableConcept `json:"valueCodeableConcept,omitempty"`
	ValueString          string           `json:"valueString,omitempty"`
	ValueURI             string           `json:"valueUri,omitempty"`
	ValueDecimal         *float64         `json:"valueDecimal,omitempty"`
	Extension            []Extension      `json:"extension,omitempty"`
}

// Coding is a code from a code system.
type Coding struct {
	Extension []Extension `json:"extension,omitempty"`
	System    string      `json:"system,omitempty"`
	Code      string      `json:"code,omitempty"`
	Display   string      `json:"display,omitempty"`
}

// CodeableConcept is a concept given by codings and/or text.
type CodeableConcept struct {
	Coding []Coding `json:"coding,omitempty"`
	Text   string   `json:"text,omitempty"`
}

// Identifier is a business identifier.
type Identifier struct {
	Use    string           `json:"use,omitempty"`
	Type   *CodeableConcept `json:"type,omitempty"`
	System string           `json:"system,omitempty"`
	Value  string           `json:"value,omitempty"`
}

// HumanName is a person's name.
type HumanName struct {
	Use    string   `json:"use,omitempty"`
	Text   string   `json:"text,omitempty"`
	Family string   `json:"family,omitempty"`
	Given  []string `json:"given,omitempty"`
	Prefix []string `json:"prefix,omitempty"`
	Suffix []string `json:"suffix,omitempty"`
}

// ContactPoint is a telephone number or fax.
type ContactPoint struct {
	System string `json:"system,omitempty"`
	Value  string `json:"value,omitempty"`
	Use    string `json:"use,omitempty"`
}

// Address is a postal address.
type Address struct {
	Use        string   `json:"use,omitempty"`
	Type       string   `json:"type,omitempty"`
	Text       string   `json:"text,omitempty"`
	Line       []string `json:"line,omitempty"`
	City       string   `json:"city,omitempty"`
	State      string   `json:"state,omitempty"`
	PostalCode string   `json:"postalCode,omitempty"`
	Country    string   `json:"country,omitempty"`
}

// Reference points at another resource of the directory, always relative ("Type/id").
type Reference struct {
	Extension []Extension `json:"extension,omitempty"`
	Reference string      `json:"reference,omitempty"`
	Display   string      `json:"display,omitempty"`
}

// Qualification is Practitioner.qualification.
type Qualification struct {
	Extension  []Extension     `json:"extension,omitempty"`
	Identifier []Identifier    `json:"identifier,omitempty"`
	Code       CodeableConcept `json:"code"`
	Issuer     *Reference      `json:"issuer,omitempty"`
}

// OrganizationContact is Organization.contact.
type OrganizationContact struct {
	Purpose *CodeableConcept `json:"purpose,omitempty"`
	Name    *HumanName       `json:"name,omitempty"`
	Telecom []ContactPoint   `json:"telecom,omitempty"`
}

// Practitioner is the US Core Practitioner resource.
type Practitioner struct {
	ResourceType  string          `json:"resourceType"`
	ID            string          `json:"id"`
	Meta          *Meta           `json:"meta,omitempty"`
	Identifier    []Identifier    `json:"identifier,omitempty"`
	Active        *bool           `json:"active,omitempty"`
	Name          []HumanName     `json:"name,omitempty"`
	Telecom       []ContactPoint  `json:"telecom,omitempty"`
	Address       []Address       `json:"address,omitempty"`
	Gender        string          `json:"gender,omitempty"`
	Qualification []Qualification `json:"qualification,omitempty"`
}

// Organization is the US Core Organization resource.
type Organization struct {
	ResourceType string                `json:"resourceType"`
	ID           string                `json:"id"`
	Meta         *Meta                 `json:"meta,omitempty"`
	Identifier   []Identifier          `json:"identifier,omitempty"`
	Active       *bool                 `json:"active,omitempty"`
	Type         []CodeableConcept     `json:"type,omitempty"`
	Name         string                `json:"name,omitempty"`
	Alias        []string              `json:"alias,omitempty"`
	Telecom      []ContactPoint        `json:"telecom,omitempty"`
	Address      []Address             `json:"address,omitempty"`
	PartOf       *Reference            `json:"partOf,omitempty"`
	Contact      []OrganizationContact `json:"contact,omitempty"`
	Endpoint     []Reference           `json:"endpoint,omitempty"`
}

// Location is the US Core Location resource.
type Location struct {
	ResourceType         string            `json:"resourceType"`
	ID                   string            `json:"id"`
	Meta                 *Meta             `json:"meta,omitempty"`
	Identifier           []Identifier      `json:"identifier,omitempty"`
	Status               string            `json:"status,omitempty"`
	Name                 string            `json:"name,omitempty"`
	Type                 []CodeableConcept `json:"type,omitempty"`
	Telecom              []ContactPoint    `json:"telecom,omitempty"`
	Address              *Address          `json:"address,omitempty"`
	Position             *Position         `json:"position,omitempty"`
	ManagingOrganization *Reference        `json:"managingOrganization,omitempty"`
	Endpoint             []Reference       `json:"endpoint,omitempty"`
}

// Position is a Location's position: decimal degrees (WGS84 in FHIR; the Census points are
// NAD83, the same to within a metre or two), with the extension saying where it comes from.
type Position struct {
	Extension []Extension `json:"extension,omitempty"`
	Longitude float64     `json:"longitude"`
	Latitude  float64     `json:"latitude"`
}

// PractitionerRole is the US Core PractitionerRole resource.
type PractitionerRole struct {
	ResourceType      string            `json:"resourceType"`
	ID                string            `json:"id"`
	Meta              *Meta             `json:"meta,omitempty"`
	Active            *bool             `json:"active,omitempty"`
	Practitioner      *Reference        `json:"practitioner,omitempty"`
	Organization      *Reference        `json:"organization,omitempty"`
	Code              []CodeableConcept `json:"code,omitempty"`
	Specialty         []CodeableConcept `json:"specialty,omitempty"`
	Location          []Reference       `json:"location,omitempty"`
	HealthcareService []Reference       `json:"healthcareService,omitempty"`
	Telecom           []ContactPoint    `json:"telecom,omitempty"`
	Endpoint          []Reference       `json:"endpoint,omitempty"`
}

// HealthcareService is the Plan-Net HealthcareService resource.
type HealthcareService struct {
	ResourceType string            `json:"resourceType"`
	ID           string            `json:"id"`
	Meta         *Meta             `json:"meta,omitempty"`
	Identifier   []Identifier      `json:"identifier,omitempty"`
	Active       *bool             `json:"active,omitempty"`
	ProvidedBy   *Reference        `json:"providedBy,omitempty"`
	Category     []CodeableConcept `json:"category,omitempty"`
	Type         []CodeableConcept `json:"type,omitempty"`
	Specialty    []CodeableConcept `json:"specialty,omitempty"`
	Location     []Reference       `json:"location,omitempty"`
	Name         string            `json:"name,omitempty"`
	Telecom      []ContactPoint    `json:"telecom,omitempty"`
	Endpoint     []Reference       `json:"endpoint,omitempty"`
}

func boolPtr(b bool) *bool { return &b }
