package fhir_test

import (
	"net/http"
	"strings"
	"testing"

	"providerdir/internal/requestid"
)

// TestBulkExportBelongsToItsClient: an export is its kick-off client's. Another client, with
// a token of the same scopes, gets for its status, files and cancel the answer of an unknown
// job, and its DELETE leaves the export whole; the SMART layer is the real one, each client
// registered with its own key and signing its own assertion.
func TestBulkExportBelongsToItsClient(t *testing.T) {
	e := newSMARTEnv(t, false)
	owner := e.token(t, "system/*.rs")
	other := e.token(t, "system/*.rs")
	const reqID = "bulk-owner-test"
	as := func(token string) []string { return []string{"Authorization", token, requestid.Header, reqID} }

	kick := get(t, e.url+"/fhir/$export?_type=Practitioner&_elements=name",
		append(as(owner), "Accept", "application/fhir+json", "Prefer", "respond-async, handling=lenient")...)
	status := kick.header.Get("Content-Location")
	if kick.status != http.StatusAccepted || status == "" {
		t.Fatalf("kick-off: %d %s", kick.status, kick.body)
	}
	m := exportManifest(t, status, as(owner)...)
	if len(m.Output) != 1 || len(m.Error) != 1 {
		t.Fatalf("manifest %+v, want a Practitioner file and an error file", m)
	}
	job := status[strings.LastIndex(status, "/")+1:]
	const unknown = "0123456789abcdef0123456789abcdef"

	tests := []struct {
		name, method, url string
	}{
		{"status", http.MethodGet, status},
		{"type file", http.MethodGet, m.Output[0].URL},
		{"error file", http.MethodGet, m.Error[0].URL},
		{"cancel", http.MethodDelete, status},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, tt.method, tt.url, nil, as(other)...)
			none := do(t, tt.method, strings.Replace(tt.url, job, unknown, 1), nil, as(other)...)
			if got.status != http.StatusNotFound || none.status != http.StatusNotFound {
				t.Fatalf("another client's %s: %d, an unknown job's %d; want 404 for both: %.200s", tt.name, got.status, none.status, got.body)
			}
			g, n := decodeOutcome(t, got).Issue[0], decodeOutcome(t, none).Issue[0]
			if g.Code != n.Code || strings.ReplaceAll(g.Diagnostics, job, unknown) != n.Diagnostics {
				t.Errorf("another client's %s: %+v; an unknown job's: %+v", tt.name, g, n)
			}
		})
	}

	// The other client's DELETE cancelled nothing: the owner still reads the manifest and its
	// files, and cancels the export itself.
	exportManifest(t, status, as(owner)...)
	if lines := exportFile(t, m.Output[0].URL, as(owner)...); len(lines) != m.Output[0].Count {
		t.Errorf("the owner's file has %d lines, the manifest counts %d", len(lines), m.Output[0].Count)
	}
	exportFile(t, m.Error[0].URL, as(owner)...)
	if r := do(t, http.MethodDelete, status, nil, as(owner)...); r.status != http.StatusAccepted {
		t.Errorf("the owner's DELETE: %d %.200s", r.status, r.body)
	}
	if r := get(t, status, as(owner)...); r.status != http.StatusNotFound {
		t.Errorf("status after the owner's DELETE: %d", r.status)
	}
}
