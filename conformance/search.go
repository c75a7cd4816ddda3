package conformance

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// shallSearch is one SHALL search parameter of US Core 6.1.0 or Plan-Net 1.2.0, with where to
// find a value for it in a served resource of the type.
type shallSearch struct {
	typ, param string
	value      func(r map[string]any) string
}

var shallSearches = []shallSearch{
	{"Practitioner", "name", firstString("name", "family")},
	{"Practitioner", "identifier", npiToken},
	{"Practitioner", "family", firstString("name", "family")},
	{"Practitioner", "given", firstGiven},
	{"PractitionerRole", "specialty", firstCoding("specialty")},
	{"PractitionerRole", "practitioner", reference("practitioner")},
	{"Organization", "name", func(r map[string]any) string { s, _ := r["name"].(string); return s }},
	{"Organization", "address", firstString("address", "city")},
	{"Location", "name", func(r map[string]any) string { s, _ := r["name"].(string); return s }},
	{"Location", "address", func(r map[string]any) string { s, _ := path(r, "address", "city").(string); return s }},
	{"HealthcareService", "specialty", firstCoding("specialty")},
	{"HealthcareService", "organization", reference("providedBy")},
}

// firstString is the string at keys under the first element of the array field.
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

// firstCoding is the first coding of the first CodeableConcept of field, as system|code.
func firstCoding(field string) func(map[string]any) string {
	return func(r map[string]any) string {
		for _, cc := range list(r[field]) {
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

// escapeValue escapes what R4 search gives a meaning inside a value.
func escapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `,`, `\,`, `$`, `\$`).Replace(s)
}

// searchCheck searches by the parameter with a value taken from a served resource: the search
// alone must find it among its matches' total, and the search narrowed to its id must find
// exactly it.
func searchCheck(s shallSearch) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		r, err := e.sampleOf(ctx, s.typ)
		if err != nil {
			return err
		}
		v := s.value(r)
		if v == "" {
			return Skipf("the sample %s/%v has no value for %s", s.typ, r["id"], s.param)
		}
		if s.param != "identifier" && !strings.Contains(v, "|") {
			v = escapeValue(v)
		}
		want := fmt.Sprintf("%s/%v", s.typ, r["id"])
		b, err := e.search(ctx, s.typ, url.Values{s.param: {v}, "_count": {"1"}})
		if err != nil {
			return err
		}
		if b.Total == nil || *b.Total < 1 || len(b.matches()) != 1 {
			return fmt.Errorf("%s=%s: total %v and %d matches on a page of 1, want at least one", s.param, v, b.Total, len(b.matches()))
		}
		b, err = e.search(ctx, s.typ, url.Values{s.param: {v}, "_id": {fmt.Sprint(r["id"])}})
		if err != nil {
			return err
		}
		if got := b.matches(); !slices.Equal(got, []string{want}) {
			return fmt.Errorf("%s=%s&_id=%v: matches %v, want [%s]", s.param, v, r["id"], got, want)
		}
		return nil
	}
}
