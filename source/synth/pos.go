package synth

import (
	"fmt"
	"strconv"
)

// CMS Provider of Services file, hospital and non-hospital facilities: the leading columns of
// the published layout (uppercase names, in their published order) and the hospital columns.
// Codes keep their leading zeros; dates are YYYYMMDD.

var posHeader = []string{
	"PRVDR_CTGRY_SBTYP_CD", "PRVDR_CTGRY_CD", "CHOW_CNT", "CHOW_DT", "CITY_NAME", "ACPTBL_POC_SW", "CMPLNC_STUS_CD",
	"SSA_CNTY_CD", "CROSS_RFRNC_PRVDR_NUM", "CRTFCTN_DT", "ELGBLTY_SW", "FAC_NAME", "INTRMDRY_CARR_CD",
	"MDCD_VNDR_NUM", "ORGNL_PRTCPTN_DT", "CHOW_PRIOR_DT", "INTRMDRY_CARR_PRIOR_CD", "PRVDR_NUM", "RGN_CD",
	"SKLTN_REC_SW", "STATE_CD", "SSA_STATE_CD", "STATE_RGN_CD", "ST_ADR", "PHNE_NUM", "PGM_TRMNTN_CD",
	"TRMNTN_EXPRTN_DT", "CRTFCTN_ACTN_TYPE_CD", "GNRL_CNTL_TYPE_CD", "ZIP_CD", "FIPS_STATE_CD", "FIPS_CNTY_CD",
	"CBSA_URBN_RRL_IND", "CBSA_CD", "ACRDTN_TYPE_CD",
	"BED_CNT", "CRTFD_BED_CNT", "PSYCH_UNIT_BED_CNT", "REHAB_UNIT_BED_CNT", "MDCL_SCHL_AFLTN_CD",
	"DCTD_ER_SRVC_CD", "ICU_SRVC_CD", "RSDNT_PGM_ALPTHC_SW", "RSDNT_PGM_DNTL_SW", "RSDNT_PGM_OSTPTHC_SW",
	"RSDNT_PGM_OTHR_SW", "RN_CNT", "LPN_LVN_CNT", "NRS_PRCTNR_CNT", "CRNA_CNT", "RELATED_PROVIDER_NUMBER",
	"MEDICARE_MEDICAID_PRVDR_NUMBER", "OPRTG_ROOM_CNT",
}

// posName is the quarterly file name, e.g. Hospital_and_other.DATA.Q2_2025.csv.
func posName(snap date) string {
	y, m, _ := snap.civil()
	return fmt.Sprintf("Hospital_and_other.DATA.Q%d_%d.csv", (m-1)/3+1, y)
}

// cmsRegion is the CMS regional office (1-10) of each state.
var cmsRegion = map[string]int{
	"CT": 1, "ME": 1, "MA": 1, "NH": 1, "RI": 1, "VT": 1, "NJ": 2, "NY": 2, "DE": 3, "DC": 3, "MD": 3, "PA": 3,
	"VA": 3, "WV": 3, "AL": 4, "FL": 4, "GA": 4, "KY": 4, "MS": 4, "NC": 4, "SC": 4, "TN": 4, "IL": 5, "IN": 5,
	"MI": 5, "MN": 5, "OH": 5, "WI": 5, "AR": 6, "LA": 6, "NM": 6, "OK": 6, "TX": 6, "IA": 7, "KS": 7, "MO": 7,
	"NE": 7, "CO": 8, "MT": 8, "ND": 8, "SD": 8, "UT": 8, "WY": 8, "AZ": 9, "CA": 9, "HI": 9, "NV": 9, "AK": 10,
	"ID": 10, "OR": 10, "WA": 10,
}

// Termination codes of PGM_TRMNTN_CD other than 00 (active).
var posTerminationCodes = []string{"01", "02", "03", "05", "06", "07"}

// posRow is the POS row of facility f as of generation g.
func (w *world) posRow(r *rng, f *facility, g int) []string {
	r.reset(w.seed, streamFacility, int64(f.j)+2<<40)
	st := &w.ref.states[f.state]
	info := &facilityKinds[f.kind]
	row := make([]string, len(posHeader))
	set := func(k int, v string) { row[k] = v }
	if f.kind == kindHospital {
		set(0, hospitalSubtypes[f.hospSub].posSubtype)
	}
	set(1, info.posCategory)
	chow := 0
	if r.chance(0.15) {
		chow = 1 + r.IntN(2)
	}
	set(2, strconv.Itoa(chow))
	if chow > 0 {
		set(3, r.between(f.certified, w.snaps[0]-30).compact())
	}
	set(4, f.addr.city)
	set(5, "Y")
	set(6, "A")
	set(7, f.county.SSA)
	set(9, f.certified.compact())
	set(10, "Y")
	set(11, f.name)
	set(12, fmt.Sprintf("%05d", 1000+r.IntN(14000)))
	if f.kind == kindNursingHome || r.chance(0.3) {
		set(13, r.digits(7+r.IntN(3)))
	}
	set(14, f.certified.compact())
	set(17, f.ccn)
	set(18, fmt.Sprintf("%02d", cmsRegion[st.Code]))
	set(19, "N")
	set(20, st.Code)
	set(21, st.CCNCodes[0])
	set(22, strconv.Itoa(1+r.IntN(9)))
	set(23, f.addr.line1)
	set(24, f.addr.phone)
	set(25, "00")
	if term := w.facilityTerminatedAt(f, g); term >= 0 {
		set(25, posTerminationCodes[int(hash(w.seed, streamFacility, uint64(f.j), 7)%uint64(len(posTerminationCodes)))])
		set(26, w.terminationDate(f, term).compact())
	}
	set(27, "1")
	set(28, ownershipLabels[f.kind][f.ownership].posCode)
	set(29, f.addr.zip[:5])
	set(30, st.FIPS)
	set(31, f.county.FIPS[2:])
	if r.chance(0.75) {
		set(32, "U")
	} else {
		set(32, "R")
	}
	set(33, fmt.Sprintf("%05d", 10000+r.IntN(89999)))
	if f.kind == kindHospital || f.kind == kindHomeHealth {
		set(34, strconv.Itoa(r.IntN(3)))
	}
	switch f.kind {
	case kindHospital:
		set(35, strconv.Itoa(f.beds))
		set(36, strconv.Itoa(f.beds-r.IntN(1+f.beds/10)))
		set(37, strconv.Itoa(r.IntN(1+f.beds/20)))
		set(38, strconv.Itoa(r.IntN(1+f.beds/25)))
		set(39, strconv.Itoa(1+r.IntN(4)))
		yn := func(p float64) string {
			if r.chance(p) {
				return "Y"
			}
			return "N"
		}
		set(40, strconv.Itoa(r.IntN(3)))
		set(41, strconv.Itoa(r.IntN(3)))
		set(42, yn(0.2))
		set(43, yn(0.05))
		set(44, yn(0.08))
		set(45, yn(0.1))
		set(46, strconv.Itoa(f.beds*2+r.IntN(200)))
		set(47, strconv.Itoa(r.IntN(60)))
		set(48, strconv.Itoa(r.IntN(40)))
		set(49, strconv.Itoa(r.IntN(12)))
		set(52, strconv.Itoa(r.IntN(20)))
	case kindNursingHome:
		set(35, strconv.Itoa(f.beds))
		set(36, strconv.Itoa(f.beds))
		set(46, strconv.Itoa(5+r.IntN(30)))
		set(47, strconv.Itoa(5+r.IntN(30)))
	case kindDialysis:
		set(35, strconv.Itoa(f.beds))
	}
	return row
}
