package fhir

import (
	"fmt"
	"net/url"
	"strings"

	"providerdir/internal/safetext"
)

// Request limits of a search. Each bounds the work one request can ask for: a search over any of
// them is refused with 400 and an OperationOutcome whose diagnostics name the limit and its
// value, before the store is touched. They hold for GET and POST _search alike (the query string
// and the form body count together). Real clients stay far below them: the US Core and Plan-Net
// searches use a handful of parameters, one chain and one or two includes.
const (
	// MaxSearchParams caps the name=value pairs of one search, repeats and empty values counted
	// and the paging _cursor not (a next link adds it to a search at the cap).
	MaxSearchParams = 50
	// MaxValues caps the comma-separated alternatives (an OR) of one parameter value.
	MaxValues = 100
	// MaxChainParams caps the chained (practitioner.name=x) and reverse-chained
	// (_has:PractitionerRole:practitioner:specialty=x) parameters of one search together: each
	// is a search of another resource type, run before the search itself.
	MaxChainParams = 5
	// MaxChainDepth is how many references a chain follows: practitioner.name is one;
	// organization.partof.name, two, is not supported.
	MaxChainDepth = 1
	// MaxHasDepth is how deep _has parameters nest: _has:PractitionerRole:practitioner:specialty
	// is one; a _has inside a _has is not supported.
	MaxHasDepth = 1
	// MaxIncludeParams caps the _include and _revinclude parameters of one search together.
	MaxIncludeParams = 10
)

// checkLimits refuses a search whose parameters exceed a request limit. names are the parameter
// names of values in the order they are parsed, so that the limit reported is always the same.
func checkLimits(names []string, values url.Values) error {
	var params, chains, includes int
	for _, name := range names {
		if name == "_cursor" {
			continue
		}
		vs := values[name]
		params += len(vs)
		switch {
		case isChain(name):
			chains += len(vs)
		case isInclude(name):
			includes += len(vs)
		}
	}
	switch { // the narrower limits first, as they say more
	case chains > MaxChainParams:
		return tooCostly("", "the search has %d chained and _has parameters; the limit is %d per search", chains, MaxChainParams)
	case includes > MaxIncludeParams:
		return tooCostly("", "the search has %d _include and _revinclude parameters; the limit is %d per search", includes, MaxIncludeParams)
	case params > MaxSearchParams:
		return tooCostly("", "the search has %d parameters; the limit is %d parameters per search", params, MaxSearchParams)
	}
	for _, name := range names {
		for _, v := range values[name] {
			if n := valueCount(v); n > MaxValues {
				return tooCostly(name, "the value has %d comma-separated alternatives; the limit is %d per parameter", n, MaxValues)
			}
		}
	}
	return nil
}

// isChain says a parameter name is a forward chain (ref.param) or a reverse chain (_has:...).
func isChain(name string) bool {
	return strings.HasPrefix(name, "_has:") || strings.Contains(name, ".")
}

func isInclude(name string) bool {
	base, _, _ := strings.Cut(name, ":")
	return base == "_include" || base == "_revinclude"
}

// valueCount is the number of alternatives of a value: one more than its unescaped commas.
func valueCount(v string) int {
	n := 1
	for _, rest, ok := cutUnescaped(v, ','); ok; _, rest, ok = cutUnescaped(rest, ',') {
		n++
	}
	return n
}

// depthError refuses a chain or _has nested deeper than the server follows. The server cannot
// answer such a search at all, so the issue code is not-supported (a kind of processing error in
// R4's IssueType), with the limit and the depth asked for in the diagnostics.
func depthError(name, what string, depth, limit int) *paramError {
	e := unsupported(name, "%s of depth %d; the limit is a depth of %d", what, depth, limit)
	e.limit = true
	return e
}

// clip shortens a piece of the request (a parameter's name or value) for an error message, so
// that an error never returns a large input to its sender (internal/safetext).
func clip(s string) string { return safetext.Echo(s) }

// clipArgs clips the string arguments of an error message: they are the request's.
func clipArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(string); ok {
			a = clip(s)
		}
		out[i] = a
	}
	return out
}

func tooCostly(p, format string, args ...any) *paramError {
	e := newParamError("too-costly", p, format, args)
	e.limit = true
	return e
}

func newParamError(code, p, format string, args []any) *paramError {
	return &paramError{param: clip(p), msg: fmt.Sprintf(format, clipArgs(args)...), code: code}
}
