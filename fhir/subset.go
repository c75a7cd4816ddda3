package fhir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// shape is how a resource is returned: whole, or reduced by _summary or _elements, and whether
// indented (_pretty).
type shape struct {
	summary  string // "", true, false, text, data, count
	elements []string
	pretty   bool
}

// subsetting reports whether resources are reduced.
func (s shape) subsetting() bool {
	return len(s.elements) > 0 || s.summary == "true" || s.summary == "text" || s.summary == "data"
}

// parseShape parses the shaping parameters of a read; any other parameter is an error, or is
// ignored under lenient handling.
func parseShape(resourceType string, values url.Values, allowed []string, lenient bool) (shape, error) {
	q := &query{typ: resourceType}
	for name, vs := range values {
		for _, v := range vs {
			if v == "" {
				continue
			}
			if !slices.Contains(allowed, name) {
				if lenient {
					continue
				}
				return shape{}, invalid(name, "a read takes only %s", strings.Join(allowed, ", "))
			}
			if name == "_summary" && v == "count" {
				return shape{}, invalid(name, "_summary=count applies to searches")
			}
			if err := q.add(name, v); err != nil && !lenient {
				return shape{}, err
			}
		}
	}
	return q.shape, nil
}

// subsettedTag marks a resource returned with elements left out, as FHIR requires.
var subsettedTag = json.RawMessage(`{"system":"http://terminology.hl7.org/CodeSystem/v3-ObservationValue","code":"SUBSETTED","display":"subsetted"}`)

// mandatory elements are returned whatever _elements says.
var mandatory = []string{"resourceType", "id", "meta"}

// apply reduces a resource to the shape. It decodes only the top level and meta; the rest of the
// resource is copied as it is. This is the one per-request JSON work of the surface, and only
// for requests that ask for it.
func (s shape) apply(resourceType string, body []byte) ([]byte, error) {
	var keep func(string) bool
	switch {
	case len(s.elements) > 0:
		keep = func(n string) bool { return slices.Contains(mandatory, n) || slices.Contains(s.elements, n) }
	case s.summary == "true":
		keep = func(n string) bool {
			return slices.Contains(mandatory, n) || slices.Contains(summaryElements[resourceType], n)
		}
	case s.summary == "text":
		keep = func(n string) bool { return slices.Contains(mandatory, n) || n == "text" }
	case s.summary == "data":
		keep = func(n string) bool { return n != "text" }
	default:
		return body, nil
	}
	top, err := members(body)
	if err != nil {
		return nil, err
	}
	kept := top[:0]
	dropped := false
	for _, m := range top {
		if keep(m.name) {
			kept = append(kept, m)
		} else {
			dropped = true
		}
	}
	if dropped {
		for i := range kept {
			if kept[i].name == "meta" {
				if kept[i].value, err = addTag(kept[i].value); err != nil {
					return nil, err
				}
			}
		}
	}
	return render(kept), nil
}

type member struct {
	name  string
	value json.RawMessage
}

// members splits a JSON object into its members, in order.
func members(obj []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("fhir: not a JSON object")
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{name, v})
	}
	return out, nil
}

func render(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// addTag appends the SUBSETTED tag to a meta object.
func addTag(meta json.RawMessage) (json.RawMessage, error) {
	ms, err := members(meta)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].name == "tag" {
			var tags []json.RawMessage
			if err := json.Unmarshal(ms[i].value, &tags); err != nil {
				return nil, err
			}
			ms[i].value, _ = json.Marshal(append(tags, subsettedTag))
			return render(ms), nil
		}
	}
	tags, _ := json.Marshal([]json.RawMessage{subsettedTag})
	return render(append(ms, member{"tag", tags})), nil
}
