package web

import (
	"context"
	"errors"
	"net/http"

	"github.com/gorilla/mux"
)

// AuditPack is what the audit page shows of one audit pack: the figures of the study, the
// provenance of each field, the caveats and the steps that reproduce the figures.
type AuditPack struct {
	Title              string
	Slug               string
	MethodologyVersion string
	Rows               []AuditRow
	// Provenance maps a field or source name to where its value comes from.
	Provenance      map[string]string
	Limitations     []string
	Reproducibility []string
}

// AuditRow is one state's figures in an audit pack.
type AuditRow struct {
	State      string
	Count      int64
	Population int64
	Per100k    float64
}

// AuditSource reads the audit pack of a dataset slug. It returns an error wrapping
// ErrNoAuditPack for a slug that has no pack.
type AuditSource func(ctx context.Context, slug string) (*AuditPack, error)

// ErrNoAuditPack is an AuditSource's answer for a slug without an audit pack.
var ErrNoAuditPack = errors.New("web: no audit pack")

// auditData is the audit page's content: the pack and the links to its downloads.
type auditData struct {
	*AuditPack
	JSONURL, PDFURL string
}

// auditPage serves GET /audit/{slug}: the web view of an audit pack, linking the pack's JSON
// and PDF on the service host. Without an audit source every slug is 404.
func (s *Site) auditPage(w http.ResponseWriter, r *http.Request) {
	if s.audit == nil {
		s.notFound(w, r)
		return
	}
	slug := mux.Vars(r)["slug"]
	pack, err := s.audit(r.Context(), slug)
	if errors.Is(err, ErrNoAuditPack) || (err == nil && pack == nil) {
		s.notFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, r, "audit page: read the audit pack", err)
		return
	}
	s.render(w, r, http.StatusOK, tmplAudit, layoutData{Title: "Audit pack: " + pack.Title, Scripts: []string{"sort.js"}, Page: auditData{
		AuditPack: pack,
		JSONURL:   s.baseURL + "/api/audit-pack/" + pack.Slug + "/json",
		PDFURL:    s.baseURL + "/api/audit-pack/" + pack.Slug + "/pdf",
	}})
}
