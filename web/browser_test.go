package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"providerdir/testing/externaltools"
	"providerdir/testing/liveserver"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gorilla/mux"
)

// browserNames are the Chromium executables looked up on PATH, Debian's package first.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// findBrowser returns the Chromium to drive: $CHROMIUM_PATH, else the first of browserNames on
// PATH, else "".
func findBrowser() string {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// consoleProblem is an error the page reported: a console.error or console.assert call, an
// uncaught exception, or an error entry of the browser log (a failed request, a CSP violation).
type consoleProblem struct {
	Source, Text string
}

// browser is one headless Chromium tab with the problems its pages reported.
type browser struct {
	t        *testing.T
	ctx      context.Context
	dir      string
	mu       sync.Mutex
	problems []consoleProblem
}

// stepTimeout bounds one browser step, so a broken page fails its test instead of hanging it.
const stepTimeout = time.Minute

// newBrowser starts a headless Chromium for the test; without one the test ends as
// externaltools.Missing says. Screenshots go to $ARTIFACTS/web/<test> when ARTIFACTS is set (kept), else to a temporary
// directory removed after the test.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := findBrowser()
	if path == "" {
		externaltools.Missing(t, "no Chromium to drive: none of "+strings.Join(browserNames, ", ")+
			" is on PATH and CHROMIUM_PATH is unset; install Debian's chromium package (apt-get install -y chromium)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 1000),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, dir: artifactDir(t)}
	if err := chromedp.Listen(ctx, b.record); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return b
}

func artifactDir(t *testing.T) string {
	root := os.Getenv("ARTIFACTS")
	if root == "" {
		return t.TempDir()
	}
	dir := filepath.Join(root, "web", strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// record keeps the problems a page reports; it runs in the tab's event loop, so it only appends.
func (b *browser) record(ev any) {
	var p consoleProblem
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		var parts []string
		for _, a := range ev.Args {
			parts = append(parts, string(a.Value)+a.Description)
		}
		p = consoleProblem{"console." + string(ev.Type), strings.Join(parts, " ")}
	case *runtime.EventExceptionThrown:
		p = consoleProblem{"exception", ev.ExceptionDetails.Text}
		if ev.ExceptionDetails.Exception != nil {
			p.Text += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		p = consoleProblem{"log." + string(ev.Entry.Source), ev.Entry.Text + " " + ev.Entry.URL}
	default:
		return
	}
	b.mu.Lock()
	b.problems = append(b.problems, p)
	b.mu.Unlock()
}

// noProblems fails the test for every problem reported so far that allowed does not accept,
// and forgets them all.
func (b *browser) noProblems(allowed func(consoleProblem) bool) {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		if allowed == nil || !allowed(p) {
			b.t.Errorf("page reported %s: %s", p.Source, p.Text)
		}
	}
	b.problems = nil
}

// failedStatus accepts the browser's log line of a request answered with the status, which a
// page that shows a server's refusal causes on purpose.
func failedStatus(status int) func(consoleProblem) bool {
	return func(p consoleProblem) bool {
		return p.Source == "log.network" && strings.Contains(p.Text, "status of "+strconv.Itoa(status))
	}
}

// do runs steps, failing the test on an error.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a script expression in the page and decodes its value.
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor waits until a script expression is true. A poll that a navigation interrupts (a
// form submitted with GET loads a new document) is started again in the new document.
func (b *browser) waitFor(expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](expr))
		if err == nil {
			return
		}
		if ctx.Err() != nil || !(strings.Contains(err.Error(), "navigated") || strings.Contains(err.Error(), "Cannot find context")) {
			b.t.Fatalf("wait for %s: %v", expr, err)
		}
	}
}

// screenshot saves the whole page as a PNG artifact.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", path)
}

// TestBrowserPages loads every page on a desktop and a phone viewport: each renders its heading
// without a console error, and on the phone no page is wider than the screen.
func TestBrowserPages(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{audit: true})
	pages := []struct{ name, path, heading string }{
		{"home", "/", "Provider directory"},
		{"supply", "/supply/pediatrics", "per 100,000 by state"},
		{"access", "/access", "Request pilot access"},
		{"evidence", "/evidence", "Ask the evidence demo"},
		{"audit", "/audit/dermatology-supply", "Audit pack: Dermatology <supply>"},
		{"audit-facility", "/audit/nursing-home-quality", "Audit pack: Nursing home"},
		{"audit-index", "/audit", "Audit packs"},
		{"limitations", "/docs/limitations", "Limitations of the data"},
		{"methodology", "/docs/methodology", "Methodology"},
		{"methodology-supply", "/docs/methodology/specialty-supply", "Specialty supply"},
		{"not-found", "/supply/nosuch", "Specialty not found"},
	}
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
		for _, p := range pages {
			b.do(chromedp.Navigate(e.URL + p.path))
			b.waitFor(`document.readyState === "complete"`)
			if h1 := eval[string](b, `document.querySelector("h1").textContent`); !strings.Contains(h1, p.heading) {
				t.Errorf("%s: heading %q, want %q", p.path, h1, p.heading)
			}
			if viewport.mobile {
				if over := eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth`); over {
					t.Errorf("%s: wider than a %d-pixel phone screen", p.path, viewport.width)
				}
			}
			if low := eval[[]string](b, lowContrastScript); len(low) > 0 {
				t.Errorf("%s: text below 4.5:1 contrast: %v", p.path, low)
			}
			b.screenshot(p.name + "-" + viewport.name)
			b.noProblems(func(c consoleProblem) bool { return p.name == "not-found" && failedStatus(404)(c) })
		}
	}
}

// TestBrowserAuditPages: /audit, reached from the home page, lists the sixteen packs; a facility
// pack's page shows its own table (facilities, rated, stars) and, as its PDF does, a chart whose
// state labels do not overlap, whose longest bar ends short of the axis and whose threshold line
// is labelled inside the chart, the version history and the compliance Q&A; at desktop and
// phone widths.
func TestBrowserAuditPages(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{audit: true})
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
		b.do(chromedp.Navigate(e.URL + "/"))
		b.do(chromedp.Click(chromedp.CSS(`main a[href="/audit"]`)))
		b.waitFor(`location.pathname === "/audit" && document.readyState === "complete"`)
		if n := eval[int](b, `document.querySelectorAll("main ul.packs a[href^='/audit/']").length`); n != 16 {
			t.Errorf("/audit links %d packs, want 16", n)
		}
		b.screenshot("index-" + viewport.name)
		b.do(chromedp.Click(chromedp.CSS(`a[href="/audit/dialysis-quality"]`)))
		b.waitFor(`location.pathname === "/audit/dialysis-quality" && document.readyState === "complete"`)
		heads := eval[[]string](b, `Array.from(document.querySelectorAll("#audit-rows thead th")).map((th) => th.textContent.trim())`)
		if !slices.Contains(heads, "Facilities") || !slices.Contains(heads, "Rated") || !slices.Contains(heads, "Stars") || slices.Contains(heads, "Providers") {
			t.Errorf("facility table headings %v", heads)
		}
		chart := eval[map[string]any](b, `(() => {
			const svg = document.querySelector("#chart svg");
			const box = svg.getBoundingClientRect();
			const codes = Array.from(svg.querySelectorAll("g.bar text.code")).map((t) => t.getBoundingClientRect());
			let overlaps = 0;
			for (let i = 1; i < codes.length; i++) if (codes[i].top < codes[i - 1].bottom - 0.5) overlaps++;
			const bars = Array.from(svg.querySelectorAll("g.bar rect")).map((r) => r.getBoundingClientRect().right);
			const grid = Array.from(svg.querySelectorAll("line.grid")).map((l) => l.getBoundingClientRect().left);
			const label = document.getElementById("threshold-label").getBoundingClientRect();
			return {bars: bars.length, overlaps, longest: Math.max(...bars), axisEnd: Math.max(...grid),
				labelInside: label.left >= box.left - 0.5 && label.right <= box.right + 0.5 && label.width > 0,
				fontPx: parseFloat(getComputedStyle(svg.querySelector("text.code")).fontSize) * box.width / svg.viewBox.baseVal.width,
				history: document.querySelectorAll("#history dt").length, qa: document.querySelectorAll("#compliance dt").length};
		})()`)
		if chart["bars"] != float64(51) || chart["overlaps"] != float64(0) || chart["labelInside"] != true {
			t.Errorf("%s chart: %v", viewport.name, chart)
		}
		if chart["longest"].(float64) >= chart["axisEnd"].(float64) {
			t.Errorf("%s chart: the longest bar reaches the axis' end: %v", viewport.name, chart)
		}
		if chart["fontPx"].(float64) < 8 {
			t.Errorf("%s chart: labels %.1f px high", viewport.name, chart["fontPx"])
		}
		if chart["history"].(float64) < 1 || chart["qa"].(float64) < 5 {
			t.Errorf("%s: version history or compliance Q&A missing: %v", viewport.name, chart)
		}
		b.screenshot("dialysis-" + viewport.name)
		b.noProblems(nil)
	}
}

// TestBrowserPhoneTables: at 390 pixels the home page's tables stack each row under its labels
// (no base URL broken over more than two lines, nothing cut), and a table that still scrolls
// sideways says so.
func TestBrowserPhoneTables(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{audit: true})
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	b.do(chromedp.Navigate(e.URL + "/"))
	b.waitFor(`document.readyState === "complete"`)
	home := eval[map[string]any](b, `(() => {
		const lines = (el) => Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || 20));
		const codes = Array.from(document.querySelectorAll("#surfaces code"));
		const cut = Array.from(document.querySelectorAll("#surfaces td, #freshness td")).filter((td) => td.scrollWidth > td.clientWidth + 1 || td.getBoundingClientRect().right > window.innerWidth);
		return {maxLines: Math.max(...codes.map((c) => c.getClientRects().length)), cut: cut.map((td) => td.textContent.slice(0, 40)),
			access: document.querySelector("#surfaces td[data-label=Access]").getBoundingClientRect().width};
	})()`)
	if home["maxLines"].(float64) > 2 || len(home["cut"].([]any)) > 0 || home["access"].(float64) < 250 {
		t.Errorf("home page tables at 390 px: %v", home)
	}
	b.screenshot("home-phone")
	for _, path := range []string{"/supply/dermatology", "/audit/dermatology-supply"} {
		b.do(chromedp.Navigate(e.URL + path))
		b.waitFor(`document.readyState === "complete"`)
		scroll := eval[map[string]any](b, `(() => {
			const box = document.querySelector("table.sortable").closest(".scroll");
			const hint = document.querySelector(".scroll-hint");
			return {scrolls: box.scrollWidth > box.clientWidth, hint: hint !== null && hint.offsetParent !== null && hint.textContent.includes("sideways"),
				shadow: getComputedStyle(box).backgroundImage.includes("gradient")};
		})()`)
		if scroll["scrolls"] == true && (scroll["hint"] != true || scroll["shadow"] != true) {
			t.Errorf("%s: the table scrolls sideways without a cue: %v", path, scroll)
		}
		b.screenshot(strings.Trim(strings.ReplaceAll(path, "/", "-"), "-") + "-phone")
	}
	b.noProblems(nil)
}

// lowContrastScript lists the visible text whose contrast with its background is below WCAG
// AA's 4.5:1: HTML text against the first opaque background behind it, and each map tile's
// label against the tile's own shade.
const lowContrastScript = `(() => {
	const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
	const lum = ([r, g, b]) => {
		const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
		return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
	};
	const ratio = (a, b) => { const x = lum(rgb(a)), y = lum(rgb(b)); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
	const background = (el) => {
		for (; el; el = el.parentElement) {
			const c = getComputedStyle(el).backgroundColor;
			const v = rgb(c);
			if (v.length === 3 || (v.length === 4 && v[3] === 1)) return c;
		}
		return "rgb(255, 255, 255)";
	};
	const low = [];
	for (const el of document.querySelectorAll("body *:not(svg):not(svg *)")) {
		const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim() !== "");
		if (!own || el.offsetParent === null) continue;
		const r = ratio(getComputedStyle(el).color, background(el));
		if (r < 4.5) low.push(el.tagName + " " + el.textContent.trim().slice(0, 30) + " " + r.toFixed(2));
	}
	for (const g of document.querySelectorAll("g.tile")) {
		const r = ratio(getComputedStyle(g.querySelector("text")).fill, getComputedStyle(g.querySelector("rect")).fill);
		if (r < 4.5) low.push("tile " + g.dataset.state + " " + r.toFixed(2));
	}
	return low;
})()`

// TestBrowserSupplyPage checks the map's 51 shaded states, the sort buttons with the mouse and
// the keyboard, and the subspecialty filter, against the supply API's figures.
func TestBrowserSupplyPage(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{})
	key := e.key(t)
	b.do(chromedp.Navigate(e.URL + "/supply/dermatology"))

	shaded := eval[int](b, `Array.from(document.querySelectorAll("#map g.tile rect")).filter((r) => {
		const fill = getComputedStyle(r).fill;
		return fill !== "" && fill !== "none" && fill !== "rgb(0, 0, 0)";
	}).length`)
	if shaded != 51 {
		t.Errorf("%d shaded states, want 51", shaded)
	}
	shades := eval[map[string][]string](b, `(() => {
		const out = {};
		for (const g of document.querySelectorAll("#map g.tile")) {
			const q = Array.from(g.classList).find((c) => /^q[1-4]$/.test(c));
			(out[q] = out[q] || []).push(getComputedStyle(g.querySelector("rect")).fill);
		}
		return out;
	})()`)
	seen := map[string]string{}
	for q, fills := range shades {
		for _, f := range fills {
			if f != fills[0] {
				t.Errorf("quartile %s has two shades: %s and %s", q, fills[0], f)
			}
		}
		if other, ok := seen[fills[0]]; ok {
			t.Errorf("quartiles %s and %s share the shade %s", q, other, fills[0])
		}
		seen[fills[0]] = q
	}
	_, api := apiRows(t, e, key, "dermatology/by-state")
	underserved := 0
	for _, r := range api {
		if r["underserved"] == "true" {
			underserved++
		}
	}
	if got := eval[int](b, `document.querySelectorAll("#map g.tile.underserved").length`); got != underserved {
		t.Errorf("%d underserved tiles, API has %d", got, underserved)
	}
	if w := eval[float64](b, `Math.max(...Array.from(document.querySelectorAll(".legend .swatch")).map((s) => s.getBoundingClientRect().width))`); w > 24 {
		t.Errorf("legend swatches %.0f pixels wide", w)
	}
	b.screenshot("map")

	column := func(field string) []string {
		return eval[[]string](b, `Array.from(document.querySelectorAll('#states tbody td[data-field="`+field+`"]')).map((td) => td.dataset.value)`)
	}
	sortState := func(i int) string {
		return eval[string](b, fmt.Sprintf(`document.querySelectorAll("#states thead th")[%d].getAttribute("aria-sort") || ""`, i))
	}
	perHead := `#states thead th:nth-child(4) button`
	b.do(chromedp.Click(chromedp.CSS(perHead)))
	if got := numbers(t, column("per_100k")); !slices.IsSorted(got) || sortState(3) != "ascending" {
		t.Errorf("after one click: aria-sort %q, per_100k %v", sortState(3), got)
	}
	b.do(chromedp.Click(chromedp.CSS(perHead)))
	got := numbers(t, column("per_100k"))
	slices.Reverse(got)
	if !slices.IsSorted(got) || sortState(3) != "descending" {
		t.Errorf("after two clicks: aria-sort %q, per_100k reversed %v", sortState(3), got)
	}
	if status := eval[string](b, `document.getElementById("sort-status").textContent`); status != "Sorted by Per 100,000, descending." {
		t.Errorf("live region says %q", status)
	}
	b.screenshot("sorted-by-density")

	// The keyboard alone reaches a sort button with Tab and sorts with Enter.
	b.do(chromedp.Navigate(e.URL + "/supply/dermatology"))
	reached := false
	for range 120 {
		b.do(chromedp.KeyEvent(kb.Tab))
		if eval[bool](b, `document.activeElement.matches("#states thead th button")`) {
			reached = true
			break
		}
	}
	if !reached {
		t.Fatal("Tab never reached a sort button")
	}
	focused := eval[string](b, `document.activeElement.textContent`)
	b.do(chromedp.KeyEvent(kb.Enter))
	if s := eval[string](b, `document.activeElement.closest("th").getAttribute("aria-sort")`); s != "ascending" {
		t.Errorf("Enter on the focused %q button: aria-sort %q", focused, s)
	}
	states := eval[[]string](b, `Array.from(document.querySelectorAll("#states tbody th")).map((th) => th.dataset.value)`)
	if focused == "State" && !slices.IsSortedFunc(states, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }) {
		t.Errorf("sorted by state: %v", states)
	}

	// The filter is a plain GET form.
	b.do(
		chromedp.SetValue(chromedp.ID("subspecialty"), "207ND0900X"),
		chromedp.Click(chromedp.CSS("#filter button[type=submit]")),
	)
	b.waitFor(`location.search === "?subspecialty=207ND0900X" && document.readyState === "complete" && document.querySelector("#states") !== null`)
	if sel := eval[string](b, `document.getElementById("subspecialty").value`); sel != "207ND0900X" {
		t.Errorf("the filter shows %q after applying it", sel)
	}
	_, filtered := apiRows(t, e, key, "dermatology/by-state?subspecialty=207ND0900X")
	page := eval[map[string]map[string]string](b, `(() => {
		const out = {};
		for (const tr of document.querySelectorAll("#states tbody tr")) {
			const row = {};
			for (const td of tr.querySelectorAll("td[data-field]")) row[td.dataset.field] = td.dataset.value;
			out[tr.dataset.state] = row;
		}
		return out;
	})()`)
	if len(page) != 51 {
		t.Fatalf("filtered table has %d rows", len(page))
	}
	for code, row := range filtered {
		for f, v := range row {
			if page[code][f] != v {
				t.Errorf("filtered %s %s: page %q, API %q", code, f, page[code][f], v)
			}
		}
	}
	b.screenshot("filtered")
	b.noProblems(nil)
}

func numbers(t *testing.T, values []string) []float64 {
	t.Helper()
	out := make([]float64, len(values))
	for i, v := range values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = f
	}
	if len(out) != 51 {
		t.Fatalf("%d values, want 51", len(out))
	}
	return out
}

// TestBrowserAccessForm submits the access form empty (the page's own checks answer and nothing
// is sent), with a value only the server refuses (its message shows under the field), and valid
// (the confirmation shows the reference of the stored request).
func TestBrowserAccessForm(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{})
	ctx := context.Background()
	before, err := e.intake.List(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.Navigate(e.URL + "/access"))

	b.do(chromedp.Click(chromedp.CSS("#access-form button[type=submit]")))
	b.waitFor(`!document.getElementById("form-errors").hidden`)
	if n := eval[int](b, `document.querySelectorAll("#access-form [aria-invalid=true]").length`); n != 4 {
		t.Errorf("%d fields marked invalid, want 4", n)
	}
	if msg := eval[string](b, `document.getElementById("intended_use-error").textContent`); msg != "Intended use is required." {
		t.Errorf("intended use message %q", msg)
	}
	if id := eval[string](b, `document.activeElement.id`); id != "form-errors" {
		t.Errorf("focus on %q after a failed check, want the error summary", id)
	}
	b.screenshot("client-errors")
	after, err := e.intake.List(ctx, false)
	if err != nil || len(after) != len(before) {
		t.Fatalf("the page's own check stored a request: %d -> %d (%v)", len(before), len(after), err)
	}

	fill := func(name string) {
		b.do(
			chromedp.SetValue(chromedp.ID("name"), name),
			chromedp.SetValue(chromedp.ID("email"), "ada@example.org"),
			chromedp.SetValue(chromedp.ID("organization"), "Analytical Engines"),
			chromedp.SetValue(chromedp.ID("intended_use"), "A state report on dermatology supply."),
			chromedp.Click(chromedp.CSS("#access-form button[type=submit]")),
		)
	}
	fill("Ada\u200bLovelace") // a zero-width space: only the server checks for invisible characters
	b.waitFor(`document.getElementById("name-error").textContent.includes("invisible")`)
	if n := eval[int](b, `document.querySelectorAll("#access-form [aria-invalid=true]").length`); n != 1 {
		t.Errorf("%d fields marked invalid after the server's answer, want 1", n)
	}
	b.screenshot("server-errors")
	b.noProblems(failedStatus(400))

	fill("Ada Lovelace")
	b.waitFor(`!document.getElementById("confirmation").hidden`)
	id := eval[string](b, `document.getElementById("confirmation-id").textContent`)
	req, err := e.intake.Get(ctx, id)
	if err != nil || req.Email != "ada@example.org" || req.Name != "Ada Lovelace" {
		t.Errorf("confirmation %q: stored %+v, %v", id, req, err)
	}
	if hidden := eval[bool](b, `document.getElementById("access-form").hidden`); !hidden {
		t.Error("the form stays after the confirmation")
	}
	if n := eval[int](b, `document.getElementById("confirmation").innerText.split("Request received").length - 1`); n > 1 {
		t.Errorf("the confirmation says %q %d times", "Request received", n)
	}
	b.screenshot("confirmation")
	b.noProblems(nil)
}

// The pages say a Retry-After as a span and the UTC time it ends, never as a count of seconds.
func TestBrowserWaitText(t *testing.T) {
	b := newBrowser(t)
	e := demoEnv(t, envOptions{})
	b.do(chromedp.Navigate(e.URL + "/access"))
	now := time.Date(2026, 12, 7, 0, 8, 34, 0, time.UTC).UnixMilli()
	for _, tt := range []struct{ retryAfter, want string }{
		{"85886", "in 23 h 52 min (after 00:00 UTC)"},
		{"3600", "in 1 h (after 01:08 UTC)"},
		{"240", "in 4 min (after 00:12 UTC)"},
		{"30", "in 30 seconds"},
		{"1", "in 1 second"},
		{"soon", ""},
		{"-5", ""},
	} {
		t.Run(tt.retryAfter, func(t *testing.T) {
			eval[bool](b, fmt.Sprintf(`(window.waitResult = undefined, import("/static/form.js").then(m => { window.waitResult = m.waitText(%q, %d); }), true)`, tt.retryAfter, now))
			b.waitFor(`window.waitResult !== undefined`)
			if got := eval[string](b, `window.waitResult`); got != tt.want {
				t.Errorf("waitText(%q) = %q, want %q", tt.retryAfter, got, tt.want)
			}
		})
	}
}

// recordedEvidence serves recorded answers of the evidence demo endpoint, in the shape of the
// evidence query (docs/contracts/supply-api.md §4), and keeps the bodies the page posted.
type recordedEvidence struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (rec *recordedEvidence) routes(r *mux.Router) {
	r.HandleFunc("/evidence-query/demo", func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.mu.Unlock()
		file := "testdata/evidence_ok.json"
		if q, _ := body["query"].(string); strings.Contains(q, "next year") {
			file = "testdata/evidence_refusal.json"
		}
		b, err := os.ReadFile(file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	}).Methods(http.MethodPost)
}

func (rec *recordedEvidence) posted() []map[string]any {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.bodies)
}

// TestBrowserEvidenceRendering checks how the evidence page shows an answer, a refusal and a
// missing endpoint, from recorded answers in the contract's shape: text from the server stays
// text, and only http(s) and same-site links become links.
func TestBrowserEvidenceRendering(t *testing.T) {
	b := newBrowser(t)
	rec := &recordedEvidence{}
	e := demoEnv(t, envOptions{api: rec.routes})
	b.do(chromedp.Navigate(e.URL + "/evidence"))

	b.do(chromedp.SetValue(chromedp.ID("query"), "   "), chromedp.Click(chromedp.CSS("#evidence-form button[type=submit]")))
	b.waitFor(`!document.getElementById("query-error").hidden`)
	if n := len(rec.posted()); n != 0 {
		t.Fatalf("an empty question was sent %d times", n)
	}

	ask := func(q, items string) {
		b.do(
			chromedp.SetValue(chromedp.ID("query"), q),
			chromedp.SetValue(chromedp.ID("max_evidence_items"), items),
			chromedp.Click(chromedp.CSS("#evidence-form button[type=submit]")),
		)
	}
	ask("How many dermatologists per 100,000 people in Chittenden County, Vermont?", "5")
	b.waitFor(`document.getElementById("answer-summary") !== null`)
	var recorded struct {
		Data struct {
			Answer struct {
				Summary string `json:"summary"`
			} `json:"answer"`
			Evidence []json.RawMessage `json:"evidence"`
		} `json:"data"`
	}
	raw, err := os.ReadFile("testdata/evidence_ok.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &recorded); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](b, `document.getElementById("answer-summary").textContent`); got != recorded.Data.Answer.Summary {
		t.Errorf("summary %q, want %q", got, recorded.Data.Answer.Summary)
	}
	if n := eval[int](b, `document.querySelectorAll("#evidence-trail > li").length`); n != len(recorded.Data.Evidence) {
		t.Errorf("%d evidence items, want %d", n, len(recorded.Data.Evidence))
	}
	links := eval[[]string](b, `Array.from(document.querySelectorAll("#evidence-trail a")).map((a) => a.getAttribute("href"))`)
	want := []string{"https://download.cms.gov/nppes/NPI_Files.html", "/docs/methodology/specialty-supply", "/docs/methodology/specialty-supply"}
	if !slices.Equal(links, want) {
		t.Errorf("evidence links %v, want %v (no javascript: link)", links, want)
	}
	if eval[bool](b, `document.getElementById("injected") !== null`) {
		t.Error("markup in a claim became an element")
	}
	if !eval[bool](b, `document.getElementById("result-body").textContent.includes("gives the state's figures")`) {
		t.Error("no note that a county question got the state's figures")
	}
	shownOnce(t, b, map[string]string{
		"Counts are NPIs, not people.": "Applies to every claim.",
		"The registry has no county of practice; the state's figures answer a county question.": "Applies to claim 1.",
	})
	posted := rec.posted()
	if len(posted) != 1 || posted[0]["options"].(map[string]any)["max_evidence_items"] != float64(5) {
		t.Errorf("posted %v", posted)
	}
	b.screenshot("answer")

	ask("How many dermatologists will Vermont have next year?", "10")
	b.waitFor(`document.getElementById("refusal-reason") !== null`)
	if code := eval[string](b, `document.getElementById("refusal-reason").dataset.code`); code != "predictions" {
		t.Errorf("refusal code %q", code)
	}
	if text := eval[string](b, `document.getElementById("refusal-reason").textContent`); !strings.Contains(text, "does not forecast") {
		t.Errorf("refusal explained as %q", text)
	}
	b.screenshot("refusal")
	b.noProblems(nil)

	absent := demoEnv(t, envOptions{})
	b.do(chromedp.Navigate(absent.URL + "/evidence"))
	ask("How many dermatologists in Vermont?", "10")
	b.waitFor(`document.getElementById("unavailable") !== null`)
	b.screenshot("unavailable")
	b.noProblems(failedStatus(404))
}

// TestEvidenceDemoEndpoint asks the service host's real demo endpoint and shows its answer in
// the page.
func TestEvidenceDemoEndpoint(t *testing.T) {
	e := demoEnv(t, envOptions{evidence: true})
	status, body := e.postJSON(t, PathEvidenceDemo, liveserver.ClientIP(), map[string]any{"query": "How many dermatologists per 100,000 residents are there in Vermont?"})
	if status != http.StatusOK {
		t.Fatalf("%d %v", status, body)
	}
	data, _ := body["data"].(map[string]any)
	if s := data["status"]; s != "ok" && s != "refusal" {
		t.Fatalf("status %v in %v", s, body)
	}
	b := newBrowser(t)
	b.do(
		chromedp.Navigate(e.URL+"/evidence"),
		chromedp.SetValue(chromedp.ID("query"), "How many dermatologists per 100,000 residents are there in Vermont?"),
		chromedp.Click(chromedp.CSS("#evidence-form button[type=submit]")),
	)
	b.waitFor(`document.getElementById("answer-summary") !== null || document.getElementById("refusal-reason") !== null`)
	b.screenshot("real-endpoint")
	b.noProblems(nil)
	if data["status"] != "ok" {
		return
	}
	// The API repeats each caveat in every item it concerns; the page shows it once, saying which
	// claims it applies to.
	items, _ := data["evidence"].([]any)
	caveats := map[string]string{}
	for _, it := range items {
		m, _ := it.(map[string]any)["methodology"].(map[string]any)
		for _, l := range m["limitations"].([]any) {
			caveats[l.(string)] = "Applies to "
		}
	}
	if len(items) < 2 || len(caveats) == 0 {
		t.Fatalf("the answer has %d evidence items and %d caveats, want several of each", len(items), len(caveats))
	}
	shownOnce(t, b, caveats)
}

// shownOnce checks the evidence page's caveats: each of want's texts once in the whole answer,
// as one item of the caveat list whose note begins with want's value, and no other item.
func shownOnce(t *testing.T, b *browser, want map[string]string) {
	t.Helper()
	type caveat struct{ Text, Applies string }
	got := eval[[]caveat](b, `Array.from(document.querySelectorAll("#caveats > li")).map((li) => ({text: li.firstChild.textContent, applies: li.lastChild.textContent}))`)
	if len(got) != len(want) {
		t.Errorf("%d caveats shown, want %d: %v", len(got), len(want), got)
	}
	for _, c := range got {
		if note, ok := want[c.Text]; !ok || !strings.HasPrefix(c.Applies, note) {
			t.Errorf("caveat %q noted %q, want one of %v", c.Text, c.Applies, want)
		}
	}
	body := eval[string](b, `document.getElementById("result-body").textContent`)
	for text := range want {
		if n := strings.Count(body, text); n != 1 {
			t.Errorf("%q is shown %d times, want once", text, n)
		}
	}
}
