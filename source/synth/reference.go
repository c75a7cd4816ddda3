package synth

import (
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strconv"
	"strings"

	"providerdir/source/ccn"
	"providerdir/source/census"
	"providerdir/source/nucc"
	refset "providerdir/source/reference"
	"providerdir/source/zcta"
)

// stateRef is one of the 51 with what the generator draws from it.
type stateRef struct {
	Code, Name, FIPS string
	Pop              int64
	CCNCodes         []string // CCN state codes, the state's main code first
	ZipLo, ZipHi     int      // inclusive range of 3-digit ZIP prefixes
	ZCTAs            []string // the ZCTAs of the census/ centroid table in that range, ascending
	zctaSet          map[string]bool
	Counties         []countyRef
	countyDist       cumulative
}

type countyRef struct {
	Name string // as Care Compare prints it: upper case, without "County"/"Parish"
	FIPS string // five digits
	SSA  string // three-digit SSA-style county code
}

type nuccRef struct {
	Grouping, Classification, Specialization, Display string
}

// reference is the public reference data the generator reads: Census populations for the state
// mix, counties for facility addresses, the NUCC code set for labels, the CCN state table.
type reference struct {
	states    []stateRef // the 51, FIPS order
	stateDist cumulative
	byCode    map[string]int
	nucc      map[string]nuccRef
}

// zipPrefixes are the 3-digit ZIP prefix ranges USPS assigns to each state (the main block).
var zipPrefixes = map[string][2]int{
	"AL": {350, 369}, "AK": {995, 999}, "AZ": {850, 865}, "AR": {716, 729}, "CA": {900, 961},
	"CO": {800, 816}, "CT": {60, 69}, "DE": {197, 199}, "DC": {200, 205}, "FL": {320, 349},
	"GA": {300, 319}, "HI": {967, 968}, "ID": {832, 838}, "IL": {600, 629}, "IN": {460, 479},
	"IA": {500, 528}, "KS": {660, 679}, "KY": {400, 427}, "LA": {700, 714}, "ME": {39, 49},
	"MD": {206, 219}, "MA": {10, 27}, "MI": {480, 499}, "MN": {550, 567}, "MS": {386, 397},
	"MO": {630, 658}, "MT": {590, 599}, "NE": {680, 693}, "NV": {889, 898}, "NH": {30, 38},
	"NJ": {70, 89}, "NM": {870, 884}, "NY": {100, 149}, "NC": {270, 289}, "ND": {580, 588},
	"OH": {430, 459}, "OK": {730, 749}, "OR": {970, 979}, "PA": {150, 196}, "RI": {28, 29},
	"SC": {290, 299}, "SD": {570, 577}, "TN": {370, 385}, "TX": {750, 799}, "UT": {840, 847},
	"VT": {50, 59}, "VA": {220, 246}, "WA": {980, 994}, "WV": {247, 268}, "WI": {530, 549},
	"WY": {820, 831},
}

// loadReference reads the reference files (the layout of source/reference) with the project's
// own loaders, so the generator places providers by exactly the figures the service divides by.
func loadReference(fsys fs.FS) (*reference, error) {
	ref := &reference{byCode: map[string]int{}}
	states, err := census.LoadStates(fsys, census.StatesFile)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	counties, err := census.LoadCounties(fsys, census.CountiesFile)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	codes, err := ccn.Load(fsys, ccn.File)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	taxonomy, err := nucc.Load(fsys, nucc.File)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	// The centroid table is always the built-in one, as the FHIR projection reads it.
	centroids, err := zcta.Load(refset.Embedded(), zcta.File)
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	ccnByState := map[string][]string{}
	for _, c := range codes {
		ccnByState[c.Abbr] = append(ccnByState[c.Abbr], c.Code)
	}
	countiesOf := map[string][]census.County{}
	for _, c := range counties {
		countiesOf[c.StateFIPS] = append(countiesOf[c.StateFIPS], c)
	}
	weights := make([]float64, 0, 51)
	for _, s := range census.The51(states) {
		cs := countiesOf[s.FIPS]
		if len(cs) == 0 {
			return nil, fmt.Errorf("synth: no counties for %s in the Census county file", s.Code)
		}
		z, ok := zipPrefixes[s.Code]
		if !ok {
			return nil, fmt.Errorf("synth: no ZIP range for %s", s.Code)
		}
		st := stateRef{Code: s.Code, Name: s.Name, FIPS: s.FIPS, Pop: s.Population, ZipLo: z[0], ZipHi: z[1],
			CCNCodes: mainCCNFirst(ccnByState[s.Code])}
		if len(st.CCNCodes) == 0 {
			return nil, fmt.Errorf("synth: no CCN state code for %s", s.Code)
		}
		cw := make([]float64, len(cs))
		for i, c := range cs {
			st.Counties = append(st.Counties, countyRef{Name: careCompareCounty(c.Name), FIPS: c.FIPS, SSA: fmt.Sprintf("%03d", (i+1)*10%1000)})
			cw[i] = float64(c.Population)
		}
		st.countyDist = newCumulative(cw)
		st.zctaSet = map[string]bool{}
		for _, c := range centroids {
			if p, _ := strconv.Atoi(c.ZCTA[:3]); p >= st.ZipLo && p <= st.ZipHi {
				st.ZCTAs = append(st.ZCTAs, c.ZCTA)
				st.zctaSet[c.ZCTA] = true
			}
		}
		if len(st.ZCTAs) == 0 {
			return nil, fmt.Errorf("synth: no ZCTA in the ZIP range of %s", s.Code)
		}
		slices.Sort(st.ZCTAs)
		ref.byCode[s.Code] = len(ref.states)
		ref.states = append(ref.states, st)
		weights = append(weights, float64(s.Population))
	}
	if len(ref.states) != 51 {
		return nil, fmt.Errorf("synth: %d of the 51 states in the Census file", len(ref.states))
	}
	ref.stateDist = newCumulative(weights)
	ref.nucc = map[string]nuccRef{}
	for _, t := range taxonomy {
		ref.nucc[t.Code] = nuccRef{Grouping: t.Grouping, Classification: t.Classification, Specialization: t.Specialization, Display: t.DisplayName}
	}
	return ref, nil
}

// mainCCNFirst orders a state's CCN codes with the original two-digit SSA code first (01-53,
// skipping 00, which CMS lists for Arizona as a legacy code), then two-digit overflow codes,
// then the lettered overflow codes.
func mainCCNFirst(codes []string) []string {
	out := append([]string(nil), codes...)
	rank := func(c string) int {
		n, err := strconv.Atoi(c)
		switch {
		case err != nil:
			return 2
		case n >= 1 && n <= 53:
			return 0
		default:
			return 1
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i]), rank(out[j])
		if ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// careCompareCounty turns "Autauga County" into "AUTAUGA", the way Care Compare prints counties.
func careCompareCounty(name string) string {
	for _, suffix := range []string{" City and Borough", " Census Area", " Planning Region", " Municipality", " County", " Parish", " Borough"} {
		if strings.HasSuffix(name, suffix) && len(name) > len(suffix) {
			name = strings.TrimSuffix(name, suffix)
			break
		}
	}
	return strings.ToUpper(name)
}
