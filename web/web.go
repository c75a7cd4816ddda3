// Package web owns the human-facing pages of the service: the documents the JSON APIs link to
// from every response (limitations_url, methodology_url), served from the copies embedded in
// the binary, so a link in a response never dangles.
package web

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/gorilla/mux"

	"providerdir/docs"
	"providerdir/rest"
)

// Routes registers the document pages on the web surface's router.
func Routes(r *mux.Router) {
	r.HandleFunc(rest.PathLimitationsPage, page(docs.Limitations)).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(rest.PathMethodologyPage, methodologyIndex).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(rest.PathMethodologyPage+"/{name}", func(w http.ResponseWriter, req *http.Request) {
		name := mux.Vars(req)["name"]
		if strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
			http.NotFound(w, req)
			return
		}
		page(docs.Methodology(strings.TrimSuffix(name, ".md")))(w, req)
	}).Methods(http.MethodGet, http.MethodHead)
}

// page serves one embedded markdown document as plain text, which every browser and terminal
// shows as written.
func page(file string) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		b, err := fs.ReadFile(docs.Files, file)
		if err != nil {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		_, _ = w.Write(b)
	}
}

// methodologyIndex lists the methodology documents and links each one.
func methodologyIndex(w http.ResponseWriter, req *http.Request) {
	entries, err := fs.ReadDir(docs.Files, docs.MethodologyDir)
	if err != nil {
		http.Error(w, "no methodology documents", http.StatusInternalServerError)
		return
	}
	var b strings.Builder
	b.WriteString("# Methodology\n\nEach study's methodology, as served per dataset at /v1/methodology/{dataset}:\n\n")
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), path.Ext(e.Name()))
		b.WriteString("- " + rest.PathMethodologyPage + "/" + name + "\n")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}
