// Package buildinfo holds facts about the running build, set at link time with
//
//	go build -ldflags "-X providerdir/buildinfo.Commit=$(git rev-parse --short=7 HEAD)"
//
// The commit becomes every record's _pipeline_version, so a value can be traced to the code that
// produced it. A build without the flag reports "unknown" rather than guessing.
package buildinfo

// Commit is the 7-character git SHA the binary was built from, or "unknown".
var Commit = "unknown"

// PipelineVersion returns the commit as provenance wants it: exactly 7 characters when known.
func PipelineVersion() string {
	if len(Commit) > 7 {
		return Commit[:7]
	}
	return Commit
}
