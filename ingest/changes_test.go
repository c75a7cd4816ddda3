package ingest

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestSameRecord(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"identical", `{"record":{"npi":"1"},"provenance":{"_snapshot":"2025-05-01"}}`, `{"record":{"npi":"1"},"provenance":{"_snapshot":"2025-05-01"}}`, true},
		{"provenance moved", `{"record":{"npi":"1"},"provenance":{"_snapshot":"2025-05-01"}}`, `{"record":{"npi":"1"},"provenance":{"_snapshot":"2025-06-01"}}`, true},
		{"record changed", `{"record":{"npi":"1"},"provenance":{"_snapshot":"2025-05-01"}}`, `{"record":{"npi":"2"},"provenance":{"_snapshot":"2025-05-01"}}`, false},
		{"braces and quotes inside strings", `{"record":{"name":"A \"}\" B{"},"provenance":{"a":1}}`, `{"record":{"name":"A \"}\" B{"},"provenance":{"a":2}}`, true},
		{"a backslash before the closing quote", `{"record":{"name":"A\\"},"provenance":{"a":1}}`, `{"record":{"name":"A\\"},"provenance":{"a":2}}`, true},
		{"nested objects and arrays", `{"record":{"a":[{"b":[1,2]},{}]},"provenance":{}}`, `{"record":{"a":[{"b":[1,3]},{}]},"provenance":{}}`, false},
		{"FHIR document digests equal", `{"record":"bc0c404650ef20a7","etag":"1","tags":"x","resource":{}}`, `{"record":"bc0c404650ef20a7","etag":"2","tags":"y","resource":{"id":"z"}}`, true},
		{"FHIR document digests differ", `{"record":"bc0c404650ef20a7","etag":"1"}`, `{"record":"bc0c404650ef20a8","etag":"1"}`, false},
		{"record not first: decoded", `{"provenance":{"a":1},"record":{"npi":"1"}}`, `{"record":{"npi":"1"},"provenance":{"a":2}}`, true},
		{"space after the colon: decoded", `{"record": {"npi":"1"},"provenance":{"a":1}}`, `{"record":{"npi":"1"},"provenance":{"a":2}}`, true},
		{"no record member: compared whole", `{"npi":"1"}`, `{"npi":"1","x":1}`, false},
		{"one without a record member", `{"record":{"npi":"1"}}`, `{"npi":"1"}`, false},
		{"cut short", `{"record":{"npi":"1"`, `{"record":{"npi":"1"`, true},
		{"cut short, differing", `{"record":{"npi":"1"`, `{"record":{"npi":"1"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sameRecord([]byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("sameRecord(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := sameRecord([]byte(tt.b), []byte(tt.a)); got != tt.want {
				t.Errorf("sameRecord(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// decodedRecord is the record member as encoding/json finds it, what leadingRecord must agree
// with on every body the mapping packages write.
func decodedRecord(body []byte) ([]byte, bool) {
	var x struct {
		Record json.RawMessage `json:"record"`
	}
	if json.Unmarshal(body, &x) != nil || x.Record == nil {
		return nil, false
	}
	return x.Record, true
}

// Bodies written as the mapping packages write them (the record first, then other members)
// give leadingRecord the record encoding/json decodes, whatever the values hold.
func FuzzLeadingRecord(f *testing.F) {
	f.Add(`1234567893`, `{"a":"b"}`, "x", true)
	f.Add(`A "quoted" \ back}slash{`, `[1,{"x":"]"}]`, "", false)
	f.Add("\u2028\x00\xff", `"s"`, "}", true)
	f.Fuzz(func(t *testing.T, text, raw, other string, object bool) {
		var record any = text
		if object {
			record = map[string]any{"name": text, "list": []string{other, text}, "nested": map[string]string{other: text}}
		}
		if json.Valid([]byte(raw)) {
			record = map[string]any{"raw": json.RawMessage(raw), "text": text}
		}
		body, err := json.Marshal(struct {
			Record any    `json:"record"`
			Other  string `json:"provenance"`
		}{record, other})
		if err != nil {
			t.Skip()
		}
		got, ok := leadingRecord(body)
		want, wantOK := decodedRecord(body)
		if !ok || !wantOK || !bytes.Equal(got, want) {
			t.Fatalf("body %s: leadingRecord %s (%v), decoded %s (%v)", body, got, ok, want, wantOK)
		}
	})
}

// A document compared once keeps what that found; compared again with another result it is
// unsure, and its change set reads it below again.
func TestVerdicts(t *testing.T) {
	tests := []struct {
		name  string
		notes []bool
		want  verdict
	}{
		{"never compared", nil, 0},
		{"same", []bool{true}, verdictSame},
		{"changed", []bool{false}, verdictChanged},
		{"same twice", []bool{true, true}, verdictSame},
		{"changed twice", []bool{false, false}, verdictChanged},
		{"same, then changed", []bool{true, false}, verdictUnsure},
		{"changed, then same", []bool{false, true}, verdictUnsure},
		{"unsure stays unsure", []bool{true, false, false}, verdictUnsure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verdicts{}
			for _, same := range tt.notes {
				v.note("1234567893", same)
			}
			if got := v["1234567893"]; got != tt.want {
				t.Errorf("verdict %d, want %d", got, tt.want)
			}
		})
	}
}

func BenchmarkSameRecord(b *testing.B) {
	registry := []byte(`{"record":{"npi":"1000032080","entity_type":"individual","name":{"first":"MEI","middle":"G","last":"FENMAN","suffix":"M.D."},"practice_address":{"line1":"8312 CHESTNUT BLVD","city":"WHITEFORD","state":"TX","postal_code":"752676576","country":"US","phone":"6938763154"},"taxonomies":[{"code":"207L00000X","license":"G104102","license_state":"TX","primary":true}]},"provenance":{"_source":"NPPES","_source_url":"https://download.cms.gov/nppes/NPI_Files.html","_dataset_id":"nppes","_snapshot":"2025-05-08","_methodology":"nppes-registry/1.0.0","_last_checked":"2025-05-08T00:00:00Z"}}`)
	next := bytes.Replace(registry, []byte("2025-05-08"), []byte("2025-06-08"), -1)
	for b.Loop() {
		if !sameRecord(registry, next) {
			b.Fatal("records differ")
		}
	}
}
