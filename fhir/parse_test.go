package fhir

import (
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"providerdir/catalog"
	"providerdir/internal/safetext"
	"time"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
)

func TestDateCondition(t *testing.T) {
	tests := []struct {
		in      string
		want    []string // nil: only check membership below
		in2024  []string // days that must match
		out2024 []string // days that must not
		err     bool
	}{
		{in: "2024-06-04", want: []string{"2024-06-04"}},
		{in: "eq2024-06", want: []string{"2024-06"}},
		{in: "2024", want: []string{"2024"}},
		{in: "ge2024-06-04", in2024: []string{"2024-06-04", "2024-12-31", "2031-01-01"}, out2024: []string{"2024-06-03", "1999-12-31"}},
		{in: "gt2024-06-04", in2024: []string{"2024-06-05", "2025-01-01"}, out2024: []string{"2024-06-04"}},
		{in: "sa2024", in2024: []string{"2025-01-01"}, out2024: []string{"2024-12-31"}},
		{in: "lt2024-06-04", in2024: []string{"2024-06-03", "2005-05-23"}, out2024: []string{"2024-06-04", "2024-07-01"}},
		{in: "le2024-06", in2024: []string{"2024-06-30", "2024-01-01"}, out2024: []string{"2024-07-01"}},
		{in: "eb2024-06-04", in2024: []string{"2024-06-03"}, out2024: []string{"2024-06-04"}},
		// A dateTime: midnight of the 4th is before 10:00 of it.
		{in: "gt2024-06-04T10:00:00Z", in2024: []string{"2024-06-05"}, out2024: []string{"2024-06-04"}},
		{in: "ge2024-06-04T00:00:00Z", in2024: []string{"2024-06-04"}, out2024: []string{"2024-06-03"}},
		{in: "eq2024-06-04T00:00:00+00:00", want: []string{"2024-06-04"}},
		{in: "eq2024-06-04T10:00:00Z", want: []string{}},
		{in: "ne2024", err: true},
		{in: "ap2024", err: true},
		{in: "xx2024", err: true},
		{in: "yesterday", err: true},
		{in: "2024-13", err: true},
	}
	matches := func(prefixes []string, day string) bool {
		return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(day, p) })
	}
	for _, tt := range tests {
		got, err := dateCondition(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("%s: err %v", tt.in, err)
			continue
		}
		if tt.want != nil && !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%s: %v, want %v", tt.in, got, tt.want)
		}
		for _, d := range tt.in2024 {
			if !matches(got, d) {
				t.Errorf("%s: %s does not match (%v)", tt.in, d, got)
			}
		}
		for _, d := range tt.out2024 {
			if matches(got, d) {
				t.Errorf("%s: %s matches (%v)", tt.in, d, got)
			}
		}
		if len(got) > 80 {
			t.Errorf("%s: %d prefixes", tt.in, len(got))
		}
	}
}

// TestDayPrefixesExact checks the prefix cover of random ranges day by day.
func TestDayPrefixesExact(t *testing.T) {
	ranges := [][2]string{{"2019-12-30", "2021-03-02"}, {"2000-01-01", "2000-01-01"}, {"1999-02-27", "1999-03-02"}, {"1990-01-01", "2100-01-01"}}
	for _, r := range ranges {
		lo, _ := time.Parse("2006-01-02", r[0])
		hi, _ := time.Parse("2006-01-02", r[1])
		ps := dayPrefixes(lo, hi)
		for d := lo.AddDate(0, 0, -40); d.Before(hi.AddDate(0, 0, 40)); d = d.AddDate(0, 0, 1) {
			day := d.Format("2006-01-02")
			want := !d.Before(lo) && d.Before(hi)
			got := slices.ContainsFunc(ps, func(p string) bool { return strings.HasPrefix(day, p) })
			if got != want {
				t.Fatalf("[%s, %s): %s matched %v, want %v (%v)", r[0], r[1], day, got, want, ps)
			}
		}
	}
}

func TestParseSearch(t *testing.T) {
	const base = "https://dir.example/fhir"
	const npi, ccn = fhirmap.SystemNPI, fhirmap.SystemCCN // a code alone is looked up under each
	tests := []struct {
		typ, query string
		want       []store.Condition
		empty      bool
		err        string // the parameter the error names
	}{
		{"Practitioner", "family=N%C3%BA%C3%B1ez", []store.Condition{{Param: "family", Values: []string{"nunez"}, Match: store.Prefix}}, false, ""},
		{"Practitioner", "family:exact=N%C3%BA%C3%B1ez", []store.Condition{{Param: "family:exact", Values: []string{"Núñez"}, Match: store.Exact}}, false, ""},
		{"Practitioner", "identifier=1234567893,1245319599", []store.Condition{{Param: "identifier", Values: []string{npi + "|1234567893", ccn + "|1234567893", npi + "|1245319599", ccn + "|1245319599"}, Match: store.Exact}}, false, ""},
		{"Practitioner", "identifier=http://hl7.org/fhir/sid/us-npi|", []store.Condition{{Param: "identifier", Values: []string{"http://hl7.org/fhir/sid/us-npi|"}, Match: store.Prefix}}, false, ""},
		{"Practitioner", "identifier=|1234567893", nil, true, ""},
		{"Practitioner", `identifier=a\,b`, []store.Condition{{Param: "identifier", Values: []string{npi + "|a,b", ccn + "|a,b"}, Match: store.Exact}}, false, ""},
		{"Practitioner", "identifier=x|1,y|", nil, false, "identifier"},
		{"Practitioner", `family:exact=O\,Brien\$\|\\`, []store.Condition{{Param: "family:exact", Values: []string{`O,Brien$|\`}, Match: store.Exact}}, false, ""},
		{"Location", `name:exact=A\,B,C`, []store.Condition{{Param: "name:exact", Values: []string{"A,B", "C"}, Match: store.Exact}}, false, ""},
		{"Practitioner", `family=O\,Brien`, []store.Condition{{Param: "family", Values: []string{"o,brien"}, Match: store.Prefix}}, false, ""},
		{"Practitioner", "active=|true", []store.Condition{{Param: "active", Values: []string{"true"}, Match: store.Exact}}, false, ""},
		{"Practitioner", "phone=(555)%20123-4567", []store.Condition{{Param: "phone", Values: []string{"5551234567"}, Match: store.Exact}}, false, ""},
		{"PractitionerRole", "practitioner=1234567893", []store.Condition{{Param: "practitioner", Values: []string{"Practitioner/1234567893"}, Match: store.Exact}}, false, ""},
		{"PractitionerRole", "practitioner=" + base + "/Practitioner/1", []store.Condition{{Param: "practitioner", Values: []string{"Practitioner/1"}, Match: store.Exact}}, false, ""},
		{"PractitionerRole", "practitioner=https://other.example/fhir/Practitioner/1", nil, true, ""},
		{"PractitionerRole", "practitioner:Organization=1", nil, false, "practitioner:Organization"},
		{"PractitionerRole", "organization=Location/1", nil, true, ""},
		{"PractitionerRole", "specialty=http://nucc.org/provider-taxonomy|207R00000X", []store.Condition{{Param: "specialty", Values: []string{"http://nucc.org/provider-taxonomy|207R00000X"}, Match: store.Exact}}, false, ""},
		{"Organization", "_lastUpdated=2024", []store.Condition{{Param: "_lastUpdated", Values: []string{"2024"}, Match: store.Prefix}}, false, ""},
		{"Organization", "_lastUpdated=2024,2025", nil, false, "_lastUpdated"},
		{"Location", "nonsense=1", nil, false, "nonsense"},
		{"Location", "_sort=-_lastUpdated,_id", nil, false, "_sort"},
	}
	for _, tt := range tests {
		v, _ := url.ParseQuery(tt.query)
		q, err := parseSearch(tt.typ, base, v, false)
		if tt.err != "" {
			var pe *paramError
			if !errors.As(err, &pe) || pe.param != tt.err {
				t.Errorf("%s?%s: err %v, want one naming %s", tt.typ, tt.query, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s?%s: %v", tt.typ, tt.query, err)
			continue
		}
		if q.empty != tt.empty || !tt.empty && !slices.EqualFunc(q.where, tt.want, func(a, b store.Condition) bool {
			return a.Param == b.Param && a.Match == b.Match && slices.Equal(a.Values, b.Values)
		}) {
			t.Errorf("%s?%s: %+v empty %v, want %+v empty %v", tt.typ, tt.query, q.where, q.empty, tt.want, tt.empty)
		}
	}
}

// FuzzParseSearch feeds arbitrary query strings to the parser. It must never panic; an error
// must be an OperationOutcome issue of a known code that quotes a bounded part of the request;
// and what it accepts must respect every request limit, touch only served types and be a query
// the store accepts.
func FuzzParseSearch(f *testing.F) {
	many := func(n int, pair string) string { return strings.TrimSuffix(strings.Repeat(pair+"&", n), "&") }
	for _, s := range []string{
		"family=smith&given=j", "identifier=http://hl7.org/fhir/sid/us-npi|1234567893", "_lastUpdated=ge2024-01-01&_lastUpdated=lt2025",
		"practitioner.name=smith", "_has:PractitionerRole:practitioner:specialty=207R00000X", "_include=PractitionerRole:practitioner",
		"_sort=-_lastUpdated,-_id&_count=500&_total=none", "name:exact=A%5C%2CB", "_elements=name,identifier&_summary=true",
		"phone=555", "_cursor=abc", "address=%00", "family=%E2%80%8B", "_lastUpdated=eq2024-06-04T10:00:00.123+05:00",
		"organization.partof.name=x", "_has:PractitionerRole:practitioner:_has:PractitionerRole:practitioner:active=true",
		"_revinclude=PractitionerRole:practitioner&_include=PractitionerRole:organization:Organization",
		many(MaxSearchParams, "active=true"), many(MaxSearchParams+1, "active=true"), many(MaxSearchParams+1, "_cursor=a"),
		many(MaxChainParams, "_has:PractitionerRole:practitioner:active=true"), many(MaxChainParams+1, "practitioner.active=true"),
		many(MaxIncludeParams+1, "_include=PractitionerRole:practitioner"),
		"_id=" + strings.Repeat("1,", MaxValues), "_id=" + strings.Repeat("1,", MaxValues-1) + "1", "family=" + strings.Repeat(`a\,`, MaxValues+1),
		"_count=" + strings.Repeat("%C3%A9", safetext.EchoRunes), strings.Repeat("x", 2*safetext.EchoRunes) + "=1", "family:" + strings.Repeat("%FF", safetext.EchoRunes) + "=a",
	} {
		f.Add("Practitioner", s, false)
		f.Add("PractitionerRole", s, true)
	}
	issueCodes := []string{"invalid", "not-supported", "too-costly"}
	f.Fuzz(func(t *testing.T, typ, query string, lenient bool) {
		if _, ok := searchParams[typ]; !ok {
			typ = "Practitioner"
		}
		v, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		q, err := parseSearch(typ, "https://dir.example/fhir", v, lenient)
		if err != nil {
			if pe := paramIssue(t, query, err); !slices.Contains(issueCodes, pe.code) || pe.param == "" && pe.code != "too-costly" {
				t.Fatalf("%q: not an issue naming a parameter: %#v", query, err)
			}
			return
		}
		checkParsed(t, query, v, q)
	})
}

// paramIssue returns a parse error as the issue it must be: a *paramError whose
// OperationOutcome stays within 4 KB, however long the request.
func paramIssue(t *testing.T, query string, err error) *paramError {
	t.Helper()
	var pe *paramError
	if !errors.As(err, &pe) {
		t.Fatalf("%q: not an issue naming a parameter: %#v", query, err)
	}
	body, jerr := json.Marshal(OperationOutcome{ResourceType: "OperationOutcome", Issue: []Issue{{Severity: "error", Code: pe.code, Diagnostics: pe.Error()}}})
	if jerr != nil || len(body) > 4096 {
		t.Fatalf("%q: an outcome of %d bytes (%v)", query, len(body), jerr)
	}
	return pe
}

// checkParsed asserts what a successful parse of values must be: within every request limit,
// touching served types only, and a query the store accepts.
func checkParsed(t *testing.T, query string, values url.Values, q *query) {
	t.Helper()
	pairs := 0
	for name, vs := range values {
		if name != "_cursor" {
			pairs += len(vs)
		}
		for _, v := range vs {
			if n := valueCount(v); n > MaxValues {
				t.Fatalf("%q: %s has %d values", query, name, n)
			}
		}
	}
	if pairs > MaxSearchParams || len(q.chains) > MaxChainParams || len(q.includes)+len(q.revs) > MaxIncludeParams {
		t.Fatalf("%q: %d parameters, %d chains, %d includes accepted", query, pairs, len(q.chains), len(q.includes)+len(q.revs))
	}
	for _, c := range q.chains {
		if c.reverse && strings.Count(c.name, "_has:") > MaxHasDepth || !c.reverse && strings.Count(c.name, ".") > MaxChainDepth {
			t.Fatalf("%q: chain %q is too deep", query, c.name)
		}
	}
	for _, a := range q.accesses() {
		if _, ok := searchParams[a.typ]; !ok {
			t.Fatalf("%q: touches %q", query, a.typ)
		}
	}
	if q.count < 0 || q.count > MaxCount {
		t.Fatalf("%q: count %d", query, q.count)
	}
	conds := slices.Clone(q.where)
	for _, c := range q.chains {
		conds = append(conds, c.cond)
	}
	if _, err := store.ValidateQuery(store.Query{Collection: catalog.FHIRCollection(q.typ), Generation: "g1", Where: conds, Limit: max(q.count, 1)}); err != nil {
		t.Fatalf("%q: the store refuses the parsed query: %v", query, err)
	}
}
