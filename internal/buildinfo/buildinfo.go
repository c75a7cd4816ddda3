// Package buildinfo holds facts about the running build: the git commit it was built from, which
// becomes every record's _pipeline_version, so a value can be traced to the code that produced
// it. make sets it at link time with
//
//	go build -ldflags "-X providerdir/buildinfo.Commit=$(git rev-parse --short=7 HEAD)"
//
// and any other build of a checkout (go build, go install, go run, go test) is identified by
// the version-control facts the Go toolchain stamps into the binary. A build with neither
// reports "unknown" rather than guessing.
package buildinfo

import (
	"runtime/debug"
	"sync"
)

// Commit is the git SHA set at link time; empty when the build did not set it.
var Commit string

// Unknown is the version of a build that knows no commit.
const Unknown = "unknown"

// PipelineVersion returns the commit as provenance wants it: the 7-character SHA, or Unknown.
func PipelineVersion() string {
	if Commit != "" {
		return short(Commit)
	}
	return stamped().revision
}

// Modified reports whether the toolchain stamped the build as made from a checkout with
// uncommitted changes, whose records then name a commit that is not all of their code. Servers
// say so when they start. A link-time Commit is taken as given.
func Modified() bool { return Commit == "" && stamped().modified }

type vcs struct {
	revision string
	modified bool
}

var stamped = sync.OnceValue(func() vcs {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return vcs{revision: Unknown}
	}
	return fromSettings(info.Settings)
})

// fromSettings reads vcs.revision and vcs.modified from the toolchain's build settings.
func fromSettings(settings []debug.BuildSetting) vcs {
	v := vcs{revision: Unknown}
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				v.revision = short(s.Value)
			}
		case "vcs.modified":
			v.modified = s.Value == "true"
		}
	}
	return v
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
