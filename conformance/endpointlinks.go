package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// extLinkMatch is the extension a reference inferred by a rule carries: the rule, its
// confidence and the methodology that documents it.
const extLinkMatch = "urn:providerdir:extension:link-match"

// linkChecksLimit bounds the resources a link check reads one by one.
const linkChecksLimit = 10

// checkEndpointAffiliation: an Endpoint whose managing organization was found by the name of
// the organization its registrant says it belongs to states the rule and a confidence in (0, 1]
// on the reference, and the Organization it names is served under a legal name that is that
// name with case, punctuation and spacing aside.
func checkEndpointAffiliation(ctx context.Context, e *Env) error {
	b, err := e.search(ctx, "Endpoint", url.Values{"_count": {"500"}})
	if err != nil {
		return err
	}
	var problems []string
	checked := 0
	for _, en := range b.Entry {
		m, _ := en.Resource["managingOrganization"].(map[string]any)
		var match any
		for _, x := range list(m["extension"]) {
			if path(x, "url") == extLinkMatch {
				match = x
			}
		}
		if match == nil {
			continue
		}
		if checked++; checked > linkChecksLimit {
			break
		}
		id := fmt.Sprintf("Endpoint/%v", en.Resource["id"])
		var rule string
		var confidence float64
		for _, x := range list(path(match, "extension")) {
			switch path(x, "url") {
			case "rule":
				rule, _ = path(x, "valueString").(string)
			case "confidence":
				confidence, _ = path(x, "valueDecimal").(float64)
			}
		}
		if rule == "" || confidence <= 0 || confidence > 1 {
			problems = append(problems, fmt.Sprintf("%s: link-match rule %q confidence %v, want a rule and a confidence in (0, 1]", id, rule, confidence))
		}
		ref, _ := m["reference"].(string)
		display, _ := m["display"].(string)
		if !strings.HasPrefix(ref, "Organization/") {
			problems = append(problems, fmt.Sprintf("%s: managingOrganization %q found by name is no Organization", id, ref))
			continue
		}
		res, err := e.fhirGet(ctx, ref, nil)
		if err != nil {
			return err
		}
		var org map[string]any
		if res.status != http.StatusOK {
			problems = append(problems, fmt.Sprintf("%s names %s: %d, want 200", id, ref, res.status))
		} else if err := res.json(&org); err != nil {
			return err
		} else if name, _ := org["name"].(string); legalNameKey(name) != legalNameKey(display) {
			problems = append(problems, fmt.Sprintf("%s names %s, %q, for the affiliation %q", id, ref, name, display))
		}
	}
	if checked == 0 {
		return Skipf("none of %d Endpoints has a managing organization found by its affiliation's name", len(b.Entry))
	}
	e.note = fmt.Sprintf("%d Endpoints managed by an organization found by name", min(checked, linkChecksLimit))
	return joinProblems(problems)
}

// checkLocationEndpoints: Endpoints with _revinclude=Location:endpoint by GET and POST _search
// bring the Locations that name them, each naming one of the page's Endpoints, and every
// Endpoint such a Location names is served.
func checkLocationEndpoints(ctx context.Context, e *Env) error {
	b, err := e.searchBoth(ctx, "Endpoint", url.Values{"_count": {"100"}, "_revinclude": {"Location:endpoint"}})
	if err != nil {
		return err
	}
	page := map[string]bool{}
	for _, en := range b.Entry {
		if en.Search.Mode == "match" {
			page[fmt.Sprintf("Endpoint/%v", en.Resource["id"])] = true
		}
	}
	var problems []string
	locations := 0
	for _, en := range b.Entry {
		if en.Search.Mode != "include" || en.Resource["resourceType"] != "Location" {
			continue
		}
		locations++
		var named []string
		for _, x := range list(en.Resource["endpoint"]) {
			if s, _ := path(x, "reference").(string); s != "" {
				named = append(named, s)
			}
		}
		id := fmt.Sprintf("Location/%v", en.Resource["id"])
		if !slices.ContainsFunc(named, func(s string) bool { return page[s] }) {
			problems = append(problems, fmt.Sprintf("%s came with _revinclude=Location:endpoint yet names none of the page's Endpoints (%v)", id, named))
		}
		if locations > linkChecksLimit {
			continue
		}
		for _, ref := range named {
			res, err := e.fhirGet(ctx, ref, nil)
			if err != nil {
				return err
			}
			if res.status != http.StatusOK {
				problems = append(problems, fmt.Sprintf("%s names %s: %d, want 200", id, ref, res.status))
			}
		}
	}
	if locations == 0 {
		return Skipf("no Location names one of the first %d Endpoints", len(page))
	}
	e.note = fmt.Sprintf("%d Locations name Endpoints of a page of %d", locations, len(page))
	return joinProblems(problems)
}

// legalNameKey is a name with case, punctuation and spacing set aside: its letters and digits
// in capitals, words split at anything else and joined by one space.
func legalNameKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}
