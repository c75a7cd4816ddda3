// Package fhirvalidate validates served and stored FHIR resources for the tests of the packages
// that build and serve them: google/fhir/go parses each resource into its R4 proto with the
// library's validation (cardinalities, required fields, primitive formats, reference types),
// then the US Core 6.1.0 and Plan-Net rules the library does not know are checked here.
//
// Only tests import it, so the production binaries never link google/fhir/go: building the
// resources as plain JSON at ingest is the fast path, and this is its proof.
package fhirvalidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/google/fhir/go/fhirversion"
	"github.com/google/fhir/go/jsonformat"

	"providerdir/catalog"
	"providerdir/ident"
	"providerdir/mapping/fhirmap"
	"providerdir/store"
	"providerdir/stored"
)

var (
	once sync.Once
	um   *jsonformat.Unmarshaller
	umMu sync.Mutex
	err0 error
)

// Parse runs google/fhir/go's validating R4 parser over one resource.
func Parse(resource []byte) error {
	once.Do(func() { um, err0 = jsonformat.NewUnmarshaller("UTC", fhirversion.R4) })
	if err0 != nil {
		return err0
	}
	umMu.Lock()
	defer umMu.Unlock()
	_, err := um.Unmarshal(resource)
	return err
}

// resource is the part of a resource the profile checks read.
type resource struct {
	ResourceType string          `json:"resourceType"`
	ID           string          `json:"id"`
	Meta         fhirmap.Meta    `json:"meta"`
	Identifier   []ident0        `json:"identifier"`
	Active       *bool           `json:"active"`
	Name         json.RawMessage `json:"name"`
	Telecom      []any           `json:"telecom"`
	Endpoint     []ref           `json:"endpoint"`
	Status       string          `json:"status"`
	Connection   *fhirmap.Coding `json:"connectionType"`
	PayloadType  []any           `json:"payloadType"`
	Address      json.RawMessage `json:"address"`
	Practitioner *ref            `json:"practitioner"`
	Organization *ref            `json:"organization"`
	Location     []ref           `json:"location"`
	Service      []ref           `json:"healthcareService"`
	Category     []any           `json:"category"`
	ProvidedBy   *ref            `json:"providedBy"`
	ManagingOrg  *ref            `json:"managingOrganization"`
	PartOf       *ref            `json:"partOf"`
}

type ident0 struct {
	System string `json:"system"`
	Value  string `json:"value"`
}

type ref struct {
	Reference string `json:"reference"`
}

// Validate parses a resource with google/fhir/go and checks the profile rules: meta (profile,
// lastUpdated, source, the 14 provenance tags under tagPrefix), the US Core mandatory elements
// and invariants, NPI check digits. tagPrefix is fhirmap.TagSystemPrefix for stored bytes and
// "<fhir base>/provenance/" for served ones.
func Validate(body []byte, tagPrefix string) error {
	if err := Parse(body); err != nil {
		return fmt.Errorf("google/fhir/go: %w", err)
	}
	var r resource
	if err := json.Unmarshal(body, &r); err != nil {
		return err
	}
	want, ok := fhirmap.Profiles[r.ResourceType]
	if !ok {
		return fmt.Errorf("unexpected resource type %q", r.ResourceType)
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	checkMeta(&r, want, tagPrefix, fail)
	checkPlanNetClaim(&r, fail)
	checkIdentifiers(&r, fail)
	if check := typeChecks[r.ResourceType]; check != nil {
		check(&r, fail)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s/%s: %w", r.ResourceType, r.ID, errors.Join(errs...))
	}
	return nil
}

// failFunc records one broken rule of a resource.
type failFunc func(format string, args ...any)

// checkMeta checks meta: the profile, lastUpdated, source and the 14 provenance tags.
func checkMeta(r *resource, profile, tagPrefix string, fail failFunc) {
	if !slices.Contains(r.Meta.Profile, profile) {
		fail("meta.profile %v lacks %s", r.Meta.Profile, profile)
	}
	if r.Meta.LastUpdated == "" {
		fail("meta.lastUpdated missing")
	}
	if r.Meta.Source == "" {
		fail("meta.source missing")
	}
	var keys []string
	for _, t := range r.Meta.Tag {
		if k, ok := strings.CutPrefix(t.System, tagPrefix); ok {
			keys = append(keys, k)
			if t.Code == "" && len(t.Extension) == 0 {
				fail("provenance tag %s has neither a value nor a data-absent-reason", k)
			}
		}
	}
	if !slices.Equal(keys, stored.ProvenanceKeys) {
		fail("provenance tags %v, want the 14 keys %v", keys, stored.ProvenanceKeys)
	}
}

// checkPlanNetClaim checks that a resource claiming its type's Plan-Net profile holds what the
// profile fixes: active true (Practitioner, PractitionerRole, Organization), status active
// (Location, Endpoint).
func checkPlanNetClaim(r *resource, fail failFunc) {
	profile := fhirmap.PlanNetProfiles[r.ResourceType]
	if profile == "" || !slices.Contains(r.Meta.Profile, profile) {
		return
	}
	switch r.ResourceType {
	case fhirmap.TypeLocation, fhirmap.TypeEndpoint:
		if r.Status != "active" {
			fail("status %q claiming %s, which fixes it to active", r.Status, profile)
		}
	default:
		if r.Active == nil || !*r.Active {
			fail("not active claiming %s, which fixes active to true", profile)
		}
	}
}

// checkIdentifiers checks that every identifier has a system and a value, and NPIs their check
// digit.
func checkIdentifiers(r *resource, fail failFunc) {
	for _, id := range r.Identifier {
		if id.System == "" || id.Value == "" {
			fail("identifier without system or value")
		}
		if id.System == fhirmap.SystemNPI {
			if err := ident.ValidateNPI(id.Value); err != nil {
				fail("NPI identifier: %v", err)
			}
		}
	}
}

// typeChecks are the US Core and Plan-Net rules of each resource type.
var typeChecks = map[string]func(r *resource, fail failFunc){
	fhirmap.TypePractitioner: func(r *resource, fail failFunc) {
		var names []struct {
			Family string `json:"family"`
		}
		_ = json.Unmarshal(r.Name, &names)
		if !slices.ContainsFunc(r.Identifier, func(i ident0) bool { return i.System == fhirmap.SystemNPI }) {
			fail("Practitioner without an NPI identifier")
		}
		if len(names) == 0 || names[0].Family == "" {
			fail("Practitioner without name.family")
		}
	},
	fhirmap.TypePractitionerRole: func(r *resource, fail failFunc) {
		if len(r.Telecom) == 0 && len(r.Endpoint) == 0 {
			fail("pd-1: PractitionerRole without telecom or endpoint")
		}
		if r.Practitioner == nil && r.Organization == nil && len(r.Service) == 0 && len(r.Location) == 0 {
			fail("us-core-13: PractitionerRole without practitioner, organization, healthcareService or location")
		}
	},
	fhirmap.TypeOrganization: func(r *resource, fail failFunc) {
		var name string
		_ = json.Unmarshal(r.Name, &name)
		if r.Active == nil {
			fail("Organization without active")
		}
		if name == "" {
			fail("Organization without name")
		}
	},
	fhirmap.TypeLocation: func(r *resource, fail failFunc) {
		var name string
		_ = json.Unmarshal(r.Name, &name)
		if name == "" {
			fail("Location without name")
		}
	},
	fhirmap.TypeHealthcareService: func(r *resource, fail failFunc) {
		if r.Active == nil || !*r.Active {
			fail("HealthcareService not active (Plan-Net fixes active to true)")
		}
		if len(r.Category) == 0 {
			fail("HealthcareService without category")
		}
	},
	fhirmap.TypeEndpoint: func(r *resource, fail failFunc) {
		var address string
		_ = json.Unmarshal(r.Address, &address)
		if r.Status == "" || address == "" || len(r.PayloadType) == 0 {
			fail("Endpoint without status, address or payloadType")
		}
		if r.Connection == nil || r.Connection.System == "" || r.Connection.Code == "" {
			fail("Endpoint without a coded connectionType")
		}
	},
}

// References returns the "Type/id" references a resource makes, for checking that none dangles.
func References(body []byte) ([]string, error) {
	var r resource
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	var out []string
	for _, x := range []*ref{r.Practitioner, r.Organization, r.ProvidedBy, r.ManagingOrg, r.PartOf} {
		if x != nil && x.Reference != "" {
			out = append(out, x.Reference)
		}
	}
	for _, l := range [][]ref{r.Location, r.Service, r.Endpoint} {
		for _, x := range l {
			out = append(out, x.Reference)
		}
	}
	return out, nil
}

// Stored returns a stored resource document as the FHIR surface serves it, its provenance tags
// read from tagGen, the generation of the snapshot's tag sets, and their systems under
// fhirmap.TagSystemPrefix, as Validate's tagPrefix for stored bytes has them.
func Stored(ctx context.Context, st store.Store, tagGen string, d store.Document) ([]byte, error) {
	s, err := fhirmap.Open(d.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.ID, err)
	}
	set, err := st.Get(ctx, tagGen, catalog.FHIRTags, s.Tags)
	if err != nil {
		return nil, fmt.Errorf("%s: tag set %s: %w", d.ID, s.Tags, err)
	}
	tags, err := fhirmap.RenderTags(set.Body, fhirmap.TagSystemPrefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.ID, err)
	}
	return s.AppendServed(nil, tags), nil
}
