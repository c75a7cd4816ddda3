// Package providerdir holds the project's published documents, embedded so that the service
// serves the same pages the repository carries (the limitations and methodology pages every
// supply API response links to).
package providerdir

import "embed"

// Docs holds docs/limitations.md and docs/methodology/*.md.
//
//go:embed docs/limitations.md docs/methodology/*.md
var Docs embed.FS
