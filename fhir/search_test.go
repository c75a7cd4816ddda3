package fhir_test

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"providerdir/mapping/fhirmap"
	"providerdir/stored"
)

// res is a served resource decoded generically; the expectations below read the resources the
// way a client would, independently of the search keys the server matches on.
type res = map[string]any

func list(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

func field(r any, name string) any {
	m, _ := r.(map[string]any)
	return m[name]
}

func text(r any, name string) string { s, _ := field(r, name).(string); return s }

// prefixed reports whether a value starts with q, both folded as R4's string search compares
// them (case and accents).
func prefixed(value, q string) bool {
	v, nq := stored.FoldText(value), stored.FoldText(q)
	return nq != "" && v != "" && strings.HasPrefix(v, nq)
}

// nameStarts reports whether a part of a HumanName (text, family, a given name, a prefix or a
// suffix) starts with q, as R4's name parameter matches.
func nameStarts(n any, q string) bool {
	parts := slices.Concat([]any{text(n, "text"), text(n, "family")}, list(field(n, "given")), list(field(n, "prefix")), list(field(n, "suffix")))
	return anyOf(parts, func(p any) bool { return prefixed(p.(string), q) })
}

func anyOf(vals []any, pred func(any) bool) bool { return slices.ContainsFunc(vals, pred) }

func hasIdentifier(r res, system, value string) bool {
	return anyOf(list(r["identifier"]), func(i any) bool {
		return text(i, "value") == value && (system == "" || text(i, "system") == system)
	})
}

func hasRef(r res, name, ref string) bool {
	return anyOf(list(r[name]), func(x any) bool { return text(x, "reference") == ref })
}

func hasCode(r res, name, system, code string) bool {
	return anyOf(list(r[name]), func(cc any) bool {
		return anyOf(list(field(cc, "coding")), func(c any) bool {
			return text(c, "code") == code && (system == "" || text(c, "system") == system)
		})
	})
}

func addresses(r res) []any {
	if a, ok := r["address"].(map[string]any); ok {
		return []any{a}
	}
	return list(r["address"])
}

// addressPart reports whether a part of one of r's addresses starts with q, as the address
// parameters match: whole parts, not words; ZIP codes with or without their dash.
func addressPart(r res, part, q string) bool {
	return anyOf(addresses(r), func(a any) bool {
		if part == "postalCode" {
			return strings.HasPrefix(fhirmap.PostalKey(text(a, part)), fhirmap.PostalKey(q))
		}
		return prefixed(text(a, part), q)
	})
}

// addressAny reports whether some part of one of r's addresses starts with q, as the address
// parameter matches: the ZIP code as address-postalcode matches it.
func addressAny(r res, q string) bool {
	return addressPart(r, "postalCode", q) || anyOf(addresses(r), func(a any) bool {
		parts := append(list(field(a, "line")), text(a, "city"), text(a, "state"), text(a, "country"))
		return anyOf(parts, func(p any) bool { return prefixed(p.(string), q) })
	})
}

func lastUpdated(r res) string { return text(r["meta"], "lastUpdated")[:10] }

// searchCase is one search and the resources it must find, by predicate over all resources.
type searchCase struct {
	name   string
	typ    string
	params []string
	want   func(r res) bool
	sorted bool // compare in order (the expected order is by id, or by lastUpdated)
}

func pick(m map[string]res, pred func(id string, r res) bool) (string, res) {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if pred(id, m[id]) {
			return id, m[id]
		}
	}
	return "", nil
}

// cases builds the search cases from the served data: every search parameter of every type,
// alone and combined, with values taken from real resources.
func cases(t *testing.T, all map[string]map[string]res) []searchCase {
	pracs, roles, orgs, locs, svcs := all["Practitioner"], all["PractitionerRole"], all["Organization"], all["Location"], all["HealthcareService"]
	pracID, prac := pick(pracs, func(id string, r res) bool { return len(list(r["qualification"])) > 1 })
	if prac == nil {
		t.Fatal("no practitioner with two qualifications")
	}
	name := list(prac["name"])[0]
	family, given := text(name, "family"), list(field(name, "given"))[0].(string)
	addr := list(prac["address"])[0]
	city, state, zip := text(addr, "city"), text(addr, "state"), text(addr, "postalCode")
	line := list(field(addr, "line"))[0].(string)
	var zip4 string // a ZIP+4, as served: 12345-6789
	pick(pracs, func(id string, r res) bool {
		return anyOf(addresses(r), func(a any) bool {
			if z := text(a, "postalCode"); strings.Contains(z, "-") {
				zip4 = z
			}
			return zip4 != ""
		})
	})

	roleID, role := pick(roles, func(id string, r res) bool { return r["organization"] != nil && len(list(r["specialty"])) > 1 })
	if role == nil {
		t.Fatal("no role with an organization and two specialties")
	}
	specialty := text(list(field(list(role["specialty"])[1], "coding"))[0], "code")
	roleOrg := text(role["organization"], "reference")
	roleLoc := text(list(role["location"])[0], "reference")
	roleSvc := text(list(role["healthcareService"])[0], "reference")
	rolePrac := text(role["practitioner"], "reference")
	rolePracNPI := strings.TrimPrefix(rolePrac, "Practitioner/")
	rolePracFamily := text(list(pracs[rolePracNPI]["name"])[0], "family")

	ccnOrgID, ccnOrg := pick(orgs, func(id string, r res) bool {
		return !strings.HasPrefix(id, "ccn-") && hasIdentifier(r, fhirmap.SystemCCN, text(list(r["identifier"])[len(list(r["identifier"]))-1], "value"))
	})
	if ccnOrg == nil {
		t.Fatal("no organization NPI with a CCN")
	}
	ccn := text(list(ccnOrg["identifier"])[1], "value")
	partID, part := pick(orgs, func(id string, r res) bool { return r["partOf"] != nil })
	orgName := text(ccnOrg, "name")
	_, inactive := pick(orgs, func(id string, r res) bool { return r["active"] == false })

	_, facLoc := pick(locs, func(id string, r res) bool { return strings.HasPrefix(id, "ccn-") })
	locOrg := text(facLoc["managingOrganization"], "reference")
	locCity := text(facLoc["address"], "city")
	locZip := text(facLoc["address"], "postalCode")

	_, svc := pick(svcs, func(id string, r res) bool { return len(list(r["specialty"])) > 0 && len(list(r["location"])) > 0 })
	svcCategory := text(list(field(list(svc["category"])[0], "coding"))[0], "code")
	svcSpecialty := text(list(field(list(svc["specialty"])[0], "coding"))[0], "code")
	svcLoc := text(list(svc["location"])[0], "reference")
	svcOrg := text(svc["providedBy"], "reference")

	// The Organization that provides the role's HealthcareService, for the chain that ends in a
	// reference (PractitionerRole?service.organization=).
	svcOf := func(ref any) res { return svcs[strings.TrimPrefix(text(ref, "reference"), "HealthcareService/")] }
	chainSvcOrg := text(svcOf(list(role["healthcareService"])[0])["providedBy"], "reference")

	day := lastUpdated(prac)
	year := day[:4]

	pracIDs := slices.Sorted(maps.Keys(all["Practitioner"]))[:10]
	npi := func(ids ...string) string {
		for i := range ids {
			ids[i] = fhirmap.SystemNPI + "|" + ids[i]
		}
		return strings.Join(ids, ",")
	}
	onePracID := func(r res) bool { return slices.Contains(pracIDs, r["id"].(string)) }

	cs := []searchCase{
		// Practitioner
		{"all practitioners", "Practitioner", nil, func(r res) bool { return true }, true},
		{"_id", "Practitioner", []string{"_id", pracID}, func(r res) bool { return r["id"] == pracID }, false},
		{"_id list", "Practitioner", []string{"_id", pracID + "," + rolePracNPI}, func(r res) bool { return r["id"] == pracID || r["id"] == rolePracNPI }, false},
		{"identifier system|value", "Practitioner", []string{"identifier", fhirmap.SystemNPI + "|" + pracID}, func(r res) bool { return hasIdentifier(r, fhirmap.SystemNPI, pracID) }, false},
		{"_id list over pages", "Practitioner", []string{"_id", strings.Join(pracIDs, ","), "_count", "3"}, onePracID, false},
		{"_id list descending", "Practitioner", []string{"_id", strings.Join(pracIDs[:5], ","), "_sort", "-_id"}, func(r res) bool { return slices.Contains(pracIDs[:5], r["id"].(string)) }, true},
		{"identifier NPIs", "Practitioner", []string{"identifier", npi(slices.Clone(pracIDs)...)}, onePracID, false},
		{"identifier NPI and a family it lacks finds none", "Practitioner", []string{"identifier", npi(pracID), "family", "zzzz"}, func(r res) bool { return false }, false},
		{"identifier NPI and its family", "Practitioner", []string{"identifier", npi(pracID), "family", family}, func(r res) bool { return r["id"] == pracID }, false},
		{"identifier NPI of no practitioner finds none", "Practitioner", []string{"identifier", npi(ccnOrgID)}, func(r res) bool { return false }, false},
		{"identifier value", "Practitioner", []string{"identifier", pracID}, func(r res) bool { return hasIdentifier(r, "", pracID) }, false},
		{"identifier |value (no system)", "Practitioner", []string{"identifier", "|" + pracID}, func(r res) bool { return false }, false},
		{"identifier system|", "Practitioner", []string{"identifier", fhirmap.SystemNPI + "|"}, func(r res) bool { return true }, false},
		{"family prefix", "Practitioner", []string{"family", family[:3]}, func(r res) bool {
			return anyOf(list(r["name"]), func(n any) bool { return prefixed(text(n, "family"), family[:3]) })
		}, false},
		{"family lower case", "Practitioner", []string{"family", strings.ToLower(family)}, func(r res) bool {
			return anyOf(list(r["name"]), func(n any) bool { return prefixed(text(n, "family"), family) })
		}, false},
		{"family:exact", "Practitioner", []string{"family:exact", family}, func(r res) bool {
			return anyOf(list(r["name"]), func(n any) bool { return text(n, "family") == family })
		}, false},
		{"family:exact wrong case", "Practitioner", []string{"family:exact", strings.ToLower(family)}, func(r res) bool {
			return anyOf(list(r["name"]), func(n any) bool { return text(n, "family") == strings.ToLower(family) })
		}, false},
		{"given", "Practitioner", []string{"given", given}, func(r res) bool {
			return anyOf(list(r["name"]), func(n any) bool {
				return anyOf(list(field(n, "given")), func(g any) bool { return prefixed(g.(string), given) })
			})
		}, false},
		{"name and family", "Practitioner", []string{"name", given, "family", family}, func(r res) bool {
			return anyOf(list(r["name"]), func(n any) bool {
				return nameStarts(n, given) && prefixed(text(n, "family"), family)
			})
		}, false},
		{"address-city", "Practitioner", []string{"address-city", city}, func(r res) bool { return addressPart(r, "city", city) }, false},
		{"address-state and active", "Practitioner", []string{"address-state", state, "active", "true"}, func(r res) bool {
			return addressPart(r, "state", state) && r["active"] == true
		}, false},
		{"address-postalcode", "Practitioner", []string{"address-postalcode", zip[:5]}, func(r res) bool { return addressPart(r, "postalCode", zip[:5]) }, false},
		{"address-postalcode ZIP+4", "Practitioner", []string{"address-postalcode", zip4}, func(r res) bool { return addressPart(r, "postalCode", zip4) }, false},
		{"address-postalcode ZIP+4 without its dash", "Practitioner", []string{"address-postalcode", strings.ReplaceAll(zip4, "-", "")}, func(r res) bool { return addressPart(r, "postalCode", zip4) }, false},
		{"address (line)", "Practitioner", []string{"address", line}, func(r res) bool { return addressAny(r, line) }, false},
		{"address (city)", "Practitioner", []string{"address", city}, func(r res) bool { return addressAny(r, city) }, false},
		{"address (state)", "Practitioner", []string{"address", state}, func(r res) bool { return addressAny(r, state) }, false},
		{"address (ZIP+4)", "Practitioner", []string{"address", zip4}, func(r res) bool { return addressAny(r, zip4) }, false},
		{"address (ZIP+4 without its dash)", "Practitioner", []string{"address", strings.ReplaceAll(zip4, "-", "")}, func(r res) bool { return addressAny(r, zip4) }, false},
		{"address (country)", "Practitioner", []string{"address", "us"}, func(r res) bool { return addressAny(r, "us") }, false},
		{"address (city or line) and address-state", "Practitioner", []string{"address", city + "," + line, "address-state", state}, func(r res) bool {
			return (addressAny(r, city) || addressAny(r, line)) && addressPart(r, "state", state)
		}, false},
		{"address (ZIP) of a Location", "Location", []string{"address", locZip[:5]}, func(r res) bool { return addressAny(r, locZip[:5]) }, false},
		{"address (city) of a Location", "Location", []string{"address", locCity}, func(r res) bool { return addressAny(r, locCity) }, false},
		{"_lastUpdated eq day", "Practitioner", []string{"_lastUpdated", day}, func(r res) bool { return lastUpdated(r) == day }, false},
		{"_lastUpdated ge year", "Practitioner", []string{"_lastUpdated", "ge" + year + "-01-01"}, func(r res) bool { return lastUpdated(r) >= year+"-01-01" }, false},
		{"_lastUpdated range", "Practitioner", []string{"_lastUpdated", "gt" + year, "_lastUpdated", "lt2100"}, func(r res) bool { return lastUpdated(r)[:4] > year }, false},
		{"_lastUpdated le", "Practitioner", []string{"_lastUpdated", "le" + day}, func(r res) bool { return lastUpdated(r) <= day }, false},
		{"sorted by _lastUpdated", "Practitioner", []string{"_sort", "_lastUpdated", "address-state", state}, func(r res) bool { return addressPart(r, "state", state) }, true},
		{"sorted by -_lastUpdated", "Practitioner", []string{"_sort", "-_lastUpdated,-_id"}, func(r res) bool { return true }, true},
		{"sorted by -_id", "Practitioner", []string{"_sort", "-_id", "active", "true"}, func(r res) bool { return r["active"] == true }, true},
		{"revinclude roles", "Practitioner", []string{"_id", rolePracNPI, "_revinclude", "PractitionerRole:practitioner"}, func(r res) bool { return r["id"] == rolePracNPI }, false},
		// _id as a reference, as HAPI FHIR reads it: relative (as the Inferno kits send it), absolute, versioned.
		{"revinclude roles, _id a reference", "Practitioner", []string{"_id", rolePrac, "_revinclude", "PractitionerRole:practitioner"}, func(r res) bool { return r["id"] == rolePracNPI }, false},
		{"_id absolute and versioned references", "Practitioner", []string{"_id", "{base}/" + rolePrac + "," + "Practitioner/" + pracID + "/_history/1"}, func(r res) bool { return r["id"] == rolePracNPI || r["id"] == pracID }, false},
		{"_has role specialty", "Practitioner", []string{"_has:PractitionerRole:practitioner:specialty", specialty}, func(r res) bool {
			return anyOf(mapValues(roles), func(x any) bool {
				return hasRef(x.(res), "practitioner", "Practitioner/"+r["id"].(string)) && hasCode(x.(res), "specialty", "", specialty)
			})
		}, false},

		{"_has role location (a reference)", "Practitioner", []string{"_has:PractitionerRole:practitioner:location", roleLoc}, func(r res) bool {
			return anyOf(mapValues(roles), func(x any) bool {
				return hasRef(x.(res), "practitioner", "Practitioner/"+r["id"].(string)) && hasRef(x.(res), "location", roleLoc)
			})
		}, false},

		// PractitionerRole
		{"role specialty code", "PractitionerRole", []string{"specialty", specialty}, func(r res) bool { return hasCode(r, "specialty", "", specialty) }, false},
		{"role specialty system|code", "PractitionerRole", []string{"specialty", fhirmap.SystemNUCC + "|" + specialty}, func(r res) bool { return hasCode(r, "specialty", fhirmap.SystemNUCC, specialty) }, false},
		{"role practitioner ref", "PractitionerRole", []string{"practitioner", rolePrac}, func(r res) bool { return hasRef(r, "practitioner", rolePrac) }, false},
		{"role practitioner bare id", "PractitionerRole", []string{"practitioner", rolePracNPI}, func(r res) bool { return hasRef(r, "practitioner", rolePrac) }, false},
		{"role practitioner absolute", "PractitionerRole", []string{"practitioner", "{base}/" + rolePrac}, func(r res) bool { return hasRef(r, "practitioner", rolePrac) }, false},
		{"role practitioner foreign server", "PractitionerRole", []string{"practitioner", "https://elsewhere.example/fhir/" + rolePrac}, func(r res) bool { return false }, false},
		{"role organization", "PractitionerRole", []string{"organization", roleOrg}, func(r res) bool { return hasRef(r, "organization", roleOrg) }, false},
		{"role location", "PractitionerRole", []string{"location", roleLoc}, func(r res) bool { return hasRef(r, "location", roleLoc) }, false},
		{"role service", "PractitionerRole", []string{"service", roleSvc}, func(r res) bool { return hasRef(r, "healthcareService", roleSvc) }, false},
		{"role role code", "PractitionerRole", []string{"role", text(list(field(list(role["code"])[0], "coding"))[0], "code")}, func(r res) bool {
			return hasCode(r, "code", "", text(list(field(list(role["code"])[0], "coding"))[0], "code"))
		}, false},
		{"role active and specialty", "PractitionerRole", []string{"active", "true", "specialty", specialty}, func(r res) bool { return r["active"] == true && hasCode(r, "specialty", "", specialty) }, false},
		{"role chain practitioner.identifier", "PractitionerRole", []string{"practitioner.identifier", fhirmap.SystemNPI + "|" + rolePracNPI}, func(r res) bool { return hasRef(r, "practitioner", rolePrac) }, false},
		{"role chain practitioner.name", "PractitionerRole", []string{"practitioner.name", rolePracFamily}, func(r res) bool {
			p := pracs[strings.TrimPrefix(text(r["practitioner"], "reference"), "Practitioner/")]
			return p != nil && anyOf(list(p["name"]), func(n any) bool { return nameStarts(n, rolePracFamily) })
		}, false},
		{"role chain typed", "PractitionerRole", []string{"practitioner:Practitioner.family", rolePracFamily}, func(r res) bool {
			p := pracs[strings.TrimPrefix(text(r["practitioner"], "reference"), "Practitioner/")]
			return p != nil && anyOf(list(p["name"]), func(n any) bool { return prefixed(text(n, "family"), rolePracFamily) })
		}, false},
		{"role chain ending in a reference service.organization", "PractitionerRole", []string{"service.organization", chainSvcOrg}, func(r res) bool {
			return anyOf(list(r["healthcareService"]), func(h any) bool { svc := svcOf(h); return svc != nil && hasRef(svc, "providedBy", chainSvcOrg) })
		}, false},
		{"role _include practitioner", "PractitionerRole", []string{"specialty", specialty, "_include", "PractitionerRole:practitioner"}, func(r res) bool { return hasCode(r, "specialty", "", specialty) }, false},
		{"role _include all four", "PractitionerRole", []string{"organization", roleOrg, "_include", "PractitionerRole:practitioner", "_include", "PractitionerRole:organization", "_include", "PractitionerRole:location", "_include", "PractitionerRole:service"}, func(r res) bool { return hasRef(r, "organization", roleOrg) }, false},
		{"role _id", "PractitionerRole", []string{"_id", roleID}, func(r res) bool { return r["id"] == roleID }, false},

		// Organization
		{"org identifier CCN", "Organization", []string{"identifier", fhirmap.SystemCCN + "|" + ccn}, func(r res) bool { return hasIdentifier(r, fhirmap.SystemCCN, ccn) }, false},
		{"org identifier NPI", "Organization", []string{"identifier", ccnOrgID}, func(r res) bool { return hasIdentifier(r, "", ccnOrgID) }, false},
		{"org name", "Organization", []string{"name", strings.Fields(orgName)[0]}, func(r res) bool {
			return prefixed(text(r, "name"), strings.Fields(orgName)[0]) || anyOf(list(r["alias"]), func(a any) bool { return prefixed(a.(string), strings.Fields(orgName)[0]) })
		}, false},
		{"org name:exact", "Organization", []string{"name:exact", orgName}, func(r res) bool {
			return text(r, "name") == orgName || anyOf(list(r["alias"]), func(a any) bool { return a == orgName })
		}, false},
		{"org type", "Organization", []string{"type", "prov"}, func(r res) bool { return hasCode(r, "type", "", "prov") }, false},
		// Plan-Net's coded types and profiles.
		{"org Plan-Net type", "Organization", []string{"type", "prvgrp"}, func(r res) bool { return hasCode(r, "type", fhirmap.SystemPlanNetOrgType, "prvgrp") }, false},
		{"org Plan-Net type system|code", "Organization", []string{"type", fhirmap.SystemPlanNetOrgType + "|fac"}, func(r res) bool { return hasCode(r, "type", fhirmap.SystemPlanNetOrgType, "fac") }, false},
		{"location type", "Location", []string{"type", "HOSP,OF"}, func(r res) bool {
			return hasCode(r, "type", fhirmap.SystemRoleCode, "HOSP") || hasCode(r, "type", fhirmap.SystemRoleCode, "OF")
		}, false},
		{"location type system|code", "Location", []string{"type", fhirmap.SystemRoleCode + "|HOSP"}, func(r res) bool { return hasCode(r, "type", fhirmap.SystemRoleCode, "HOSP") }, false},
		{"role Plan-Net role code", "PractitionerRole", []string{"role", fhirmap.SystemProviderRole + "|ph"}, func(r res) bool { return hasCode(r, "code", fhirmap.SystemProviderRole, "ph") }, false},
		{"Plan-Net practitioners", "Practitioner", []string{"_profile", fhirmap.PlanNetProfiles["Practitioner"]}, func(r res) bool { return r["active"] == true }, false},
		{"Plan-Net locations", "Location", []string{"_profile", fhirmap.PlanNetProfiles["Location"] + "," + "http://example.org/other"}, func(r res) bool { return r["status"] == "active" }, false},
		{"Plan-Net organizations", "Organization", []string{"_profile", fhirmap.PlanNetProfiles["Organization"]}, func(r res) bool { return r["active"] == true && len(list(r["address"])) > 0 }, false},
		{"Plan-Net roles", "PractitionerRole", []string{"_profile", fhirmap.PlanNetProfiles["PractitionerRole"]}, func(r res) bool {
			return r["active"] == true && anyOf(list(r["code"]), func(cc any) bool {
				return anyOf(list(field(cc, "coding")), func(c any) bool { return text(c, "system") == fhirmap.SystemProviderRole })
			})
		}, false},
		{"US Core profile: every organization", "Organization", []string{"_profile", fhirmap.Profiles["Organization"] + "," + fhirmap.PlanNetProfiles["Organization"]}, func(r res) bool { return true }, false},
		{"org type system|code", "Organization", []string{"type", fhirmap.SystemOrganizationType + "|prov", "active", "true"}, func(r res) bool {
			return hasCode(r, "type", fhirmap.SystemOrganizationType, "prov") && r["active"] == true
		}, false},
		{"org address-state", "Organization", []string{"address-state", state}, func(r res) bool { return addressPart(r, "state", state) }, false},
		{"org _revinclude roles", "Organization", []string{"_id", strings.TrimPrefix(roleOrg, "Organization/"), "_revinclude", "PractitionerRole:organization"}, func(r res) bool { return "Organization/"+r["id"].(string) == roleOrg }, false},
		{"org _revinclude roles, _id a reference", "Organization", []string{"_id", roleOrg, "_revinclude", "PractitionerRole:organization"}, func(r res) bool { return "Organization/"+r["id"].(string) == roleOrg }, false},
		{"role _id a reference", "PractitionerRole", []string{"_id", "PractitionerRole/" + roleID, "_include", "PractitionerRole:practitioner"}, func(r res) bool { return r["id"] == roleID }, false},
		{"location _id a reference", "Location", []string{"_id", roleLoc, "_revinclude", "PractitionerRole:location"}, func(r res) bool { return "Location/"+r["id"].(string) == roleLoc }, false},
		{"service _id a reference", "HealthcareService", []string{"_id", roleSvc, "_revinclude", "PractitionerRole:service"}, func(r res) bool { return "HealthcareService/"+r["id"].(string) == roleSvc }, false},

		// Location
		{"location organization", "Location", []string{"organization", locOrg}, func(r res) bool { return hasRef(r, "managingOrganization", locOrg) }, false},
		{"location address-city", "Location", []string{"address-city", locCity}, func(r res) bool { return addressPart(r, "city", locCity) }, false},
		{"location address-postalcode", "Location", []string{"address-postalcode", locZip}, func(r res) bool { return addressPart(r, "postalCode", locZip) }, false},
		{"location name", "Location", []string{"name", text(facLoc, "name")}, func(r res) bool { return prefixed(text(r, "name"), text(facLoc, "name")) }, false},
		{"location status", "Location", []string{"status", "active", "address-state", state}, func(r res) bool { return r["status"] == "active" && addressPart(r, "state", state) }, false},
		{"location _include organization", "Location", []string{"organization", locOrg, "_include", "Location:organization"}, func(r res) bool { return hasRef(r, "managingOrganization", locOrg) }, false},

		// HealthcareService
		{"service category", "HealthcareService", []string{"service-category", svcCategory}, func(r res) bool { return hasCode(r, "category", "", svcCategory) }, false},
		{"service specialty", "HealthcareService", []string{"specialty", svcSpecialty}, func(r res) bool { return hasCode(r, "specialty", "", svcSpecialty) }, false},
		{"service location", "HealthcareService", []string{"location", svcLoc}, func(r res) bool { return hasRef(r, "location", svcLoc) }, false},
		{"service organization", "HealthcareService", []string{"organization", svcOrg, "active", "true"}, func(r res) bool { return hasRef(r, "providedBy", svcOrg) && r["active"] == true }, false},
		{"service name", "HealthcareService", []string{"name", strings.Fields(text(svc, "name"))[0]}, func(r res) bool { return prefixed(text(r, "name"), strings.Fields(text(svc, "name"))[0]) }, false},
		{"service chain organization.identifier", "HealthcareService", []string{"organization.identifier", ccn}, func(r res) bool {
			o := orgs[strings.TrimPrefix(text(r["providedBy"], "reference"), "Organization/")]
			return o != nil && hasIdentifier(o, "", ccn)
		}, false},
	}
	// The synthetic drop has no related providers and no NPI enrolled with others under one CCN,
	// so partOf only occurs where a test builds it; the mapping tests cover it.
	if part != nil {
		ref := text(part["partOf"], "reference")
		cs = append(cs,
			searchCase{"org partof", "Organization", []string{"partof", ref}, func(r res) bool { return hasRef(r, "partOf", ref) }, false},
			searchCase{"org _include partof", "Organization", []string{"_id", partID, "_include", "Organization:partof"}, func(r res) bool { return r["id"] == partID }, false})
	}
	if inactive != nil {
		cs = append(cs, searchCase{"org inactive", "Organization", []string{"active", "false"}, func(r res) bool { return r["active"] == false }, false})
	}
	return cs
}

func mapValues(m map[string]res) []any {
	out := make([]any, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestSearch runs every case by GET and by POST _search with small pages, follows the next
// links to the end, checks the matches against the expectation, validates every resource, and
// checks that GET and POST agree on every id, in order.
func TestSearch(t *testing.T) {
	e := sharedEnv(t)
	all := e.all(t)
	for _, c := range cases(t, all) {
		t.Run(c.typ+" "+c.name, func(t *testing.T) {
			params := slices.Clone(c.params)
			for i := range params {
				params[i] = strings.ReplaceAll(params[i], "{base}", e.base)
			}
			v := url.Values{}
			for i := 0; i+1 < len(params); i += 2 {
				v.Add(params[i], params[i+1])
			}
			if v.Get("_count") == "" {
				v.Set("_count", "7")
			}
			got := e.searchAll(t, e.base+"/"+c.typ+"?"+v.Encode())
			want := checkMatches(t, all[c.typ], c, v, got)
			if c.name != "all practitioners" && len(want) == 0 && !strings.Contains(c.name, "no system") && !strings.Contains(c.name, "foreign") && !strings.Contains(c.name, "wrong case") && !strings.Contains(c.name, "finds none") {
				t.Errorf("case finds nothing: pick another value")
			}

			post := e.searchPost(t, c.typ, v)
			if !slices.Equal(post.matches, got.matches) || (post.total == nil) != (got.total == nil) || post.total != nil && *post.total != *got.total {
				t.Errorf("POST _search found %d (total %v), GET %d (total %v)", len(post.matches), post.total, len(got.matches), got.total)
			}
			checkIncludes(t, all, v, got)
		})
	}
}

// checkMatches checks that a search found exactly what its case's predicate picks of all the
// resources of its type, in the order it asked for when the case is sorted, and returns those.
func checkMatches(t *testing.T, all map[string]res, c searchCase, v url.Values, got searchResult) []string {
	t.Helper()
	var want []string
	for id, r := range all {
		if c.want(r) {
			want = append(want, c.typ+"/"+id)
		}
	}
	sort.Strings(want)
	if c.sorted {
		checkOrder(t, all, got.matches, v.Get("_sort"))
	}
	if gotSorted := slices.Sorted(slices.Values(got.matches)); !slices.Equal(gotSorted, want) {
		t.Errorf("got %d matches, want %d\n got %v\nwant %v", len(gotSorted), len(want), head(gotSorted), head(want))
	}
	return want
}

// searchPost runs a search by POST _search and follows the next links (GET) to the end.
func (e *env) searchPost(t *testing.T, typ string, v url.Values) searchResult {
	t.Helper()
	r := do(t, http.MethodPost, e.base+"/"+typ+"/_search", strings.NewReader(v.Encode()), "Content-Type", "application/x-www-form-urlencoded")
	if r.status != http.StatusOK {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	b := e.checkBundle(t, r)
	res := searchResult{total: b.Total}
	for _, en := range b.Entry {
		if en.Search.Mode == "match" {
			res.matches = append(res.matches, idOf(en.Resource))
		}
	}
	if next := b.link("next"); next != "" {
		rest := e.searchAll(t, next)
		res.matches = append(res.matches, rest.matches...)
	}
	return res
}

func checkOrder(t *testing.T, all map[string]res, got []string, sortParam string) {
	t.Helper()
	desc := strings.HasPrefix(sortParam, "-")
	byUpdated := strings.Contains(sortParam, "_lastUpdated")
	less := func(a, b string) bool {
		ra, rb := all[strings.SplitN(a, "/", 2)[1]], all[strings.SplitN(b, "/", 2)[1]]
		if byUpdated && lastUpdated(ra) != lastUpdated(rb) {
			return lastUpdated(ra) < lastUpdated(rb)
		}
		return a < b
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if desc {
			a, b = b, a
		}
		if !less(a, b) {
			t.Fatalf("_sort=%s: %s before %s", sortParam, got[i-1], got[i])
		}
	}
}

// checkIncludes checks that _include added exactly the referenced resources and _revinclude
// exactly the referring ones.
func checkIncludes(t *testing.T, all map[string]map[string]res, v url.Values, got searchResult) {
	t.Helper()
	want := map[string]bool{}
	matched := map[string]bool{}
	for _, m := range got.matches {
		matched[m] = true
	}
	fields := map[string]string{"practitioner": "practitioner", "organization": "organization", "location": "location",
		"service": "healthcareService", "partof": "partOf"}
	for _, inc := range v["_include"] {
		parts := strings.Split(inc, ":")
		for _, m := range got.matches {
			typ, id, _ := strings.Cut(m, "/")
			f := fields[parts[1]]
			if typ == "Location" && parts[1] == "organization" {
				f = "managingOrganization"
			}
			for _, x := range list(all[typ][id][f]) {
				if ref := text(x, "reference"); ref != "" && !matched[ref] {
					want[ref] = true
				}
			}
		}
	}
	for _, rev := range v["_revinclude"] {
		parts := strings.Split(rev, ":")
		for id, r := range all[parts[0]] {
			for _, m := range got.matches {
				if hasRef(r, fields[parts[1]], m) {
					want[parts[0]+"/"+id] = true
				}
			}
		}
	}
	gotInc := map[string]bool{} // over all pages: each page includes what its own matches need
	for _, i := range got.included {
		gotInc[i] = true
	}
	if len(v["_include"])+len(v["_revinclude"]) > 0 && len(want) == 0 {
		t.Errorf("the include case includes nothing: pick another value")
	}
	for w := range want {
		if !gotInc[w] {
			t.Errorf("%s not included", w)
		}
	}
	for g := range gotInc {
		if !want[g] {
			t.Errorf("%s included but not referenced", g)
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 8)] }
