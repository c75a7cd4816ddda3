package fhir_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"maps"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/mapping/fhirmap"
	"providerdir/testing/fhirvalidate"
)

// manifest is a complete export status's body.
type manifest struct {
	TransactionTime     string         `json:"transactionTime"`
	Request             string         `json:"request"`
	RequiresAccessToken *bool          `json:"requiresAccessToken"`
	Output              []exportOutput `json:"output"`
	Error               []exportOutput `json:"error"`
}

type exportOutput struct {
	Type  string `json:"type"`
	URL   string `json:"url"`
	Count int    `json:"count"`
}

// startExport kicks an export off and returns its status URL.
func startExport(t testing.TB, e *env, query string, headers ...string) string {
	t.Helper()
	r := get(t, e.base+"/$export"+query, append([]string{"Prefer", "respond-async", "Accept", "application/fhir+json"}, headers...)...)
	if r.status != http.StatusAccepted {
		t.Fatalf("kick-off %s: %d %s", query, r.status, r.body)
	}
	loc := r.header.Get("Content-Location")
	if !regexp.MustCompile(`^` + regexp.QuoteMeta(e.base) + `/\$export-status/[0-9a-f]{32}$`).MatchString(loc) {
		t.Fatalf("Content-Location %q", loc)
	}
	if oo := decodeOutcome(t, r); oo.Issue[0].Severity != "information" {
		t.Errorf("kick-off outcome %+v", oo)
	}
	return loc
}

// exportManifest reads a job's status, which must be complete.
func exportManifest(t testing.TB, status string, headers ...string) manifest {
	t.Helper()
	r := get(t, status, headers...)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json; charset=utf-8" || r.header.Get("Expires") == "" {
		t.Fatalf("status: %d %q Expires %q: %s", r.status, r.header.Get("Content-Type"), r.header.Get("Expires"), r.body)
	}
	var m manifest
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, m.TransactionTime); err != nil || m.RequiresAccessToken == nil || !*m.RequiresAccessToken || m.Error == nil {
		t.Errorf("manifest %s", r.body)
	}
	return m
}

// exportFile downloads a file of an export and returns its lines.
func exportFile(t testing.TB, u string, headers ...string) [][]byte {
	t.Helper()
	r := get(t, u, headers...)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/fhir+ndjson" {
		t.Fatalf("%s: %d %q: %s", u, r.status, r.header.Get("Content-Type"), r.body)
	}
	if len(r.body) == 0 || r.body[len(r.body)-1] != '\n' {
		t.Fatalf("%s: %d bytes, not newline-terminated", u, len(r.body))
	}
	return bytes.Split(r.body[:len(r.body)-1], []byte("\n"))
}

// withoutMarks returns a resource without the test marks of env.all and without its meta.tag,
// whose systems env.all has under the stored prefix, not the served base URL.
func withoutMarks(m map[string]any) map[string]any {
	out := maps.Clone(m)
	delete(out, "__sandbox")
	meta := maps.Clone(out["meta"].(map[string]any))
	delete(meta, "tag")
	out["meta"] = meta
	return out
}

func TestBulkExport(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	status := startExport(t, e, "")
	m := exportManifest(t, status)
	if m.Request != e.base+"/$export" {
		t.Errorf("request %q", m.Request)
	}
	var types []string
	for _, o := range m.Output {
		types = append(types, o.Type)
		if o.Count != len(all[o.Type]) {
			t.Errorf("%s: count %d, the snapshot holds %d", o.Type, o.Count, len(all[o.Type]))
		}
		lines := exportFile(t, o.URL)
		if len(lines) != o.Count {
			t.Errorf("%s: %d lines, count %d", o.Type, len(lines), o.Count)
		}
		prev := ""
		for i, line := range lines {
			var res map[string]any
			if err := json.Unmarshal(line, &res); err != nil {
				t.Fatalf("%s line %d: %v", o.Type, i+1, err)
			}
			id, _ := res["id"].(string)
			if want, ok := all[o.Type][id]; !ok || !reflect.DeepEqual(withoutMarks(res), withoutMarks(want)) {
				t.Fatalf("%s line %d: %s is not the served %s/%s", o.Type, i+1, line, o.Type, id)
			}
			if id <= prev {
				t.Errorf("%s: %s after %s, not in id order", o.Type, id, prev)
			}
			prev = id
		}
		if read := get(t, e.url("/"+o.Type+"/"+prev)); !bytes.Equal(read.body, lines[len(lines)-1]) {
			t.Errorf("%s/%s: the file's line differs from the read", o.Type, prev)
		}
		if err := fhirvalidate.Validate(lines[0], e.base+"/provenance/"); err != nil {
			t.Errorf("%s: %v", o.Type, err)
		}
	}
	var held []string
	for _, typ := range fhirmap.Types {
		if len(all[typ]) > 0 {
			held = append(held, typ)
		}
	}
	if !slices.Equal(types, held) {
		t.Errorf("files of %v, the snapshot holds %v", types, held)
	}

	// A sandbox client downloading the file sees the sandbox subset alone; a client without
	// read scopes for the type sees nothing.
	practitioners := m.Output[slices.IndexFunc(m.Output, func(o exportOutput) bool { return o.Type == fhirmap.TypePractitioner })].URL
	sandboxed := 0
	for _, r := range all[fhirmap.TypePractitioner] {
		if r["__sandbox"] == true {
			sandboxed++
		}
	}
	lines := exportFile(t, practitioners, "X-Test-Sandbox", "1")
	if len(lines) != sandboxed || sandboxed == 0 {
		t.Errorf("sandbox download: %d lines, %d practitioners in the sandbox", len(lines), sandboxed)
	}
	for _, line := range lines {
		if all[fhirmap.TypePractitioner][idOf(line)[len("Practitioner/"):]]["__sandbox"] != true {
			t.Errorf("sandbox download holds %s", idOf(line))
		}
	}
	if r := get(t, practitioners, "X-Test-Scopes", "system/Organization.rs"); r.status != http.StatusForbidden {
		t.Errorf("download without the type's scope: %d", r.status)
	}

	// Cancelled, the job and its files are gone.
	if r := do(t, http.MethodDelete, status, nil); r.status != http.StatusAccepted {
		t.Errorf("DELETE: %d %s", r.status, r.body)
	}
	for _, u := range []string{status, practitioners} {
		if r := get(t, u); r.status != http.StatusNotFound || decodeOutcome(t, r).Issue[0].Code != "not-found" {
			t.Errorf("%s after DELETE: %d", u, r.status)
		}
	}
	if r := do(t, http.MethodDelete, status, nil); r.status != http.StatusNotFound {
		t.Errorf("second DELETE: %d", r.status)
	}
}

// TestBulkExportSince holds _since to R4's meaning: the resources whose meta.lastUpdated is
// later than the instant given.
func TestBulkExportSince(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	var days []string
	for _, r := range all[fhirmap.TypeLocation] {
		days = append(days, r["meta"].(map[string]any)["lastUpdated"].(string)[:10])
	}
	slices.Sort(days)
	cut := days[len(days)/2]
	for _, since := range []string{cut + "T00:00:00Z", cut + "T13:30:00-05:00"} {
		t.Run(since, func(t *testing.T) {
			instant, _ := time.Parse(time.RFC3339, since)
			want := 0
			for _, r := range all[fhirmap.TypeLocation] {
				if updated, _ := time.Parse(time.RFC3339, r["meta"].(map[string]any)["lastUpdated"].(string)); updated.After(instant) {
					want++
				}
			}
			m := exportManifest(t, startExport(t, e, "?_type=Location&_since="+strings.ReplaceAll(since, "+", "%2B")))
			if len(m.Output) != 1 || m.Output[0].Count != want || want == 0 || want == len(all[fhirmap.TypeLocation]) {
				t.Fatalf("_since=%s: %+v, want %d of %d", since, m.Output, want, len(all[fhirmap.TypeLocation]))
			}
			for _, line := range exportFile(t, m.Output[0].URL) {
				var r struct{ Meta fhirmap.Meta }
				_ = json.Unmarshal(line, &r)
				if updated, _ := time.Parse(time.RFC3339, r.Meta.LastUpdated); !updated.After(instant) {
					t.Errorf("%s updated %s, not after %s", idOf(line), r.Meta.LastUpdated, since)
				}
			}
		})
	}
	// The latest _since accepted is the server's time; nothing can have changed after it.
	now := time.Now().UTC()
	if m := exportManifest(t, startExport(t, e, "?_since="+now.Format("2006-01-02T15:04:05Z"))); len(m.Output) != 0 {
		t.Errorf("an export since now has files: %+v", m.Output)
	}
	r := get(t, e.base+"/$export?_since="+now.Add(time.Minute).Format("2006-01-02T15:04:05Z"), "Prefer", "respond-async", "Accept", fhir.ContentType)
	if r.status != http.StatusBadRequest || decodeOutcome(t, r).Issue[0].Code != "invalid" {
		t.Errorf("_since in the future: %d %s, want 400 invalid", r.status, r.body)
	}
}

func TestBulkKickoffErrors(t *testing.T) {
	e := sharedEnv(t)
	kickoff := func(headers ...string) []string { return append([]string{"Accept", fhir.ContentType}, headers...) }
	async := kickoff("Prefer", "respond-async")
	lenient := kickoff("Prefer", "respond-async, handling=lenient")
	tests := []struct {
		name    string
		method  string
		query   string
		headers []string
		status  int
		code    string
	}{
		{"no Accept", "", "", []string{"Prefer", "respond-async"}, http.StatusBadRequest, "invalid"},
		{"no Prefer", "", "", kickoff(), http.StatusBadRequest, "invalid"},
		{"Prefer of another kind", "", "", kickoff("Prefer", "handling=strict"), http.StatusBadRequest, "invalid"},
		{"Prefer among others", "", "", kickoff("Prefer", "handling=lenient, respond-async"), http.StatusAccepted, ""},
		{"Accept of any JSON", "", "", []string{"Accept", "*/*", "Prefer", "respond-async"}, http.StatusAccepted, ""},
		{"type not served", "", "?_type=Patient", async, http.StatusBadRequest, "invalid"},
		{"output format", "", "?_outputFormat=text/csv", async, http.StatusBadRequest, "invalid"},
		{"output format ndjson", "", "?_outputFormat=ndjson", async, http.StatusAccepted, ""},
		{"output format application/fhir+ndjson", "", "?_outputFormat=application%2Ffhir%2Bndjson", async, http.StatusAccepted, ""},
		{"type filter", "", "?_typeFilter=Practitioner%3Factive%3Dtrue", async, http.StatusBadRequest, "not-supported"},
		{"type filter, strict", "", "?_typeFilter=Practitioner%3Factive%3Dtrue", kickoff("Prefer", "respond-async, handling=strict"), http.StatusBadRequest, "not-supported"},
		{"type filter, lenient", "", "?_typeFilter=Practitioner%3Factive%3Dtrue", lenient, http.StatusAccepted, ""},
		{"patient", "", "?patient=Patient/1", async, http.StatusBadRequest, "not-supported"},
		{"elements", "", "?_elements=name", async, http.StatusBadRequest, "not-supported"},
		{"associated data", "", "?includeAssociatedData=LatestProvenanceResources", async, http.StatusBadRequest, "not-supported"},
		{"associated data, lenient", "", "?includeAssociatedData=LatestProvenanceResources", lenient, http.StatusAccepted, ""},
		{"since in the future", "", "?_since=2099-01-01T00:00:00Z", async, http.StatusBadRequest, "invalid"},
		{"since not a date", "", "?_since=yesterday", async, http.StatusBadRequest, "invalid"},
		{"since twice", "", "?_since=2024-01-01&_since=2025-01-01", async, http.StatusBadRequest, "invalid"},
		{"unknown parameter", "", "?foo=1", async, http.StatusAccepted, ""},
		{"unknown parameter, strict", "", "?foo=1", kickoff("Prefer", "respond-async, handling=strict"), http.StatusBadRequest, "not-supported"},
		{"unnamed parameter, strict", "", "?=1", kickoff("Prefer", "respond-async, handling=strict"), http.StatusBadRequest, "invalid"},
		{"type without a value", "", "?_type=", async, http.StatusAccepted, ""},
		{"no grant", "", "", append([]string{"X-Test-Grant", "none"}, async...), http.StatusUnauthorized, "login"},
		{"type outside the scopes", "", "?_type=Organization", append([]string{"X-Test-Scopes", "system/Practitioner.rs"}, async...), http.StatusForbidden, "forbidden"},
		{"no type within the scopes", "", "", append([]string{"X-Test-Scopes", "system/Subscription.cruds"}, async...), http.StatusForbidden, "forbidden"},
		{"XML", "", "", []string{"Accept", "application/fhir+xml", "Prefer", "respond-async"}, http.StatusNotAcceptable, "not-supported"},
		{"POST", http.MethodPost, "", async, http.StatusMethodNotAllowed, "not-supported"},
		{"status of no job", "", "/../$export-status/00000000000000000000000000000000", nil, http.StatusNotFound, "not-found"},
		{"status of a malformed job", "", "/../$export-status/zz", nil, http.StatusNotFound, "not-found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := e.base + "/$export" + tt.query
			if strings.HasPrefix(tt.query, "/../") {
				u = e.base + "/" + strings.TrimPrefix(tt.query, "/../")
			}
			r := do(t, cmp.Or(tt.method, http.MethodGet), u, nil, tt.headers...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.body)
			}
			if tt.code != "" {
				if oo := decodeOutcome(t, r); oo.Issue[0].Code != tt.code {
					t.Errorf("issue code %q, want %q", oo.Issue[0].Code, tt.code)
				}
			}
		})
	}

	// Without _type, a grant exports the types its scopes read.
	m := exportManifest(t, startExport(t, e, "", "X-Test-Scopes", "system/Practitioner.rs"), "X-Test-Scopes", "system/Practitioner.rs")
	if len(m.Output) != 1 || m.Output[0].Type != fhirmap.TypePractitioner {
		t.Errorf("a Practitioner-only grant's export: %+v", m.Output)
	}
}

// TestBulkExportLenient: with Prefer: handling=lenient, the IG's parameters this server does
// not support are ignored, the export holds whole types, and the manifest's error file names
// each ignored parameter; without an error file a job answers 404 for it.
func TestBulkExportLenient(t *testing.T) {
	e := sharedEnv(t)
	m := exportManifest(t, startExport(t, e, "?_type=Practitioner&_typeFilter=Practitioner%3Factive%3Dfalse&_elements=name", "Prefer", "respond-async, handling=lenient"))
	if len(m.Output) != 1 || m.Output[0].Count != len(e.all(t)[fhirmap.TypePractitioner]) {
		t.Errorf("output %+v, want every Practitioner", m.Output)
	}
	if len(m.Error) != 1 || m.Error[0].Type != "OperationOutcome" || !strings.HasSuffix(m.Error[0].URL, "/OperationOutcome.ndjson") {
		t.Fatalf("error %+v, want one OperationOutcome file", m.Error)
	}
	lines := exportFile(t, m.Error[0].URL)
	var oo fhir.OperationOutcome
	if len(lines) != 1 || json.Unmarshal(lines[0], &oo) != nil || oo.ResourceType != "OperationOutcome" || len(oo.Issue) != 2 {
		t.Fatalf("error file %q", lines)
	}
	for i, name := range []string{"_elements", "_typeFilter"} {
		if is := oo.Issue[i]; is.Severity != "warning" || is.Code != "not-supported" || !strings.HasPrefix(is.Diagnostics, name+" was ignored") {
			t.Errorf("issue %d %+v, want a warning that %s was ignored", i, is, name)
		}
	}

	m = exportManifest(t, startExport(t, e, "?_type=Practitioner", "Prefer", "respond-async, handling=lenient"))
	if len(m.Error) != 0 {
		t.Errorf("an export that ignored nothing lists errors: %+v", m.Error)
	}
	u := strings.Replace(m.Output[0].URL, "Practitioner.ndjson", "OperationOutcome.ndjson", 1)
	if r := get(t, u); r.status != http.StatusNotFound {
		t.Errorf("%s: %d, want 404", u, r.status)
	}
}

// TestBulkExportSnapshots: an export's files hold the snapshot of its kick-off across the next
// switch, and answer 410 once a second switch has collected it.
func TestBulkExportSnapshots(t *testing.T) {
	e := freshEnv(t, fhir.Config{SnapshotTTL: -1})
	_, next := drops(t)
	before := len(e.all(t)[fhirmap.TypePractitioner])
	m := exportManifest(t, startExport(t, e, "?_type=Practitioner"))
	ctx := context.Background()
	if _, err := ingest.Run(ctx, ingest.Options{Store: e.st, Dir: next, Reference: e.ref}); err != nil {
		t.Fatal(err)
	}
	after := len(e.all(t)[fhirmap.TypePractitioner])
	if lines := exportFile(t, m.Output[0].URL); len(lines) != before || before == after {
		t.Errorf("after a switch: %d lines; the kick-off's snapshot held %d practitioners, the new one %d", len(lines), before, after)
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: e.st, Dir: next, Reference: e.ref, Force: true}); err != nil {
		t.Fatal(err)
	}
	if r := get(t, m.Output[0].URL); r.status != http.StatusGone || decodeOutcome(t, r).Issue[0].Code != "deleted" {
		t.Errorf("after two switches: %d %s", r.status, r.body)
	}
}

// TestBulkExportOutlivesWriteTimeout downloads a file slower than the server's write timeout
// allows a response to take, through small socket buffers so that the server must wait for
// the client: the download still completes, whole.
func TestBulkExportOutlivesWriteTimeout(t *testing.T) {
	e := sharedEnv(t)
	u := bulkFileURL(t, e)
	want := get(t, u).body
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e.srv.Config.Handler, WriteTimeout: 200 * time.Millisecond,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			_ = c.(*net.TCPConn).SetWriteBuffer(4096)
			return ctx
		}}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	client := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	req, _ := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+strings.TrimPrefix(u, e.srv.URL), nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	start := time.Now()
	var got []byte
	buf := make([]byte, 8192)
	for {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	if took := time.Since(start); !bytes.Equal(got, want) || took < srv.WriteTimeout {
		t.Errorf("read %d of %d bytes in %s (write timeout %s)", len(got), len(want), took, srv.WriteTimeout)
	}
}
