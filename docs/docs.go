// Package docs holds the published documents the service serves and reads: the limitations page
// and the methodology of each study, which every supply API response links to. They are
// embedded, so the binary serves the pages the repository carries, and a study's methodology
// version is read from its document, so the prose and the answers cannot disagree.
package docs

import "embed"

// Files holds limitations.md and methodology/*.md, by those paths.
//
//go:embed limitations.md methodology/*.md
var Files embed.FS

// Paths of the documents in Files.
const (
	Limitations    = "limitations.md"
	MethodologyDir = "methodology"
)

// Methodology is the path in Files of the methodology document of a study, by its name.
func Methodology(name string) string { return MethodologyDir + "/" + name + ".md" }
