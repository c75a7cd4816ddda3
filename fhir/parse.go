package fhir

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/stored"
)

// Paging and include bounds.
const (
	DefaultCount = 20
	MaxCount     = 500
	// DefaultMaxIncludes caps the resources _include and _revinclude add to one page. Past it
	// the page carries an OperationOutcome warning saying so: includes are never cut silently.
	DefaultMaxIncludes = 1000
	// DefaultMaxChain caps the resources a chained (practitioner.name=...) or reverse-chained
	// (_has) parameter may match before the search is refused as too costly, with a 400 saying so.
	DefaultMaxChain = 1000
)

// query is a parsed search: what to match, how to order and page, what to add and how to shape
// the resources. Parsing is pure (no store access) so that it can be fuzzed; chains and _has
// are resolved against the store afterwards.
type query struct {
	typ    string
	where  []store.Condition
	chains []chain
	empty  bool // some condition can never match
	sort   string
	desc   bool
	count  int
	total  string // none, estimate, accurate; "" when not asked (counted when affordable)
	shape
	includes []include
	revs     []include
	cursor   string
	// canonical is the search's parameters without _cursor, for links and the cursor's check.
	canonical url.Values
	warnings  []Issue
	// base is the configured FHIR base URL: absolute references under it are this server's.
	base string

	// tags are the _tag parameters, resolved against the snapshot's tag sets when run.
	tags []tagQuery

	// near is the near parameter (near.go), byDistance whether the results come nearest first:
	// with near, unless a _sort other than near is given. sortNear is _sort=near.
	near       *nearQuery
	byDistance bool
	sortNear   bool
}

// chain is a parameter whose values select resources of another type: a forward chain
// (practitioner.name=smith: roles whose practitioner matches) or a reverse chain
// (_has:PractitionerRole:practitioner:specialty=X: practitioners some role of which matches).
type chain struct {
	name    string // the parameter as given, for messages
	reverse bool
	// other is the type searched by the inner condition; cond the inner condition.
	other string
	cond  store.Condition
	// key is the reference key: of the searched type (forward), of the other type (reverse).
	key string
}

// paramError is a request error naming a parameter (or none, when it is about the whole search):
// a 400 OperationOutcome. The parameter and the string arguments of the message are clipped
// (clip), so the error quotes at most a bounded part of the request.
type paramError struct {
	param, msg string
	code       string // IssueType: invalid, not-supported, too-costly
	// limit says the search is over a request limit (limits.go): refused under any handling,
	// since ignoring the parameter would not bound the work asked for.
	limit bool
}

func (e *paramError) Error() string {
	if e.param == "" {
		return e.msg
	}
	return "parameter " + strconv.Quote(e.param) + ": " + e.msg
}

func invalid(p, format string, args ...any) *paramError {
	return newParamError("invalid", p, format, args)
}

func unsupported(p, format string, args ...any) *paramError {
	return newParamError("not-supported", p, format, args)
}

// unnamed is the issue of a parameter with a value and no name ("=x").
func unnamed() *paramError { return invalid("(unnamed)", "a parameter without a name") }

// parseSearch parses the parameters of a search of resourceType. Under lenient handling (the
// default) an unknown or malformed parameter is dropped with a warning instead of failing the
// search; a search over a request limit (limits.go) fails either way.
func parseSearch(resourceType, base string, values url.Values, lenient bool) (*query, error) {
	q := &query{typ: resourceType, base: base, count: DefaultCount, canonical: url.Values{}}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	slices.Sort(names)
	if err := checkLimits(names, values); err != nil {
		return nil, err
	}
	for _, name := range names {
		for _, v := range values[name] {
			if v == "" {
				continue // FHIR: a parameter without a value is ignored
			}
			err := q.add(name, v)
			if err == nil {
				if name != "_cursor" && name != "_elements" {
					q.canonical.Add(name, v)
				}
				continue
			}
			pe, ok := err.(*paramError)
			if !lenient || !ok || pe.limit {
				return nil, err
			}
			q.warnings = append(q.warnings, warning("informational", pe.Error()+"; ignored (Prefer: handling=strict refuses it)"))
		}
	}
	if q.sortNear && q.near == nil {
		return nil, refused("_sort", "near sorts by the distance from a near parameter; give one")
	}
	q.byDistance = q.near != nil && (q.sortNear || len(values["_sort"]) == 0)
	// The links carry the elements in effect, so that later pages are shaped as this one even
	// when some of the elements asked for were ignored.
	if len(q.elements) > 0 {
		q.canonical.Set("_elements", strings.Join(q.elements, ","))
	}
	return q, nil
}

// add parses one name=value pair into the query.
func (q *query) add(name, value string) error {
	switch name {
	case "_count":
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return invalid(name, "%q is not a count (0 or more)", value)
		}
		if n > MaxCount {
			q.warnings = append(q.warnings, warning("informational", fmt.Sprintf("_count=%d is above the maximum page size; pages hold %d", n, MaxCount)))
			n = MaxCount
		}
		q.count = n
		return nil
	case "_total":
		if value != "none" && value != "estimate" && value != "accurate" {
			return invalid(name, "%q is not none, estimate or accurate", value)
		}
		q.total = value
		return nil
	case "_summary":
		if !slices.Contains([]string{"true", "false", "text", "data", "count"}, value) {
			return invalid(name, "%q is not true, false, text, data or count", value)
		}
		q.summary = value
		return nil
	case "_elements":
		return q.addElements(value)
	case "_sort":
		return q.addSort(value)
	case "_include", "_revinclude":
		return q.addInclude(name, value)
	case "_format":
		return nil // negotiated before parsing
	case "_pretty":
		q.pretty = value == "true"
		if value != "true" && value != "false" {
			return invalid(name, "%q is not true or false", value)
		}
		return nil
	case "_cursor":
		q.cursor = value
		return nil
	case "":
		return unnamed()
	}
	if base, mod, ok := strings.Cut(name, ":"); ok && (base == "_include" || base == "_revinclude") {
		if mod != "iterate" {
			return unsupported(name, "the only modifier of %s is :iterate", base)
		}
		return q.addIterate(base, value)
	}
	if strings.HasPrefix(name, "_has:") {
		return q.addHas(name, value)
	}
	base, chained, isChain := strings.Cut(name, ".")
	pname, modifier, _ := strings.Cut(base, ":")
	p, ok := lookupParam(q.typ, pname)
	if !ok {
		return invalid(name, "%s has no search parameter %q (see the CapabilityStatement)", q.typ, pname)
	}
	if isChain {
		return q.addChain(name, p, modifier, chained, value)
	}
	if p.apply != nil {
		return p.apply(q, modifier, name, value)
	}
	c, err := condition(q.base, p, modifier, name, value)
	if err != nil {
		return err
	}
	if c == nil {
		q.empty = true
		return nil
	}
	q.where = append(q.where, *c)
	return nil
}

// addElements parses an _elements list. Every known element is kept, whatever its place in the
// list, before an unknown one is reported: under lenient handling the report becomes a warning
// and the search runs with the known elements, so the result never depends on their order.
// resourceType is accepted: it is always returned.
func (q *query) addElements(value string) error {
	var unknown []string
	for _, e := range strings.Split(value, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e != "resourceType" && !slices.Contains(elements[q.typ], e):
			unknown = append(unknown, e)
		case !slices.Contains(q.elements, e):
			q.elements = append(q.elements, e)
		}
	}
	if len(unknown) > 0 {
		for i, e := range unknown {
			unknown[i] = strconv.Quote(clip(e))
		}
		return invalid("_elements", "%s: not an element of %s", strings.Join(unknown, ", "), q.typ)
	}
	return nil
}

func (q *query) addSort(value string) error {
	keys := strings.Split(value, ",")
	if len(keys) > 2 {
		return unsupported("_sort", "sorting by more than _lastUpdated then _id is not supported")
	}
	for i, k := range keys {
		desc := strings.HasPrefix(k, "-")
		k = strings.TrimPrefix(k, "-")
		switch {
		case i == 0 && (k == "_id" || k == "_lastUpdated"):
			q.sort, q.desc = k, desc
			if k == "_id" {
				q.sort = ""
			}
		case i == 1 && k == "_id" && q.sort == "_lastUpdated" && desc == q.desc:
			// ties are broken by id in the same direction anyway
		case i == 0 && k == "near" && !desc && len(keys) == 1:
			q.sortNear = true
		default:
			return unsupported("_sort", "%q: results sort by _id or _lastUpdated (ties by _id in the same direction), or by near", value)
		}
	}
	return nil
}

func (q *query) addInclude(name, value string) error {
	parts := strings.Split(value, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return invalid(name, "%q is not SourceType:param[:TargetType]", value)
	}
	var options []include
	if name == "_include" {
		options = includesOf(q.typ)
	} else {
		options = revIncludesOf(q.typ)
	}
	if !q.takeInclude(name, options, parts, false) {
		return unsupported(name, "%q is not supported for %s (see the CapabilityStatement)", value, q.typ)
	}
	return nil
}

// takeInclude adds the include of options that parts (source, param and, optionally, target)
// name to the query's _include (name "_include") or _revinclude list; false when none fits.
func (q *query) takeInclude(name string, options []include, parts []string, iterate bool) bool {
	for _, inc := range options {
		if inc.source == parts[0] && inc.param == parts[1] && (len(parts) == 2 || parts[2] == inc.target) {
			inc.iterate = iterate
			if name == "_include" {
				if !slices.Contains(q.includes, inc) {
					q.includes = append(q.includes, inc)
				}
			} else if !slices.Contains(q.revs, inc) {
				q.revs = append(q.revs, inc)
			}
			return true
		}
	}
	return false
}

// addChain parses ref.param=value and ref:Type.param=value.
func (q *query) addChain(name string, p param, modifier, chained, value string) error {
	if p.kind != kindReference {
		return invalid(name, "%q is not a reference parameter and cannot be chained", p.name)
	}
	target := p.targets[0]
	if modifier != "" {
		if !slices.Contains(p.targets, modifier) {
			return invalid(name, "%q does not point at %s", p.name, modifier)
		}
		target = modifier
	}
	if depth := strings.Count(chained, ".") + 1; depth > MaxChainDepth {
		return depthError(name, "a chain", depth, MaxChainDepth)
	}
	cname, cmod, _ := strings.Cut(chained, ":")
	cp, ok := lookupParam(target, cname)
	if !ok {
		return invalid(name, "%s has no search parameter %q", target, cname)
	}
	if cp.name == pNear.name && target == fhirmap.TypeLocation && slices.Contains(carriesNear, q.typ) {
		if cmod != "" {
			return refused(name, "near takes no modifier")
		}
		return q.addNear(name, value)
	}
	c, err := condition(q.base, cp, cmod, name, value)
	if err != nil {
		return err
	}
	if c == nil {
		q.empty = true
		return nil
	}
	q.chains = append(q.chains, chain{name: name, other: target, cond: *c, key: p.key})
	return nil
}

// addHas parses _has:Type:ref:param=value.
func (q *query) addHas(name, value string) error {
	parts := strings.Split(name, ":")
	if depth := strings.Count(name, "_has:"); depth > MaxHasDepth {
		return depthError(name, "a _has", depth, MaxHasDepth)
	}
	if len(parts) != 4 {
		return invalid(name, "a reverse chain is _has:Type:reference:parameter")
	}
	other, refName, pname := parts[1], parts[2], parts[3]
	rp, ok := lookupParam(other, refName)
	if !ok || rp.kind != kindReference || !slices.Contains(rp.targets, q.typ) {
		return invalid(name, "%s has no reference parameter %q pointing at %s", other, refName, q.typ)
	}
	cname, cmod, _ := strings.Cut(pname, ":")
	cp, ok := lookupParam(other, cname)
	if !ok {
		return invalid(name, "%s has no search parameter %q to match", other, cname)
	}
	c, err := condition(q.base, cp, cmod, name, value)
	if err != nil {
		return err
	}
	if c == nil {
		q.empty = true
		return nil
	}
	q.chains = append(q.chains, chain{name: name, reverse: true, other: other, cond: *c, key: rp.key})
	return nil
}

// condition turns one parameter's value into a store condition on the documents it applies to.
// base is the server's FHIR base URL, for absolute references. A nil condition with no error can never match (a system-less token of a
// system-coded parameter, an absolute reference to another server).
func condition(base string, p param, modifier, name, value string) (*store.Condition, error) {
	if strings.IndexByte(value, 0) >= 0 {
		return nil, invalid(name, "the value holds a NUL byte")
	}
	if p.apply != nil {
		return nil, unsupported(name, "%s is not supported in a chain or _has", p.name)
	}
	alts := splitValues(value) // at most MaxValues: checkLimits has counted them
	switch p.kind {
	case kindString:
		return stringCondition(p, modifier, name, alts)
	case kindToken:
		return tokenCondition(p, modifier, name, alts)
	case kindReference:
		return referenceCondition(base, p, modifier, name, alts)
	case kindDate:
		if modifier != "" {
			return nil, unsupported(name, "modifier :%s is not supported on a date", modifier)
		}
		if len(alts) != 1 {
			return nil, unsupported(name, "alternatives of dates are not supported; repeat the parameter for a range")
		}
		prefixes, err := dateCondition(unescape(alts[0]))
		if err != nil {
			return nil, invalid(name, "%v", err)
		}
		if len(prefixes) == 0 {
			return nil, nil
		}
		return &store.Condition{Param: p.key, Values: prefixes, Match: store.Prefix}, nil
	}
	return nil, invalid(name, "unsupported parameter type")
}

// stringCondition matches a string parameter: by prefix, case and accent insensitive, or whole
// and as given with :exact. The alternatives are unescaped first (\, \$ \| \\), so a value
// holding a comma is searched as R4 escapes it: name:exact=Smith\, Jones.
func stringCondition(p param, modifier, name string, alts []string) (*store.Condition, error) {
	alts = unescapeAll(alts)
	switch modifier {
	case "":
		vals := make([]string, 0, len(alts))
		for _, a := range alts {
			n := stored.FoldText(a)
			if p.key == fhirmap.KeyAddressPostal {
				n = fhirmap.PostalKey(a)
			}
			if n == "" {
				return nil, invalid(name, "%q has nothing to match", a)
			}
			vals = append(vals, n)
		}
		c := &store.Condition{Param: p.key, Values: vals, Match: store.Prefix}
		if p.key == fhirmap.KeyAddress {
			c.Or = addressParts(alts, vals)
		}
		return c, nil
	case "exact":
		if !p.noExact {
			return &store.Condition{Param: p.key + fhirmap.ExactSuffix, Values: alts, Match: store.Exact, Or: alsoIn(p.also, fhirmap.ExactSuffix, alts)}, nil
		}
	}
	return nil, unsupported(name, "modifier :%s is not supported on %s (see the CapabilityStatement)", modifier, p.name)
}

// alsoIn are the alternatives of a condition on a parameter that also looks in the params of
// keys (param.also): each param with suffix (":exact" for an :exact search) and the same values.
func alsoIn(keys []string, suffix string, vals []string) []store.Alternative {
	var out []store.Alternative
	for _, k := range keys {
		out = append(out, store.Alternative{Param: k + suffix, Values: vals})
	}
	return out
}

// addressParts are the further params an address search looks in. The address keys hold the
// lines and the country; the city, state and ZIP code are the keys of the address-city,
// address-state and address-postalcode params (see fhirmap.KeyAddress), searched in the form
// each is stored in. normalized are the alternatives normalized as text.
func addressParts(alts, normalized []string) []store.Alternative {
	postal := make([]string, len(alts))
	for i, a := range alts {
		postal[i] = fhirmap.PostalKey(a)
	}
	return []store.Alternative{
		{Param: fhirmap.KeyAddressCity, Values: normalized},
		{Param: fhirmap.KeyAddressState, Values: normalized},
		{Param: fhirmap.KeyAddressPostal, Values: postal},
	}
}

func tokenCondition(p param, modifier, name string, alts []string) (*store.Condition, error) {
	if modifier != "" {
		return nil, unsupported(name, "modifier :%s is not supported on %s", modifier, p.name)
	}
	var exact, prefix []string
	for _, a := range alts {
		system, code, hasSystem := cutUnescaped(a, '|')
		if !hasSystem {
			code, system = system, ""
		}
		system, code = unescape(system), unescape(code)
		switch p.key {
		case fhirmap.KeyPhone:
			code = digitsOf(code)
		case fhirmap.KeyID:
			code = idPart(code)
		}
		switch {
		case !hasSystem && len(fhirmap.TokenSystems[p.key]) > 0:
			for _, sys := range fhirmap.TokenSystems[p.key] {
				exact = append(exact, sys+"|"+code)
			}
		case !hasSystem:
			exact = append(exact, code)
		case system == "" && p.bare:
			exact = append(exact, code)
		case system == "":
			// |code: a code without a system; every coded value here has one
		case code == "":
			prefix = append(prefix, system+"|")
		default:
			exact = append(exact, system+"|"+code)
		}
	}
	if p.name == "active" {
		for _, v := range exact {
			if v != "true" && v != "false" {
				return nil, invalid(name, "%q is not true or false", v)
			}
		}
	}
	switch {
	case len(exact) > 0 && len(prefix) > 0:
		return nil, unsupported(name, "mixing system| with codes in one parameter is not supported; repeat the search")
	case len(prefix) > 0:
		return &store.Condition{Param: p.key, Values: prefix, Match: store.Prefix}, nil
	case len(exact) > 0:
		return &store.Condition{Param: p.key, Values: exact, Match: store.Exact}, nil
	}
	return nil, nil
}

func referenceCondition(base string, p param, modifier, name string, alts []string) (*store.Condition, error) {
	targets := p.targets
	if modifier != "" {
		if !slices.Contains(p.targets, modifier) {
			return nil, unsupported(name, "modifier :%s: %s points at %s", modifier, p.name, strings.Join(p.targets, ", "))
		}
		targets = []string{modifier}
	}
	var vals []string
	for _, a := range alts {
		a = unescape(a)
		if rest, ok := strings.CutPrefix(a, base+"/"); ok && base != "" {
			a = rest
		} else if strings.Contains(a, "://") {
			continue // a resource of another server: matches nothing here
		}
		typ, id, hasType := strings.Cut(a, "/")
		switch {
		case !hasType && len(targets) == 1:
			typ, id = targets[0], a
		case !hasType:
			return nil, invalid(name, "%q: give the type, as Type/id", a)
		}
		if !slices.Contains(targets, typ) || id == "" || strings.Contains(id, "/") {
			continue // another type, another server or a version: matches nothing here
		}
		vals = append(vals, fhirmap.Ref(typ, id))
	}
	if len(vals) == 0 {
		return nil, nil
	}
	return &store.Condition{Param: p.key, Values: vals, Match: store.Exact}, nil
}

// splitValues splits a parameter value at unescaped commas.
func splitValues(v string) []string {
	var out []string
	start := 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case ',':
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

// cutUnescaped cuts s at the first unescaped sep.
func cutUnescaped(s string, sep byte) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case sep:
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// unescapeAll unescapes each of a parameter's alternatives, in place.
func unescapeAll(alts []string) []string {
	for i, a := range alts {
		alts[i] = unescape(a)
	}
	return alts
}

// unescape removes FHIR search escapes (\, \| \$ \\).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// idPart is the logical id an _id value names. Like HAPI FHIR, which reads an _id value as an
// IdType and searches by its id part, a client may send the id alone, the relative reference
// (Practitioner/1234567893, as the Inferno kits send it), an absolute URL or a versioned
// reference (.../_history/1): the id is the last path segment before any _history. As in HAPI,
// the type a reference names is not compared with the type searched: ids are looked up among
// the searched type's resources.
func idPart(v string) string {
	if i := strings.Index(v, "/_history/"); i >= 0 {
		v = v[:i]
	}
	return v[strings.LastIndexByte(v, '/')+1:]
}

func digitsOf(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
