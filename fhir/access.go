package fhir

import (
	"net/http"
	"slices"
	"strings"

	"providerdir/catalog"
)

// access is one resource type a request reads and how: the type read or searched, the type a
// chain or _has searches, the type an _include or _revinclude reads. by names the part of the
// request that needs it ("" for the request's own type), for the error message.
type access struct {
	typ string
	i   catalog.Interaction
	by  string
}

// accesses lists every type a parsed search touches: its own type and the type of each chain
// and _has (searched), and of each _include and _revinclude (read, as the included resources are
// returned whole, like reads). A search the grant does not allow in full is refused: the
// resources of another type would otherwise decide, or appear in, what it returns.
func (q *query) accesses() []access {
	out := []access{{typ: q.typ, i: catalog.Search}}
	for _, c := range q.chains {
		out = append(out, access{typ: c.other, i: catalog.Search, by: c.name})
	}
	for _, inc := range q.includes {
		out = append(out, access{typ: inc.target, i: catalog.Read, by: inc.parameter("_include") + "=" + inc.String()})
	}
	for _, rev := range q.revs {
		out = append(out, access{typ: rev.source, i: catalog.Read, by: rev.parameter("_revinclude") + "=" + rev.String()})
	}
	return out
}

// Grant is what a request may do, as the FHIR surface needs to know it: the interactions it
// allows on each resource type, and whether it sees only the sandbox subset. The SMART layer
// issues grants; Config.GrantFrom finds a request's.
type Grant interface {
	Allows(resourceType string, i catalog.Interaction) bool
	Sandboxed() bool
}

// clientOf is the id of the client a grant was issued to, "" for a grant without one (a request
// without a token under public read mode).
func clientOf(g Grant) string {
	if c, ok := g.(interface{ Client() string }); ok {
		return c.Client()
	}
	return ""
}

// authorize takes the request's grant and checks it for needs, writing the 401 or 403 when it
// fails. A request that reached the handler without a grant (no SMART layer in front) has no
// access.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request, needs ...access) (Grant, bool) {
	g, ok := s.grantFrom(r.Context())
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="fhir"`)
		Error(w, r, http.StatusUnauthorized, "unauthorized", "this request needs a bearer access token")
		return nil, false
	}
	return g, permit(w, r, g, needs)
}

// permit checks that g allows every access in needs. Otherwise it answers 403 with an
// OperationOutcome naming each missing type and scope, and the RFC 6750 insufficient_scope
// challenge whose scope attribute lists the scopes the whole request needs.
func permit(w http.ResponseWriter, r *http.Request, g Grant, needs []access) bool {
	var missing []string
	for _, n := range needs {
		if g.Allows(n.typ, n.i) {
			continue
		}
		m := "the access token's scopes do not allow " + string(n.i) + " of " + n.typ + " (scope " + scopeFor(n.typ, n.i) + ")"
		if n.by != "" {
			m += ", which " + clip(n.by) + " needs"
		}
		if !slices.Contains(missing, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="fhir", error="insufficient_scope", scope="`+neededScopes(needs)+`"`)
	Error(w, r, http.StatusForbidden, "forbidden", strings.Join(missing, "; "))
	return false
}

// scopeFor is the SMART v2 system scope that allows i on typ.
func scopeFor(typ string, i catalog.Interaction) string {
	return "system/" + typ + "." + letter(i)
}

// letter is the SMART v2 permission letter of an interaction.
func letter(i catalog.Interaction) string {
	switch i {
	case catalog.Read:
		return "r"
	case catalog.Create:
		return "c"
	case catalog.Delete:
		return "d"
	}
	return "s"
}

// neededScopes lists the SMART v2 system scopes that allow every access in needs, one per type
// in the order the types first appear, space-separated as RFC 6750's scope attribute is.
func neededScopes(needs []access) string {
	var types []string
	letters := map[string]string{}
	for _, n := range needs {
		if !slices.Contains(types, n.typ) {
			types = append(types, n.typ)
		}
		letters[n.typ] += letter(n.i)
	}
	scopes := make([]string, len(types))
	for i, t := range types {
		perms := "" // SMART v2 permissions are written in cruds order
		for _, c := range "cruds" {
			if strings.ContainsRune(letters[t], c) {
				perms += string(c)
			}
		}
		scopes[i] = "system/" + t + "." + perms
	}
	return strings.Join(scopes, " ")
}
