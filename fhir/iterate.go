package fhir

import (
	"strings"

	"providerdir/mapping/fhirmap"
)

// addIterate parses _include:iterate and _revinclude:iterate (base is the parameter without its
// modifier). An iterating include may start from any type the search returns, its own or an
// included one, so any include of any type is accepted: one whose source type the page never
// holds adds nothing.
func (q *query) addIterate(base, value string) error {
	name := base + ":iterate"
	parts := strings.Split(value, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return invalid(name, "%q is not SourceType:param[:TargetType]", value)
	}
	var options []include
	for _, t := range fhirmap.Types {
		options = append(options, includesOf(t)...)
	}
	if !q.takeInclude(base, options, parts, true) {
		return unsupported(name, "%q is not a reference parameter of a served type (see the CapabilityStatement)", value)
	}
	return nil
}

// parameter is the name of the parameter that asked for the include: base ("_include" or
// "_revinclude"), with ":iterate" when it iterates.
func (i include) parameter(base string) string {
	if i.iterate {
		return base + ":iterate"
	}
	return base
}
