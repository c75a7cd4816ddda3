package web

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"providerdir/geo"
	"providerdir/internal/safetext"
	"providerdir/rest/supply"
)

// The near-a-ZIP list of the supply page: the radii the form offers (any radius up to
// geo.MaxRadiusMiles is served when asked for in the URL), the one it starts with, and the
// deepest page.
var nearRadii = []int{5, 10, 25, 50, 100}

const (
	defaultNearRadius = 25
	maxNearPage       = 50
)

// nearData is the near-a-ZIP section of the supply page: the form's values as given, and, once a
// ZIP was given, the error that stopped the search or the page of providers it found.
type nearData struct {
	ZIP     string // the ZIP code as typed (clipped), for the form
	Radius  float64
	Options []radiusOption
	Error   string
	// Searched is true once a ZIP code was given; Capped when the radius asked for was over
	// MaxRadius, which was searched instead.
	Searched, Capped    bool
	MaxRadius, PageSize int
	supply.Nearby
	First, Last int64  // the ordinals of the page's first and last providers
	Prev, Next  string // the links of the neighbouring pages, "" at either end
	// FirstPage links the list's first page from a page past its end, "" elsewhere.
	FirstPage string
	// Positions is the source of the distances: the Census Gazetteer's ZCTA internal points.
	Positions string
}

// radiusOption is one choice of the form's radius list.
type radiusOption struct {
	Miles    float64
	Selected bool
}

// options lists nearRadii, and the radius searched when it is none of them, the searched one
// selected.
func options(radius float64) []radiusOption {
	var out []radiusOption
	for _, r := range nearRadii {
		if radius < float64(r) && (len(out) == 0 || out[len(out)-1].Miles < radius) {
			out = append(out, radiusOption{radius, true})
		}
		out = append(out, radiusOption{float64(r), radius == float64(r)})
	}
	return out
}

// nearQuery is a checked near-a-ZIP request.
type nearQuery struct {
	at     geo.Point
	zip    string
	radius float64
	page   int
}

// parseNear reads the near-a-ZIP parameters of the supply page: near (a 5-digit ZIP code, or
// ZIP+4), radius (miles, capped at geo.MaxRadiusMiles) and page. ok is false when near is not
// given; a non-empty message is a request the page refuses. A ZIP code with no Census ZCTA has
// no position, and is refused rather than placed anywhere.
func parseNear(q url.Values) (d nearData, nq nearQuery, ok bool) {
	d = nearData{ZIP: safetext.Echo(strings.TrimSpace(q.Get("near"))), Radius: defaultNearRadius, Options: options(defaultNearRadius),
		MaxRadius: geo.MaxRadiusMiles, PageSize: supply.NearbyPage,
		Positions: "the internal point of each ZIP code's ZIP Code Tabulation Area, Census Bureau Gazetteer " + geo.Vintage}
	if !q.Has("near") {
		return d, nq, false
	}
	d.Searched = true
	fail := func(msg string) (nearData, nearQuery, bool) { d.Error = msg; return d, nq, true }
	zip, plus4, four := strings.Cut(d.ZIP, "-")
	if d.ZIP == "" {
		return fail("Enter a ZIP code of 5 digits, such as 10001.")
	}
	if len(zip) != 5 || strings.Trim(zip, "0123456789") != "" || four && (len(plus4) != 4 || strings.Trim(plus4, "0123456789") != "") {
		return fail(fmt.Sprintf("%q is not a ZIP code: enter the 5 digits of one, such as 10001.", d.ZIP))
	}
	ix, err := geo.ZCTAs()
	if err != nil {
		return fail("ZIP code positions are not available on this server.")
	}
	at, found := ix.Lookup(zip)
	if !found {
		return fail("ZIP code " + zip + " has no Census ZIP Code Tabulation Area (post-office box and single-business ZIP codes have none), " +
			"so the directory has no position for it. Enter the ZIP code of a street address nearby.")
	}
	nq = nearQuery{at: at, zip: zip, radius: defaultNearRadius, page: 1}
	if s := q.Get("radius"); s != "" {
		r, err := geo.Decimal(s)
		if err != nil || r <= 0 {
			return fail(fmt.Sprintf("The radius is a number of miles above 0, up to %d; %q is not.", geo.MaxRadiusMiles, safetext.Echo(s)))
		}
		d.Capped = r > geo.MaxRadiusMiles
		nq.radius = min(r, geo.MaxRadiusMiles)
	}
	d.Radius, d.Options = nq.radius, options(nq.radius)
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxNearPage {
			return fail(fmt.Sprintf("The page is a whole number from 1 to %d.", maxNearPage))
		}
		nq.page = n
	}
	d.ZIP = zip
	return d, nq, true
}

// nearby fills d with the page of the specialty's providers (holding one of codes) that nq
// asks for, and the links of its neighbouring pages, which keep the page's other parameters.
func (s *Site) nearby(ctx context.Context, d *nearData, nq nearQuery, codes []string, self url.URL) error {
	found, err := s.supply.Nearby(ctx, codes, nq.at, nq.radius, nq.page)
	if err != nil {
		return err
	}
	d.Nearby = found
	if len(found.Providers) > 0 {
		d.First = int64((nq.page-1)*supply.NearbyPage + 1)
		d.Last = d.First + int64(len(found.Providers)) - 1
	}
	link := func(page int) string {
		q := self.Query()
		q.Set("page", strconv.Itoa(page))
		return self.Path + "?" + q.Encode() + "#near"
	}
	switch {
	case nq.page > 1 && len(found.Providers) == 0:
		d.FirstPage = link(1)
	case nq.page > 1:
		d.Prev = link(nq.page - 1)
	}
	if d.Last < found.Total && nq.page < maxNearPage {
		d.Next = link(nq.page + 1)
	}
	return nil
}
