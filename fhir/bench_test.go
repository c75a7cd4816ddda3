package fhir_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"providerdir/fhir"
	"providerdir/mapping/fhirmap"
	"providerdir/source/reference"
)

// Benchmarks of the hot paths over loopback, each next to a ceiling: a handler returning the
// same bytes from memory through the same client, so the gap is the server's own work (store
// reads, splicing, bundle composition, middleware), not the network stack's.

type benchData struct {
	npis      []string
	specialty string
	name      string
	readBody  []byte
}

func prepareBench(b *testing.B) (*env, benchData) {
	e := sharedEnv(b)
	all := e.all(b)
	var d benchData
	for id := range all["Practitioner"] {
		d.npis = append(d.npis, id)
	}
	sort.Strings(d.npis)
	counts := map[string]int{}
	for _, r := range all["PractitionerRole"] {
		for _, s := range list(r["specialty"]) {
			counts[text(list(field(s, "coding"))[0], "code")]++
		}
	}
	for code, n := range counts {
		if d.specialty == "" || n > counts[d.specialty] {
			d.specialty = code
		}
	}
	d.name = strings.ToLower(text(list(all["Practitioner"][d.npis[0]]["name"])[0], "family"))[:3]
	d.readBody = get(b, e.url("/Practitioner/"+d.npis[0])).body
	return e, d
}

var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func fetch(b *testing.B, u string) int {
	resp, err := benchClient.Get(u)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d", u, resp.StatusCode)
	}
	return int(n)
}

func benchURLs(b *testing.B, urls []string) {
	b.ReportAllocs()
	var bytes int
	i := 0
	for b.Loop() {
		bytes += fetch(b, urls[i%len(urls)])
		i++
	}
	b.SetBytes(int64(bytes / max(i, 1)))
}

func BenchmarkReadByID(b *testing.B) {
	e, d := prepareBench(b)
	urls := make([]string, len(d.npis))
	for i, npi := range d.npis {
		urls[i] = e.url("/Practitioner/" + npi)
	}
	benchURLs(b, urls)
}

func BenchmarkSearchIdentifier(b *testing.B) {
	e, d := prepareBench(b)
	urls := make([]string, len(d.npis))
	for i, npi := range d.npis {
		urls[i] = e.url("/Practitioner", "identifier", fhirmap.SystemNPI+"|"+npi)
	}
	benchURLs(b, urls)
}

func BenchmarkSearchSpecialtyInclude(b *testing.B) {
	e, d := prepareBench(b)
	benchURLs(b, []string{e.url("/PractitionerRole", "specialty", d.specialty, "_include", "PractitionerRole:practitioner")})
}

func BenchmarkSearchName(b *testing.B) {
	e, d := prepareBench(b)
	benchURLs(b, []string{e.url("/Practitioner", "name", d.name)})
}

// BenchmarkSearchChainProbed serves a chain whose other type matches more resources than the
// server names (MaxChain 10 here, 1,000 by default), so that each page reads its candidates and
// checks the practitioner each one references.
func BenchmarkSearchChainProbed(b *testing.B) {
	base, _ := drops(b)
	e, err := newEnv(b.TempDir(), base, reference.Embedded(), fhir.Config{MaxChain: 10})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(e.close)
	benchURLs(b, []string{e.url("/PractitionerRole", "practitioner.identifier", fhirmap.SystemNPI+"|")})
}

// BenchmarkCeiling serves a read's bytes from memory over loopback.
func BenchmarkCeiling(b *testing.B) {
	_, d := prepareBench(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
		_, _ = w.Write(d.readBody)
	}))
	defer srv.Close()
	benchURLs(b, []string{srv.URL + "/fhir/Practitioner/" + url.PathEscape(d.npis[0])})
}

// BenchmarkReadByIDParallel and BenchmarkCeilingParallel measure throughput with concurrent
// clients, the figure the ceiling ratio is about.
func BenchmarkReadByIDParallel(b *testing.B) {
	e, d := prepareBench(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			fetch(b, e.url("/Practitioner/"+d.npis[i%len(d.npis)]))
			i++
		}
	})
}

func BenchmarkCeilingParallel(b *testing.B) {
	_, d := prepareBench(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+json; charset=utf-8")
		_, _ = w.Write(d.readBody)
	}))
	defer srv.Close()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			fetch(b, srv.URL+"/fhir/Practitioner/x")
		}
	})
}

// BenchmarkReadWithToken reads Practitioners through SMART's real Protect, as providerd serves
// them, each time once with a bearer token and once without (public read mode), timed apart:
// the token's check and its client's budget against the read itself. token/public is the
// throughput of reads with a token over reads without.
func BenchmarkReadWithToken(b *testing.B) {
	e := newSMARTEnv(b, true)
	auth := e.token(b, "system/*.read")
	var bundle struct {
		Entry []struct {
			Resource struct {
				ID string `json:"id"`
			} `json:"resource"`
		} `json:"entry"`
	}
	r := get(b, e.url+"/fhir/Practitioner?_count=50")
	if err := json.Unmarshal(r.body, &bundle); err != nil || len(bundle.Entry) == 0 {
		b.Fatalf("no practitioners: %v", err)
	}
	read := func(i int, auth string) time.Duration {
		req, _ := http.NewRequest(http.MethodGet, e.url+"/fhir/Practitioner/"+bundle.Entry[i%len(bundle.Entry)].Resource.ID, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		start := time.Now()
		resp, err := benchClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%d", resp.StatusCode)
		}
		return time.Since(start)
	}
	var public, token time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		public += read(i, "")
		token += read(i, auth)
		i++
	}
	b.ReportMetric(float64(public.Microseconds())/float64(i), "public-µs/read")
	b.ReportMetric(float64(token.Microseconds())/float64(i), "token-µs/read")
	b.ReportMetric(float64(public)/float64(token), "token/public")
}

// BenchmarkBulkExportFile downloads an export's Practitioner file, and
// BenchmarkBulkExportCeiling the same bytes from memory: the gap is the store scan and the
// splicing of each resource.
func BenchmarkBulkExportFile(b *testing.B) {
	e := sharedEnv(b)
	u := bulkFileURL(b, e)
	lines := 0
	b.ReportAllocs()
	for b.Loop() {
		body := get(b, u).body
		b.SetBytes(int64(len(body)))
		lines += bytes.Count(body, []byte("\n"))
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "resources/s")
}

func BenchmarkBulkExportCeiling(b *testing.B) {
	e := sharedEnv(b)
	body := get(b, bulkFileURL(b, e)).body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/fhir+ndjson")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		fetch(b, srv.URL)
	}
}

// bulkFileURL starts an export of Practitioners and returns its file's URL.
func bulkFileURL(b testing.TB, e *env) string {
	m := exportManifest(b, startExport(b, e, "?_type=Practitioner"))
	return m.Output[0].URL
}
