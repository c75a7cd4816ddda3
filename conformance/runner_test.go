package conformance

import (
	"context"
	"encoding/xml"
	"errors"
	"strings"
	"testing"
)

// The runner turns each check's answer into its status: nil passes, a Skipf skips, any other
// error or a panic fails; Only selects by surface or surface/name.
func TestRunChecks(t *testing.T) {
	checks := []Check{
		{"a", "passes", func(context.Context, *Env) error { return nil }},
		{"a", "fails", func(context.Context, *Env) error { return errors.New("broken") }},
		{"b", "skips", func(context.Context, *Env) error { return Skipf("not here: %d", 1) }},
		{"b", "panics", func(context.Context, *Env) error { panic("boom") }},
		{"b", "wrapped skip", func(context.Context, *Env) error { return errors.Join(Skipf("inner")) }},
	}
	tests := []struct {
		name string
		only []string
		want []string
	}{
		{"all", nil, []string{"a/passes PASS", "a/fails FAIL broken", "b/skips SKIP not here: 1", "b/panics FAIL panic: boom", "b/wrapped skip SKIP inner"}},
		{"one surface", []string{"a"}, []string{"a/passes PASS", "a/fails FAIL broken"}},
		{"one check", []string{"b/skips"}, []string{"b/skips SKIP not here: 1"}},
		{"nothing matches", []string{"c"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := RunChecks(context.Background(), Options{Only: tt.only}, checks)
			var got []string
			for _, r := range rep.Results {
				got = append(got, strings.TrimSpace(r.Surface+"/"+r.Name+" "+string(r.Status)+" "+r.Reason))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// The text report names every check with its reason and totals them; the JUnit report counts
// the same, per surface and in all.
func TestReports(t *testing.T) {
	rep := Report{Results: []Result{
		{Surface: "smart", Name: "discovery", Status: Pass},
		{Surface: "smart", Name: "token", Status: Fail, Reason: `status 500 & "oops"`},
		{Surface: "fhir", Name: "read", Status: Skip, Reason: "no data"},
	}}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	want := "smart\n  PASS  discovery\n  FAIL  token: status 500 & \"oops\"\nfhir\n  SKIP  read: no data\n3 checks: 1 passed, 1 failed, 1 skipped\n"
	if text.String() != want {
		t.Errorf("text report\n%s\nwant\n%s", text.String(), want)
	}
	var x strings.Builder
	if err := rep.WriteJUnit(&x); err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(x.String()), &parsed); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, x.String())
	}
	if parsed.Tests != 3 || parsed.Failures != 1 || parsed.Skipped != 1 || len(parsed.Suites) != 2 ||
		parsed.Suites[0].Name != "smart" || parsed.Suites[0].Tests != 2 || parsed.Suites[0].Failures != 1 ||
		parsed.Suites[0].Cases[1].Failure == nil || parsed.Suites[0].Cases[1].Failure.Message != `status 500 & "oops"` {
		t.Errorf("JUnit %+v\n%s", parsed, x.String())
	}
	if rep.Failed() != 1 {
		t.Errorf("Failed() = %d, want 1", rep.Failed())
	}
}

func TestValidNPI(t *testing.T) {
	tests := []struct {
		npi  string
		want bool
	}{
		{"1234567893", true}, // the NPI standard's worked example
		{"1234567890", false},
		{"123456789", false},
		{"12345678931", false},
		{"12345a7893", false},
		{"1245319599", true},
	}
	for _, tt := range tests {
		if got := validNPI(tt.npi); got != tt.want {
			t.Errorf("validNPI(%q) = %v, want %v", tt.npi, got, tt.want)
		}
	}
}
