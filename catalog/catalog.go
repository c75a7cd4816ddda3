// Package catalog names what the layers share: the store collections ingest writes and the
// surfaces read, the records both sides decode (the manifest, change sets), and the FHIR
// interactions a grant is asked about. Producers (ingest, mapping) and readers (rest, fhir,
// smart, web) both import it, so that no reader needs the package that writes.
package catalog

// Collections of the NPPES family.
const (
	RegistryProviders  = "nppes_providers"
	RegistryLocations  = "nppes_locations"
	RegistryOtherNames = "nppes_othernames"
	RegistryEndpoints  = "nppes_endpoints"
	// RegistryNameWords is the name lexicon of provider search: one document per distinct
	// word of the registry's names that tolerates a typo, keyed by its deletions (package
	// match), id the word.
	RegistryNameWords = "nppes_name_words"
)

// Collections of the PECOS family.
const (
	Enrollments         = "pecos_enrollments"
	HospitalEnrollments = "pecos_hospital_enrollments"
	Reassignments       = "pecos_reassignments"
)

// Collections of the LEIE family.
const (
	// Exclusions holds the current list (UPDATED.csv): everyone excluded as of the snapshot.
	Exclusions = "leie_exclusions"
	// ExclusionActions holds the monthly supplements (yymmEXCL.csv, yymmREIN.csv): who was added
	// to or reinstated from the list that month, with the month's file as the source.
	ExclusionActions = "leie_actions"
)

// Payments is the collection of the Open Payments family.
const Payments = "open_payments"

// SAMExclusions is the collection of the SAM.gov family: the exclusions public extract.
const SAMExclusions = "sam_exclusions"

// MIPSScores is the collection of the QPP family: clinicians' MIPS final scores, one document per
// clinician, practice and performance year.
const MIPSScores = "qpp_mips_scores"

// Collections of the facility families.
const (
	Facilities = "pos_facilities"
	Quality    = "care_compare_quality"
	// QualityNational holds one document per facility type (id: the type slug) with the national
	// average of each measure, computed at ingest from that type's Care Compare file.
	QualityNational = "care_compare_national"
)

// Collections of the reference families.
const (
	CensusStates   = "census_states"
	CensusCounties = "census_counties"
	NUCCTaxonomy   = "nucc_taxonomy"
)

// SupplyStudies holds the specialty supply studies of the supply API: one document per
// specialty (id "cardiology") and one per specialty and registered code (id
// "dermatology.207ND0900X", the subspecialty filter), each with the 51 state rows. They are
// computed once per registry, Census or NUCC snapshot, so that a request reads one document and
// switches with the data it was computed from.
const SupplyStudies = "supply_by_state"

// SandboxNPIs holds the fixed provider subset that sandbox credentials may see: one document per
// NPI, no body of note. Read-only sandbox access serves 200 provider records.
const SandboxNPIs = "sandbox_npis"

// SandboxSize is the number of providers in the sandbox subset.
const SandboxSize = 200

// FHIRCollection is the collection of the stored FHIR resources of one type (fhir_Practitioner,
// ...). The resources are derived from the source collections and switch with them, together
// with the tag sets they name (FHIRTags).
func FHIRCollection(resourceType string) string { return "fhir_" + resourceType }

// FHIRTags holds a snapshot's provenance tag sets, written into the same generation by the
// projection that writes the resources that name them.
const FHIRTags = "fhir_tags"
