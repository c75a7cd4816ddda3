package mcptools

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The exclusion check reads only a boolean exclusion fact: no fact, or a value that is not a
// boolean (null included), is unknown, never not excluded; the fact is passed on as sent.
func TestExclusion(t *testing.T) {
	const listed = `{"type":"exclusion","value":true,"_source":"OIG","_extra":[1]}`
	tests := []struct {
		name   string
		facts  string
		status string
		fact   string // the fact passed on, "null" for none
	}{
		{"listed", `[{"type":"pecos_enrolled","value":true},` + listed + `]`, StatusExcluded, listed},
		{"not listed", `[{"type":"exclusion","value":false}]`, StatusNotExcluded, `{"type":"exclusion","value":false}`},
		{"no exclusion fact", `[{"type":"pecos_enrolled","value":false}]`, StatusUnknown, "null"},
		{"no facts", `[]`, StatusUnknown, "null"},
		{"facts null", `null`, StatusUnknown, "null"},
		{"not a boolean", `[{"type":"exclusion","value":"pending"}]`, StatusUnknown, `{"type":"exclusion","value":"pending"}`},
		{"null", `[{"type":"exclusion","value":null}]`, StatusUnknown, `{"type":"exclusion","value":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exclusion(json.RawMessage(`{"npi":"1234567893","facts":` + tt.facts + `}`))
			if err != nil {
				t.Fatal(err)
			}
			var got, want map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(`{"npi":"1234567893","status":"`+tt.status+`","fact":`+tt.fact+`}`), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, want %v", out, want)
			}
		})
	}
	if _, err := exclusion(json.RawMessage(`[]`)); err == nil {
		t.Error("a body that is no record was read")
	}
}
