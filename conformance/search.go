package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// shallSearch is one SHALL search parameter of US Core 6.1.0 or Plan-Net 1.2.0, with where to
// find a value for it in a served resource of the type.
type shallSearch struct {
	typ, param string
	value      valueOf
}

// valueOf finds the value a search parameter should match for a served resource, "" when the
// resource has none.
type valueOf func(ctx context.Context, e *Env, r map[string]any) (string, error)

var shallSearches = []shallSearch{
	{"Practitioner", "name", of(firstString("name", "family"))},
	{"Practitioner", "identifier", of(npiToken)},
	{"Practitioner", "family", of(firstString("name", "family"))},
	{"Practitioner", "given", of(firstGiven)},
	{"PractitionerRole", "specialty", of(firstCoding("specialty"))},
	{"PractitionerRole", "practitioner", of(reference("practitioner"))},
	{"PractitionerRole", "practitioner.identifier", chained("practitioner", npiToken)},
	{"PractitionerRole", "practitioner.name", chained("practitioner", firstString("name", "family"))},
	{"PractitionerRole", "service.organization", chained("healthcareService", reference("providedBy"))}, // a chain ending in a reference, as Plan-Net's kit sends
	{"PractitionerRole", "organization", of(reference("organization"))},
	{"PractitionerRole", "location", of(reference("location"))},
	{"PractitionerRole", "endpoint", of(reference("endpoint"))},
	{"PractitionerRole", "service", of(reference("healthcareService"))},
	{"PractitionerRole", "role", of(firstCoding("code"))},
	{"Organization", "name", of(text("name"))},
	{"Organization", "address", of(firstString("address", "city"))},
	{"Organization", "endpoint", of(reference("endpoint"))},
	{"Organization", "partof", of(reference("partOf"))},
	{"Organization", "type", of(firstCoding("type"))},
	{"Location", "name", of(text("name"))},
	{"Location", "address", of(func(r map[string]any) string { s, _ := path(r, "address", "city").(string); return s })},
	{"Location", "address-city", of(func(r map[string]any) string { s, _ := path(r, "address", "city").(string); return s })},
	{"Location", "address-state", of(func(r map[string]any) string { s, _ := path(r, "address", "state").(string); return s })},
	{"Location", "address-postalcode", of(func(r map[string]any) string { s, _ := path(r, "address", "postalCode").(string); return s })},
	{"Location", "organization", of(reference("managingOrganization"))},
	{"Location", "type", of(firstCoding("type"))},
	{"Location", "endpoint", of(reference("endpoint"))},
	{"HealthcareService", "specialty", of(firstCoding("specialty"))},
	{"HealthcareService", "organization", of(reference("providedBy"))},
	{"HealthcareService", "location", of(reference("location"))},
	{"HealthcareService", "endpoint", of(reference("endpoint"))},
	{"HealthcareService", "service-category", of(firstCoding("category"))},
	{"HealthcareService", "name", of(text("name"))},
}

// Searches every served type supports (R4 and Plan-Net: _id and _lastUpdated on every resource).
func init() {
	for _, typ := range servedTypes {
		shallSearches = append(shallSearches,
			shallSearch{typ, "_id", of(func(r map[string]any) string { return fmt.Sprint(r["id"]) })},
			shallSearch{typ, "_lastUpdated", of(lastUpdatedDay)},
		)
	}
}

// noDataSearches are Plan-Net SHALL parameters no public source gives values for: a server
// supports them by answering a search (an empty one), not by refusing the parameter.
var noDataSearches = []struct{ typ, param, value string }{
	{"PractitionerRole", "network", "Organization/none"},
	{"Organization", "coverage-area", "Location/none"},
	{"HealthcareService", "coverage-area", "Location/none"},
	{"HealthcareService", "service-type", "none"},
	{"Location", "partof", "Location/none"},
}

func of(f func(map[string]any) string) valueOf {
	return func(_ context.Context, _ *Env, r map[string]any) (string, error) { return f(r), nil }
}

// chained reads the resource r's ref names and takes f of it, for a chained parameter.
func chained(ref string, f func(map[string]any) string) valueOf {
	return func(ctx context.Context, e *Env, r map[string]any) (string, error) {
		target := reference(ref)(r)
		if target == "" {
			return "", nil
		}
		res, err := e.fhirGet(ctx, target, nil)
		if err != nil {
			return "", err
		}
		if res.status != http.StatusOK {
			return "", fmt.Errorf("%s: %d, want 200 for a reference a served resource makes", res.url, res.status)
		}
		var t map[string]any
		if err := res.json(&t); err != nil {
			return "", err
		}
		return f(t), nil
	}
}

func text(field string) func(map[string]any) string {
	return func(r map[string]any) string { s, _ := r[field].(string); return s }
}

// lastUpdatedDay is the day of meta.lastUpdated as an eq search.
func lastUpdatedDay(r map[string]any) string {
	s, _ := path(r, "meta", "lastUpdated").(string)
	if len(s) < len("2006-01-02") {
		return ""
	}
	return "eq" + s[:len("2006-01-02")]
}

// firstString is the string at keys under the first element of the array field that has one.
func firstString(field string, keys ...string) func(map[string]any) string {
	return func(r map[string]any) string {
		for _, el := range list(r[field]) {
			if s, ok := path(el, keys...).(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
}

func firstGiven(r map[string]any) string {
	for _, n := range list(r["name"]) {
		for _, g := range list(path(n, "given")) {
			if s, ok := g.(string); ok && s != "" {
				return s
			}
		}
	}
	return ""
}

// npiToken is the resource's NPI as a system|code token, as Inferno sends tokens.
func npiToken(r map[string]any) string {
	for _, id := range list(r["identifier"]) {
		if path(id, "system") == npiSystem {
			return fmt.Sprintf("%s|%v", npiSystem, path(id, "value"))
		}
	}
	return ""
}

// firstCoding is the first coding of field (a CodeableConcept or an array of them), as
// system|code.
func firstCoding(field string) func(map[string]any) string {
	return func(r map[string]any) string {
		ccs := list(r[field])
		if ccs == nil && r[field] != nil {
			ccs = []any{r[field]}
		}
		for _, cc := range ccs {
			for _, c := range list(path(cc, "coding")) {
				if sys, code := path(c, "system"), path(c, "code"); sys != nil && code != nil {
					return fmt.Sprintf("%v|%v", sys, code)
				}
			}
		}
		return ""
	}
}

// reference is the relative reference of field (one Reference or the first of an array).
func reference(field string) func(map[string]any) string {
	return func(r map[string]any) string {
		v := r[field]
		if l := list(v); len(l) > 0 {
			v = l[0]
		}
		s, _ := path(v, "reference").(string)
		return s
	}
}

// stringParts are, for the string parameters searchCheck runs on the searched type itself, the
// values of a resource that the parameter matches from their start (R4: a HumanName's text and
// parts; an Address's lines, city, state, postal code and country; a name and its aliases).
var stringParts = map[string]func(r map[string]any) []string{
	"name": func(r map[string]any) []string {
		out := strings1(r["name"], r["alias"])
		for _, n := range list(r["name"]) {
			out = append(out, strings1(path(n, "text"), path(n, "family"), path(n, "given"), path(n, "prefix"), path(n, "suffix"))...)
		}
		return out
	},
	"family": func(r map[string]any) []string { return namePart(r, "family") },
	"given":  func(r map[string]any) []string { return namePart(r, "given") },
	"address": func(r map[string]any) []string {
		var out []string
		for _, a := range addressesOf(r) {
			out = append(out, strings1(path(a, "line"), path(a, "city"), path(a, "state"), path(a, "postalCode"), path(a, "country"), path(a, "text"))...)
		}
		return out
	},
	"address-city":  func(r map[string]any) []string { return addressPart(r, "city") },
	"address-state": func(r map[string]any) []string { return addressPart(r, "state") },
}

func namePart(r map[string]any, part string) []string {
	var out []string
	for _, n := range list(r["name"]) {
		out = append(out, strings1(path(n, part))...)
	}
	return out
}

func addressPart(r map[string]any, part string) []string {
	var out []string
	for _, a := range addressesOf(r) {
		out = append(out, strings1(path(a, part))...)
	}
	return out
}

// addressesOf is a resource's address, one (Location) or a list.
func addressesOf(r map[string]any) []any {
	if a, ok := r["address"].(map[string]any); ok {
		return []any{a}
	}
	return list(r["address"])
}

// strings1 flattens strings and arrays of strings into one list.
func strings1(vs ...any) []string {
	var out []string
	for _, v := range vs {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// startsFolded reports whether value starts with q, both compared as R4's string search
// normalizes them: case- and accent-insensitive.
func startsFolded(value, q string) bool {
	fold := func(s string) string {
		var b strings.Builder
		for _, r := range norm.NFD.String(s) {
			if !unicode.Is(unicode.Mn, r) {
				b.WriteRune(unicode.ToLower(r))
			}
		}
		return b.String()
	}
	return strings.HasPrefix(fold(value), fold(q))
}

// escapeValue escapes what R4 search gives a meaning inside a string value.
func escapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `$`, `\$`, `|`, `\|`).Replace(s)
}

// isStringParam says whether the parameter's values are free text, which need escaping; tokens
// and references keep their | and /.
func isStringParam(param string) bool {
	return slices.Contains([]string{"name", "family", "given", "address", "address-city", "address-state",
		"address-postalcode", "practitioner.name"}, param)
}

// searchCheck searches by the parameter with a value taken from a served resource (the first of
// the sample page that has one): the search alone must match at least one resource, and the
// search narrowed to the resource's id must match exactly it. For a string parameter, each match
// of a page of the search alone must hold a value that starts with the searched one, as R4
// defines string search and as Inferno checks every resource a search returns. The searches say
// Prefer: handling=strict, so that a server that ignores the parameter fails rather than passes
// with everything it holds.
func searchCheck(s shallSearch) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		rs, err := e.samplesOf(ctx, s.typ)
		if err != nil {
			return err
		}
		var r map[string]any
		var v string
		for _, cand := range rs {
			if v, err = s.value(ctx, e, cand); err != nil {
				return err
			}
			if v != "" {
				r = cand
				break
			}
		}
		if r == nil {
			return Skipf("none of the first %d %s resources has a value for %s", len(rs), s.typ, s.param)
		}
		want := fmt.Sprintf("%s/%v", s.typ, r["id"])
		searched := v
		if isStringParam(s.param) {
			v = escapeValue(v)
		}
		b, err := e.searchStrict(ctx, s.typ, url.Values{s.param: {v}, "_count": {"1"}})
		if err != nil {
			return err
		}
		if b.Total == nil || *b.Total < 1 || len(b.matches()) != 1 {
			return fmt.Errorf("%s=%s: total %v and %d matches on a page of 1, want at least one", s.param, v, deref(b.Total), len(b.matches()))
		}
		if parts, ok := stringParts[s.param]; ok {
			if b, err = e.searchStrict(ctx, s.typ, url.Values{s.param: {v}, "_count": {fmt.Sprint(samplePage)}}); err != nil {
				return err
			}
			for _, en := range b.Entry {
				if en.Search.Mode == "match" && !slices.ContainsFunc(parts(en.Resource), func(p string) bool { return startsFolded(p, searched) }) {
					return fmt.Errorf("%s=%s matched %v/%v, no %s value of which starts with %q", s.param, v, en.Resource["resourceType"], en.Resource["id"], s.param, searched)
				}
			}
		}
		if s.param == "_id" {
			if got := b.matches(); got[0] != want {
				return fmt.Errorf("_id=%s: matched %s", v, got[0])
			}
			return nil
		}
		b, err = e.searchStrict(ctx, s.typ, url.Values{s.param: {v}, "_id": {fmt.Sprint(r["id"])}})
		if err != nil {
			return err
		}
		if got := b.matches(); !slices.Equal(got, []string{want}) {
			return fmt.Errorf("%s=%s&_id=%v: matches %v, want [%s]", s.param, v, r["id"], got, want)
		}
		return nil
	}
}

// checkNoDataSearches: each Plan-Net parameter without data behind it is supported, a 200
// searchset even under handling=strict, where an unsupported parameter is a 400.
func checkNoDataSearches(ctx context.Context, e *Env) error {
	var problems []string
	for _, s := range noDataSearches {
		res, err := e.fhirGet(ctx, s.typ+"?"+url.Values{s.param: {s.value}}.Encode(), http.Header{"Prefer": {"handling=strict"}})
		if err != nil {
			return err
		}
		if _, err := searchBundle(res); err != nil {
			problems = append(problems, err.Error())
		}
	}
	return joinProblems(problems)
}

// checkHas: a _has reverse chain finds the practitioner a role with the role's specialty names.
func checkHas(ctx context.Context, e *Env) error {
	roles, err := e.samplesOf(ctx, "PractitionerRole")
	if err != nil {
		return err
	}
	for _, role := range roles {
		ref, spec := reference("practitioner")(role), firstCoding("specialty")(role)
		if ref == "" || spec == "" {
			continue
		}
		id := strings.TrimPrefix(ref, "Practitioner/")
		b, err := e.search(ctx, "Practitioner", url.Values{"_has:PractitionerRole:practitioner:specialty": {spec}, "_id": {id}})
		if err != nil {
			return err
		}
		if got := b.matches(); !slices.Equal(got, []string{ref}) {
			return fmt.Errorf("Practitioner?_has:PractitionerRole:practitioner:specialty=%s&_id=%s matched %v, want [%s]", spec, id, got, ref)
		}
		return nil
	}
	return Skipf("no sample PractitionerRole names a practitioner and a specialty")
}
