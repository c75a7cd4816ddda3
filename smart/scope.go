package smart

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"providerdir/catalog"
	"providerdir/internal/safetext"
)

// ResourceTypes are the FHIR resource types the directory serves, the only ones a scope may name
// besides the wildcard "*". Read it; do not modify it.
var ResourceTypes = []string{"Practitioner", "PractitionerRole", "Organization", "Location", "HealthcareService", "Endpoint",
	SubscriptionType, "SubscriptionTopic"}

// SubscriptionType is the one resource type a client may write: its own FHIR subscriptions.
const SubscriptionType = "Subscription"

// Rights is the set of interactions a scope allows. The directory's data is read-only: create,
// update and delete rights are kept only on a scope that names SubscriptionType itself; on any
// other type, and on the wildcard, they parse but grant nothing.
type Rights uint8

// The rights a scope can give: read (SMART v2 "r", GET [type]/[id]), search ("s"), and on
// Subscription create ("c"), update ("u") and delete ("d").
const (
	RightRead Rights = 1 << iota
	RightSearch
	RightCreate
	RightUpdate
	RightDelete
)

// readRights are the rights every served type may be granted; allRights those of Subscription.
const (
	readRights = RightRead | RightSearch
	allRights  = RightCreate | RightRead | RightUpdate | RightDelete | RightSearch
)

// Scope is one parsed SMART resource scope such as "system/Practitioner.read" (v1) or
// "system/*.rs" (v2).
type Scope struct {
	// Context is "system", "user" or "patient". Backend clients are granted "system" only.
	Context string
	// Type is a resource type or "*".
	Type string
	// Rights are the read and search rights the permissions give.
	Rights Rights
	// V1 says the scope was written in SMART v1 syntax (.read, .write, .*).
	V1 bool
	// Query is the v2 narrowing after '?', without it; "" when absent.
	Query string
}

// ErrScope reports a scope string that is not a well-formed SMART resource scope.
var ErrScope = errors.New("malformed scope")

// maxScopes and maxScopeLen bound what a token request may ask for, so a hostile scope parameter
// costs nothing to refuse.
const (
	maxScopes   = 64
	maxScopeLen = 256
)

// nonResourceScopes are SMART scopes a client may ask for that name no resource. A backend
// service is granted none of them; they are dropped rather than refused so that a client built
// for a larger server still gets the resource scopes it asked for.
var nonResourceScopes = map[string]bool{
	"openid": true, "fhirUser": true, "profile": true, "launch": true, "launch/patient": true,
	"launch/encounter": true, "offline_access": true, "online_access": true,
}

// ParseScope parses one resource scope: context "/" type "." permissions, with an optional
// "?query" after v2 permissions. It does not allocate beyond the returned strings.
func ParseScope(s string) (Scope, error) {
	if len(s) == 0 || len(s) > maxScopeLen {
		return Scope{}, fmt.Errorf("%w: %q", ErrScope, safetext.Echo(s))
	}
	ctx, rest, ok := strings.Cut(s, "/")
	if !ok || (ctx != "system" && ctx != "user" && ctx != "patient") {
		return Scope{}, fmt.Errorf("%w: %q has no system/, user/ or patient/ context", ErrScope, s)
	}
	typ, perms, ok := strings.Cut(rest, ".")
	if !ok || !validType(typ) {
		return Scope{}, fmt.Errorf("%w: %q has no resource type", ErrScope, s)
	}
	sc := Scope{Context: ctx, Type: typ}
	perms, query, hasQuery := strings.Cut(perms, "?")
	switch perms {
	case "read":
		sc.Rights, sc.V1 = readRights, true
	case "*":
		sc.Rights, sc.V1 = allRights, true
	case "write":
		sc.Rights, sc.V1 = RightCreate|RightUpdate|RightDelete, true
	default:
		r, ok := parseV2(perms)
		if !ok {
			return Scope{}, fmt.Errorf("%w: %q has permissions that are neither read, write, * nor an ordered subset of cruds", ErrScope, s)
		}
		sc.Rights = r
	}
	if typ != SubscriptionType {
		sc.Rights &= readRights
	}
	if hasQuery {
		if sc.V1 || query == "" || strings.ContainsAny(query, " \t\r\n") || !strings.Contains(query, "=") {
			return Scope{}, fmt.Errorf("%w: %q has a malformed ?param=value narrowing", ErrScope, s)
		}
		sc.Query = query
	}
	return sc, nil
}

// validType accepts "*" or a name shaped like a FHIR resource type: an upper-case ASCII letter
// then letters. Whether the type is served is decided when granting, not when parsing.
func validType(t string) bool {
	if t == "*" {
		return true
	}
	if t == "" || t[0] < 'A' || t[0] > 'Z' || len(t) > 64 {
		return false
	}
	for i := 1; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// v2Rights maps each SMART v2 permission letter to its right.
var v2Rights = map[byte]Rights{'c': RightCreate, 'r': RightRead, 'u': RightUpdate, 'd': RightDelete, 's': RightSearch}

// parseV2 reads SMART v2 permissions: a non-empty subset of c, r, u, d, s in that order.
func parseV2(p string) (Rights, bool) {
	const order = "cruds"
	if p == "" {
		return 0, false
	}
	var r Rights
	next := 0
	for i := 0; i < len(p); i++ {
		j := strings.IndexByte(order[next:], p[i])
		if j < 0 {
			return 0, false
		}
		r |= v2Rights[order[next+j]]
		next += j + 1
	}
	return r, true
}

// String writes the scope back in SMART syntax: v1 ".read" when it was v1 and allows both read
// and search, v1 ".*" and ".write" for the v1 forms of Subscription's rights, otherwise v2
// letters.
func (sc Scope) String() string {
	perms := ""
	switch {
	case sc.V1 && sc.Rights == readRights:
		perms = "read"
	case sc.V1 && sc.Rights == allRights:
		perms = "*"
	case sc.V1 && (sc.Rights == 0 || sc.Rights == RightCreate|RightUpdate|RightDelete):
		perms = "write"
	default:
		for i := range len("cruds") {
			if c := "cruds"[i]; sc.Rights&v2Rights[c] != 0 {
				perms += string(c)
			}
		}
	}
	s := sc.Context + "/" + sc.Type + "." + perms
	if sc.Query != "" {
		s += "?" + sc.Query
	}
	return s
}

// allows reports whether a granted scope lets a client perform i on resourceType. Narrowed and
// non-system scopes never allow anything: they are not issued.
func (sc Scope) allows(resourceType string, i catalog.Interaction) bool {
	if sc.Context != "system" || sc.Query != "" || (sc.Type != "*" && sc.Type != resourceType) {
		return false
	}
	return sc.Rights&interactionRights[i] != 0
}

// interactionRights is the right each interaction needs.
var interactionRights = map[catalog.Interaction]Rights{
	catalog.Read: RightRead, catalog.Search: RightSearch, catalog.Create: RightCreate, catalog.Delete: RightDelete,
}

// ParseScopeList splits a space-separated scope parameter (RFC 6749 section 3.3) into resource
// scopes, dropping the non-resource SMART scopes a backend client is never granted. Any other
// token that is not a resource scope makes the whole list malformed.
func ParseScopeList(param string) ([]Scope, error) {
	fields := strings.FieldsFunc(param, func(r rune) bool { return r == ' ' })
	if len(fields) > maxScopes {
		return nil, fmt.Errorf("%w: more than %d scopes", ErrScope, maxScopes)
	}
	out := make([]Scope, 0, len(fields))
	for _, f := range fields {
		if nonResourceScopes[f] {
			continue
		}
		sc, err := ParseScope(f)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// ValidateAllowed checks the scopes an operator registers for a client: system context, a
// served type or "*", read or search rights, no narrowing. It returns them in canonical form.
func ValidateAllowed(scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		return nil, fmt.Errorf("%w: a client needs at least one scope", ErrScope)
	}
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		sc, err := ParseScope(s)
		switch {
		case err != nil:
			return nil, err
		case sc.Context != "system":
			return nil, fmt.Errorf("%w: %q: backend clients get system/ scopes only", ErrScope, s)
		case sc.Type != "*" && !slices.Contains(ResourceTypes, sc.Type):
			return nil, fmt.Errorf("%w: %q: the directory serves %s", ErrScope, s, strings.Join(ResourceTypes, ", "))
		case sc.Query != "":
			return nil, fmt.Errorf("%w: %q: narrowed scopes are not supported", ErrScope, s)
		case sc.Rights == 0:
			return nil, fmt.Errorf("%w: %q grants neither read nor search (write rights apply to %s only)", ErrScope, s, SubscriptionType)
		}
		if c := sc.String(); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}
