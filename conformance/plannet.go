package conformance

import (
	"context"
	"fmt"
	"net/url"
	"slices"
)

// planNetProfiles are the Da Vinci PDex Plan-Net 1.2.0 profiles of the types whose own profile
// is not Plan-Net's: the CapabilityStatement lists them beside their own, and the resources that
// meet them claim them in meta.profile.
var planNetProfiles = map[string]string{
	"Practitioner":     planNetSD + "plannet-Practitioner",
	"PractitionerRole": planNetSD + "plannet-PractitionerRole",
	"Organization":     planNetSD + "plannet-Organization",
	"Location":         planNetSD + "plannet-Location",
	"Endpoint":         planNetSD + "plannet-Endpoint",
}

const planNetSD = "http://hl7.org/fhir/us/davinci-pdex-plan-net/StructureDefinition/"

// planNetRules are what each Plan-Net profile fixes or requires beyond the type's own: active
// true, a Location's and an Endpoint's status active, an Organization's address and type
// (Plan-Net's OrgTypeCS), a role code of Plan-Net's role codes (ProviderRoleCS or HL7's
// practitioner-role).
var planNetRules = map[string][]func(map[string]any) error{
	"Practitioner":     {equals("active", true)},
	"PractitionerRole": {equals("active", true), codedFrom("code", planNetCS+"ProviderRoleCS", "http://terminology.hl7.org/CodeSystem/practitioner-role")},
	"Organization":     {equals("active", true), present("address"), codedFrom("type", planNetCS+"OrgTypeCS")},
	"Location":         {equals("status", "active")},
	"Endpoint":         {equals("status", "active")},
}

const planNetCS = "http://hl7.org/fhir/us/davinci-pdex-plan-net/CodeSystem/"

// codedFrom: every concept of field has a coding of one of the systems (a required binding).
func codedFrom(field string, systems ...string) func(map[string]any) error {
	return func(r map[string]any) error {
		for _, cc := range list(r[field]) {
			if !slices.ContainsFunc(list(path(cc, "coding")), func(c any) bool {
				s, _ := path(c, "system").(string)
				return slices.Contains(systems, s)
			}) {
				return fmt.Errorf("%s %v has no coding of %v", field, cc, systems)
			}
		}
		return nil
	}
}

// planNetCheck holds the served resources of typ that claim its Plan-Net profile to the rules
// the profile adds, asks that some of the sample page claim it, and searches _profile for it by
// GET and POST _search: the claimants, and only they, match.
func planNetCheck(typ string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		rs, err := e.samplesOf(ctx, typ)
		if err != nil {
			return err
		}
		profile := planNetProfiles[typ]
		var claimant map[string]any
		var problems []string
		claims := 0
		for _, r := range rs {
			if !slices.Contains(list(path(r, "meta", "profile")), any(profile)) {
				continue
			}
			claims++
			claimant = r
			for _, rule := range planNetRules[typ] {
				if err := rule(r); err != nil {
					problems = append(problems, fmt.Sprintf("%s/%v claims %s: %v", typ, r["id"], profile, err))
				}
			}
		}
		if claimant == nil {
			return fmt.Errorf("none of %d served %s resources claims %s", len(rs), typ, profile)
		}
		id := fmt.Sprint(claimant["id"])
		b, err := e.searchBoth(ctx, typ, url.Values{"_profile": {profile}, "_id": {id}})
		if err != nil {
			return err
		}
		if got, want := b.matches(), typ+"/"+id; !slices.Equal(got, []string{want}) {
			problems = append(problems, fmt.Sprintf("_profile=%s&_id=%s matched %v, want [%s]", profile, id, got, want))
		}
		if b, err = e.searchBoth(ctx, typ, url.Values{"_profile": {profile}, "_count": {"10"}}); err != nil {
			return err
		}
		for _, en := range b.Entry {
			if en.Search.Mode == "match" && !slices.Contains(list(path(en.Resource, "meta", "profile")), any(profile)) {
				problems = append(problems, fmt.Sprintf("_profile=%s matched %s/%v, which does not claim it", profile, typ, en.Resource["id"]))
			}
		}
		e.note = fmt.Sprintf("%d of %d sampled claim it", claims, len(rs))
		return joinProblems(problems)
	}
}
