package web

import (
	"net/http"

	"providerdir/mapping/study"
	"providerdir/rest"
)

// surface is one of the service's interfaces as the home page lists it.
type surface struct {
	Name    string
	BaseURL string
	Access  string
	Links   []link
}

// homeData is the home page's content.
type homeData struct {
	BaseURL     string
	Surfaces    []surface
	Freshness   []rest.DataFreshness
	Specialties []study.Specialty
	Methodology []string
	// AuditPacks is how many audit packs /audit lists; 0 without an audit source.
	AuditPacks int
}

// home serves GET /: what the service is, its surfaces and their base URLs, how fresh each
// source family is, and where to go next.
func (s *Site) home(w http.ResponseWriter, r *http.Request) {
	fresh, err := s.supply.Freshness(r.Context())
	if err != nil {
		s.fail(w, r, "home: read the manifests", err)
		return
	}
	names, err := methodologyNames()
	if err != nil {
		s.fail(w, r, "home: list the methodology documents", err)
		return
	}
	packs := 0
	if s.audit != nil {
		packs = len(s.audit.Catalog())
	}
	s.render(w, r, http.StatusOK, tmplHome, layoutData{Page: homeData{
		BaseURL:     s.baseURL,
		Surfaces:    s.surfaces(),
		Freshness:   fresh,
		Specialties: study.Specialties(),
		Methodology: names,
		AuditPacks:  packs,
	}})
}

// surfaces lists the service's interfaces under the configured base URL.
func (s *Site) surfaces() []surface {
	b := s.baseURL
	return []surface{
		{Name: "FHIR R4 (US Core 6.1.0)", BaseURL: b + "/fhir", Access: "SMART Backend Services bearer token from " + b + "/fhir/token",
			Links: []link{{b + "/fhir/metadata", "CapabilityStatement"}, {b + "/fhir/.well-known/smart-configuration", "SMART configuration"}}},
		{Name: "Supply data API v1", BaseURL: b + "/v1", Access: "Authorization: Bearer <key> (pilot keys through the access form)",
			Links: []link{{b + "/v1/openapi.json", "OpenAPI description"}, {b + "/v1/health", "Health"}}},
		{Name: "Resolver API v1", BaseURL: b + "/resolver/v1", Access: "X-Service-Key header"},
		{Name: "Service host", BaseURL: b + "/api", Access: "No key; limited per address",
			Links: []link{{PathAccess, "Pilot access form"}, {PathEvidence, "Evidence query demo"}}},
		{Name: "Web pages", BaseURL: b + "/", Access: "Public"},
	}
}

// notFound renders the 404 page.
func (s *Site) notFound(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusNotFound, tmplError, layoutData{Title: "Page not found", Page: errorData{
		Heading: "Page not found",
		Message: "There is no page at this address.",
		Links:   []link{{"/", "Home"}},
	}})
}
