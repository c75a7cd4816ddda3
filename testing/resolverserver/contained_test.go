package resolverserver

import (
	"encoding/json"
	"testing"
)

func TestContained(t *testing.T) {
	want := `{"a":1,"b":{"c":[{"d":null,"e":"x"}],"f":true},"g":[1,2]}`
	tests := []struct {
		got string
		ok  bool
	}{
		{want, true},
		{`{"a":1}`, true},
		{`{"b":{"c":[{"e":"x"}]}}`, true},
		{`{"a":2}`, false},
		{`{"h":null}`, false},
		{`{"b":{"c":[{"d":0}]}}`, false},
		{`{"g":[1]}`, false},
		{`{"g":{"0":1}}`, false},
		{`{"a":[1]}`, false},
	}
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		var g any
		if err := json.Unmarshal([]byte(tt.got), &g); err != nil {
			t.Fatal(err)
		}
		if err := Contained(g, w); (err == nil) != tt.ok {
			t.Errorf("Contained(%s): %v, want ok %v", tt.got, err, tt.ok)
		}
	}
}
