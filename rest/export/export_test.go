package export_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/rest/dataset"
	"providerdir/rest/export"
	"providerdir/store"
	"providerdir/testing/apiclient"
	"providerdir/testing/backends"
	"providerdir/testing/demostore"
	"providerdir/testing/packserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// demo serves the demo snapshot.
func demo(tb testing.TB, o export.Options) *packserver.Env {
	return packserver.Open(tb, demostore.Open(tb).Store, o)
}

var (
	chunkID = regexp.MustCompile(`^([a-z-]+):(dataset_meta|national|state|underserved):([A-Z]{2}):(v[0-9]{4}\.(?:0[1-9]|1[0-2])\.[1-9][0-9]*)$`)
	version = regexp.MustCompile(`^v[0-9]{4}\.(0[1-9]|1[0-2])\.[1-9][0-9]*$`)
)

// exportOf decodes a JSON export's data.
type exportData struct {
	SchemaVersion string `json:"schema_version"`
	Dataset       struct {
		Slug               string   `json:"slug"`
		MethodologyVersion string   `json:"methodology_version"`
		SnapshotDate       string   `json:"snapshot_date"`
		SourceFamilies     []string `json:"source_families"`
	} `json:"dataset"`
	Narrative *string         `json:"narrative"`
	Chunks    []export.Chunk  `json:"chunks"`
	Meta      json.RawMessage `json:"meta"`
}

func decodeExport(t *testing.T, raw []byte) exportData {
	t.Helper()
	var env struct {
		Data exportData `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("export: %v", err)
	}
	return env.Data
}

// Every one of the seventeen slugs exports: the four headers, chunk ids of the contract's shape,
// the chunk types, one state chunk per state of the 51 and one underserved chunk per state
// flagged, an APA citation and the methodology in every chunk.
func TestExportEveryDataset(t *testing.T) {
	e := demo(t, export.Options{})
	key := e.Key(t)
	slugs := dataset.Slugs()
	if len(slugs) != 17 {
		t.Fatalf("%d slugs registered, want 17", len(slugs))
	}
	for _, slug := range slugs {
		t.Run(slug, func(t *testing.T) {
			r := e.Get(t, "/v1/exports/"+slug+"/llm-ready", key)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Raw)
			}
			x := decodeExport(t, r.Raw)
			h := r.Header
			if v := h.Get("X-Methodology-Version"); !version.MatchString(v) || v != x.Dataset.MethodologyVersion {
				t.Errorf("X-Methodology-Version %q, dataset.methodology_version %q", v, x.Dataset.MethodologyVersion)
			}
			if _, err := time.Parse(time.RFC3339, h.Get("X-Last-Refreshed")); err != nil {
				t.Errorf("X-Last-Refreshed %q: %v", h.Get("X-Last-Refreshed"), err)
			}
			if n, err := strconv.Atoi(h.Get("X-Total-Chunks")); err != nil || n != len(x.Chunks) {
				t.Errorf("X-Total-Chunks %q, %d chunks", h.Get("X-Total-Chunks"), len(x.Chunks))
			}
			if v := h.Get("X-Narrative-Cache-Hit"); v != "true" && v != "false" {
				t.Errorf("X-Narrative-Cache-Hit %q", v)
			}
			if x.SchemaVersion != "1.0" || x.Dataset.Slug != slug || x.Narrative == nil || *x.Narrative == "" {
				t.Errorf("schema %q, slug %q, narrative %v", x.SchemaVersion, x.Dataset.Slug, x.Narrative)
			}
			types := map[string]int{}
			underserved := map[string]bool{}
			seen := map[string]bool{}
			for i, c := range x.Chunks {
				m := chunkID.FindStringSubmatch(c.ID)
				if m == nil || m[1] != slug || m[2] != c.ChunkType || m[4] != x.Dataset.MethodologyVersion {
					t.Fatalf("chunk %d: id %q, type %q", i, c.ID, c.ChunkType)
				}
				if seen[c.ID] {
					t.Errorf("chunk id %s twice", c.ID)
				}
				seen[c.ID] = true
				types[c.ChunkType]++
				if !strings.Contains(c.Citation, "[Data set]") || !strings.Contains(c.Citation, "(Version "+x.Dataset.MethodologyVersion+")") {
					t.Errorf("citation %q", c.Citation)
				}
				if c.Methodology.Version != x.Dataset.MethodologyVersion || c.Methodology.SourceURL == "" || len(c.Methodology.Limitations) == 0 {
					t.Errorf("methodology %+v", c.Methodology)
				}
				if !strings.Contains(c.Text, c.Methodology.Source) {
					t.Errorf("chunk %s: the text does not name its source", c.ID)
				}
				data, _ := c.Data.(map[string]any)
				if c.ChunkType == export.TypeState && data["underserved"] == true {
					underserved[m[3]] = true
				}
				if c.ChunkType == export.TypeUnderserved && data["underserved"] != true {
					t.Errorf("underserved chunk %s of a state not flagged", c.ID)
				}
			}
			if types[export.TypeDatasetMeta] != 1 || types[export.TypeNational] != 1 || types[export.TypeState] != 51 ||
				types[export.TypeUnderserved] != len(underserved) {
				t.Errorf("chunk types %v, %d states flagged underserved", types, len(underserved))
			}
			if x.Chunks[0].ChunkType != export.TypeDatasetMeta || x.Chunks[1].ChunkType != export.TypeNational {
				t.Errorf("first chunks %s, %s", x.Chunks[0].ID, x.Chunks[1].ID)
			}
		})
	}
}

// A supply export states the figures the supply API serves for the same study, row by row.
func TestExportAgreesWithBySate(t *testing.T) {
	e := demo(t, export.Options{})
	key := e.Key(t)
	for _, sp := range []string{"dermatology", "pediatrics"} {
		x := decodeExport(t, e.Get(t, "/v1/exports/"+sp+"-supply/llm-ready", key).Raw)
		rows := e.Get(t, "/v1/specialties/"+sp+"/by-state", key).Body["data"].([]any)
		want := map[string]map[string]any{}
		for _, row := range rows {
			r := row.(map[string]any)
			code := r["state_code"].(map[string]any)["value"].(string)
			want[code] = r
		}
		states := 0
		for _, c := range x.Chunks {
			if c.ChunkType != export.TypeState {
				continue
			}
			states++
			d := c.Data.(map[string]any)
			w := want[d["state_code"].(string)]
			for chunkField, rowField := range map[string]string{"count": "active_providers", "population_2024": "population_2024",
				"per_100k": "per_100k", "rank_density": "rank_density", "quartile": "quartile", "underserved": "underserved"} {
				if got, exp := d[chunkField], w[rowField].(map[string]any)["value"]; got != exp {
					t.Errorf("%s %s %s: export %v, by-state %v", sp, d["state_code"], chunkField, got, exp)
				}
			}
		}
		if states != 51 {
			t.Errorf("%s: %d state chunks", sp, states)
		}
	}
}

// The three formats carry the same chunks: ndjson opens with the dataset_meta header line;
// text blocks come METHODOLOGY, NARRATIVE, one CHUNK per chunk in order, CITATION FOOTER.
func TestExportFormats(t *testing.T) {
	e := demo(t, export.Options{})
	key := e.Key(t)
	const path = "/v1/exports/hospice-availability/llm-ready"
	js := e.Get(t, path+"?format=json", key)
	x := decodeExport(t, js.Raw)
	var ids []string
	for _, c := range x.Chunks {
		ids = append(ids, c.ID)
	}
	if def := e.Get(t, path, key); def.Header.Get("Content-Type") != js.Header.Get("Content-Type") || !strings.HasPrefix(def.Header.Get("Content-Type"), "application/json") {
		t.Errorf("default format content type %q", def.Header.Get("Content-Type"))
	}

	nd := e.Get(t, path+"?format=ndjson", key)
	if ct := nd.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
		t.Errorf("ndjson content type %q", ct)
	}
	sc := bufio.NewScanner(bytes.NewReader(nd.Raw))
	sc.Buffer(nil, 1<<20)
	var ndIDs []string
	for line := 0; sc.Scan(); line++ {
		var l map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("ndjson line %d: %v", line+1, err)
		}
		if line == 0 {
			meta, _ := l["_dataset_meta"].(map[string]any)
			if l["_line_type"] != "dataset_meta" || meta["dataset"] == nil || meta["narrative"] == nil {
				t.Fatalf("ndjson line 1: %s", sc.Bytes())
			}
			continue
		}
		if l["_line_type"] != "chunk" {
			t.Fatalf("ndjson line %d: _line_type %v", line+1, l["_line_type"])
		}
		ndIDs = append(ndIDs, l["id"].(string))
	}
	if !slices.Equal(ndIDs, ids) {
		t.Errorf("ndjson chunk ids differ from json's")
	}

	tb := e.Get(t, path+"?format=text-blocks", key)
	if ct := tb.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("text-blocks content type %q", ct)
	}
	var blocks []string
	for _, line := range strings.Split(string(tb.Raw), "\n") {
		if strings.HasPrefix(line, "--- ") && strings.HasSuffix(line, " ---") {
			blocks = append(blocks, line)
		}
	}
	want := []string{"--- METHODOLOGY ---", "--- NARRATIVE ---"}
	for _, id := range ids {
		want = append(want, "--- CHUNK "+id+" ---")
	}
	want = append(want, "--- CITATION FOOTER ---")
	if !slices.Equal(blocks, want) {
		t.Errorf("text blocks %v\nwant %v", blocks, want)
	}
	for _, r := range []apiclient.Response{nd, tb} {
		for _, h := range []string{"X-Methodology-Version", "X-Last-Refreshed", "X-Total-Chunks", "X-Narrative-Cache-Hit"} {
			if r.Header.Get(h) != js.Header.Get(h) && h != "X-Narrative-Cache-Hit" {
				t.Errorf("%s: %q, json's %q", h, r.Header.Get(h), js.Header.Get(h))
			}
		}
	}
}

// Each error: unknown slug, bad format, no key, unknown key, sources not loaded. Each is in the
// /v1 error envelope and changes nothing.
func TestExportErrors(t *testing.T) {
	e := demo(t, export.Options{})
	key := e.Key(t)
	empty := backends.Embedded(t)
	bare := packserver.Open(t, empty, export.Options{})
	bareKey := bare.Key(t)
	for _, tt := range []struct {
		env    *packserver.Env
		path   string
		key    string
		status int
		code   string
	}{
		{e, "/v1/exports/cardiology/llm-ready", key, 404, export.CodeDatasetNotFound},
		{e, "/v1/exports/%3Cscript%3E/llm-ready", key, 404, export.CodeDatasetNotFound},
		{e, "/v1/exports/cardiology-supply/llm-ready?format=xml", key, 400, export.CodeInvalidFormat},
		{e, "/v1/exports/cardiology-supply/llm-ready?format=", key, 400, export.CodeInvalidFormat},
		{e, "/v1/exports/cardiology-supply/llm-ready?format=JSON", key, 400, export.CodeInvalidFormat},
		{e, "/v1/exports/cardiology-supply/llm-ready", "", 401, "missing_api_key"},
		{e, "/v1/exports/cardiology-supply/llm-ready", "pk_live_unknown", 401, "invalid_api_key"},
		{bare, "/v1/exports/cardiology-supply/llm-ready", bareKey, 404, export.CodeDatasetNotLoaded},
		{bare, "/v1/exports/dialysis-quality/llm-ready", bareKey, 404, export.CodeDatasetNotLoaded},
	} {
		r := tt.env.Get(t, tt.path, tt.key)
		if r.Status != tt.status || r.ErrorCode() != tt.code {
			t.Errorf("%s: %d %s, want %d %s", tt.path, r.Status, r.ErrorCode(), tt.status, tt.code)
		}
		meta, _ := r.Body["meta"].(map[string]any)
		if meta["api_version"] != "v1" || meta["request_id"] == "" {
			t.Errorf("%s: error meta %v", tt.path, meta)
		}
		if r.Header.Get("X-Total-Chunks") != "" {
			t.Errorf("%s: an error carries X-Total-Chunks", tt.path)
		}
	}
	if recs, err := empty.ListRecords(context.Background(), "export_narrative", "", 10); err != nil || len(recs) != 0 {
		t.Errorf("failed exports wrote narratives: %v %v", recs, err)
	}
}

// The narrative is generated by the first request of a (slug, methodology version) and read
// from the store after; a cached narrative of other figures is replaced, not served.
func TestNarrativeCache(t *testing.T) {
	e := demo(t, export.Options{})
	key := e.Key(t)
	ctx := context.Background()
	const slug = "urology-supply"
	id := slug + ":" + mustLookup(t, slug).MethodologyVersion()
	if err := e.Store.DeleteRecord(ctx, "export_narrative", id, 0); err != nil && !errors.Is(err, store.ErrNotFound) {
		t.Fatal(err)
	}
	path := "/v1/exports/" + slug + "/llm-ready?format=ndjson"
	first := e.Get(t, path, key)
	second := e.Get(t, path, key)
	if first.Header.Get("X-Narrative-Cache-Hit") != "false" || second.Header.Get("X-Narrative-Cache-Hit") != "true" {
		t.Fatalf("cache hit: first %q, second %q", first.Header.Get("X-Narrative-Cache-Hit"), second.Header.Get("X-Narrative-Cache-Hit"))
	}
	if narrative(t, first.Raw) != narrative(t, second.Raw) {
		t.Error("the cached narrative differs from the generated one")
	}
	rec, err := e.Store.GetRecord(ctx, "export_narrative", id)
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(rec.Body, &stored); err != nil || stored["narrative"] != narrative(t, first.Raw) {
		t.Fatalf("stored record %s", rec.Body)
	}
	// A narrative written from other figures (an older snapshot) is regenerated.
	stored["figures_key"], stored["narrative"] = "older", "Urology: 999999 providers."
	body, _ := json.Marshal(stored)
	rec.Body = body
	if _, err := e.Store.PutRecord(ctx, rec); err != nil {
		t.Fatal(err)
	}
	third := e.Get(t, path, key)
	if third.Header.Get("X-Narrative-Cache-Hit") != "false" || narrative(t, third.Raw) != narrative(t, first.Raw) {
		t.Errorf("stale narrative: hit %q, %q", third.Header.Get("X-Narrative-Cache-Hit"), narrative(t, third.Raw))
	}
}

func mustLookup(t *testing.T, slug string) dataset.Dataset {
	d, ok := dataset.Lookup(slug)
	if !ok {
		t.Fatalf("%s not registered", slug)
	}
	return d
}

// narrative reads the narrative of an ndjson export's header line.
func narrative(t *testing.T, raw []byte) string {
	t.Helper()
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	var h struct {
		Meta struct {
			Narrative string `json:"narrative"`
		} `json:"_dataset_meta"`
	}
	if err := json.Unmarshal(line, &h); err != nil {
		t.Fatal(err)
	}
	return h.Meta.Narrative
}
