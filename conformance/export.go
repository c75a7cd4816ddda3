package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// exportChecks hold the LLM-ready exports and the audit packs (docs/contracts/supply-api.md §2 and
// §4) to their contract: the formats, the four export headers, stable chunk ids, the catalog of
// sixteen packs, schema 1.0 and the packs' public forms on the service host.
func exportChecks() []Check {
	const s = "supply"
	keyed := func(path string, status int, code string) func(context.Context, *Env) error {
		return func(ctx context.Context, e *Env) error {
			key, err := e.supplyKey()
			if err != nil {
				return err
			}
			return e.v1Error(ctx, http.MethodGet, path, key, status, code)
		}
	}
	return []Check{
		{s, "GET /exports/{dataset}/llm-ready: json envelope, headers, chunk ids of the contract's shape", checkExportJSON},
		{s, "GET /exports/{dataset}/llm-ready?format=ndjson: line 1 is the dataset_meta header", checkExportNDJSON},
		{s, "GET /exports/{dataset}/llm-ready?format=text-blocks: METHODOLOGY first, CITATION FOOTER last", checkExportText},
		{s, "unknown export dataset is 404", keyed("/exports/no-such-dataset/llm-ready", http.StatusNotFound, "dataset_not_found")},
		{s, "unknown export format is 400", keyed("/exports/cardiology-supply/llm-ready?format=xml", http.StatusBadRequest, "invalid_format")},
		{s, "GET /audit-pack: 16 packs, 12 supply and 4 facility studies", checkAuditCatalog},
		{s, "GET /audit-pack/{slug}: schema 1.0; the same envelope at /api/audit-pack/{slug}/json, a PDF at /pdf", checkAuditPack},
		{s, "unknown audit pack is 404", keyed("/audit-pack/no-such-pack", http.StatusNotFound, "audit_pack_not_found")},
	}
}

// exportSlugs are docs/contracts/supply-api.md's registered export dataset slugs.
var exportSlugs = []string{"dermatology-supply", "psychiatry-supply", "cardiology-supply", "obgyn-supply", "pediatrics-supply",
	"neurology-supply", "oncology-supply", "orthopedic-supply", "ophthalmology-supply", "gastroenterology-supply",
	"urology-supply", "otolaryngology-supply", "chiropractor-supply", "nursing-home-quality", "dialysis-quality",
	"home-health-quality", "hospice-availability"}

var (
	exportChunkID      = regexp.MustCompile(`^([a-z-]+):(dataset_meta|national|state|underserved):([A-Z]{2}):(v[0-9]{4}\.(?:0[1-9]|1[0-2])\.[1-9][0-9]*)$`)
	methodologyVersion = regexp.MustCompile(`^v[0-9]{4}\.(0[1-9]|1[0-2])\.[1-9][0-9]*$`)
)

// exportChunk is the chunk shape (docs/contracts/supply-api.md §2).
type exportChunk struct {
	ID          string         `json:"id"`
	Text        string         `json:"text"`
	Data        map[string]any `json:"data"`
	Methodology struct {
		Version     string   `json:"version"`
		Source      string   `json:"source"`
		SourceURL   string   `json:"source_url"`
		LastChecked string   `json:"last_checked"`
		Limitations []string `json:"limitations"`
	} `json:"methodology"`
	Citation  string `json:"citation"`
	ChunkType string `json:"chunk_type"`
}

// exportGet asks for an export; a deployment without the dataset's sources loaded skips.
func (e *Env) exportGet(ctx context.Context, slug, format string) (response, error) {
	key, err := e.supplyKey()
	if err != nil {
		return response{}, err
	}
	res, err := e.v1(ctx, http.MethodGet, "/exports/"+slug+"/llm-ready?format="+format, key)
	if err != nil {
		return res, err
	}
	if res.status == http.StatusNotFound && bytes.Contains(res.body, []byte(`"dataset_not_loaded"`)) {
		return res, Skipf("%s: the sources of %s are not loaded", res.url, slug)
	}
	if res.status != http.StatusOK {
		return res, fmt.Errorf("%s: %d: %.300s", res.url, res.status, res.body)
	}
	if err := rateLimitHeaders(res); err != nil {
		return res, err
	}
	return res, exportHeaders(res)
}

// exportHeaders checks the four export headers.
func exportHeaders(res response) error {
	h := res.header
	var problems []string
	if !methodologyVersion.MatchString(h.Get("X-Methodology-Version")) {
		problems = append(problems, fmt.Sprintf("X-Methodology-Version %q", h.Get("X-Methodology-Version")))
	}
	if _, err := time.Parse(time.RFC3339, h.Get("X-Last-Refreshed")); err != nil {
		problems = append(problems, fmt.Sprintf("X-Last-Refreshed %q", h.Get("X-Last-Refreshed")))
	}
	if n, err := strconv.Atoi(h.Get("X-Total-Chunks")); err != nil || n < 1 {
		problems = append(problems, fmt.Sprintf("X-Total-Chunks %q", h.Get("X-Total-Chunks")))
	}
	if v := h.Get("X-Narrative-Cache-Hit"); v != "true" && v != "false" {
		problems = append(problems, fmt.Sprintf("X-Narrative-Cache-Hit %q", v))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %s", res.url, strings.Join(problems, "; "))
	}
	return nil
}

// checkChunk holds one chunk to its shape and to the export's slug and version.
func checkChunk(c exportChunk, slug, version string) error {
	m := exportChunkID.FindStringSubmatch(c.ID)
	switch {
	case m == nil || m[1] != slug || m[4] != version:
		return fmt.Errorf("chunk id %q is not %s:<scope>:<state>:%s", c.ID, slug, version)
	case m[2] != c.ChunkType:
		return fmt.Errorf("chunk %s: chunk_type %q", c.ID, c.ChunkType)
	case c.Text == "" || c.Citation == "" || c.Data == nil:
		return fmt.Errorf("chunk %s: text, citation or data missing", c.ID)
	case c.Methodology.Version != version || c.Methodology.Source == "" || c.Methodology.SourceURL == "" || len(c.Methodology.Limitations) == 0:
		return fmt.Errorf("chunk %s: methodology %+v", c.ID, c.Methodology)
	}
	if _, err := time.Parse(time.RFC3339, c.Methodology.LastChecked); err != nil {
		return fmt.Errorf("chunk %s: last_checked %q", c.ID, c.Methodology.LastChecked)
	}
	return nil
}

func checkExportJSON(ctx context.Context, e *Env) error {
	const slug = "cardiology-supply"
	res, err := e.exportGet(ctx, slug, "json")
	if err != nil {
		return err
	}
	var env struct {
		Data struct {
			SchemaVersion string `json:"schema_version"`
			Dataset       struct {
				Slug               string `json:"slug"`
				MethodologyVersion string `json:"methodology_version"`
			} `json:"dataset"`
			Narrative *string       `json:"narrative"`
			Chunks    []exportChunk `json:"chunks"`
		} `json:"data"`
		Meta map[string]any `json:"meta"`
	}
	if err := res.json(&env); err != nil {
		return err
	}
	d := env.Data
	version := res.header.Get("X-Methodology-Version")
	if d.Dataset.Slug != slug || d.Dataset.MethodologyVersion != version || d.SchemaVersion == "" {
		return fmt.Errorf("%s: dataset %+v, schema %q, header version %s", res.url, d.Dataset, d.SchemaVersion, version)
	}
	if strconv.Itoa(len(d.Chunks)) != res.header.Get("X-Total-Chunks") {
		return fmt.Errorf("%s: %d chunks, X-Total-Chunks %s", res.url, len(d.Chunks), res.header.Get("X-Total-Chunks"))
	}
	states := 0
	for _, c := range d.Chunks {
		if err := checkChunk(c, slug, version); err != nil {
			return fmt.Errorf("%s: %w", res.url, err)
		}
		if c.ChunkType == "state" {
			states++
		}
	}
	if states != 51 {
		return fmt.Errorf("%s: %d state chunks, want 51", res.url, states)
	}
	return responseMeta(env.Meta)
}

func checkExportNDJSON(ctx context.Context, e *Env) error {
	const slug = "chiropractor-supply"
	res, err := e.exportGet(ctx, slug, "ndjson")
	if err != nil {
		return err
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
		return fmt.Errorf("%s: Content-Type %q", res.url, ct)
	}
	sc := bufio.NewScanner(bytes.NewReader(res.body))
	sc.Buffer(nil, 4<<20)
	lines := 0
	for sc.Scan() {
		var line struct {
			LineType string `json:"_line_type"`
			exportChunk
			Meta *json.RawMessage `json:"_dataset_meta"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return fmt.Errorf("%s: line %d is not JSON: %w", res.url, lines+1, err)
		}
		lines++
		switch {
		case lines == 1 && (line.LineType != "dataset_meta" || line.Meta == nil):
			return fmt.Errorf("%s: line 1 is not the dataset_meta header: %.200s", res.url, sc.Bytes())
		case lines > 1 && line.LineType != "chunk":
			return fmt.Errorf("%s: line %d _line_type %q", res.url, lines, line.LineType)
		case lines > 1:
			if err := checkChunk(line.exportChunk, slug, res.header.Get("X-Methodology-Version")); err != nil {
				return fmt.Errorf("%s: %w", res.url, err)
			}
		}
	}
	if strconv.Itoa(lines-1) != res.header.Get("X-Total-Chunks") {
		return fmt.Errorf("%s: %d chunk lines, X-Total-Chunks %s", res.url, lines-1, res.header.Get("X-Total-Chunks"))
	}
	return nil
}

func checkExportText(ctx context.Context, e *Env) error {
	res, err := e.exportGet(ctx, "nursing-home-quality", "text-blocks")
	if err != nil {
		return err
	}
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		return fmt.Errorf("%s: Content-Type %q", res.url, ct)
	}
	var blocks []string
	for _, l := range strings.Split(string(res.body), "\n") {
		if strings.HasPrefix(l, "--- ") && strings.HasSuffix(l, " ---") {
			blocks = append(blocks, l)
		}
	}
	chunks := 0
	for _, b := range blocks {
		if strings.HasPrefix(b, "--- CHUNK ") {
			chunks++
		}
	}
	if len(blocks) < 3 || blocks[0] != "--- METHODOLOGY ---" || blocks[len(blocks)-1] != "--- CITATION FOOTER ---" ||
		strconv.Itoa(chunks) != res.header.Get("X-Total-Chunks") {
		return fmt.Errorf("%s: blocks %d (first %q), %d chunks, X-Total-Chunks %s", res.url, len(blocks), blocks, chunks, res.header.Get("X-Total-Chunks"))
	}
	return nil
}

func checkAuditCatalog(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/audit-pack", key, http.StatusOK)
	if err != nil {
		return err
	}
	var entries []struct {
		Slug    string `json:"dataset_slug"`
		Version string `json:"methodology_version"`
		Cadence string `json:"refresh_cadence"`
		Links   struct {
			Web, PDF, JSON string
		} `json:"links"`
	}
	if err := json.Unmarshal(env.Data, &entries); err != nil {
		return fmt.Errorf("GET /v1/audit-pack: %w", err)
	}
	if len(entries) != 16 {
		return fmt.Errorf("GET /v1/audit-pack: %d packs, want 16", len(entries))
	}
	for _, en := range entries {
		if !slices.Contains(exportSlugs, en.Slug) || en.Slug == "chiropractor-supply" || !methodologyVersion.MatchString(en.Version) ||
			en.Cadence == "" || en.Links.Web == "" || en.Links.PDF == "" || en.Links.JSON == "" {
			return fmt.Errorf("GET /v1/audit-pack: entry %+v", en)
		}
	}
	return responseMeta(env.Meta)
}

func checkAuditPack(ctx context.Context, e *Env) error {
	key, err := e.supplyKey()
	if err != nil {
		return err
	}
	const slug = "cardiology-supply"
	res, err := e.v1(ctx, http.MethodGet, "/audit-pack/"+slug, key)
	if err != nil {
		return err
	}
	if res.status == http.StatusNotFound && bytes.Contains(res.body, []byte(`"dataset_not_loaded"`)) {
		return Skipf("%s: the sources of %s are not loaded", res.url, slug)
	}
	env, err := e.v1Get(ctx, http.MethodGet, "/audit-pack/"+slug, key, http.StatusOK)
	if err != nil {
		return err
	}
	var pack map[string]any
	if err := json.Unmarshal(env.Data, &pack); err != nil {
		return err
	}
	if pack["schema_version"] != "1.0" || !methodologyVersion.MatchString(fmt.Sprint(pack["methodology_version"])) {
		return fmt.Errorf("GET /v1/audit-pack/%s: schema_version %v, methodology_version %v", slug, pack["schema_version"], pack["methodology_version"])
	}
	for _, k := range []string{"provenance", "reproducibility", "limitations", "version_history", "compliance"} {
		if pack[k] == nil {
			return fmt.Errorf("GET /v1/audit-pack/%s: no %s", slug, k)
		}
	}
	public, err := e.do(ctx, http.MethodGet, e.creds.BaseURL+"/api/audit-pack/"+slug+"/json", nil, nil)
	if err != nil {
		return err
	}
	var pub struct {
		Data json.RawMessage `json:"data"`
	}
	if public.status != http.StatusOK {
		return fmt.Errorf("%s: %d", public.url, public.status)
	}
	if err := public.json(&pub); err != nil {
		return err
	}
	if !jsonEqual(pub.Data, env.Data) {
		return fmt.Errorf("%s: the pack differs from /v1's", public.url)
	}
	pdf, err := e.do(ctx, http.MethodGet, e.creds.BaseURL+"/api/audit-pack/"+slug+"/pdf", nil, nil)
	if err != nil {
		return err
	}
	if pdf.status != http.StatusOK || pdf.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf.body, []byte("%PDF-")) {
		return fmt.Errorf("%s: %d %q %.8q", pdf.url, pdf.status, pdf.header.Get("Content-Type"), pdf.body)
	}
	return checkAuditWebPage(ctx, e, pack)
}

// checkAuditWebPage follows a pack's web link: an HTML page naming the pack and its methodology
// version and linking its JSON and PDF forms.
func checkAuditWebPage(ctx context.Context, e *Env, pack map[string]any) error {
	links, _ := pack["links"].(map[string]any)
	web, _ := links["web"].(string)
	if web == "" {
		return fmt.Errorf("audit pack %v: no links.web", pack["dataset_slug"])
	}
	page, err := e.do(ctx, http.MethodGet, web, nil, nil)
	if err != nil {
		return err
	}
	if page.status != http.StatusOK || !strings.HasPrefix(page.header.Get("Content-Type"), "text/html") {
		return fmt.Errorf("%s: %d %q", page.url, page.status, page.header.Get("Content-Type"))
	}
	for _, want := range []any{pack["display_name"], pack["methodology_version"], links["json"], links["pdf"]} {
		if !bytes.Contains(page.body, []byte(fmt.Sprint(want))) {
			return fmt.Errorf("%s: the page does not show %q", page.url, want)
		}
	}
	return nil
}

// jsonEqual compares two JSON documents by value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
