package fhirmap

import "strings"

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
// US Core defines, Plan-Net 1.2.0 for HealthcareService, which US Core does not profile, and the
// R4 base profile for Endpoint, which neither profiles but Plan-Net (PlanNetProfiles).
var Profiles = map[string]string{
	TypePractitioner:      "http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner",
	TypePractitionerRole:  "http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitionerrole",
	TypeOrganization:      "http://hl7.org/fhir/us/core/StructureDefinition/us-core-organization",
	TypeLocation:          "http://hl7.org/fhir/us/core/StructureDefinition/us-core-location",
	TypeHealthcareService: planNetSD + "plannet-HealthcareService",
	TypeEndpoint:          "http://hl7.org/fhir/StructureDefinition/Endpoint",
}

// PlanNetProfiles are the Da Vinci PDex Plan-Net 1.2.0 profiles of the types whose own profile is
// not Plan-Net's: a resource that meets it claims it in meta.profile after its own. Plan-Net
// fixes active to true (Practitioner, PractitionerRole, Organization) and the status of Location
// and Endpoint to active, requires an Organization to have an address and a type, and binds
// PractitionerRole.code to its role codes; a resource the sources describe otherwise (an
// inactive one, an organization without an address, a role whose taxonomy no role code stands
// for, a deactivated NPI's endpoint) claims its own profile alone.
var PlanNetProfiles = map[string]string{
	TypePractitioner:     planNetSD + "plannet-Practitioner",
	TypePractitionerRole: planNetSD + "plannet-PractitionerRole",
	TypeOrganization:     planNetSD + "plannet-Organization",
	TypeLocation:         planNetSD + "plannet-Location",
	TypeEndpoint:         planNetSD + "plannet-Endpoint",
}

const planNetSD = "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/"

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
	// SystemPlanNetOrgType is Plan-Net's organization types (OrgTypeCS), which
	// plannet-Organization binds Organization.type to.
	SystemPlanNetOrgType = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/OrgTypeCS"
	// SystemProviderRole is Plan-Net's provider role codes (ProviderRoleCS), which
	// plannet-PractitionerRole binds PractitionerRole.code to.
	SystemProviderRole = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/ProviderRoleCS"
	// SystemRoleCode is HL7 v3 RoleCode, whose ServiceDeliveryLocationRoleType codes R4 binds
	// Location.type to.
	SystemRoleCode = "http://terminology.hl7.org/CodeSystem/v3-RoleCode"
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

// orgTypes are the Plan-Net organization types used, with their displays.
var orgTypes = map[string]string{"fac": "Facility", "prvgrp": "Provider Group", "atyprv": "Atypical Provider"}

// orgTypeOfTaxonomy is the Plan-Net organization type of an organization by the NUCC grouping of
// its primary taxonomy: hospitals, nursing and residential care facilities, ambulatory clinics
// and centers and laboratories are facilities; transportation services and the other service
// providers that give no health care are atypical providers; every other organization NPI is a
// provider entity, a provider group.
func orgTypeOfTaxonomy(code string) string {
	if len(code) < 3 {
		return "prvgrp"
	}
	switch code[:3] {
	case "273", "275", "276", "281", "282", "283", "284", "286", "287", // hospitals and units
		"310", "311", "313", "314", "315", // nursing and custodial care facilities
		"320", "322", "323", "324", "385", // residential treatment and respite care facilities
		"261", "291", "292", "293": // ambulatory health care facilities; laboratories
		return "fac"
	case "341", "343", "344", "347", "171", "172", "174", "176": // transportation; other service providers
		return "atyprv"
	}
	return "prvgrp"
}

func orgTypeConcept(code, text string) CodeableConcept {
	return CodeableConcept{Coding: []Coding{
		{System: SystemPlanNetOrgType, Code: code, Display: orgTypes[code]},
		{System: SystemOrganizationType, Code: "prov", Display: "Healthcare Provider"},
	}, Text: text}
}

// locationRole is a v3 RoleCode service delivery location type.
type locationRole struct{ code, display string }

// facilityLocationTypes maps a Provider of Services category code to the v3 RoleCode of the
// facility's place. Home health agencies and hospices, whose care is given where the patient
// lives, have none: their office is no place of care.
var facilityLocationTypes = map[string]locationRole{
	"01": {"HOSP", "Hospital"},
	"02": {"SNF", "Skilled nursing facility"},
	"03": {"SNF", "Skilled nursing facility"},
	"04": {"SNF", "Skilled nursing facility"},
	"06": {"RTF", "Residential treatment facility"},
	"07": {"MOBL", "Mobile Unit"},
	"08": {"OF", "Outpatient facility"},
	"09": {"OF", "Outpatient facility"},
	"10": {"NCCF", "Nursing or custodial care facility"},
	"11": {"RTF", "Residential treatment facility"},
	"12": {"OF", "Outpatient facility"},
	"14": {"OF", "Outpatient facility"},
	"15": {"OF", "Outpatient facility"},
	"19": {"OF", "Outpatient facility"},
	"21": {"OF", "Outpatient facility"},
}

// taxonomyLocationType is the v3 RoleCode of an organization's practice location by the NUCC
// grouping of its primary taxonomy, where the grouping names a kind of place; false otherwise.
func taxonomyLocationType(code string) (locationRole, bool) {
	if len(code) < 3 {
		return locationRole{}, false
	}
	switch code[:3] {
	case "273", "275", "276", "281", "282", "283", "284", "286", "287":
		return locationRole{"HOSP", "Hospital"}, true
	case "314":
		return locationRole{"SNF", "Skilled nursing facility"}, true
	case "310", "311", "313", "315":
		return locationRole{"NCCF", "Nursing or custodial care facility"}, true
	case "320", "322", "323", "324":
		return locationRole{"RTF", "Residential treatment facility"}, true
	case "261":
		return locationRole{"OF", "Outpatient facility"}, true
	case "333":
		if strings.HasPrefix(code, "3336") {
			return locationRole{"PHARM", "Pharmacy"}, true
		}
	}
	return locationRole{}, false
}

func (l locationRole) concept(text string) CodeableConcept {
	return CodeableConcept{Coding: []Coding{{System: SystemRoleCode, Code: l.code, Display: l.display}}, Text: text}
}

// providerRoles maps NUCC individual taxonomy codes, by their longest listed prefix, to
// Plan-Net's provider role codes: the NUCC groupings and classifications each role code names.
var providerRoles = []struct{ prefix, code, display string }{
	{"101Y", "co", "Counselor"},
	{"103K", "ba", "Board Certified Behavior Analyst"},
	{"103T", "py", "Psychologist"},
	{"1041", "sw", "Social Worker"},
	{"106H", "mt", "Marriage/Family Therapist"},
	{"10", "bh", "Behavioral Health & Social Service Providers"},
	{"111N", "ch", "Chiropractor"},
	{"1223", "de", "Dentist"},
	{"12", "dp", "Dental Provider"},
	{"13", "dn", "Dietary and Nutritional Service Provider"},
	{"14", "em", "Emergency Medical Service Provider"},
	{"152W", "oo", "Optometrist"},
	{"156FX1800X", "op", "Optician"},
	{"15", "te", "Technologists, Technicians and Other Technical Service Providers"},
	{"163W", "rn", "Registered Nurse"},
	{"164W", "lpn", "Licensed Practical Nurse"},
	{"164X", "lpn", "Licensed Practical Nurse"},
	{"16", "nu", "Nursing Service Related Providers"},
	{"175F", "na", "Naturopath"},
	{"175L", "ho", "Homeopath"},
	{"17", "os", "Other Service Provider"},
	{"18", "rx", "Pharmacy Service Providers"},
	{"20", "ph", "Physician"},
	{"21", "po", "Podiatrist"},
	{"2251", "pt", "Physical Therapist"},
	{"225X", "ot", "Occupational Therapist"},
	{"2255A2300X", "at", "Athletic Trainer"},
	{"2278", "rt", "Respiratory Therapist"},
	{"22", "drr", "Developmental, Rehabilitative and Restorative Service Providers"},
	{"231H", "au", "Audiologist"},
	{"235Z", "sp", "Speech Language Pathologist"},
	{"23", "sh", "Speech, Language and Hearing Service Providers"},
	{"24", "te", "Technologists, Technicians and Other Technical Service Providers"},
	{"363A", "pa", "Physician Assistant"},
	{"363L", "crnp", "Certified Registered Nurse Practitioner"},
	{"367A", "cnw", "Certified Nurse Midwife"},
	{"36", "apn", "Advanced Practice Nursing Providers"},
	{"37", "nu", "Nursing Service Related Providers"},
}

// providerRole is the Plan-Net provider role coding of an individual's taxonomy code, by the
// longest prefix providerRoles lists; false when none does.
func providerRole(taxonomy string) (Coding, bool) {
	best := -1
	for i, r := range providerRoles {
		if strings.HasPrefix(taxonomy, r.prefix) && (best < 0 || len(r.prefix) > len(providerRoles[best].prefix)) {
			best = i
		}
	}
	if best < 0 {
		return Coding{}, false
	}
	r := providerRoles[best]
	return Coding{System: SystemProviderRole, Code: r.code, Display: r.display}, true
}
