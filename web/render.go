package web

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"providerdir/internal/logging"
	"providerdir/internal/requestid"
	"providerdir/mapping/study"
	"providerdir/rest/auditpack"
)

// ContentSecurityPolicy is the policy of the HTML pages and their assets: scripts, styles,
// images and requests from this origin only, no inline script or style, no plugin, no <base>
// rewrite, forms posting to this origin, and no framing by any page.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// pageHeaders sets the headers of the pages beside those the service's handler gives every
// response (nosniff, Referrer-Policy): the pages' own CSP in place of the service's
// default-src 'none', and X-Frame-Options for browsers that predate frame-ancestors.
func pageHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		next.ServeHTTP(w, r)
	})
}

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFS embed.FS

// pages holds one template set per page, each the layout with that page's blocks.
type pages map[string]*template.Template

// Page template names, the files in templates/ besides layout.html.
const (
	tmplHome       = "home.html"
	tmplSupply     = "supply.html"
	tmplAudit      = "audit.html"
	tmplAuditIndex = "auditindex.html"
	tmplDocument   = "document.html"
	tmplEvidence   = "evidence.html"
	tmplAccess     = "access.html"
	tmplError      = "error.html"
)

var funcs = template.FuncMap{
	"count":    study.FormatCount,
	"decimal":  func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) },
	"tenths":   func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"segments": auditpack.Segments,
}

// parsePages parses every page with the layout; a template that does not parse is a build
// mistake, caught by any test.
func parsePages() pages {
	p := pages{}
	for _, name := range []string{tmplHome, tmplSupply, tmplAudit, tmplAuditIndex, tmplDocument, tmplEvidence, tmplAccess, tmplError} {
		p[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(templateFiles, "templates/layout.html", "templates/"+name))
	}
	return p
}

// layoutData is what the layout reads besides the page's own data.
type layoutData struct {
	Title   string   // the page's own title, before the site's name; "" for the home page
	Scripts []string // asset names under /static, loaded deferred
	Page    any
}

// render writes a page with the status. The page is rendered into a buffer first, so a template
// failure becomes a 500 rather than half a page.
func (s *Site) render(w http.ResponseWriter, r *http.Request, status int, name string, d layoutData) {
	var buf bytes.Buffer
	if err := s.pages[name].ExecuteTemplate(&buf, "layout.html", d); err != nil {
		logging.Logger(r.Context()).Error("render page", slog.String("page", name), slog.Any("error", err))
		http.Error(w, "internal error; quote request id "+requestid.From(r.Context())+" when reporting it", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorData is the error page's content.
type errorData struct {
	Heading string
	Message string
	// Links are the pages that help from here.
	Links []link
	// RequestID is quoted on a failure of the service, so an operator can find its log line.
	RequestID string
}

type link struct {
	Href, Text string
}

// fail renders the error page of a failure to read the store, logging the cause.
func (s *Site) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	logging.Logger(r.Context()).Error(what, slog.Any("error", err))
	s.render(w, r, http.StatusInternalServerError, tmplError, layoutData{Title: "Something went wrong", Page: errorData{
		Heading:   "The page could not be built",
		Message:   "The service could not read its data just now. Please try again later.",
		RequestID: requestid.From(r.Context()),
	}})
}

// staticFiles serves the embedded stylesheets and scripts. Their names carry no version, so
// browsers keep them an hour at most.
func staticFiles() http.Handler {
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	files := http.StripPrefix(PathStatic, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}
