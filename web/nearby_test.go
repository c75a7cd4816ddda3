package web

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/geo"
	"providerdir/mapping/study"
	"providerdir/store"

	"github.com/chromedp/chromedp"
)

// registryEntry is what the near-a-ZIP tests read of a registry record, straight from the store.
type registryEntry struct {
	npi, zip string
	counted  bool // an active individual
	codes    []string
}

// registryEntries reads every registry record of the serving snapshot, one by one.
func registryEntries(t *testing.T, st store.Store) []registryEntry {
	t.Helper()
	ctx := context.Background()
	snap, err := store.Serving(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	q := store.Query{Collection: catalog.RegistryProviders, Generation: snap.Generation(catalog.RegistryProviders), Limit: 1000}
	var out []registryEntry
	for {
		page, err := st.Find(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Docs {
			var b struct {
				Record struct {
					NPI             string `json:"npi"`
					EntityType      string `json:"entity_type"`
					Active          bool   `json:"active"`
					PracticeAddress struct {
						PostalCode string `json:"postal_code"`
					} `json:"practice_address"`
					Taxonomies []struct{ Code string } `json:"taxonomies"`
				} `json:"record"`
			}
			if err := json.Unmarshal(d.Body, &b); err != nil {
				t.Fatal(err)
			}
			r := b.Record
			e := registryEntry{npi: r.NPI, counted: r.Active && r.EntityType == "individual"}
			if len(r.PracticeAddress.PostalCode) >= 5 {
				e.zip = r.PracticeAddress.PostalCode[:5]
			}
			for _, x := range r.Taxonomies {
				e.codes = append(e.codes, x.Code)
			}
			out = append(out, e)
		}
		if page.Next == "" {
			return out
		}
		q.After = page.Next
	}
}

// nearEntry is a provider the near-a-ZIP list should hold, and its distance.
type nearEntry struct {
	npi, zip string
	km       float64
}

// expectNear lists the entries of counted providers holding one of codes whose practice ZIP has
// a ZCTA within radiusMiles of the centroid of zip, in the order the page promises: nearest ZIP
// first (equal distances by ZIP code), then by NPI; each distance measured here.
func expectNear(t *testing.T, entries []registryEntry, codes []string, zip string, radiusMiles float64) []nearEntry {
	t.Helper()
	ix, err := geo.ZCTAs()
	if err != nil {
		t.Fatal(err)
	}
	at, ok := ix.Lookup(zip)
	if !ok {
		t.Fatalf("%s has no ZCTA", zip)
	}
	var out []nearEntry
	for _, e := range entries {
		p, ok := ix.Lookup(e.zip)
		if !e.counted || !ok || !slices.ContainsFunc(e.codes, func(c string) bool { return slices.Contains(codes, c) }) {
			continue
		}
		if km := geo.Km(at, p); km <= radiusMiles*geo.KmPerMile {
			out = append(out, nearEntry{e.npi, e.zip, km})
		}
	}
	slices.SortFunc(out, func(a, b nearEntry) int {
		return cmp.Or(cmp.Compare(a.km, b.km), cmp.Compare(a.zip, b.zip), cmp.Compare(a.npi, b.npi))
	})
	return out
}

// densestZIP is the practice ZIP with a ZCTA that the most counted providers holding one of
// codes share.
func densestZIP(t *testing.T, entries []registryEntry, codes []string) string {
	t.Helper()
	ix, err := geo.ZCTAs()
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	best := ""
	for _, e := range entries {
		if _, ok := ix.Lookup(e.zip); ok && e.counted && slices.ContainsFunc(e.codes, func(c string) bool { return slices.Contains(codes, c) }) {
			n[e.zip]++
			if n[e.zip] > n[best] || n[e.zip] == n[best] && e.zip < best {
				best = e.zip
			}
		}
	}
	if best == "" {
		t.Fatal("no provider of the codes has a practice ZIP with a ZCTA")
	}
	return best
}

var (
	nearRowPattern   = regexp.MustCompile(`<tr data-npi="(\d{10})">[\s\S]*?data-field="miles" data-value="([\d.]+)"`)
	nearHeadPattern  = regexp.MustCompile(`<h3 id="near-results-h">([\d,]+) to ([\d,]+) of ([\d,]+) `)
	nearLinksPattern = regexp.MustCompile(`<a href="([^"]+)" rel="(prev|next)">`)
)

// nearPage is what a supply page shows of its near-a-ZIP list.
type nearPage struct {
	npis         []string
	miles        []float64
	first, total int
	prev, next   string
	status       int
	body         string
}

func getNearPage(t *testing.T, e *env, path string) nearPage {
	t.Helper()
	resp, body := e.get(t, path)
	p := nearPage{status: resp.StatusCode, body: body}
	for _, m := range nearRowPattern.FindAllStringSubmatch(body, -1) {
		p.npis = append(p.npis, m[1])
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			t.Fatal(err)
		}
		p.miles = append(p.miles, v)
	}
	if m := nearHeadPattern.FindStringSubmatch(body); m != nil {
		p.first, p.total = count(t, m[1]), count(t, m[3])
	}
	for _, m := range nearLinksPattern.FindAllStringSubmatch(body, -1) {
		link := strings.ReplaceAll(m[1], "&amp;", "&")
		if m[2] == "prev" {
			p.prev = link
		} else {
			p.next = link
		}
	}
	return p
}

func count(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSupplyPageNear: the supply page's list of a specialty's providers near a ZIP code holds,
// page after page through its links, the active individuals of the specialty's codes (or of the
// subspecialty filtered to) whose practice ZIP's centroid is within the radius, nearest first
// with their distances, and counts them all, as the registry records read one by one say.
func TestSupplyPageNear(t *testing.T) {
	e := demoEnv(t, envOptions{})
	entries := registryEntries(t, e.store)
	sp, _ := study.Lookup("pediatrics")
	zip := densestZIP(t, entries, sp.Codes)
	tests := []struct {
		name   string
		codes  []string
		zip    string
		query  string
		radius float64
		capped bool
	}{
		{"the whole specialty", sp.Codes, zip, "near=" + zip + "&radius=100", 100, false},
		{"ZIP+4, the default radius", sp.Codes, zip, "near=" + zip + "-1234", defaultNearRadius, false},
		{"a radius beyond the cap", sp.Codes, zip, "near=" + zip + "&radius=250", geo.MaxRadiusMiles, true},
		{"a subspecialty", []string{sp.Codes[0]}, zip, "subspecialty=" + sp.Codes[0] + "&near=" + zip + "&radius=50", 50, false},
		{"a ZIP with nobody near", sp.Codes, "99723", "near=99723&radius=5", 5, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := expectNear(t, entries, tt.codes, tt.zip, tt.radius)
			var npis []string
			var miles []float64
			path := "/supply/pediatrics?" + tt.query
			for page := 1; path != ""; page++ {
				p := getNearPage(t, e, path)
				if p.status != http.StatusOK {
					t.Fatalf("%s: %d %s", path, p.status, p.body)
				}
				if len(want) == 0 {
					if !strings.Contains(p.body, `id="near-none"`) || len(p.npis) != 0 {
						t.Errorf("no provider near, and no notice that says so")
					}
					break
				}
				if p.total != len(want) || p.first != (page-1)*20+1 || len(p.npis) == 0 || len(p.npis) > 20 {
					t.Fatalf("page %d: providers %d from %d of %d, want %d in all", page, len(p.npis), p.first, p.total, len(want))
				}
				if (page > 1) != (p.prev != "") {
					t.Errorf("page %d: previous link %q", page, p.prev)
				}
				if capped := strings.Contains(p.body, "A search covers at most 100 miles"); capped != tt.capped {
					t.Errorf("the cap notice shown %v", capped)
				}
				npis, miles = append(npis, p.npis...), append(miles, p.miles...)
				path = p.next
			}
			if len(npis) != len(want) {
				t.Fatalf("%d providers listed, want %d", len(npis), len(want))
			}
			// A page past the end says how many the list has and links its first page.
			if len(want) > 0 && len(want) <= 20 {
				past := getNearPage(t, e, "/supply/pediatrics?"+tt.query+"&page=2")
				first := strings.ReplaceAll(regexp.MustCompile(`id="near-past-end">[^<]*<a href="([^"]+)"`).FindStringSubmatch(past.body)[1], "&amp;", "&")
				if past.status != http.StatusOK || len(past.npis) != 0 || !strings.Contains(first, "page=1") {
					t.Errorf("page 2 of %d: %d, %d providers, first page %q", len(want), past.status, len(past.npis), first)
				}
				if again := getNearPage(t, e, first); !slices.Equal(again.npis, npis) {
					t.Errorf("the first page's link lists %v, want %v", again.npis, npis)
				}
			}
			for i, w := range want {
				if npis[i] != w.npi || math.Abs(miles[i]-w.km/geo.KmPerMile) > 0.051 {
					t.Errorf("#%d: %s at %.1f miles, want %s at %.2f", i+1, npis[i], miles[i], w.npi, w.km/geo.KmPerMile)
				}
			}
		})
	}
}

// TestSupplyPageNearErrors: a ZIP code that is not one, one with no ZCTA (never given a guessed
// position), and a radius or page out of bounds each get a clear message and a 400, with the
// form kept and no list.
func TestSupplyPageNearErrors(t *testing.T) {
	e := demoEnv(t, envOptions{})
	for _, tt := range []struct{ query, want string }{
		{"near=", "Enter a ZIP code of 5 digits"},
		{"near=1234", "&#34;1234&#34; is not a ZIP code"},
		{"near=abcde", "&#34;abcde&#34; is not a ZIP code"},
		{"near=12345-12", "&#34;12345-12&#34; is not a ZIP code"},
		{"near=%3Cb%3E", "&#34;&lt;b&gt;&#34; is not a ZIP code"},
		{"near=00000", "ZIP code 00000 has no Census ZIP Code Tabulation Area"},
		{"near=10001&radius=0", "The radius is a number of miles above 0, up to 100"},
		{"near=10001&radius=-5", "The radius is a number of miles above 0"},
		{"near=10001&radius=1e2", "&#34;1e2&#34; is not"},
		{"near=10001&radius=NaN", "&#34;NaN&#34; is not"},
		{"near=10001&page=0", "The page is a whole number from 1 to 50"},
		{"near=10001&page=51", "The page is a whole number from 1 to 50"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			p := getNearPage(t, e, "/supply/pediatrics?"+tt.query)
			if p.status != http.StatusBadRequest || !strings.Contains(p.body, tt.want) || !strings.Contains(p.body, `id="near-error" role="alert"`) {
				_, section, _ := strings.Cut(p.body, `<section aria-labelledby="near-h"`)
				t.Errorf("%d, want 400 with %q; the section: %.400s", p.status, tt.want, section)
			}
			if len(p.npis) != 0 || strings.Contains(p.body, "<b>") || !strings.Contains(p.body, `aria-invalid="true"`) {
				t.Errorf("a list, unescaped input or no invalid field beside the error")
			}
			if !strings.Contains(p.body, `id="states"`) {
				t.Error("the study's table is gone with the error")
			}
		})
	}
}

// TestBrowserSupplyNear fills the specialty page's near-a-ZIP form in Chromium at desktop and
// phone widths: the list it submits to shows the providers the registry says, nearest first,
// readable on a phone (no page wider than the screen, each row stacked under its labels, text
// in contrast); a ZIP code with no ZCTA gets its message beside the form instead of a list.
func TestBrowserSupplyNear(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{})
	entries := registryEntries(t, e.store)
	sp, _ := study.Lookup("pediatrics")
	zip := densestZIP(t, entries, sp.Codes)
	want := expectNear(t, entries, sp.Codes, zip, 100)
	for _, viewport := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"desktop", 1280, 1000, false}, {"phone", 390, 844, true}} {
		opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(2)}
		if viewport.mobile {
			opts = append(opts, chromedp.EmulateMobile)
		}
		b.do(chromedp.EmulateViewport(viewport.width, viewport.height, opts...))
		b.do(chromedp.Navigate(e.URL + "/supply/pediatrics"))
		b.waitFor(`document.readyState === "complete"`)
		b.do(
			chromedp.SetValue(chromedp.ID("near-zip"), zip),
			chromedp.SetValue(chromedp.ID("near-radius"), "100"),
			chromedp.Click(chromedp.CSS("#near-form button[type=submit]")),
		)
		b.waitFor(`location.search.includes("near=") && document.readyState === "complete" && document.getElementById("near-form") !== null`)
		got := eval[map[string]any](b, `(() => {
			const rows = Array.from(document.querySelectorAll("#near-results tbody tr"));
			const td = rows.length ? rows[0].querySelector("td[data-label=Miles]") : null;
			return {npis: rows.map((r) => r.dataset.npi), miles: rows.map((r) => r.querySelector("td[data-field=miles]").textContent.trim()),
				heading: (document.getElementById("near-results-h") || {}).textContent || "",
				stacked: td !== null && getComputedStyle(td).display === "block",
				over: document.documentElement.scrollWidth > window.innerWidth,
				radius: document.getElementById("near-radius").value, zip: document.getElementById("near-zip").value,
				sources: document.querySelectorAll("#near dl dt").length};
		})()`)
		var npis []string
		for _, n := range got["npis"].([]any) {
			npis = append(npis, n.(string))
		}
		var wantNPIs []string
		for _, w := range want {
			wantNPIs = append(wantNPIs, w.npi)
		}
		if !slices.Equal(npis, wantNPIs) || !strings.Contains(got["heading"].(string), "within 100 miles of ZIP code "+zip) {
			t.Errorf("%s: listed %v under %q, want %v", viewport.name, npis, got["heading"], wantNPIs)
		}
		if got["radius"] != "100" || got["zip"] != zip || got["sources"].(float64) < 2 {
			t.Errorf("%s: the form or the sources after the search: %v", viewport.name, got)
		}
		if viewport.mobile && (got["over"] == true || got["stacked"] != true) {
			t.Errorf("phone: wider than the screen %v, rows stacked %v", got["over"], got["stacked"])
		}
		if low := eval[[]string](b, lowContrastScript); len(low) > 0 {
			t.Errorf("%s: text below 4.5:1 contrast: %v", viewport.name, low)
		}
		b.do(chromedp.ScrollIntoView(chromedp.ID("near")))
		b.screenshot("near-" + viewport.name)

		b.do(
			chromedp.SetValue(chromedp.ID("near-zip"), "00000"),
			chromedp.Click(chromedp.CSS("#near-form button[type=submit]")),
		)
		b.waitFor(`location.search.includes("near=00000") && document.readyState === "complete" && document.getElementById("near-form") !== null`)
		refused := eval[map[string]any](b, `(() => {
			const err = document.getElementById("near-error");
			return {text: err ? err.textContent : "", shown: err !== null && err.offsetParent !== null,
				invalid: document.getElementById("near-zip").getAttribute("aria-invalid"), rows: document.querySelectorAll("#near-results tbody tr").length,
				over: document.documentElement.scrollWidth > window.innerWidth};
		})()`)
		if !strings.Contains(refused["text"].(string), "ZIP code 00000 has no Census ZIP Code Tabulation Area") || refused["shown"] != true ||
			refused["invalid"] != "true" || refused["rows"] != float64(0) || viewport.mobile && refused["over"] == true {
			t.Errorf("%s: a ZIP code with no ZCTA: %v", viewport.name, refused)
		}
		b.screenshot("near-refused-" + viewport.name)
		b.noProblems(failedStatus(http.StatusBadRequest))
	}
}

var fiveDigits = regexp.MustCompile(`^[0-9]{5}$`)

// FuzzParseNear: whatever the near-a-ZIP parameters hold, the request is refused with a message,
// or it searches from the centroid of a 5-digit ZIP code that has a ZCTA, within 0 to 100 miles,
// on a page from 1 to 50; the form never echoes more than a clipped value.
func FuzzParseNear(f *testing.F) {
	for _, s := range [][3]string{{"10001", "25", "1"}, {"10001-1234", "", ""}, {"00000", "5", "2"}, {"", "", ""}, {" 94702 ", "250", "50"},
		{"1e5", "NaN", "-1"}, {"99723", "0.5", "51"}, {"<b>", "1e2", "x"}} {
		f.Add(s[0], s[1], s[2])
	}
	ix, err := geo.ZCTAs()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, near, radius, page string) {
		q := url.Values{"near": {near}}
		if radius != "" {
			q.Set("radius", radius)
		}
		if page != "" {
			q.Set("page", page)
		}
		d, nq, searched := parseNear(q)
		if !searched || len([]rune(d.ZIP)) > 100 {
			t.Fatalf("near given, searched %v, form value of %d characters", searched, len([]rune(d.ZIP)))
		}
		if d.Error != "" {
			return
		}
		p, ok := ix.Lookup(nq.zip)
		if !fiveDigits.MatchString(nq.zip) || !ok || p != nq.at || d.ZIP != nq.zip {
			t.Fatalf("searched from %q at %v (the ZCTA's %v, %v)", nq.zip, nq.at, p, ok)
		}
		if !(nq.radius > 0 && nq.radius <= 100) || d.Radius != nq.radius || nq.page < 1 || nq.page > 50 {
			t.Fatalf("radius %v, page %d", nq.radius, nq.page)
		}
	})
}
