// Package web owns the human-facing pages of the service: the home page, the supply map of
// each specialty with its providers near a ZIP code, the audit packs, the evidence demo and the pilot access form, rendered on the
// server with html/template, and the documents the JSON APIs link to from every response
// (limitations_url, methodology_url), rendered from their Markdown. Templates, styles and
// scripts are embedded in the binary, so the pages work with nothing beside it and no
// third-party host.
package web

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/docs"
	"providerdir/rest"
	"providerdir/rest/supply"
	"providerdir/store"
	"providerdir/web/markdown"
)

// Options configures the pages.
type Options struct {
	// BaseURL is the public base URL (without a trailing slash) the home page names as the base
	// of every surface; it comes from configuration, never from the request.
	BaseURL string
	// AuditPacks builds the audit packs /audit lists and /audit/{slug} shows; nil leaves every
	// audit page 404.
	AuditPacks AuditSource
}

// Site serves the pages.
type Site struct {
	baseURL string
	supply  *supply.API
	audit   AuditSource
	pages   pages
}

// New returns the pages reading from st. They read the supply figures through the supply API's
// own reader, so a page shows the numbers the API serves.
func New(st store.Store, o Options) *Site {
	base := strings.TrimRight(o.BaseURL, "/")
	return &Site{baseURL: base, supply: supply.New(st, base), audit: o.AuditPacks, pages: parsePages()}
}

// Routes registers the pages, their assets and the documents on the web surface's router.
func (s *Site) Routes(r *mux.Router) {
	html := r.NewRoute().Subrouter()
	html.Use(pageHeaders)
	html.HandleFunc("/", s.home).Methods(http.MethodGet, http.MethodHead)
	// The list of supply maps is a section of the home page; /supply leads there.
	html.Handle(PathSupply, http.RedirectHandler("/#supply-h", http.StatusFound)).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(PathSupply+"/{specialty}", s.supplyPage).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(PathAudit, s.auditIndex).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(PathAudit+"/{slug}", s.auditPage).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(PathEvidence, s.evidencePage).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(PathAccess, s.accessPage).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(rest.PathLimitationsPage, s.document(docs.Limitations)).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(rest.PathMethodologyPage, s.methodologyIndex).Methods(http.MethodGet, http.MethodHead)
	html.HandleFunc(rest.PathMethodologyPage+"/{name}", func(w http.ResponseWriter, req *http.Request) {
		name := mux.Vars(req)["name"]
		if strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
			s.notFound(w, req)
			return
		}
		s.document(docs.Methodology(strings.TrimSuffix(name, ".md")))(w, req)
	}).Methods(http.MethodGet, http.MethodHead)
	html.PathPrefix(PathStatic+"/").Handler(staticFiles()).Methods(http.MethodGet, http.MethodHead)
}

// Paths of the pages.
const (
	PathSupply   = "/supply"
	PathAudit    = "/audit"
	PathEvidence = "/evidence"
	PathAccess   = "/access"
	PathStatic   = "/static"
)

// docData is a document page's content: the rendered document and the links it lists.
type docData struct {
	markdown.Document
	Links []link
}

// document serves one embedded Markdown document as a page in the site's style.
func (s *Site) document(file string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		src, err := fs.ReadFile(docs.Files, file)
		if err != nil {
			s.notFound(w, req)
			return
		}
		doc := markdown.Render(string(src))
		s.render(w, req, http.StatusOK, tmplDocument, layoutData{Title: doc.Title, Page: docData{Document: doc}})
	}
}

// methodologyIndex lists the methodology documents by title and links each one.
func (s *Site) methodologyIndex(w http.ResponseWriter, req *http.Request) {
	names, err := methodologyNames()
	if err != nil {
		s.fail(w, req, "methodology: list the documents", err)
		return
	}
	d := docData{Document: markdown.Render("# Methodology\n\nEach study's method in prose; `/v1/methodology/{dataset}` serves the same rules with the figures of the serving snapshot.\n")}
	for _, name := range names {
		src, err := fs.ReadFile(docs.Files, docs.Methodology(name))
		if err != nil {
			s.fail(w, req, "methodology: read "+name, err)
			return
		}
		d.Links = append(d.Links, link{rest.PathMethodologyPage + "/" + name, markdown.Render(string(src)).Title})
	}
	s.render(w, req, http.StatusOK, tmplDocument, layoutData{Title: d.Title, Page: d})
}

// methodologyNames lists the embedded methodology documents by name, without extension.
func methodologyNames() ([]string, error) {
	entries, err := fs.ReadDir(docs.Files, docs.MethodologyDir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), path.Ext(e.Name())))
	}
	return names, nil
}
