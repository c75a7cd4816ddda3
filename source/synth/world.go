package synth

import (
	"fmt"
	"math"
	"time"

	"providerdir/ident"
)

// More streams, for the parts of a record that other records need on their own: a facility
// table needs its organization's address and name without building the whole provider.
const (
	streamAddress uint64 = iota + 100
	streamOrgName
	streamTaxonomy
	streamOrgKind
	streamCity
	streamFacilityKind
	streamCCN
	streamRating
	streamFlags
	streamParentName
	streamEndpointVariants
)

// world is everything fixed for one drop: the scale, the seed, the reference data and the tables
// derived from them. Building it costs O(facilities + organizations), never O(providers) of
// full records.
type world struct {
	seed   uint64
	n0     int64   // providers of the base drop (the --providers scale)
	counts []int64 // provider records at each generation; counts[0] == n0
	gen    int     // generation being written; 0 is the base drop
	snaps  []date  // snapshot date of each generation

	ref       *reference
	indivDist cumulative
	orgDist   cumulative
	hospDist  cumulative
	npiPerm   permutation
	pacPerm   permutation
	profPerm  permutation

	facilities    []facility
	facilityEvery int64     // every facilityEvery-th organization of the base drop is a facility
	orgPool       [][]int32 // per state, the practices individuals reassign benefits to
}

// Provider-level shares and scale limits.
const (
	orgEvery         = 5          // every fifth record is an organization: 80% individuals
	shareDeactivated = 0.015      // NPIs deactivated in the base drop
	shareReactivated = 0.2        // of those, reactivated since
	shareExcludedInd = 0.004      // individuals on the LEIE
	shareExcludedOrg = 0.002      // organizations on the LEIE
	sharePayPhys     = 0.30       // physicians with general payments
	sharePayOther    = 0.10       // other covered recipients with general payments
	sharePECOSInd    = 0.75       // Medicare-enrolling professions in PECOS
	sharePECOSOrg    = 0.70       // practices and clinics in PECOS
	shareSecondInd   = 0.07       // individuals with secondary practice locations
	shareSecondOrg   = 0.12       // organizations with secondary practice locations
	facilitiesPer    = 150        // one facility per this many providers at scale
	minFacilities    = 60         // but at least this many (organizations allowing), so small drops have every kind
	maxProviders     = 12_000_000 // base scale; evolved drops add records up to phantomBase
	phantomBase      = 15_000_000 // records from here on are phantoms that bad rows are built from
)

func newWorld(seed uint64, n0 int64, ref *reference, base date) (*world, error) {
	if n0 < 20 || n0 > maxProviders {
		return nil, fmt.Errorf("synth: providers must be between 20 and %d, got %d", maxProviders, n0)
	}
	w := &world{seed: seed, n0: n0, counts: []int64{n0}, snaps: []date{base}, ref: ref}
	iw := make([]float64, len(indivTaxa))
	for i, t := range indivTaxa {
		iw[i] = t.weight
	}
	w.indivDist = newCumulative(iw)
	ow := make([]float64, len(orgTaxa))
	for i, t := range orgTaxa {
		ow[i] = t.weight
	}
	w.orgDist = newCumulative(ow)
	hw := make([]float64, len(hospitalSubtypes))
	for i, h := range hospitalSubtypes {
		hw[i] = h.weight
	}
	w.hospDist = newCumulative(hw)
	// NPI bodies: 100000000..299999999, so NPIs start with 1 or 2 like real ones.
	w.npiPerm = newPermutation(seed, 21, 200_000_000)
	w.pacPerm = newPermutation(seed, 22, 9_000_000_000)
	w.profPerm = newPermutation(seed, 23, 16_000_000)
	if err := w.buildFacilities(); err != nil {
		return nil, err
	}
	w.buildOrgPool()
	return w, nil
}

// addGeneration extends the world by one evolved snapshot a month after the last.
func (w *world) addGeneration() error {
	last := w.counts[len(w.counts)-1]
	if last+newProvidersPerGeneration(w.n0) > phantomBase {
		return fmt.Errorf("synth: %d generations of %d providers exceed %d records", len(w.counts), w.n0, phantomBase)
	}
	w.counts = append(w.counts, last+newProvidersPerGeneration(w.n0))
	w.snaps = append(w.snaps, w.snaps[len(w.snaps)-1].addMonths(1))
	w.gen = len(w.counts) - 1
	return nil
}

func newProvidersPerGeneration(n0 int64) int64 { return max(10, n0/200) }

// total is the number of provider records in the generation being written.
func (w *world) total() int64 { return w.counts[w.gen] }

func (w *world) snapshot() date { return w.snaps[w.gen] }

// bornIn returns the generation that created record i: 0 for the base drop and for records
// beyond every generation (the phantom records bad rows are made from).
func (w *world) bornIn(i int64) int {
	for g, c := range w.counts {
		if i < c {
			return g
		}
	}
	return 0
}

func isOrg(i int64) bool         { return i%orgEvery == orgEvery-1 }
func indivOrdinal(i int64) int64 { return i/orgEvery*(orgEvery-1) + i%orgEvery }
func orgOrdinal(i int64) int64   { return i / orgEvery }
func orgIndex(m int64) int64     { return m*orgEvery + orgEvery - 1 }

// npi returns the NPI of record i: a permuted nine-digit body and its check digit.
func (w *world) npi(i int64) string {
	body := fmt.Sprintf("%09d", 100_000_000+w.npiPerm.at(uint64(i)))
	c, err := ident.NPICheckDigit(body)
	if err != nil {
		panic(err) // the body is nine digits by construction
	}
	return body + string(c)
}

// pacID is the PECOS associate control id: ten digits, unique per record.
func (w *world) pacID(i int64) string {
	return fmt.Sprintf("%010d", 1_000_000_000+w.pacPerm.at(uint64(i)))
}

// indivTaxonState returns the primary taxonomy and state of individual record i from the R2 sequence.
func (w *world) indivTaxonState(i int64) (int, int) {
	u1, u2 := r2(w.seed, streamTaxonomy, indivOrdinal(i))
	return w.indivDist.at(u1), w.ref.stateDist.at(u2)
}

// orgState returns the state of organization record i from the golden-ratio sequence.
func (w *world) orgState(i int64) int {
	return w.ref.stateDist.at(r1(w.seed, streamAddress, orgOrdinal(i)))
}

// orgKind returns the taxonomy entry of a non-facility organization.
func (w *world) orgKind(i int64) int {
	return w.orgDist.at(hash(w.seed, streamOrgKind, uint64(i)))
}

// facilityOf returns the facility index of record i, or -1.
func (w *world) facilityOf(i int64) int {
	if !isOrg(i) || i >= w.n0 {
		return -1
	}
	m := orgOrdinal(i)
	if m%w.facilityEvery != 0 || m/w.facilityEvery >= int64(len(w.facilities)) {
		return -1
	}
	return int(m / w.facilityEvery)
}

// flag draws an independent yes/no for record i from its own hashed stream, so that the writers
// of LEIE, PECOS and Open Payments can skip records without deriving them.
func (w *world) flag(i int64, which uint64, p float64) bool {
	return unit(hash(w.seed, streamFlags, which, uint64(i))) < p
}

const (
	flagDeactivated uint64 = iota + 1
	flagReactivated
	flagExcluded
	flagPECOS
	flagPayments
	flagSecondary
	flagSecondEnrollment
	flagSAM
	flagMIPS
)

// deactivatedBase reports whether record i is deactivated in its first snapshot (and not since
// reactivated). Facilities are never deactivated, so that the facility files stay joined.
func (w *world) deactivatedBase(i int64) (deactivated, reactivated bool) {
	if w.facilityOf(i) >= 0 || i >= w.n0 || !w.flag(i, flagDeactivated, shareDeactivated) {
		return false, false
	}
	if w.flag(i, flagReactivated, shareReactivated) {
		return false, true
	}
	return true, false
}

// excludedBase reports whether record i is on the LEIE in the base drop.
func (w *world) excludedBase(i int64) bool {
	if w.facilityOf(i) >= 0 || i >= w.n0 {
		return false
	}
	if isOrg(i) {
		return w.flag(i, flagExcluded, shareExcludedOrg)
	}
	return w.flag(i, flagExcluded, shareExcludedInd)
}

// pecosEnrolled reports whether record i has a PECOS enrollment (before deactivation).
func (w *world) pecosEnrolled(i int64) bool {
	if f := w.facilityOf(i); f >= 0 {
		return true
	}
	if isOrg(i) {
		switch orgTaxa[w.orgKind(i)].code {
		case "3336C0003X", "332B00000X", "291U00000X":
			return false
		}
		return w.flag(i, flagPECOS, sharePECOSOrg)
	}
	t, _ := w.indivTaxonState(i)
	return indivTaxa[t].pecosCode != "" && w.flag(i, flagPECOS, sharePECOSInd)
}

// paymentRows returns how many general payment rows record i has in the program year.
func (w *world) paymentRows(i int64) int {
	if isOrg(i) || i >= w.n0 {
		return 0
	}
	t, _ := w.indivTaxonState(i)
	p := sharePayOther
	if indivTaxa[t].prof == profMD {
		p = sharePayPhys
	}
	if _, _, ok := openPaymentsType(indivTaxa[t].prof, ""); !ok || !w.flag(i, flagPayments, p) {
		return 0
	}
	// Geometric: most recipients get one or two meals, a few get many rows.
	u := unit(hash(w.seed, streamPayments, uint64(i), 0))
	n := 1 + int(math.Floor(math.Log(1-u)/math.Log(0.55)))
	return min(n, 25)
}

// buildOrgPool lists, per state, the enrolled practice organizations individuals reassign
// benefits to. It holds a 4-byte index per such organization (about one record in ten), the
// only table of the world that grows with the number of providers.
func (w *world) buildOrgPool() {
	w.orgPool = make([][]int32, len(w.ref.states))
	for m := int64(0); orgIndex(m) < w.n0; m++ {
		i := orgIndex(m)
		if w.facilityOf(i) >= 0 && w.facilities[w.facilityOf(i)].kind != kindHospital {
			continue
		}
		if d, _ := w.deactivatedBase(i); d || !w.pecosEnrolled(i) {
			continue
		}
		if w.facilityOf(i) < 0 {
			switch orgTaxa[w.orgKind(i)].code {
			case "193200000X", "193400000X", "261QP2300X", "261QM1300X", "207Q00000X", "207RC0000X", "207N00000X", "208000000X", "111N00000X", "261QR1300X":
			default:
				continue
			}
		}
		s := w.orgState(i)
		w.orgPool[s] = append(w.orgPool[s], int32(i))
	}
}

// baseSnapshot is the default snapshot date of a base drop: the date of the NPPES header release
// the reference header comes from.
var baseSnapshot = ymd(2025, time.June, 8)
