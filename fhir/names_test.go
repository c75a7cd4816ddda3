package fhir_test

import (
	"net/url"
	"providerdir/stored"
	"slices"
	"sort"
	"strings"
	"testing"
)

// nameValues are the values a Practitioner's name search matches by prefix, read from the
// served resource as R4 defines the parameter: the text and each part, each whole, and the
// given names followed by the family name.
func nameValues(r res, param string) []string {
	var out []string
	add := func(s string) {
		if n := stored.FoldText(s); n != "" {
			out = append(out, n)
		}
	}
	for _, n := range list(r["name"]) {
		given := list(field(n, "given"))
		switch param {
		case "family":
			add(text(n, "family"))
			continue
		case "given":
			for _, g := range given {
				add(g.(string))
			}
			continue
		}
		add(text(n, "text"))
		var joined []string
		for _, g := range given {
			joined = append(joined, g.(string))
		}
		add(strings.Join(append(joined, text(n, "family")), " "))
		for _, p := range slices.Concat(list(field(n, "prefix")), list(field(n, "suffix")), given) {
			add(p.(string))
		}
		add(text(n, "family"))
	}
	return out
}

// TestNamePrefixes searches Practitioners by name, family and given name for starts of every
// length of the names served, one and two words, and checks each against the names themselves.
func TestNamePrefixes(t *testing.T) {
	e := sharedEnv(t)
	pracs := e.all(t)["Practitioner"]
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range pracs {
			if !yield(id) {
				return
			}
		}
	})
	queries := map[string]bool{}
	for _, id := range ids[:12] {
		for _, param := range []string{"name", "family", "given"} {
			for _, v := range nameValues(pracs[id], param) {
				for _, n := range []int{1, 2, 3, 4, 6} {
					if r := []rune(v); n <= len(r) {
						queries[param+"="+string(r[:n])] = true
					}
				}
				if i := strings.IndexByte(v, ' '); i > 0 && i+2 <= len(v) {
					queries[param+"="+v[:i+2]] = true
				}
			}
		}
	}
	if len(queries) < 50 {
		t.Fatalf("only %d queries", len(queries))
	}
	for _, qs := range slices.Sorted(func(yield func(string) bool) {
		for q := range queries {
			if !yield(q) {
				return
			}
		}
	}) {
		param, q, _ := strings.Cut(qs, "=")
		nq := stored.FoldText(q)
		var want []string
		for id, r := range pracs {
			if slices.ContainsFunc(nameValues(r, param), func(v string) bool { return strings.HasPrefix(v, nq) }) {
				want = append(want, "Practitioner/"+id)
			}
		}
		sort.Strings(want)
		// A value's commas (a suffix "M.D., PH.D.") are escaped, as R4 has a client do.
		escaped := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `$`, `\$`, `|`, `\|`).Replace(q)
		got := e.searchAll(t, e.base+"/Practitioner?"+url.Values{param: {escaped}, "_count": {"40"}}.Encode())
		if !slices.Equal(got.matches, want) {
			t.Errorf("%s=%q: got %d matches, want %d\n got %v\nwant %v", param, q, len(got.matches), len(want), head(got.matches), head(want))
		}
		if got.total == nil || *got.total != int64(len(want)) {
			t.Errorf("%s=%q: total %d, want %d", param, q, deref(got.total), len(want))
		}
	}
}

func deref(n *int64) int64 {
	if n == nil {
		return -1
	}
	return *n
}
