// Package synth writes synthetic provider data in the real federal file formats: a "drop" of
// the files the service ingests, at any scale, the same bytes for the same seed. Tests and demos
// use it because the provider-level federal files name real people; the reference files
// (Census, NUCC, CCN state codes, the NPPES header) are real and read, never invented.
//
// A drop holds:
//
//	nppes         npidata_pfile_20050523-<date>.csv (the 330-column header copied from the
//	              reference), pl_pfile_... (secondary practice locations), othername_pfile_...
//	leie          UPDATED.csv (header unquoted, values quoted, CRLF, YYYYMMDD, 00000000 = none)
//	pecos         PPEF_Enrollment_Extract_<quarter>.csv, PPEF_Reassignment_Extract_<quarter>.csv,
//	              Hospital_Enrollments_<quarter>.csv (organization NPI to hospital CCN)
//	pos           Hospital_and_other.DATA.Q<n>_<year>.csv (Provider of Services)
//	carecompare   Hospital_General_Information.csv, NH_ProviderInfo_<MonYYYY>.csv,
//	              DFC_FACILITY.csv, HH_Provider_<MonYYYY>.csv,
//	              Hospice_General-Information_<MonYYYY>.csv,
//	              Provider_CAHPS_Hospice_Survey_Data_<MonYYYY>.csv (long format), ASC_Facility.csv
//	openpayments  OP_DTL_GNRL_PGY<year>_P<mmddyyyy>.csv (Covered_Recipient_* names) and a
//	              smaller older program year with the Physician_* names and no NPI
//	sam           SAM_Exclusions_Public_Extract_V2_<yyddd>.csv (quoted, CRLF, blank lines,
//	              "Indefinite"; the DUNS layout without V2 for a drop dated before April 2022)
//	qpp           ec_score_file_PY<year>.csv, the MIPS final scores of the latest performance year
//	              (", "-separated header) and of an older one in that year's layout (lst_nm, N/A)
//	manifest.json seed, scale, snapshot dates, per-file rows and hashes, the deliberately bad
//	              rows (file, line, reason), expected counts, and for an evolved drop the changes
//
// # Records are functions of (seed, index)
//
// Nothing is remembered between records: provider i is derived from the seed and i alone, by
// seeded PCG generators reset per record and per purpose (see rng.go), so a national-scale drop
// of 9 million providers streams in bounded memory, the provider pass runs on several goroutines
// without changing a byte, and an evolved drop can recompute any record of the drop it evolves
// from. Identifiers are unique by construction rather than by lookup: NPIs, PECOS ids and
// profile ids come from affine permutations of the index. The taxonomy and state of the k-th
// individual come from a low-discrepancy sequence, so state shares track the Census 2024
// populations closely and every registered specialty and subspecialty of the supply API has real
// counts even at 2,000 providers.
//
// # Joins
//
// The files join the way the real ones do: every fifth record is an organization, some of which
// are facilities (hospitals, nursing homes, home health agencies, hospices, dialysis facilities,
// ambulatory surgical centers) with a CCN whose state code is one of their state's, a POS row,
// a PECOS enrollment (and for hospitals a Hospital_Enrollments row) and, unless terminated, a
// Care Compare row. LEIE, PECOS, Open Payments and MIPS rows carry NPIs of NPPES records; SAM
// mirrors part of the LEIE, some records with the NPI, beside other agencies' records without.
//
// # Bad rows
//
// Every family gets a handful of rows that a reader must reject (a wrong NPI check digit, a date
// that does not exist, a wrong column count, a malformed CCN). They are extra rows built from
// records that appear nowhere else, so their keys match no good row, and the manifest lists each
// with its file and line: a reader should read Rows-BadRows records and reject exactly those.
//
// # Evolution
//
// Generate with EvolveFrom writes the next monthly snapshot of an earlier drop: some providers
// move, gain a taxonomy, are excluded or deactivated, a block of new providers is enumerated, a
// few facilities terminate or change star rating. The manifest lists every changed NPI and CCN
// by kind; everything else is unchanged, and files whose content does not depend on the
// snapshot (Open Payments, MIPS scores) are byte-identical.
package synth
