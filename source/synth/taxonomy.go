package synth

import (
	"slices"

	"providerdir/specialty"
)

// The taxonomy mix. Real NPPES has about 1% cardiologists; at 2,000 providers that is a dozen, too
// few to spread over states or to exercise subspecialty filters. The mix therefore over-weights
// the twelve registered specialties of the supply API (docs/contracts/supply-api.md §2) and
// chiropractors, so that each gets tens of providers at demo scale and every registered
// subspecialty code a handful, and fills the rest with the common professions of the real file.

// Specialty is one registered specialty with its NUCC codes (package specialty).
type Specialty = specialty.Specialty

// Specialties are the twelve registered specialties and their subspecialty codes, plus
// chiropractor, which has an export dataset of its own.
var Specialties = append(slices.Clone(specialty.Registered), specialty.Chiropractor)

// profession groups taxonomies that share credentials, license prefixes and program labels.
type profession uint8

const (
	profMD profession = iota + 1 // allopathic and osteopathic physicians
	profNP
	profPA
	profChiro
	profDentist
	profOptometrist
	profPT
	profPsychologist
	profSocialWorker
	profPodiatrist
	profPharmacist
	profRN
	profCRNA
)

// indivTaxon is one taxonomy an individual can hold as primary.
type indivTaxon struct {
	code   string
	weight float64 // relative share among individuals' primary taxonomies
	prof   profession
	// pecos is the Medicare specialty of the PECOS enrollment file ("14-xx" practitioner codes);
	// empty means the profession rarely enrolls in Medicare.
	pecosCode, pecosDesc string
	// also lists codes such a provider plausibly holds as secondary taxonomies.
	also []string
}

// Individual primary taxonomies. Weights are per mille of individuals; subspecialty weights are
// set so that each code still appears several times at 2,000 providers.
var indivTaxa = []indivTaxon{
	{"207RC0000X", 32, profMD, "14-06", "CARDIOVASCULAR DISEASE (CARDIOLOGY)", []string{"207R00000X", "207RI0011X", "207RE0101X"}},
	{"207N00000X", 22, profMD, "14-07", "DERMATOLOGY", []string{"207ND0900X", "207NI0002X", "207NP0225X", "207NS0135X"}},
	{"207ND0900X", 4, profMD, "14-07", "DERMATOLOGY", []string{"207N00000X"}},
	{"207NI0002X", 4, profMD, "14-07", "DERMATOLOGY", []string{"207N00000X"}},
	{"207NP0225X", 4, profMD, "14-07", "DERMATOLOGY", []string{"207N00000X"}},
	{"207NS0135X", 4, profMD, "14-07", "DERMATOLOGY", []string{"207N00000X"}},
	{"207RG0100X", 28, profMD, "14-10", "GASTROENTEROLOGY", []string{"207R00000X"}},
	{"2084N0400X", 28, profMD, "14-13", "NEUROLOGY", []string{"2084N0402X", "2084P0800X"}},
	{"207V00000X", 28, profMD, "14-16", "OBSTETRICS/GYNECOLOGY", []string{"207VX0000X", "207VG0400X", "207VM0101X"}},
	{"207VX0000X", 6, profMD, "14-16", "OBSTETRICS/GYNECOLOGY", []string{"207V00000X"}},
	{"207VG0400X", 6, profMD, "14-16", "OBSTETRICS/GYNECOLOGY", []string{"207V00000X"}},
	{"207RX0202X", 25, profMD, "14-90", "MEDICAL ONCOLOGY", []string{"207RH0003X", "207R00000X"}},
	{"207W00000X", 28, profMD, "14-18", "OPHTHALMOLOGY", []string{"207WX0107X"}},
	{"207X00000X", 28, profMD, "14-20", "ORTHOPEDIC SURGERY", []string{"207XS0114X", "207XX0004X"}},
	{"207Y00000X", 24, profMD, "14-04", "OTOLARYNGOLOGY", []string{"207YX0905X"}},
	{"208000000X", 40, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"2080A0000X", "2080P0202X", "2080P0204X", "2080N0001X", "2080P0216X"}},
	{"2080A0000X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0006X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0008X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080N0001X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0202X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0203X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0204X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0205X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0206X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0207X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0208X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0210X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0214X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080P0216X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080I0007X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080S0010X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080S0012X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080T0002X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2080H0002X", 3, profMD, "14-37", "PEDIATRIC MEDICINE", []string{"208000000X"}},
	{"2084P0800X", 32, profMD, "14-26", "PSYCHIATRY", []string{"2084P0804X", "2084N0400X"}},
	{"208800000X", 24, profMD, "14-34", "UROLOGY", []string{"2088P0231X"}},
	{"111N00000X", 38, profChiro, "14-35", "CHIROPRACTIC", nil},
	// The tail: the common professions of the real file.
	{"207Q00000X", 70, profMD, "14-08", "FAMILY PRACTICE", []string{"207QA0505X", "207QG0300X", "208000000X"}},
	{"207R00000X", 70, profMD, "14-11", "INTERNAL MEDICINE", []string{"207RG0300X", "208M00000X", "207RC0000X", "207RG0100X"}},
	{"208D00000X", 8, profMD, "14-01", "GENERAL PRACTICE", []string{"207Q00000X"}},
	{"208M00000X", 12, profMD, "14-C6", "HOSPITALIST", []string{"207R00000X"}},
	{"207L00000X", 18, profMD, "14-05", "ANESTHESIOLOGY", nil},
	{"2085R0202X", 14, profMD, "14-30", "DIAGNOSTIC RADIOLOGY", nil},
	{"208600000X", 14, profMD, "14-02", "GENERAL SURGERY", nil},
	{"207P00000X", 18, profMD, "14-93", "EMERGENCY MEDICINE", nil},
	{"363L00000X", 30, profNP, "14-50", "NURSE PRACTITIONER", []string{"363LF0000X"}},
	{"363LF0000X", 45, profNP, "14-50", "NURSE PRACTITIONER", []string{"363L00000X", "363LA2200X"}},
	{"363LP0808X", 10, profNP, "14-50", "NURSE PRACTITIONER", []string{"363L00000X", "2084P0800X"}},
	{"363A00000X", 40, profPA, "14-97", "PHYSICIAN ASSISTANT", nil},
	{"1223G0001X", 35, profDentist, "", "", []string{"1223X0400X"}},
	{"152W00000X", 20, profOptometrist, "14-41", "OPTOMETRY", nil},
	{"225100000X", 30, profPT, "14-65", "PHYSICAL THERAPIST IN PRIVATE PRACTICE", nil},
	{"103T00000X", 18, profPsychologist, "14-68", "CLINICAL PSYCHOLOGIST", nil},
	{"1041C0700X", 22, profSocialWorker, "14-80", "LICENSED CLINICAL SOCIAL WORKER", nil},
	{"213E00000X", 8, profPodiatrist, "14-48", "PODIATRY", nil},
	{"183500000X", 12, profPharmacist, "", "", nil},
	{"163W00000X", 15, profRN, "", "", nil},
	{"367500000X", 8, profCRNA, "14-43", "CERTIFIED REGISTERED NURSE ANESTHETIST (CRNA)", nil},
}

// orgTaxon is one taxonomy a non-facility organization can hold.
type orgTaxon struct {
	code   string
	weight float64
	kinds  []string // name endings that fit the organization
}

var orgTaxa = []orgTaxon{
	{"193200000X", 18, orgPracticeKinds},
	{"193400000X", 15, orgPracticeKinds},
	{"261QP2300X", 12, []string{"PRIMARY CARE", "HEALTH CENTER", "COMMUNITY CLINIC"}},
	{"261QM1300X", 6, []string{"MULTI-SPECIALTY CLINIC", "MEDICAL CENTER"}},
	{"3336C0003X", 16, []string{"PHARMACY", "DRUG STORE", "APOTHECARY"}},
	{"332B00000X", 8, []string{"MEDICAL SUPPLY", "HOME MEDICAL EQUIPMENT"}},
	{"291U00000X", 7, []string{"LABORATORY", "CLINICAL LABORATORIES", "DIAGNOSTIC LAB"}},
	{"261QR1300X", 4, []string{"RURAL HEALTH CLINIC"}},
	{"207Q00000X", 8, []string{"FAMILY MEDICINE", "FAMILY PRACTICE"}},
	{"207RC0000X", 3, []string{"HEART AND VASCULAR", "CARDIOLOGY ASSOCIATES"}},
	{"207N00000X", 2, []string{"DERMATOLOGY", "SKIN AND LASER CENTER"}},
	{"208000000X", 2, []string{"PEDIATRICS", "CHILDRENS CLINIC"}},
	{"111N00000X", 2, []string{"CHIROPRACTIC", "SPINE AND WELLNESS"}},
}

// generalSecondary is the pool of secondary taxonomies for individuals whose primary has no
// specific companions; it includes registered codes so that secondary holdings add to them.
var generalSecondary = []string{"207R00000X", "207Q00000X", "208M00000X", "207RC0000X", "2084P0800X", "208000000X", "207N00000X"}

// Credentials by profession, as providers type them (commas included: they test quoting).
var credentials = map[profession][]string{
	profMD:           {"M.D.", "M.D.", "MD", "MD", "M.D.", "D.O.", "DO", "M.D., PH.D.", "MD, FACP"},
	profNP:           {"NP", "APRN", "FNP-C", "CRNP", "MSN, FNP-BC", "APRN, FNP-C", "DNP"},
	profPA:           {"PA-C", "PA-C", "PA", "MPAS, PA-C"},
	profChiro:        {"D.C.", "DC", "D.C."},
	profDentist:      {"DDS", "D.D.S.", "DMD"},
	profOptometrist:  {"O.D.", "OD"},
	profPT:           {"PT", "DPT", "PT, DPT"},
	profPsychologist: {"PH.D.", "PSYD", "PHD"},
	profSocialWorker: {"LCSW", "LICSW", "MSW, LCSW"},
	profPodiatrist:   {"DPM", "D.P.M."},
	profPharmacist:   {"PHARMD", "RPH", "PHARM.D."},
	profRN:           {"RN", "BSN, RN", "RN"},
	profCRNA:         {"CRNA", "CRNA, DNP"},
}

// licensePrefix is the letters states often put before license numbers.
var licensePrefix = map[profession][]string{
	profMD:           {"MD", "", "A", "G", "C", "DO"},
	profNP:           {"APRN", "NP", "RN", ""},
	profPA:           {"PA", ""},
	profChiro:        {"DC", "CH", ""},
	profDentist:      {"DDS", "DN", ""},
	profOptometrist:  {"OD", "OPT", ""},
	profPT:           {"PT", ""},
	profPsychologist: {"PSY", ""},
	profSocialWorker: {"LCSW", "SW", ""},
	profPodiatrist:   {"DPM", "POD", ""},
	profPharmacist:   {"RPH", "PH", ""},
	profRN:           {"RN", ""},
	profCRNA:         {"RN", "APRN", ""},
}

// Open Payments covered-recipient labels: who counts as a physician and which primary type.
func openPaymentsType(p profession, cred string) (recipientType, primaryType string, ok bool) {
	const phys, nonPhys = "Covered Recipient Physician", "Covered Recipient Non-Physician Practitioner"
	switch p {
	case profMD:
		if len(cred) >= 2 && (cred[:2] == "DO" || cred[:2] == "D.") {
			return phys, "Doctor of Osteopathy", true
		}
		return phys, "Medical Doctor", true
	case profChiro:
		return phys, "Chiropractor", true
	case profOptometrist:
		return phys, "Doctor of Optometry", true
	case profPodiatrist:
		return phys, "Doctor of Podiatric Medicine", true
	case profDentist:
		return phys, "Doctor of Dentistry", true
	case profNP:
		return nonPhys, "Nurse Practitioner", true
	case profPA:
		return nonPhys, "Physician Assistant", true
	case profCRNA:
		return nonPhys, "Certified Registered Nurse Anesthetist", true
	}
	return "", "", false
}

// facilityKind is one of the six Care Compare quality types.
type facilityKind uint8

const (
	kindHospital facilityKind = iota
	kindNursingHome
	kindHomeHealth
	kindHospice
	kindDialysis
	kindASC
	numFacilityKinds
)

// facilityKindInfo carries what differs between the six kinds: the POS provider category, the
// NPPES taxonomy of the facility organization, the PECOS provider type, the CCN number ranges of
// SOM 2779 (inclusive), and the share of facilities.
type facilityKindInfo struct {
	slug        string // as in the resolver's /quality/{type}
	posCategory string // PRVDR_CTGRY_CD
	taxonomy    string
	pecosCode   string
	pecosDesc   string
	ranges      [][2]int
	weight      float64
	nameKinds   []string
}

var facilityKinds = [numFacilityKinds]facilityKindInfo{
	kindHospital:    {"hospital", "01", "282N00000X", "00-09", "PART A PROVIDER - HOSPITAL", [][2]int{{1, 879}}, 12, hospitalKinds},
	kindNursingHome: {"nursing-home", "02", "314000000X", "00-18", "PART A PROVIDER - SKILLED NURSING FACILITY (SNF)", [][2]int{{5000, 6499}}, 29, nursingHomeKinds},
	kindHomeHealth:  {"home-health", "05", "251E00000X", "00-06", "PART A PROVIDER - HOME HEALTH AGENCY (HHA)", [][2]int{{7000, 8499}, {3100, 3199}}, 21, homeHealthKinds},
	kindHospice:     {"hospice", "16", "251G00000X", "00-08", "PART A PROVIDER - HOSPICE", [][2]int{{1500, 1799}}, 11, hospiceKinds},
	kindDialysis:    {"dialysis", "09", "261QE0700X", "00-05", "PART A PROVIDER - END STAGE RENAL DISEASE FACILITY (ESRD)", [][2]int{{2300, 2499}, {3500, 3699}}, 15, dialysisKinds},
	kindASC:         {"asc", "15", "261QA1903X", "12-49", "PART B SUPPLIER - AMBULATORY SURGICAL CENTER", [][2]int{{1, 9999999}}, 12, ascKinds},
}

// Hospital subtypes: POS PRVDR_CTGRY_SBTYP_CD, CCN range, NPPES taxonomy, Care Compare type.
type hospitalSubtype struct {
	posSubtype, taxonomy, careCompareType string
	lo, hi                                int
	weight                                float64
}

var hospitalSubtypes = []hospitalSubtype{
	{"01", "282N00000X", "Acute Care Hospitals", 1, 879, 72},
	{"11", "282NC0060X", "Critical Access Hospitals", 1300, 1399, 20},
	{"04", "283Q00000X", "Psychiatric", 4000, 4499, 8},
}
