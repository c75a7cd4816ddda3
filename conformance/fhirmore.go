package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// moreFHIRChecks hold the R4 search result parameters (_summary, _elements), the includes each
// type declares, and 410 for a removed resource.
func moreFHIRChecks() []Check {
	const f = "fhir"
	checks := []Check{
		{f, "_summary=count: the total and no resources", checkSummaryCount},
		{f, "_summary=true: summary elements only and the SUBSETTED tag", checkSummaryTrue},
		{f, "_elements: the elements asked for and the SUBSETTED tag", checkElements},
		{f, "a resource the latest snapshot removed is 410 OperationOutcome", checkGone},
	}
	for _, in := range includes {
		checks = append(checks, Check{f, "_include=" + in.source + ":" + in.param, includeCheck(in)})
	}
	for _, in := range revIncludes {
		checks = append(checks, Check{f, in.target + "?_revinclude=" + in.source + ":" + in.param, revIncludeCheck(in)})
	}
	return checks
}

// refParam names a reference search parameter of a source type, the element it searches and the
// type it points at.
type refParam struct {
	source, param, field, target string
}

// includes are the _include values the checks try, each where the CapabilityStatement declares it
// (PractitionerRole:practitioner has its own check, over a page of roles).
var includes = []refParam{
	{"PractitionerRole", "organization", "organization", "Organization"},
	{"PractitionerRole", "location", "location", "Location"},
	{"PractitionerRole", "endpoint", "endpoint", "Endpoint"},
	{"PractitionerRole", "service", "healthcareService", "HealthcareService"},
	{"Location", "organization", "managingOrganization", "Organization"},
	{"HealthcareService", "organization", "providedBy", "Organization"},
	{"Endpoint", "organization", "managingOrganization", "Organization"},
}

// revIncludes are the _revinclude values the checks try (the search is of target), each where
// the CapabilityStatement declares it (PractitionerRole:practitioner has its own check).
var revIncludes = []refParam{
	{"PractitionerRole", "organization", "organization", "Organization"},
	{"PractitionerRole", "location", "location", "Location"},
	{"PractitionerRole", "service", "healthcareService", "HealthcareService"},
	{"Endpoint", "organization", "managingOrganization", "Organization"},
	{"Location", "organization", "managingOrganization", "Organization"},
	{"HealthcareService", "organization", "providedBy", "Organization"},
}

// subsetted reports whether a resource carries the SUBSETTED tag R4 requires on a resource served
// in part.
func subsetted(r map[string]any) bool {
	for _, t := range list(path(r, "meta", "tag")) {
		if path(t, "system") == "http://terminology.hl7.org/CodeSystem/v3-ObservationValue" && path(t, "code") == "SUBSETTED" {
			return true
		}
	}
	return false
}

// checkSummaryCount: _summary=count answers a searchset with the total a search counting
// accurately gives, and no resources.
func checkSummaryCount(ctx context.Context, e *Env) error {
	full, err := e.search(ctx, "Practitioner", url.Values{"_count": {"1"}, "_total": {"accurate"}})
	if err != nil {
		return err
	}
	b, err := e.search(ctx, "Practitioner", url.Values{"_summary": {"count"}})
	if err != nil {
		return err
	}
	switch {
	case b.Total == nil || full.Total == nil:
		return fmt.Errorf("no total: %v under _summary=count, %v under _total=accurate", deref(b.Total), deref(full.Total))
	case *b.Total != *full.Total:
		return fmt.Errorf("total %d under _summary=count, %d under _total=accurate", *b.Total, *full.Total)
	case len(b.matches()) != 0:
		return fmt.Errorf("%d resources under _summary=count, want none", len(b.matches()))
	}
	e.note = fmt.Sprintf("total %d", *b.Total)
	return nil
}

// checkSummaryTrue: under _summary=true every resource is tagged SUBSETTED and keeps its summary
// elements (identifier) while losing the others (Practitioner.qualification, text).
func checkSummaryTrue(ctx context.Context, e *Env) error {
	b, err := e.search(ctx, "Practitioner", url.Values{"_summary": {"true"}, "_count": {"5"}})
	if err != nil {
		return err
	}
	if len(b.Entry) == 0 {
		return Skipf("no Practitioner served")
	}
	for _, en := range b.Entry {
		r := en.Resource
		switch {
		case !subsetted(r):
			return fmt.Errorf("served Practitioner/%v lacks the SUBSETTED tag", r["id"])
		case r["qualification"] != nil || r["text"] != nil:
			return fmt.Errorf("served Practitioner/%v keeps qualification or text, which are not summary elements", r["id"])
		case r["identifier"] == nil || r["resourceType"] != "Practitioner" || r["id"] == nil:
			return fmt.Errorf("served Practitioner/%v lost resourceType, id or identifier", r["id"])
		}
	}
	return nil
}

// checkElements: _elements=identifier on a Practitioner that has an address serves its
// identifier, tagged SUBSETTED, without the address or qualification.
func checkElements(ctx context.Context, e *Env) error {
	rs, err := e.samplesOf(ctx, "Practitioner")
	if err != nil {
		return err
	}
	i := slices.IndexFunc(rs, func(r map[string]any) bool { return r["address"] != nil && r["identifier"] != nil })
	if i < 0 {
		return Skipf("no sample Practitioner has an address")
	}
	id := fmt.Sprint(rs[i]["id"])
	b, err := e.search(ctx, "Practitioner", url.Values{"_id": {id}, "_elements": {"identifier"}})
	if err != nil {
		return err
	}
	if len(b.Entry) != 1 {
		return fmt.Errorf("search by _id=%s&_elements=identifier: %d entries, want 1", id, len(b.Entry))
	}
	r := b.Entry[0].Resource
	switch {
	case !subsetted(r):
		return fmt.Errorf("served Practitioner/%s under _elements lacks the SUBSETTED tag", id)
	case r["identifier"] == nil || r["resourceType"] != "Practitioner" || fmt.Sprint(r["id"]) != id:
		return fmt.Errorf("served Practitioner/%s under _elements=identifier lost resourceType, id or identifier", id)
	case r["address"] != nil || r["qualification"] != nil:
		return fmt.Errorf("served Practitioner/%s under _elements=identifier keeps address or qualification", id)
	}
	return nil
}

// checkGone: a resource the latest source snapshot removed answers 410 with an OperationOutcome.
// Only the operator knows one (a change set names them), so it runs when given one.
func checkGone(ctx context.Context, e *Env) error {
	if e.gone == "" {
		return Skipf("no removed resource named (--gone TYPE/ID, one the latest snapshot removed)")
	}
	res, err := e.fhirGet(ctx, e.gone, nil)
	if err != nil {
		return err
	}
	if res.status != http.StatusGone {
		return fmt.Errorf("%s: %d, want 410", e.gone, res.status)
	}
	return operationOutcome(res)
}

// declared reports whether the CapabilityStatement lists value (Source:param) among the
// searchInclude (rev false) or searchRevInclude of typ.
func (e *Env) declared(ctx context.Context, typ, value string, rev bool) (bool, error) {
	res, err := e.do(ctx, http.MethodGet, e.fhirBase()+"/metadata", http.Header{"Accept": {"application/fhir+json"}}, nil)
	if err != nil {
		return false, err
	}
	var cs struct {
		Rest []struct {
			Resource []struct {
				Type             string   `json:"type"`
				SearchInclude    []string `json:"searchInclude"`
				SearchRevInclude []string `json:"searchRevInclude"`
			} `json:"resource"`
		} `json:"rest"`
	}
	if err := res.json(&cs); err != nil {
		return false, err
	}
	for _, rest := range cs.Rest {
		for _, r := range rest.Resource {
			if r.Type != typ {
				continue
			}
			if rev {
				return slices.Contains(r.SearchRevInclude, value), nil
			}
			return slices.Contains(r.SearchInclude, value), nil
		}
	}
	return false, nil
}

// references lists every relative reference to target in a resource's field (one Reference or
// an array of them).
func references(r map[string]any, field, target string) []string {
	vs := list(r[field])
	if vs == nil && r[field] != nil {
		vs = []any{r[field]}
	}
	var out []string
	for _, v := range vs {
		if s, _ := path(v, "reference").(string); strings.HasPrefix(s, target+"/") {
			out = append(out, s)
		}
	}
	return out
}

// includeCheck searches by the id of a served source resource that references the target, with
// _include=Source:param: every resource it references there comes back as an include entry.
func includeCheck(in refParam) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		value := in.source + ":" + in.param
		if ok, err := e.declared(ctx, in.source, value, false); err != nil || !ok {
			return skipOr(err, "the CapabilityStatement does not declare _include=%s", value)
		}
		rs, err := e.samplesOf(ctx, in.source)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(rs, func(r map[string]any) bool { return len(references(r, in.field, in.target)) > 0 })
		if i < 0 {
			return Skipf("no sample %s has a %s", in.source, in.field)
		}
		id := fmt.Sprint(rs[i]["id"])
		b, err := e.search(ctx, in.source, url.Values{"_id": {id}, "_include": {value}})
		if err != nil {
			return err
		}
		included := map[string]bool{}
		for _, en := range b.Entry {
			if en.Search.Mode == "include" {
				included[fmt.Sprintf("%v/%v", en.Resource["resourceType"], en.Resource["id"])] = true
			}
		}
		want := references(rs[i], in.field, in.target)
		for _, w := range want {
			if !included[w] {
				return fmt.Errorf("%s/%s names %s in %s, not included", in.source, id, w, in.field)
			}
		}
		e.note = fmt.Sprintf("%s/%s: %d included", in.source, id, len(want))
		return nil
	}
}

// revIncludeCheck searches the target a served source resource references, by id, with
// _revinclude=Source:param: the source resource comes back as an include entry.
func revIncludeCheck(in refParam) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		value := in.source + ":" + in.param
		if ok, err := e.declared(ctx, in.target, value, true); err != nil || !ok {
			return skipOr(err, "the CapabilityStatement does not declare _revinclude=%s on %s", value, in.target)
		}
		rs, err := e.samplesOf(ctx, in.source)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(rs, func(r map[string]any) bool { return len(references(r, in.field, in.target)) > 0 })
		if i < 0 {
			return Skipf("no sample %s has a %s", in.source, in.field)
		}
		ref := references(rs[i], in.field, in.target)[0]
		return revIncluded(ctx, e, in.target, ref, value, fmt.Sprintf("%s/%v", in.source, rs[i]["id"]))
	}
}

// revIncluded searches typ by the id of ref with _revinclude=value, giving the id alone and as
// the reference (Type/id, as the Inferno kits send it; HAPI FHIR reads either), each by GET and
// POST _search: every answer includes want.
func revIncluded(ctx context.Context, e *Env, typ, ref, value, want string) error {
	for _, id := range []string{strings.TrimPrefix(ref, typ+"/"), ref} {
		b, err := e.searchBoth(ctx, typ, url.Values{"_id": {id}, "_revinclude": {value}})
		if err != nil {
			return err
		}
		if !slices.Contains(b.entries(), "include "+want) {
			return fmt.Errorf("%s?_id=%s&_revinclude=%s does not include %s", typ, id, value, want)
		}
	}
	return nil
}

// skipOr is err when there is one, else a skip for the reason.
func skipOr(err error, format string, a ...any) error {
	if err != nil {
		return err
	}
	return Skipf(format, a...)
}

// maxBudgetSpend bounds the requests a budget check sends to reach a 429: a budget with more
// left is not spent.
const maxBudgetSpend = 1100

// budgetChecks spend the budgets a run can reach to hold their refusals to the contract: 429 with
// Retry-After. They lock the run's client (or address) out until then, so they run last, and
// only when asked for.
func budgetChecks() []Check {
	return []Check{ // the FHIR check first: it needs the run's token, which the other then refuses
		{"fhir", "FHIR requests over the client's budget are 429 OperationOutcome with Retry-After", checkFHIRBudget},
		{"smart", "token endpoint over its budget is 429 slow_down with Retry-After", checkTokenBudget},
		{"supply", "over the per-minute quota is 429 rate_limit_exceeded with Retry-After 60, and a 429 is not counted", checkSupplyBudget},
		{"resolver", "the sandbox key over its hourly budget is 429 rate_limited with Retry-After", checkResolverBudget},
	}
}

// spend sends requests until one is refused or the bound is reached, and returns the refusal.
func (e *Env) spend(what string, send func() (response, error)) (response, error) {
	if !e.exhaust {
		return response{}, Skipf("opt-in (--exhaust-budgets): spending the %s budget locks this client out until its Retry-After", what)
	}
	first, err := send()
	if err != nil {
		return response{}, err
	}
	left, err := strconv.Atoi(first.header.Get("X-RateLimit-Remaining"))
	if err != nil {
		return response{}, fmt.Errorf("%s: X-RateLimit-Remaining %q is not an integer", first.url, first.header.Get("X-RateLimit-Remaining"))
	}
	if left > maxBudgetSpend {
		return response{}, Skipf("%d requests remain of the %s budget, more than the %d this check spends", left, what, maxBudgetSpend)
	}
	for n := 0; n <= left+1; n++ {
		res, err := send()
		if err != nil || res.status == http.StatusTooManyRequests {
			return res, err
		}
	}
	return response{}, fmt.Errorf("no 429 after %d requests; X-RateLimit-Remaining said %d", left+2, left)
}

// retryAfter holds a refusal's Retry-After to a number of seconds, at least one.
func retryAfter(res response) error {
	s, err := strconv.Atoi(res.header.Get("Retry-After"))
	if err != nil || s < 1 {
		return fmt.Errorf("%s: 429 with Retry-After %q, want seconds", res.url, res.header.Get("Retry-After"))
	}
	return nil
}

func checkTokenBudget(ctx context.Context, e *Env) error {
	tokenURL, err := e.tokenEndpoint(ctx)
	if err != nil {
		return err
	}
	h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
	res, err := e.spend("token endpoint", func() (response, error) {
		return e.do(ctx, http.MethodPost, tokenURL, h, strings.NewReader("grant_type=client_credentials"))
	})
	if err != nil {
		return err
	}
	if err := retryAfter(res); err != nil {
		return err
	}
	var t tokenAnswer
	if err := res.json(&t); err != nil {
		return err
	}
	if t.Error != "slow_down" {
		return fmt.Errorf("429 with error %q, want slow_down", t.Error)
	}
	return nil
}

func checkFHIRBudget(ctx context.Context, e *Env) error {
	res, err := e.spend("FHIR", func() (response, error) {
		return e.fhirGet(ctx, "Practitioner?_summary=count", nil)
	})
	if err != nil {
		return err
	}
	if err := retryAfter(res); err != nil {
		return err
	}
	return operationOutcome(res)
}
