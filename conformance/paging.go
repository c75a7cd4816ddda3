package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// checkPostSearch: a search by POST _search (form body) answers what the same search by GET
// does, total and matches.
func checkPostSearch(ctx context.Context, e *Env) error {
	q := url.Values{"_count": {"5"}, "_sort": {"_id"}}
	get, err := e.search(ctx, "Practitioner", q)
	if err != nil {
		return err
	}
	res, err := e.fhirDo(ctx, http.MethodPost, "Practitioner/_search", nil, q.Encode())
	if err != nil {
		return err
	}
	post, err := searchBundle(res)
	if err != nil {
		return err
	}
	if fmt.Sprint(get.Total) != fmt.Sprint(post.Total) && (get.Total == nil || post.Total == nil || *get.Total != *post.Total) {
		return fmt.Errorf("total %v by GET, %v by POST", deref(get.Total), deref(post.Total))
	}
	if !slices.Equal(get.matches(), post.matches()) {
		return fmt.Errorf("matches %v by GET, %v by POST", get.matches(), post.matches())
	}
	return nil
}

func deref(p *int) any {
	if p == nil {
		return "none"
	}
	return *p
}

// maxPages bounds a walk by next links, so a server whose links loop cannot hold the run.
const maxPages = 200

// checkPaging follows next links from a first page to the end: every match is new and their
// count is the total the first page announced.
func checkPaging(ctx context.Context, e *Env) error {
	b, err := e.search(ctx, "Location", url.Values{"_count": {"7"}, "_total": {"accurate"}})
	if err != nil {
		return err
	}
	if b.Total == nil {
		return fmt.Errorf("no total under _total=accurate")
	}
	total := *b.Total
	if total > 7*maxPages {
		return Skipf("%d Locations is more than %d pages", total, maxPages)
	}
	seen := map[string]bool{}
	for pages := 1; ; pages++ {
		for _, m := range b.matches() {
			if seen[m] {
				return fmt.Errorf("%s repeated on page %d", m, pages)
			}
			seen[m] = true
		}
		next := b.next()
		if next == "" {
			break
		}
		if pages == maxPages {
			return fmt.Errorf("still a next link after %d pages", pages)
		}
		res, err := e.fhirGet(ctx, next, nil)
		if err != nil {
			return err
		}
		if b, err = searchBundle(res); err != nil {
			return err
		}
		if b.Total != nil && *b.Total != total {
			return fmt.Errorf("page %d says total %d, the first %d", pages+1, *b.Total, total)
		}
	}
	if len(seen) != total {
		return fmt.Errorf("%d matches over the pages, total %d", len(seen), total)
	}
	return nil
}

// checkInclude: each PractitionerRole's practitioner is in the page as an include entry.
func checkInclude(ctx context.Context, e *Env) error {
	b, err := e.search(ctx, "PractitionerRole", url.Values{"_count": {"5"}, "_include": {"PractitionerRole:practitioner"}})
	if err != nil {
		return err
	}
	included := map[string]bool{}
	var wanted []string
	for _, en := range b.Entry {
		switch en.Search.Mode {
		case "include":
			included[fmt.Sprintf("%v/%v", en.Resource["resourceType"], en.Resource["id"])] = true
		case "match":
			if ref := reference("practitioner")(en.Resource); ref != "" {
				wanted = append(wanted, ref)
			}
		}
	}
	if len(wanted) == 0 {
		return Skipf("no PractitionerRole on the first page names a practitioner")
	}
	for _, w := range wanted {
		if !included[w] {
			return fmt.Errorf("%s is named by a match but not included", w)
		}
	}
	return nil
}

// checkRevinclude: the roles naming a practitioner come with it, as include entries.
func checkRevinclude(ctx context.Context, e *Env) error {
	role, err := e.sampleOf(ctx, "PractitionerRole")
	if err != nil {
		return err
	}
	ref := reference("practitioner")(role)
	if ref == "" {
		return Skipf("the sample PractitionerRole names no practitioner")
	}
	return revIncluded(ctx, e, "Practitioner", ref, "PractitionerRole:practitioner", fmt.Sprintf("PractitionerRole/%v", role["id"]))
}
