package fhirmap

// Resource types the directory serves, and the collections their documents live in.
const (
	TypePractitioner      = "Practitioner"
	TypePractitionerRole  = "PractitionerRole"
	TypeOrganization      = "Organization"
	TypeLocation          = "Location"
	TypeHealthcareService = "HealthcareService"
	TypeEndpoint          = "Endpoint"
)

// Types lists the served resource types in CapabilityStatement order.
var Types = []string{TypePractitioner, TypePractitionerRole, TypeOrganization, TypeLocation, TypeHealthcareService, TypeEndpoint}

// Profiles claimed in meta.profile, one per type: the US Core 6.1.0 profiles for the four types
// US Core defines, Plan-Net 1.2.0 for HealthcareService and Endpoint, which US Core does not
// profile.
var Profiles = map[string]string{
	TypePractitioner:      "http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner",
	TypePractitionerRole:  "http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitionerrole",
	TypeOrganization:      "http://hl7.org/fhir/us/core/StructureDefinition/us-core-organization",
	TypeLocation:          "http://hl7.org/fhir/us/core/StructureDefinition/us-core-location",
	TypeHealthcareService: "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/plannet-HealthcareService",
	TypeEndpoint:          "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/plannet-Endpoint",
}

// Identifier and code systems, as the specifications name them.
const (
	// SystemNPI is the US Core NPI identifier system.
	SystemNPI = "http://hl7.org/fhir/sid/us-npi"
	// SystemCCN is HL7 Terminology's NamingSystem for CMS Certification Numbers.
	SystemCCN = "http://terminology.hl7.org/NamingSystem/CCN"
	// SystemNUCC is the NUCC Health Care Provider Taxonomy, which US Core binds
	// PractitionerRole.code and .specialty to.
	SystemNUCC = "http://nucc.org/provider-taxonomy"
	// SystemIdentifierType is HL7 v2 table 0203, identifier types.
	SystemIdentifierType = "http://terminology.hl7.org/CodeSystem/v2-0203"
	// SystemOrganizationType is the FHIR organization-type code system.
	SystemOrganizationType = "http://terminology.hl7.org/CodeSystem/organization-type"
	// SystemServiceCategory is Plan-Net's HealthcareService category code system.
	SystemServiceCategory = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/HealthcareServiceCategoryCS"
	// SystemContactEntityType is the purpose of an organization contact.
	SystemContactEntityType = "http://terminology.hl7.org/CodeSystem/contactentity-type"
	// SystemUSPS is the code system of USPS state abbreviations Plan-Net uses for whereValid.
	SystemUSPS = "https://www.usps.com/"
	// ExtQualification is Plan-Net's practitioner-qualification extension (status, whereValid).
	ExtQualification = "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/practitioner-qualification"
	// ExtDataAbsentReason marks an element whose value is absent, with the reason.
	ExtDataAbsentReason = "http://hl7.org/fhir/StructureDefinition/data-absent-reason"
)

// serviceCategories maps a Provider of Services category code (PRVDR_CTGRY_CD) to the Plan-Net
// service category of the facility's services. Categories without a closer Plan-Net code are
// "other"; the facility type itself is kept as text.
var serviceCategories = map[string]string{
	"01": "hosp",   // hospital
	"02": "other",  // skilled nursing facility / nursing facility (dually certified)
	"03": "other",  // skilled nursing facility / nursing facility (distinct part)
	"04": "other",  // skilled nursing facility
	"05": "home",   // home health agency
	"06": "behav",  // psychiatric residential treatment facility
	"07": "lab",    // portable x-ray supplier
	"08": "outpat", // outpatient physical therapy / speech pathology
	"09": "outpat", // end-stage renal disease facility
	"10": "other",  // nursing facility
	"11": "other",  // intermediate care facility for individuals with intellectual disabilities
	"12": "outpat", // rural health clinic
	"14": "outpat", // comprehensive outpatient rehabilitation facility
	"15": "outpat", // ambulatory surgical center
	"16": "home",   // hospice
	"19": "behav",  // community mental health center
	"21": "outpat", // federally qualified health center
}

// categoryDisplays are the Plan-Net displays of the service categories used.
var categoryDisplays = map[string]string{
	"behav":  "Behavioral Health",
	"group":  "Medical Group",
	"home":   "Home Health",
	"hosp":   "Hospital",
	"lab":    "Laboratory",
	"other":  "Other",
	"outpat": "Clinic or Outpatient Facility",
	"prov":   "Medical Provider",
}

// taxonomyCategory picks the Plan-Net category of an organization's services from the NUCC
// grouping of its primary taxonomy code: the code's first three characters name its group.
func taxonomyCategory(code string) string {
	if len(code) < 3 {
		return "prov"
	}
	switch code[:3] {
	case "282", "283", "284", "273", "275", "276", "281", "286", "287": // hospitals and hospital units
		return "hosp"
	case "251": // agencies: home health, hospice
		return "home"
	case "261": // ambulatory health care facilities (clinics, centers)
		return "outpat"
	case "193": // group practices
		return "group"
	case "101", "103", "104", "106": // behavioral health and social service providers
		return "behav"
	case "291", "292", "293": // laboratories
		return "lab"
	}
	return "prov"
}

func categoryConcept(code string) CodeableConcept {
	return CodeableConcept{Coding: []Coding{{System: SystemServiceCategory, Code: code, Display: categoryDisplays[code]}}}
}
