// Package pecos reads the Medicare Fee-For-Service Public Provider Enrollment files that CMS
// publishes on data.cms.gov from PECOS:
//
//   - the base enrollment file (PPEF "Base Provider Enrollment File": NPI, PECOS_ASCT_CNTL_ID,
//     ENRLMT_ID, PROVIDER_TYPE_CD, PROVIDER_TYPE_DESC, STATE_CD, FIRST_NAME, MDL_NAME, LAST_NAME,
//     ORG_NAME), one row per enrollment; read with Open;
//   - Hospital_Enrollments (the "Hospital Enrollments" dataset layout), one row per hospital
//     enrollment with its NPI and CCN: the bridge between NPPES and the CMS facility files;
//     read with OpenHospitals.
//
// NPIs must pass their check digit and CCNs the ident.ValidateCCN forms; a hospital enrollment
// with a blank CCN (not yet certified) is kept with CCN "".
package pecos

import (
	"io"
	"strings"

	"providerdir/source"
)

// Enrollment is one row of the base enrollment file.
type Enrollment struct {
	NPI              string
	AssociateID      string // PECOS_ASCT_CNTL_ID: the PECOS associate (person or organization)
	EnrollmentID     string // ENRLMT_ID
	ProviderTypeCode string // e.g. "14-08"
	ProviderTypeDesc string // e.g. "PRACTITIONER - FAMILY PRACTICE"
	State            string // enrollment state
	FirstName        string
	MiddleName       string
	LastName         string
	OrgName          string
}

var (
	baseSchema  = source.NewSchema("PECOS base provider enrollment")
	bNPI        = baseSchema.Required("NPI")
	bAssociate  = baseSchema.Required("PECOS_ASCT_CNTL_ID")
	bEnrollment = baseSchema.Required("ENRLMT_ID")
	bTypeCode   = baseSchema.Required("PROVIDER_TYPE_CD")
	bTypeDesc   = baseSchema.Required("PROVIDER_TYPE_DESC")
	bState      = baseSchema.Required("STATE_CD")
	bFirst      = baseSchema.Required("FIRST_NAME")
	bMiddle     = baseSchema.Required("MDL_NAME")
	bLast       = baseSchema.Required("LAST_NAME")
	bOrg        = baseSchema.Required("ORG_NAME")
)

func decodeEnrollment(r *source.Row) (Enrollment, bool) {
	return Enrollment{
		NPI:              r.NPI(bNPI),
		AssociateID:      r.Str(bAssociate),
		EnrollmentID:     r.Required(bEnrollment),
		ProviderTypeCode: r.Str(bTypeCode),
		ProviderTypeDesc: r.Str(bTypeDesc),
		State:            r.Str(bState),
		FirstName:        r.Str(bFirst),
		MiddleName:       r.Str(bMiddle),
		LastName:         r.Str(bLast),
		OrgName:          r.Str(bOrg),
	}, true
}

// Open opens a base enrollment file.
func Open(path string, opts ...source.Option) (*source.Reader[Enrollment], error) {
	return source.Open(path, baseSchema, decodeEnrollment, opts...)
}

// NewReader reads a base enrollment file from r, named name in reports.
func NewReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[Enrollment], error) {
	return source.NewReader(r, name, baseSchema, decodeEnrollment, opts...)
}

// Address is a practice location as the hospital enrollment file gives it.
type Address struct {
	Line1, Line2, City, State, ZIP string
}

// HospitalEnrollment is one row of Hospital_Enrollments.
type HospitalEnrollment struct {
	EnrollmentID         string
	EnrollmentState      string
	ProviderTypeCode     string
	ProviderTypeText     string
	NPI                  string
	MultipleNPI          source.YesNo // the enrollment has more than one NPI (each on its own row)
	CCN                  string       // "" when not yet assigned
	AssociateID          string
	OrgName              string
	DBAName              string
	IncorporationDate    source.Date
	IncorporationState   string
	OrgStructure         string // ORGANIZATION TYPE STRUCTURE, e.g. "CORPORATION"
	OrgOtherType         string
	ProprietaryNonprofit string // "P" proprietary, "N" non-profit, as published
	Address              Address
	PracticeLocationType string
	LocationOtherType    string
	Subgroups            []string // the "SUBGROUP - ..." columns flagged Y, by name after the dash
	REHConversion        source.YesNo
	REHConversionDate    source.Date
}

var (
	hospSchema     = source.NewSchema("PECOS Hospital_Enrollments")
	hEnrollment    = hospSchema.Required("ENROLLMENT ID")
	hState         = hospSchema.Required("ENROLLMENT STATE")
	hTypeCode      = hospSchema.Required("PROVIDER TYPE CODE")
	hTypeText      = hospSchema.Required("PROVIDER TYPE TEXT")
	hNPI           = hospSchema.Required("NPI")
	hMultiple      = hospSchema.Optional("MULTIPLE NPI FLAG")
	hCCN           = hospSchema.Required("CCN")
	hAssociate     = hospSchema.Required("ASSOCIATE ID")
	hOrg           = hospSchema.Required("ORGANIZATION NAME")
	hDBA           = hospSchema.Optional("DOING BUSINESS AS NAME")
	hIncDate       = hospSchema.Optional("INCORPORATION DATE")
	hIncState      = hospSchema.Optional("INCORPORATION STATE")
	hStructure     = hospSchema.Optional("ORGANIZATION TYPE STRUCTURE")
	hOtherType     = hospSchema.Optional("ORGANIZATION OTHER TYPE TEXT")
	hPropNonprofit = hospSchema.Optional("PROPRIETARY_NONPROFIT", "PROPRIETARY NONPROFIT")
	hLine1         = hospSchema.Required("ADDRESS LINE 1")
	hLine2         = hospSchema.Optional("ADDRESS LINE 2")
	hCity          = hospSchema.Required("CITY")
	hAddrState     = hospSchema.Required("STATE")
	hZIP           = hospSchema.Required("ZIP CODE")
	hLocType       = hospSchema.Optional("PRACTICE LOCATION TYPE")
	hLocOther      = hospSchema.Optional("LOCATION OTHER TYPE TEXT")
	hREH           = hospSchema.Optional("REH CONVERSION FLAG")
	hREHDate       = hospSchema.Optional("REH CONVERSION DATE")
	hSubgroups     = hospSchema.Group(isSubgroupFlag)
)

// The subgroup flags are one Y/N column per hospital subgroup; the list has grown over releases,
// so they are found by prefix. "SUBGROUP - OTHER TEXT" is free text, not a flag.
const subgroupPrefix = "subgroup - "

func isSubgroupFlag(name string) bool {
	k := source.HeaderKey(name)
	return strings.HasPrefix(k, subgroupPrefix) && k != "subgroup - other text"
}

func decodeHospital(r *source.Row) (HospitalEnrollment, bool) {
	h := HospitalEnrollment{
		EnrollmentID:         r.Required(hEnrollment),
		EnrollmentState:      r.Str(hState),
		ProviderTypeCode:     r.Str(hTypeCode),
		ProviderTypeText:     r.Str(hTypeText),
		NPI:                  r.NPI(hNPI),
		MultipleNPI:          r.Flag(hMultiple),
		CCN:                  r.OptionalCCN(hCCN),
		AssociateID:          r.Str(hAssociate),
		OrgName:              r.Str(hOrg),
		DBAName:              r.Str(hDBA),
		IncorporationDate:    r.Date(hIncDate),
		IncorporationState:   r.Str(hIncState),
		OrgStructure:         r.Str(hStructure),
		OrgOtherType:         r.Str(hOtherType),
		ProprietaryNonprofit: r.Str(hPropNonprofit),
		Address: Address{Line1: r.Str(hLine1), Line2: r.Str(hLine2), City: r.Str(hCity),
			State: r.Str(hAddrState), ZIP: r.Str(hZIP)},
		PracticeLocationType: r.Str(hLocType),
		LocationOtherType:    r.Str(hLocOther),
		REHConversion:        r.Flag(hREH),
		REHConversionDate:    r.Date(hREHDate),
	}
	for _, i := range r.Group(hSubgroups) {
		if v := r.At(i); strings.EqualFold(v, "Y") {
			name := r.Header().NameAt(i)
			h.Subgroups = append(h.Subgroups, strings.TrimSpace(name[strings.IndexByte(name, '-')+1:]))
		}
	}
	return h, true
}

// OpenHospitals opens a Hospital_Enrollments file.
func OpenHospitals(path string, opts ...source.Option) (*source.Reader[HospitalEnrollment], error) {
	return source.Open(path, hospSchema, decodeHospital, opts...)
}

// NewHospitalReader reads a Hospital_Enrollments file from r, named name in reports.
func NewHospitalReader(r io.Reader, name string, opts ...source.Option) (*source.Reader[HospitalEnrollment], error) {
	return source.NewReader(r, name, hospSchema, decodeHospital, opts...)
}
