package web

import "net/http"

// Paths on the service host the pages' scripts post to.
const (
	PathAccessRequests = "/api/access-requests"
	PathEvidenceDemo   = "/api/evidence-query/demo"
)

// accessData carries the intake form's bounds into the form's attributes, so that the browser's
// and the script's checks match the server's (a test posts the bounds to the server).
type accessData struct {
	Action                         string
	MaxName, MaxEmail, MaxOrg      int
	MinIntendedUse, MaxIntendedUse int
}

// accessPage serves GET /access: the pilot access request form. Its script posts the form as
// JSON to the service host and shows the server's field messages or its confirmation.
func (s *Site) accessPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, tmplAccess, layoutData{Title: "Request pilot access", Scripts: []string{"access.js"}, Page: accessData{
		Action: PathAccessRequests, MaxName: 200, MaxEmail: 254, MaxOrg: 200, MinIntendedUse: 10, MaxIntendedUse: 2000,
	}})
}

// evidenceData carries the evidence query's bounds (docs/contracts/supply-api.md §4) into the form.
type evidenceData struct {
	Endpoint           string
	MaxQuery           int
	MinItems, MaxItems int
	DefaultItems       int
}

// evidencePage serves GET /evidence: a question box whose script asks the demo evidence
// endpoint and shows the answer with its evidence trail, or the refusal in plain words.
func (s *Site) evidencePage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, tmplEvidence, layoutData{Title: "Ask the evidence demo", Scripts: []string{"evidence.js"}, Page: evidenceData{
		Endpoint: PathEvidenceDemo, MaxQuery: 1500, MinItems: 1, MaxItems: 20, DefaultItems: 10,
	}})
}
