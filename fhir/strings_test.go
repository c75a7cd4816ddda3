package fhir_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// escape escapes a search value as R4 has it: \ , $ and | are preceded by a backslash.
func escape(v string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `$`, `\$`, `|`, `\|`).Replace(v)
}

// nameParts lists a Practitioner's name strings: the text and each part.
func nameParts(r res) (text, family string, given, prefix, suffix []string) {
	n, _ := list(r["name"])[0].(map[string]any)
	strs := func(k string) []string {
		var out []string
		for _, v := range list(n[k]) {
			out = append(out, v.(string))
		}
		return out
	}
	text, _ = n["text"].(string)
	family, _ = n["family"].(string)
	return text, family, strs("given"), strs("prefix"), strs("suffix")
}

// hasNameString reports whether a Practitioner has v, exactly, as its name's text or a part.
func hasNameString(r res, v string) bool {
	text, family, given, prefix, suffix := nameParts(r)
	return text == v || family == v || slices.Contains(given, v) || slices.Contains(prefix, v) || slices.Contains(suffix, v)
}

// TestStringSearchAsR4 checks R4's string search where it differs from a plain prefix match:
// values escaped (\, \$ \| \\) are unescaped before they are matched, and the name parameter's
// :exact matches the name's text or any one of its parts whole, case- and accent-sensitive.
func TestStringSearchAsR4(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	_, withPrefix := pick(all["Practitioner"], func(_ string, r res) bool {
		_, _, given, prefix, suffix := nameParts(r)
		return len(prefix) > 0 && len(suffix) > 0 && len(given) > 1
	})
	_, withComma := pick(all["Location"], func(_ string, r res) bool { return strings.Count(text(r, "name"), ",") >= 2 })
	if withPrefix == nil || withComma == nil {
		t.Fatal("the test drop has no practitioner with a prefix, suffix and middle name, or no location name with commas")
	}
	ptext, family, given, prefix, suffix := nameParts(withPrefix)
	locName := text(withComma, "name")

	prefixEnd := strings.Index(locName, ",")
	tests := []struct {
		name  string
		typ   string
		param string
		value string
		want  func(r res) bool
		none  bool // the search must find nothing
	}{
		{"exact family", "Practitioner", "name:exact", family, func(r res) bool { return hasNameString(r, family) }, false},
		{"exact first given", "Practitioner", "name:exact", given[0], func(r res) bool { return hasNameString(r, given[0]) }, false},
		{"exact middle given", "Practitioner", "name:exact", given[1], func(r res) bool { return hasNameString(r, given[1]) }, false},
		{"exact prefix", "Practitioner", "name:exact", prefix[0], func(r res) bool { return hasNameString(r, prefix[0]) }, false},
		{"exact suffix", "Practitioner", "name:exact", suffix[0], func(r res) bool { return hasNameString(r, suffix[0]) }, false},
		{"exact text", "Practitioner", "name:exact", ptext, func(r res) bool { return hasNameString(r, ptext) }, false},
		{"exact is case-sensitive", "Practitioner", "name:exact", strings.ToLower(family), func(r res) bool { return false }, true},
		{"given and family is no part", "Practitioner", "name:exact", given[0] + " " + family, func(r res) bool { return false }, true},
		{"exact with escaped commas", "Location", "name:exact", escape(locName), func(r res) bool { return text(r, "name") == locName }, false},
		{"escaped commas among alternatives", "Location", "name:exact", "NOWHERE," + escape(locName), func(r res) bool { return text(r, "name") == locName }, false},
		{"unescaped commas are alternatives", "Location", "name:exact", locName, func(r res) bool { return false }, true},
		{"escaped comma in a prefix", "Location", "name", escape(locName[:prefixEnd+1]), func(r res) bool { return prefixed(text(r, "name"), locName[:prefixEnd+1]) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []string
			for id, r := range all[tt.typ] {
				if tt.want(r) {
					want = append(want, tt.typ+"/"+id)
				}
			}
			slices.Sort(want)
			if tt.none != (len(want) == 0) {
				t.Fatalf("%s=%s: the data gives %d expected matches; the case proves nothing", tt.param, tt.value, len(want))
			}
			got := e.searchAll(t, e.base+"/"+tt.typ+"?"+url.Values{tt.param: {tt.value}, "_count": {"200"}}.Encode(), "Prefer", "handling=strict")
			if matches := slices.Sorted(slices.Values(got.matches)); !slices.Equal(matches, want) {
				t.Errorf("%s=%s: got %v, want %v", tt.param, tt.value, head(matches), head(want))
			}
		})
	}
}
