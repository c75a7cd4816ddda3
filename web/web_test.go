package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"providerdir/mapping/study"
	"providerdir/rest/auditpack"
	"providerdir/rest/supply"
	"providerdir/testing/demostore"
	"providerdir/testing/liveserver"
)

func TestDocumentPages(t *testing.T) {
	e := demoEnv(t, envOptions{})
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/docs/limitations", 200, `<h1 id="limitations-of-the-data">Limitations of the data</h1>`},
		{"/docs/limitations", 200, "<li>Every value comes from a published federal file"},
		{"/docs/methodology", 200, `<a href="/docs/methodology/specialty-supply">Specialty supply studies: methodology v20`},
		{"/docs/methodology/specialty-supply", 200, `<th scope="col">field</th>`},
		{"/docs/methodology/specialty-supply", 200, "<code>per_100k</code>"},
		{"/docs/methodology/specialty-supply.md", 200, "<title>Specialty supply studies: methodology v20"},
		{"/docs/methodology/no-such-study", 404, ""},
		{"/docs/methodology/..%2fARCHITECTURE", 404, ""},
	}
	for _, tt := range tests {
		resp, body := e.get(t, tt.path)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d %.60q, want %d containing %q", tt.path, resp.StatusCode, body, tt.status, tt.want)
		}
	}
}

// TestPageHeaders checks that every page (the documents too, rendered from their Markdown) and
// asset carries the pages' security headers and its content type.
func TestPageHeaders(t *testing.T) {
	e := demoEnv(t, envOptions{audit: true})
	tests := []struct {
		path        string
		status      int
		contentType string
		csp         string
	}{
		{"/", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/supply", 200, "text/html; charset=utf-8", ContentSecurityPolicy}, // redirected to the home page's list
		{"/supply/dermatology", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/supply/dermatology?subspecialty=207ND0900X", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/supply/no-such", 404, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/supply/dermatology?subspecialty=208000000X", 400, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/access", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/evidence", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/audit/dermatology-supply", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/audit/no-such", 404, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/static/site.css", 200, "text/css; charset=utf-8", ContentSecurityPolicy},
		{"/static/sort.js", 200, "text/javascript; charset=utf-8", ContentSecurityPolicy},
		{"/static/form.js", 200, "text/javascript; charset=utf-8", ContentSecurityPolicy},
		{"/static/favicon.svg", 200, "image/svg+xml", ContentSecurityPolicy},
		{"/static/", 404, "text/plain; charset=utf-8", ContentSecurityPolicy},
		{"/docs/limitations", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/docs/methodology", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
		{"/docs/methodology/facility-quality", 200, "text/html; charset=utf-8", ContentSecurityPolicy},
	}
	for _, tt := range tests {
		resp, _ := e.get(t, tt.path)
		h := resp.Header
		if resp.StatusCode != tt.status || h.Get("Content-Type") != tt.contentType {
			t.Errorf("%s: %d %q, want %d %q", tt.path, resp.StatusCode, h.Get("Content-Type"), tt.status, tt.contentType)
		}
		if got := h.Get("Content-Security-Policy"); got != tt.csp {
			t.Errorf("%s: CSP %q, want %q", tt.path, got, tt.csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: nosniff %q, referrer policy %q", tt.path, h.Get("X-Content-Type-Options"), h.Get("Referrer-Policy"))
		}
		if tt.csp == ContentSecurityPolicy && h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: X-Frame-Options %q, want DENY", tt.path, h.Get("X-Frame-Options"))
		}
	}
	if strings.Contains(ContentSecurityPolicy, "unsafe-inline") || !strings.Contains(ContentSecurityPolicy, "frame-ancestors 'none'") {
		t.Errorf("CSP %q allows inline code or framing", ContentSecurityPolicy)
	}
}

// TestPagesHaveNoInlineCode checks that no page relies on what the CSP forbids: inline
// scripts, event handler attributes or style attributes and elements.
func TestPagesHaveNoInlineCode(t *testing.T) {
	e := demoEnv(t, envOptions{audit: true})
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>\s*[^<\s]|\son[a-z]+=|\sstyle=|<style`)
	for _, path := range []string{"/", "/supply/pediatrics", "/access", "/evidence", "/audit/dermatology-supply", "/supply/none", "/audit", "/docs/limitations", "/docs/methodology"} {
		_, body := e.get(t, path)
		if m := inline.FindString(body); m != "" {
			t.Errorf("%s: inline code %q", path, m)
		}
	}
}

var (
	rowPattern  = regexp.MustCompile(`(?s)<tr data-state="([A-Z]{2})"[^>]*>(.*?)</tr>`)
	cellPattern = regexp.MustCompile(`data-field="([a-z_0-9]+)" data-value="([^"]*)"`)
	// rowNamePattern finds the state name each table row shows.
	rowNamePattern = regexp.MustCompile(`<th scope="row" data-value="([^"]+)">`)
	tilePattern    = regexp.MustCompile(`<g class="tile q([1-4])( underserved)?" data-state="([A-Z]{2})">`)
	fieldsOnPage   = []string{"active_providers", "population_2024", "per_100k", "rank_density", "quartile", "underserved"}
)

// pageRows reads the table of a supply page: state code -> field -> the value in data-value.
func pageRows(tb testing.TB, html string) (codes []string, rows map[string]map[string]string) {
	tb.Helper()
	rows = map[string]map[string]string{}
	for _, m := range rowPattern.FindAllStringSubmatch(html, -1) {
		cells := map[string]string{}
		for _, c := range cellPattern.FindAllStringSubmatch(m[2], -1) {
			cells[c[1]] = c[2]
		}
		codes = append(codes, m[1])
		rows[m[1]] = cells
	}
	return codes, rows
}

// apiRows reads GET /v1/specialties/{slug}/by-state the same way: state code -> field -> the
// JSON text of the value.
func apiRows(tb testing.TB, e *env, key, query string) (codes []string, rows map[string]map[string]string) {
	tb.Helper()
	resp, body := e.get(tb, "/v1/specialties/"+query, "Authorization", "Bearer "+key)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("by-state %s: %d %s", query, resp.StatusCode, body)
	}
	var doc struct {
		Data []map[string]struct {
			Value json.RawMessage `json:"value"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		tb.Fatal(err)
	}
	rows = map[string]map[string]string{}
	for _, r := range doc.Data {
		var code string
		if err := json.Unmarshal(r["state_code"].Value, &code); err != nil {
			tb.Fatal(err)
		}
		cells := map[string]string{}
		for _, f := range fieldsOnPage {
			cells[f] = string(r[f].Value)
		}
		codes = append(codes, code)
		rows[code] = cells
	}
	return codes, rows
}

// TestSupplyPageMatchesAPI compares every figure of the supply page with the by-state answer
// of the supply API for the same specialty and filter, both over HTTP from one server.
func TestSupplyPageMatchesAPI(t *testing.T) {
	e := demoEnv(t, envOptions{})
	key := e.key(t)
	tests := []struct {
		page, api string
		rows      int
	}{
		{"/supply/dermatology", "dermatology/by-state", 51},
		{"/supply/dermatology?subspecialty=207ND0900X", "dermatology/by-state?subspecialty=207ND0900X", 51},
		{"/supply/dermatology?subspecialty=207nd0900x", "dermatology/by-state?subspecialty=207ND0900X", 51},
		{"/supply/pediatrics?subspecialty=", "pediatrics/by-state", 51},
		{"/supply/cardiology", "cardiology/by-state", 51},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			resp, html := e.get(t, tt.page)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", resp.StatusCode, html)
			}
			pageCodes, page := pageRows(t, html)
			apiCodes, api := apiRows(t, e, key, tt.api)
			if len(apiCodes) != tt.rows || !slices.Equal(slices.Sorted(slices.Values(pageCodes)), slices.Sorted(slices.Values(apiCodes))) {
				t.Fatalf("page states %v, API states %v, want %d", pageCodes, apiCodes, tt.rows)
			}
			var names []string
			for _, m := range rowNamePattern.FindAllStringSubmatch(html, -1) {
				names = append(names, m[1])
			}
			if len(names) != tt.rows || !slices.IsSorted(names) {
				t.Errorf("table rows are not in the order of the state names they show: %v", names)
			}
			for _, code := range apiCodes {
				for _, f := range fieldsOnPage {
					if page[code][f] != api[code][f] {
						t.Errorf("%s %s: page %q, API %q", code, f, page[code][f], api[code][f])
					}
				}
			}
			tiles := tilePattern.FindAllStringSubmatch(html, -1)
			if len(tiles) != len(apiCodes) {
				t.Fatalf("%d map tiles, want %d", len(tiles), len(apiCodes))
			}
			for _, m := range tiles {
				code := m[3]
				if m[1] != api[code]["quartile"] || (m[2] != "") != (api[code]["underserved"] == "true") {
					t.Errorf("tile %s: quartile %s underserved %t, API %s %s", code, m[1], m[2] != "", api[code]["quartile"], api[code]["underserved"])
				}
			}
		})
	}
}

// TestSupplyPageNoMatch: a registered code no provider holds has no rows in the API, and the
// page says so instead of drawing an empty map.
func TestSupplyPageNoMatch(t *testing.T) {
	e := newEnv(t, smallStore(t, 60), envOptions{})
	api := supply.New(e.store, e.URL)
	for _, sp := range study.Specialties() {
		for _, code := range sp.Codes {
			st, rows, err := api.Study(context.Background(), sp.Slug, code)
			if err != nil {
				t.Fatal(err)
			}
			if rows != nil {
				continue
			}
			_, html := e.get(t, "/supply/"+sp.Slug+"?subspecialty="+code)
			if !strings.Contains(html, `id="no-rows"`) || strings.Contains(html, `<g class="tile`) {
				t.Errorf("%s %s (%d providers): no no-rows notice", sp.Slug, code, st.National.ActiveProviders)
			}
			_, body := e.get(t, "/v1/specialties/"+sp.Slug+"/by-state?subspecialty="+code, "Authorization", "Bearer "+e.key(t))
			if !strings.Contains(body, `"data":[]`) {
				t.Errorf("%s %s: API %.100s, want no rows", sp.Slug, code, body)
			}
			return
		}
	}
	t.Fatal("every registered code is held by some provider of the small snapshot")
}

func TestSupplyPageErrors(t *testing.T) {
	e := demoEnv(t, envOptions{})
	tests := []struct {
		path   string
		status int
		want   string
	}{
		{"/supply/nosuch", 404, "No registered specialty has the slug &#34;nosuch&#34;"},
		{"/supply/%3Cscript%3E", 404, "&#34;&lt;script&gt;&#34;"},
		{"/supply/dermatology?subspecialty=208000000X", 400, "supported codes: 207N00000X, 207ND0900X, 207NI0002X, 207NP0225X, 207NS0135X"},
		{"/supply/dermatology?subspecialty=%3Cb%3E", 400, "&#34;&lt;b&gt;&#34;"},
	}
	for _, tt := range tests {
		resp, body := e.get(t, tt.path)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d, want %d containing %q; got %.300s", tt.path, resp.StatusCode, tt.status, tt.want, body)
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, "<b>") {
			t.Errorf("%s: unescaped input in the page", tt.path)
		}
	}
}

// TestHomePage checks the freshness table against GET /v1/health and the links and base URLs.
func TestHomePage(t *testing.T) {
	e := demoEnv(t, envOptions{audit: true})
	resp, page := e.get(t, "/")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%d", resp.StatusCode)
	}
	_, body := e.get(t, "/v1/health")
	var health struct {
		Meta struct {
			DataFreshness []struct {
				Source        string `json:"source"`
				LastRefreshed string `json:"last_refreshed"`
			} `json:"data_freshness"`
		} `json:"meta"`
	}
	if err := json.Unmarshal([]byte(body), &health); err != nil {
		t.Fatal(err)
	}
	if len(health.Meta.DataFreshness) == 0 {
		t.Fatal("health reports no source family")
	}
	for _, f := range health.Meta.DataFreshness {
		want := fmt.Sprintf(`<th scope="row">%s</th>
<td data-label="Last refreshed (UTC)"><time datetime="%s">`, html.EscapeString(f.Source), f.LastRefreshed)
		if !strings.Contains(page, want) {
			t.Errorf("freshness of %s (%s) missing", f.Source, f.LastRefreshed)
		}
	}
	for _, want := range []string{
		"<code>" + e.URL + "/fhir</code>", "<code>" + e.URL + "/v1</code>", "<code>" + e.URL + "/resolver/v1</code>",
		`href="` + e.URL + `/v1/openapi.json"`, `href="` + e.URL + `/fhir/metadata"`,
		`href="/access"`, `href="/evidence"`, `href="/docs/limitations"`, `href="/docs/methodology/specialty-supply"`,
		`href="/supply/pediatrics"`, `href="/audit">16 audit packs</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
	if title := regexp.MustCompile(`<title>(.*?)</title>`).FindStringSubmatch(page); title == nil || title[1] != "Provider directory" {
		t.Errorf("home page title %q, want the site's name once", title)
	}
	if _, page := demoEnv(t, envOptions{}).get(t, "/"); strings.Contains(page, `audit packs</a>, one per study`) {
		t.Error("home page links audit packs without an audit source")
	}
}

// TestAuditPage checks each of the sixteen packs' page against the pack the audit-pack API
// builds: its own table (facility studies count facilities and show the rated count and the
// stars), its steps one item each with commands set as code, and the chart, limitations,
// version history and compliance Q&A the PDF also holds.
func TestAuditPage(t *testing.T) {
	withSource := demoEnv(t, envOptions{audit: true})
	packs := auditpack.New(withSource.store, withSource.URL)
	catalog := packs.Catalog()
	if len(catalog) != 16 {
		t.Fatalf("%d packs in the catalog", len(catalog))
	}
	_, index := withSource.get(t, "/audit")
	for _, entry := range catalog {
		if !strings.Contains(index, `href="/audit/`+entry.DatasetSlug+`"`) {
			t.Errorf("/audit does not link %s", entry.DatasetSlug)
		}
		t.Run(entry.DatasetSlug, func(t *testing.T) {
			p, err := packs.Build(context.Background(), entry.DatasetSlug)
			if err != nil {
				t.Fatal(err)
			}
			resp, body := withSource.get(t, "/audit/"+entry.DatasetSlug)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%d", resp.StatusCode)
			}
			facility := p.Kind == "facility_quality_study"
			heads := regexp.MustCompile(`<button type="button">([^<]+)</button>`).FindAllStringSubmatch(body, -1)
			var titles []string
			for _, h := range heads {
				titles = append(titles, h[1])
			}
			want := []string{"State", "Name", "Providers", "Population", "Per 100k", "Rank", "Quartile", "Underserved"}
			if facility {
				want = []string{"State", "Name", "Facilities", "Population", "Per 100k", "Rank", "Quartile", "Underserved", "Rated", "Stars"}
			}
			if !slices.Equal(titles, want) {
				t.Errorf("table headings %v, want %v", titles, want)
			}
			for _, st := range p.Figures.States {
				row := regexp.MustCompile(`(?s)<tr data-state="` + st.StateCode + `"[^>]*>(.*?)</tr>`).FindStringSubmatch(body)
				if row == nil {
					t.Errorf("no row of %s", st.StateCode)
					continue
				}
				cells := []string{fmt.Sprintf(`data-value="%d">%s<`, st.Count, study.FormatCount(st.Count)),
					fmt.Sprintf(`data-value="%s">`, strconv.FormatFloat(st.Per100k, 'f', -1, 64))}
				if facility {
					cells = append(cells, fmt.Sprintf(`data-value="%d">`, *st.Rated))
					if st.MeanStarRating != nil {
						cells = append(cells, ">"+strconv.FormatFloat(*st.MeanStarRating, 'f', 2, 64)+"<")
					}
				}
				for _, c := range cells {
					if !strings.Contains(row[1], c) {
						t.Errorf("row %s lacks %s: %s", st.StateCode, c, row[1])
					}
				}
			}
			steps := regexp.MustCompile(`(?s)<ol class="steps" id="steps">(.*?)</ol>`).FindStringSubmatch(body)
			if steps == nil || strings.Count(steps[1], "<li ") != len(p.Reproducibility.Steps) || strings.Contains(steps[1], "`") {
				t.Errorf("steps: %d items for %d steps, or a backtick shown", strings.Count(steps[1], "<li "), len(p.Reproducibility.Steps))
			}
			if !strings.Contains(body, "<code>"+auditpack.RejectsCommand+"</code>") {
				t.Error("the command is not set as code")
			}
			texts := []string{`id="threshold-label"`, p.Citation}
			for _, v := range p.VersionHistory {
				texts = append(texts, v.Version, v.Changes)
			}
			for _, qa := range p.Compliance {
				texts = append(texts, qa.Question, qa.Answer)
			}
			texts = append(texts, p.Limitations...)
			for _, want := range texts {
				if !strings.Contains(body, html.EscapeString(want)) && !strings.Contains(body, want) {
					t.Errorf("the page does not say %.80q", want)
				}
			}
			if bars := strings.Count(body, `<g class="bar`); bars != len(p.Figures.States) {
				t.Errorf("%d bars in the chart, want %d", bars, len(p.Figures.States))
			}
		})
	}
	without := demoEnv(t, envOptions{})
	tests := []struct {
		e      *env
		path   string
		status int
		want   string
	}{
		{withSource, "/audit/dermatology-supply", 200, "Audit pack: Dermatology &lt;supply&gt;"},
		{withSource, "/audit/no-such-pack", 404, "Page not found"},
		{withSource, "/audit/broken", 500, "Quote request id"},
		{without, "/audit/dermatology-supply", 404, "Page not found"},
		{without, "/audit", 404, "Page not found"},
	}
	for _, tt := range tests {
		resp, body := tt.e.get(t, tt.path)
		if resp.StatusCode != tt.status || !strings.Contains(body, tt.want) {
			t.Errorf("%s: %d, want %d with %q", tt.path, resp.StatusCode, tt.status, tt.want)
		}
	}
}

// TestAccessFormBoundsMatchServer posts, for each field, a value at the bound the form states
// and one past it to the real intake endpoint: the first must pass the server's check of that
// field, the second fail it, so the browser's checks and the server's agree.
func TestAccessFormBoundsMatchServer(t *testing.T) {
	e := demoEnv(t, envOptions{})
	_, html := e.get(t, "/access")
	attr := func(id, name string) int {
		m := regexp.MustCompile(`id="` + id + `"[^>]* ` + name + `="(\d+)"`).FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("form field %s has no %s", id, name)
		}
		var n int
		fmt.Sscan(m[1], &n)
		return n
	}
	valid := map[string]string{"name": "Ada Lovelace", "email": "ada@example.org", "organization": "Analytical Engines", "intended_use": "Mapping dermatology supply for a state report."}
	email := func(n int) string { // an address of exactly n characters
		return strings.Repeat("a", n-len("@example.org")) + "@example.org"
	}
	tests := []struct {
		field string
		value func(n int) string
		n     int
		ok    bool
	}{
		{"name", func(n int) string { return strings.Repeat("é", n) }, attr("name", "maxlength"), true},
		{"name", func(n int) string { return strings.Repeat("é", n) }, attr("name", "maxlength") + 1, false},
		{"organization", func(n int) string { return strings.Repeat("x", n) }, attr("organization", "maxlength"), true},
		{"organization", func(n int) string { return strings.Repeat("x", n) }, attr("organization", "maxlength") + 1, false},
		{"intended_use", func(n int) string { return strings.Repeat("u", n) }, attr("intended_use", "minlength"), true},
		{"intended_use", func(n int) string { return strings.Repeat("u", n) }, attr("intended_use", "minlength") - 1, false},
		{"intended_use", func(n int) string { return strings.Repeat("u", n) }, attr("intended_use", "maxlength"), true},
		{"intended_use", func(n int) string { return strings.Repeat("u", n) }, attr("intended_use", "maxlength") + 1, false},
		{"email", email, attr("email", "maxlength"), true},
		{"email", email, attr("email", "maxlength") + 1, false},
	}
	for _, tt := range tests {
		form := map[string]string{}
		for k, v := range valid {
			form[k] = v
		}
		form[tt.field] = tt.value(tt.n)
		status, body := e.postJSON(t, PathAccessRequests, liveserver.ClientIP(), form)
		rejected := status == http.StatusBadRequest && strings.Contains(fmt.Sprint(body), "field:"+tt.field)
		if status != http.StatusCreated && !rejected {
			t.Fatalf("%s of %d: %d %v", tt.field, tt.n, status, body)
		}
		if rejected == tt.ok {
			t.Errorf("%s of %d characters: server rejected=%t, form bound says ok=%t", tt.field, tt.n, rejected, tt.ok)
		}
	}
}

// TestTileGrid checks that the map has one cell for each of the study's 51 states and no two
// states share a cell.
func TestTileGrid(t *testing.T) {
	st, rows, err := supply.New(demostore.Open(t).Store, "").Study(context.Background(), "dermatology", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 51 || len(tileGrid) != 51 {
		t.Fatalf("%d rows, %d cells", len(rows), len(tileGrid))
	}
	cells := map[tilePos]string{}
	for _, r := range st.Rows {
		p, ok := tileGrid[r.StateCode]
		if !ok {
			t.Errorf("%s has no cell", r.StateCode)
		}
		if other, taken := cells[p]; taken {
			t.Errorf("%s and %s share cell %v", r.StateCode, other, p)
		}
		if p.Col >= gridCols || p.Row >= gridRows {
			t.Errorf("%s at %v is off the grid", r.StateCode, p)
		}
		cells[p] = r.StateCode
	}
	if m := newStateMap(rows); len(m.Tiles) != 51 {
		t.Errorf("map has %d tiles", len(m.Tiles))
	}
}

func TestLegend(t *testing.T) {
	rows := []study.Row{
		{StateCode: "AA", Per100k: 9, Quartile: 1}, {StateCode: "BB", Per100k: 7.5, Quartile: 1},
		{StateCode: "CC", Per100k: 3, Quartile: 3}, {StateCode: "DD", Per100k: 0, Quartile: 4},
	}
	got := legend(rows)
	want := []legendBand{{1, 7.5, 9, 2}, {3, 3, 3, 1}, {4, 0, 0, 1}}
	if !slices.Equal(got, want) {
		t.Errorf("legend %v, want %v", got, want)
	}
	for _, tt := range []struct {
		band legendBand
		want string
	}{
		{legendBand{1, 7.5, 9, 2}, "7.5 to 9"},
		{legendBand{3, 3, 3, 1}, "3"},
		{legendBand{4, 0, 0, 13}, "none"},
		{legendBand{4, 0, 0.25, 13}, "0 to 0.25"},
	} {
		if got := tt.band.Range(); got != tt.want {
			t.Errorf("band %v says %q, want %q", tt.band, got, tt.want)
		}
	}
}
