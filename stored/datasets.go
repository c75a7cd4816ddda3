package stored

import (
	"maps"
	"slices"
)

// Dataset describes one published dataset the service ingests: the fixed half of provenance.
type Dataset struct {
	ID          string // _dataset_id, stable slug
	Family      string // source family the ingest reads it with
	Source      string // _source
	SourceURL   string // _source_url, the publisher's landing page
	Methodology string // _methodology, <name>/<version>, bumped when the mapping changes meaning
	License     string // _license, SPDX syntax
	Cadence     string // publisher's refresh cadence
}

// LicensePublicDomainUSGov is the SPDX-syntax reference for works of the US federal government,
// which are not subject to copyright (17 U.S.C. 105). SPDX has no list id for it, so a LicenseRef.
const LicensePublicDomainUSGov = "LicenseRef-US-Government-Public-Domain"

// datasets is every dataset the service can ingest, keyed by dataset id; filled once, by the
// declarations below, and read through DatasetByID and DatasetIDs.
var datasets = map[string]Dataset{}

func register(d Dataset) Dataset { datasets[d.ID] = d; return d }

// DatasetByID returns the dataset with the id (its _dataset_id), and whether there is one.
func DatasetByID(id string) (Dataset, bool) {
	d, ok := datasets[id]
	return d, ok
}

// DatasetIDs returns the id of every dataset the service can ingest, sorted.
func DatasetIDs() []string {
	ids := slices.Collect(maps.Keys(datasets))
	slices.Sort(ids)
	return ids
}

// The datasets. Source URLs are the publishers' landing pages, where a user downloads the files.
var (
	NPPES = register(Dataset{ID: "nppes", Family: "nppes",
		Source:      "CMS National Plan and Provider Enumeration System (NPPES) NPI Registry",
		SourceURL:   "https://download.cms.gov/nppes/NPI_Files.html",
		Methodology: "nppes-registry/1.0.0", License: LicensePublicDomainUSGov, Cadence: "monthly"})
	PECOS = register(Dataset{ID: "cms_pecos_ppef", Family: "pecos",
		Source:      "CMS Medicare Fee-For-Service Public Provider Enrollment (PECOS)",
		SourceURL:   "https://data.cms.gov/provider-characteristics/medicare-provider-supplier-enrollment/medicare-fee-for-service-public-provider-enrollment",
		Methodology: "pecos-enrollment/1.0.0", License: LicensePublicDomainUSGov, Cadence: "quarterly"})
	HospitalEnrollments = register(Dataset{ID: "cms_hospital_enrollments", Family: "pecos",
		Source:      "CMS Hospital Enrollments",
		SourceURL:   "https://data.cms.gov/provider-characteristics/hospitals-and-other-facilities/hospital-enrollments",
		Methodology: "pecos-hospital-enrollment/1.0.0", License: LicensePublicDomainUSGov, Cadence: "quarterly"})
	POS = register(Dataset{ID: "cms_pos_facilities", Family: "pos",
		Source:      "CMS Provider of Services File - Hospital & Non-Hospital Facilities",
		SourceURL:   "https://data.cms.gov/provider-characteristics/hospitals-and-other-facilities/provider-of-services-file-hospital-non-hospital-facilities",
		Methodology: "pos-facilities/1.0.0", License: LicensePublicDomainUSGov, Cadence: "quarterly"})
	LEIE = register(Dataset{ID: "oig_leie_exclusions", Family: "leie",
		Source:      "HHS OIG List of Excluded Individuals/Entities (LEIE)",
		SourceURL:   "https://oig.hhs.gov/exclusions/exclusions_list.asp",
		Methodology: "leie-exclusions/1.0.0", License: LicensePublicDomainUSGov, Cadence: "monthly"})
	CareCompareHospital    = register(careCompare("hospital", "Hospitals", "https://data.cms.gov/provider-data/topics/hospitals", "quarterly"))
	CareCompareNursingHome = register(careCompare("nursing_home", "Nursing homes including rehab services", "https://data.cms.gov/provider-data/topics/nursing-homes", "monthly"))
	CareCompareDialysis    = register(careCompare("dialysis", "Dialysis facilities", "https://data.cms.gov/provider-data/topics/dialysis-facilities", "quarterly"))
	CareCompareHomeHealth  = register(careCompare("home_health", "Home health services", "https://data.cms.gov/provider-data/topics/home-health-services", "quarterly"))
	CareCompareHospice     = register(careCompare("hospice", "Hospice care", "https://data.cms.gov/provider-data/topics/hospice-care", "quarterly"))
	CareCompareASC         = register(careCompare("asc", "Ambulatory surgical centers", "https://data.cms.gov/provider-data/topics/ambulatory-surgical-centers", "annual"))
	OpenPayments           = register(Dataset{ID: "cms_open_payments", Family: "openpayments",
		Source:      "CMS Open Payments, General Payments",
		SourceURL:   "https://openpaymentsdata.cms.gov/",
		Methodology: "open-payments-name-address-match/1.0.0", License: LicensePublicDomainUSGov, Cadence: "annual"})
	// SAMExclusions is GSA's extract of every party with an active federal exclusion, matched to
	// providers by the NPI some records carry.
	SAMExclusions = register(Dataset{ID: "gsa_sam_exclusions", Family: "sam",
		Source:      "GSA System for Award Management (SAM.gov), Exclusions Public Extract",
		SourceURL:   "https://sam.gov/data-services",
		Methodology: "sam-exclusions-npi/1.0.0", License: LicensePublicDomainUSGov, Cadence: "daily"})
	// QPPMIPS is the clinicians' MIPS final scores of one performance year, as Care Compare
	// publishes them.
	QPPMIPS = register(Dataset{ID: "cms_qpp_mips", Family: "qpp",
		Source:      "CMS Quality Payment Program, Clinician Public Reporting: Overall MIPS Performance (Care Compare)",
		SourceURL:   "https://data.cms.gov/provider-data/dataset/a174-a962",
		Methodology: "qpp-mips-final-score/1.0.0", License: LicensePublicDomainUSGov, Cadence: "annual"})
	Census = register(Dataset{ID: "census_pep_v2024", Family: "census",
		Source:      "U.S. Census Bureau Population Estimates Program, Vintage 2024",
		SourceURL:   "https://www.census.gov/programs-surveys/popest.html",
		Methodology: "census-pep/2024", License: LicensePublicDomainUSGov, Cadence: "annual"})
	NUCC = register(Dataset{ID: "nucc_taxonomy", Family: "nucc",
		Source:      "National Uniform Claim Committee Health Care Provider Taxonomy Code Set 25.1",
		SourceURL:   "https://www.nucc.org/index.php/code-sets-mainmenu-41/provider-taxonomy-mainmenu-40",
		Methodology: "nucc-taxonomy/25.1",
		// The code set is copyright of the American Medical Association on behalf of NUCC, free
		// to use with the notice kept and the content unchanged.
		License: "LicenseRef-NUCC-Taxonomy", Cadence: "semiannual"})
)

func careCompare(kind, topic, url, cadence string) Dataset {
	return Dataset{ID: "cms_care_compare_" + kind, Family: "carecompare",
		Source:      "CMS Care Compare, " + topic,
		SourceURL:   url,
		Methodology: "care-compare-" + kind + "/1.1.0", License: LicensePublicDomainUSGov, Cadence: cadence}
}
