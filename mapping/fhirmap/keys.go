package fhirmap

import (
	"providerdir/stored"
	"slices"
	"strings"
)

// Search-key params of FHIR documents. They are the FHIR search parameter names, so the search
// surface maps a parameter to its key without a table of its own; values are normalized here
// with the same functions the surface applies to query values.
//
//   - token parameters (identifier, specialty, type, ...) carry "system|code", a search for a
//     code of any system looking it up under each of the param's systems (TokenSystems);
//   - string parameters carry stored.FoldText of each whole value (R4's string search: from
//     the start of a value, case- and accent-insensitive; a name's parts and an address's parts
//     each a value, addHumanName and addAddress), and under "<param>:exact" the value as
//     published;
//     string searches only ever match by prefix, so a value that begins another value of the
//     same parameter (the first word of a text, a 5-digit ZIP beside its ZIP+4) is not stored:
//     every search it would answer is answered by the longer one (see pruneStringKeys);
//   - reference parameters carry "Type/id";
//   - _lastUpdated carries the date (YYYY-MM-DD) the resource was last updated at source;
//   - _sandbox is "1" on the resources sandbox credentials may see;
//   - name:start carries the starts of a Practitioner's names' first words (see NameStart).
const (
	KeyID            = "_id"
	KeyLastUpdated   = "_lastUpdated"
	KeySandbox       = "_sandbox"
	KeyIdentifier    = "identifier"
	KeyName          = "name"
	KeyFamily        = "family"
	KeyGiven         = "given"
	KeyNameStart     = "name:start"
	KeyAddress       = "address"
	KeyAddressCity   = "address-city"
	KeyAddressState  = "address-state"
	KeyAddressPostal = "address-postalcode"
	KeyActive        = "active"
	KeySpecialty     = "specialty"
	KeyRole          = "role"
	KeyPractitioner  = "practitioner"
	KeyOrganization  = "organization"
	KeyLocation      = "location"
	KeyService       = "service"
	KeyPartOf        = "partof"
	KeyType          = "type"
	KeyCategory      = "service-category"
	KeyStatus        = "status"
	KeyPhone         = "phone"
	// Endpoint parameters, and the endpoint references of the types that have them.
	KeyEndpoint       = "endpoint"
	KeyConnectionType = "connection-type"
	KeyPayloadType    = "payload-type"
	KeyMimeType       = "mime-type"
	// KeyTag is the id of a resource's provenance tag set (catalog.FHIRTags): a _tag search finds
	// the sets that hold the tag, then the resources that name one.
	KeyTag = "_tag"
	// KeyProfile is the Plan-Net profile a resource claims besides its type's own
	// (PlanNetProfiles), on the resources that meet it; every resource of a type claims the
	// type's own profile (Profiles), which has no key.
	KeyProfile = "_profile"
)

// keysPerResource is the capacity a resource's keys start with: most resources have between ten
// and thirty, and growing the slice from empty would reallocate it several times per resource.
const keysPerResource = 32

// ExactSuffix marks the key of a string parameter's :exact form.
const ExactSuffix = ":exact"

// TokenSystems are the code systems of the coded values each token parameter indexes. A search
// for a code without a system looks the code up under each of them, so a coded value needs one
// key, not a second one by its code alone (a test holds every key to this list).
var TokenSystems = map[string][]string{
	KeyIdentifier:     {SystemNPI, SystemCCN},
	KeySpecialty:      {SystemNUCC},
	KeyRole:           {SystemNUCC, SystemProviderRole},
	KeyType:           {SystemPlanNetOrgType, SystemOrganizationType, SystemRoleCode},
	KeyCategory:       {SystemServiceCategory},
	KeyConnectionType: {SystemConnectionType, SystemPlanNetConnectionType, SystemNPPESEndpointType},
	KeyPayloadType:    {SystemPlanNetPayloadType},
}

// addToken indexes a coded value by "system|code", or by its code when it has no system.
func addToken(k *stored.Keys, param, system, code string) {
	if code == "" {
		return
	}
	if system != "" {
		code = system + "|" + code
	}
	k.Add(param, code)
}

// addString indexes a string for prefix search (folded, whole) and :exact.
func addString(k *stored.Keys, param, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	k.Add(param, stored.FoldText(text))
	k.Add(param+ExactSuffix, text)
}

// addHumanName indexes a person's name for the name parameter as R4 defines its string search:
// it matches from the start of any of the text, family, given, prefix and suffix parts, and
// :exact matches one of them whole, as published. A prefix search is one lookup in these keys.
// An :exact search also looks in the family and given :exact keys (a condition with
// alternatives, each an exact lookup), so those are not indexed twice. The given names followed
// by the family name are indexed for prefix search too, the way people type a name ("john
// smith" finds Dr. John Smith Jr.); a value that begins with them begins with the first given
// name, so each match still starts a part of the name.
func addHumanName(k *stored.Keys, n *HumanName) {
	addString(k, KeyName, n.Text)
	for _, p := range slices.Concat(n.Prefix, n.Suffix) {
		addString(k, KeyName, p)
	}
	for _, p := range append(slices.Clip(n.Given), n.Family) {
		k.Add(KeyName, stored.FoldText(p))
	}
	k.Add(KeyName, stored.FoldText(strings.Join(append(slices.Clip(n.Given), n.Family), " ")))
}

// addAddress indexes an address for the address parameters. A string search matches the start
// of a part of the address (line, city, state, ZIP, country), as FHIR defines it, so each part is
// indexed whole (stored.FoldText), not word by word. The address keys hold the lines and the country; the city, state
// and ZIP code are indexed once, for address-city, address-state and address-postalcode, and an
// address search looks in those params too (a condition with alternatives), rather than every
// address carrying them twice (an eighth of a national ingest's entries). ZIP codes are indexed
// by PostalKey, so that 12345-6789 and 123456789 find the same address. The address parameters
// have no :exact keys, a modifier directory clients do not use on addresses.
func addAddress(k *stored.Keys, a *Address) {
	if a == nil {
		return
	}
	for _, part := range append(slices.Clip(a.Line), a.Country) {
		k.Add(KeyAddress, stored.FoldText(part))
	}
	k.Add(KeyAddressCity, stored.FoldText(a.City))
	k.Add(KeyAddressState, stored.FoldText(a.State))
	k.Add(KeyAddressPostal, PostalKey(a.PostalCode))
}

// PostalKey is the form of a ZIP code in the address-postalcode keys and searches: its letters
// and digits, lower case, with nothing between them.
func PostalKey(zip string) string {
	return strings.ReplaceAll(stored.NormalizeText(zip), " ", "")
}

// addTelecom indexes telephone and fax numbers by their digits.
func addTelecom(k *stored.Keys, cps []ContactPoint) {
	for _, c := range cps {
		if c.System == "phone" {
			k.Add(KeyPhone, digitsOnly(c.Value))
		}
	}
}

// addReference indexes a reference by "Type/id".
func addReference(k *stored.Keys, param string, r *Reference) {
	if r != nil && r.Reference != "" { // a reference by display alone points at nothing here
		k.Add(param, r.Reference)
	}
}

// addReferences indexes a list of references under one param.
func addReferences(k *stored.Keys, param string, refs []Reference) {
	for i := range refs {
		addReference(k, param, &refs[i])
	}
}

// addConcepts indexes every coding of some concepts.
func addConcepts(k *stored.Keys, param string, ccs []CodeableConcept) {
	for _, cc := range ccs {
		for _, c := range cc.Coding {
			addToken(k, param, c.System, c.Code)
		}
	}
}

// addIdentifiers indexes identifiers by "system|value".
func addIdentifiers(k *stored.Keys, ids []Identifier) {
	for _, id := range ids {
		addToken(k, KeyIdentifier, id.System, id.Value)
	}
}

// dateKey is the _lastUpdated key of an instant: its date.
func dateKey(instant string) string {
	if len(instant) >= len("2006-01-02") {
		return instant[:len("2006-01-02")]
	}
	return instant
}

func boolKey(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func digitsOnly(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// Ref returns the "Type/id" reference of a resource.
func Ref(resourceType, id string) string { return resourceType + "/" + id }

// prefixParams are the string parameters: searched by prefix only (their :exact forms are
// params of their own, searched exactly, and kept whole).
var prefixParams = []string{KeyName, KeyFamily, KeyGiven, KeyAddress, KeyAddressCity, KeyAddressState, KeyAddressPostal}

// pruneStringKeys drops each value of a string parameter that is a proper prefix of another
// value of the same parameter, keeping the order of the rest; it filters keys in place. A
// prefix search matches a document when one of its values starts with the searched text; any
// text the shorter value starts with, the longer one starts with too, so the same documents
// match with about an eighth fewer index entries written.
func pruneStringKeys(keys stored.Keys) stored.Keys {
	// Only keys of string parameters can go, and only for one of their own kind. They are
	// compared among themselves by their param's index, not its name: a resource
	// has a dozen or two of them, so this pairwise scan runs millions of times an ingest.
	type stringKey struct {
		at    int
		param int8
		value string
	}
	var buf [48]stringKey
	str := buf[:0]
	for i, k := range keys {
		if id := slices.Index(prefixParams, k.Param); id >= 0 {
			str = append(str, stringKey{i, int8(id), k.Value})
		}
	}
	var dropBuf [96]bool
	drop := dropBuf[:0]
	for _, k := range str {
		for _, o := range str {
			if o.param == k.param && len(o.value) > len(k.value) && strings.HasPrefix(o.value, k.value) {
				if len(drop) == 0 {
					drop = slices.Grow(drop, len(keys))[:len(keys)]
				}
				drop[k.at] = true
				break
			}
		}
	}
	if len(drop) == 0 {
		return keys
	}
	out := keys[:0]
	for i, k := range keys {
		if !drop[i] {
			out = append(out, k)
		}
	}
	return out
}

// NameStartLen is the longest start of a word a name:start key holds, in characters.
const NameStartLen = 5

// The name:start keys let a name search serve a page without reading every value that begins
// with the text searched for. A prefix's matches lie in the name index in value order, but a
// page is in id order: ordering a broad prefix's matches ("smi") means reading all of them, or
// reading documents in id order until enough match. A name:start key is a posting list in id
// order instead: the first word of every name value, cut to each length up to NameStartLen, so
// a document has one for each start of the first word of each of its name values. A name search
// of one word no longer than that is exactly one of these lists; a longer one is within the
// list of its start (its matches are among the documents that list holds, NameStart), which
// narrows it, and a text that long begins few names, so its own prefix range is short.
//
// Practitioners carry them: most of a directory's resources and most of its name searches. An
// organization's name is many words, each a name value of its own, so its keys would cost more
// than its searches gain; a search of a type without them keeps its prefix plan.

// NameStart returns the name:start value that every document matched by a name prefix search
// for normalized text v carries, and whether that key alone decides the search (v is one word of
// at most NameStartLen characters). Such a search matches a name value that begins with v, and
// that value's first word begins with v's first word.
func NameStart(v string) (string, bool) {
	w, _, _ := strings.Cut(v, " ")
	n := 0
	for i := range w {
		if n == NameStartLen {
			return w[:i], false
		}
		n++
	}
	return w, w == v
}

// addNameStarts adds the name:start keys of a resource's name values.
func addNameStarts(keys stored.Keys) stored.Keys {
	for i, n := 0, len(keys); i < n; i++ {
		k := keys[i]
		if k.Param != KeyName {
			continue
		}
		w, _, _ := strings.Cut(k.Value, " ")
		runes := 0
		for j := range w {
			if j > 0 {
				keys.Add(KeyNameStart, w[:j])
			}
			if runes++; runes > NameStartLen {
				break
			}
		}
		if runes <= NameStartLen {
			keys.Add(KeyNameStart, w)
		}
	}
	return keys
}
