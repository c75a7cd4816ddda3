package smart

import "slices"

// narrow computes what a client is granted: for each requested scope, the read and search rights
// it asks for on each type, intersected with the rights the client is registered for on that
// type. The result may be narrower than the request (RFC 6749 section 3.3 lets the server say so
// in the response's scope): create/update/delete are dropped except on Subscription, a wildcard request against a
// client registered per type becomes those types, and scopes that are narrowed by a query, not
// system scopes or name an unserved type grant nothing.
//
// The granted scopes are written in v1 syntax when every requested scope was v1 and the rights
// fit a v1 form, otherwise in v2 syntax; the wildcard comes first, then the types in ResourceTypes
// order, and a type is listed only where it adds to the wildcard.
func narrow(requested []Scope, allowed []Scope) []string {
	types := append([]string{"*"}, ResourceTypes...)
	allowedOn := func(t string) Rights {
		var r Rights
		for _, a := range allowed {
			if a.Context == "system" && a.Query == "" && (a.Type == "*" || a.Type == t) {
				r |= a.Rights
			}
		}
		return r
	}
	v1 := true
	granted := make(map[string]Rights, len(types))
	for _, q := range requested {
		if q.Context != "system" || q.Query != "" {
			continue
		}
		v1 = v1 && q.V1
		for _, t := range types {
			if q.Type != t && !(q.Type == "*" && t != "*") {
				continue
			}
			// A wildcard request covers the wildcard and each type; a typed request only its type,
			// even when the client is registered for the wildcard.
			granted[t] |= q.Rights & allowedOn(t)
		}
	}
	var out []string
	wild := granted["*"]
	for _, t := range types {
		r := granted[t]
		if r == 0 || (t != "*" && r&^wild == 0) {
			continue
		}
		sc := Scope{Context: "system", Type: t, Rights: r, V1: v1 && (r == readRights || r == allRights)}
		if s := sc.String(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
