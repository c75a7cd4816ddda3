package fhir

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"providerdir/internal/safetext"
	"providerdir/mapping/fhirmap"
)

// FuzzParseBulk feeds arbitrary kick-off queries to the export's parser. It must never panic;
// an error must be an issue of a known code naming its parameter, in a bounded outcome; what it
// accepts names served types only, each once, a _since as a short list of day prefixes, and
// parameters ignored only when the client asked for handling=lenient.
func FuzzParseBulk(f *testing.F) {
	for _, s := range []string{
		"_type=Practitioner,Location", "_type=Practitioner&_type=Practitioner", "_since=2024-01-01T00:00:00Z",
		"_since=2024-06-04T10:00:00.123%2B05:00", "_since=2099-12-31", "_since=1899", "_since=a&_since=b", "_since=gt2024",
		"_outputFormat=ndjson", "_outputFormat=application%2Ffhir%2Bndjson", "_outputFormat=text/csv", "_typeFilter=Practitioner%3Factive%3Dtrue",
		"patient=Patient/1", "_type=Patient", "_type=,", "_type=" + strings.Repeat("Practitioner,", 1000), "foo=1", "_elements=name",
		strings.Repeat("x", 2*safetext.EchoRunes) + "=1", "_type=" + strings.Repeat("%FF", safetext.EchoRunes),
	} {
		for _, handling := range []string{"", "strict", "lenient"} {
			f.Add(s, handling)
		}
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	day := regexp.MustCompile(`^(-|\d{2}|\d{3}|\d{4}(-\d{2}(-\d{2})?)?)$`)
	f.Fuzz(func(t *testing.T, query, handling string) {
		r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: "/fhir/$export", RawQuery: query}}
		job, types, err := parseBulk(r, handling, now)
		if err != nil {
			if pe := paramIssue(t, query, err); !slices.Contains([]string{"invalid", "not-supported"}, pe.code) || pe.param == "" {
				t.Fatalf("%q: not an issue naming a parameter: %#v", query, err)
			}
			return
		}
		for i, typ := range types {
			if !slices.Contains(fhirmap.Types, typ) || slices.Contains(types[:i], typ) {
				t.Fatalf("%q: types %v", query, types)
			}
		}
		for i, name := range job.Ignored {
			if handling != "lenient" || !slices.Contains([]string{"_typeFilter", "_elements", "patient", "includeAssociatedData"}, name) || slices.Contains(job.Ignored[:i], name) {
				t.Fatalf("%q with handling %q: ignored %v", query, handling, job.Ignored)
			}
		}
		if len(job.Since) > 100 {
			t.Fatalf("%q: %d day prefixes", query, len(job.Since))
		}
		for _, d := range job.Since {
			if !day.MatchString(d) {
				t.Fatalf("%q: day prefix %q", query, d)
			}
		}
	})
}
