package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings []debug.BuildSetting
		want     vcs
	}{
		{"no version control", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, vcs{revision: Unknown}},
		{"clean checkout", []debug.BuildSetting{{Key: "vcs.revision", Value: "82ab645e1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.modified", Value: "false"}},
			vcs{revision: "82ab645"}},
		{"modified checkout", []debug.BuildSetting{{Key: "vcs.revision", Value: "82ab645e1b2c3d4e5f60718293a4b5c6d7e8f901"}, {Key: "vcs.modified", Value: "true"}},
			vcs{revision: "82ab645", modified: true}},
		{"empty revision", []debug.BuildSetting{{Key: "vcs.revision", Value: ""}}, vcs{revision: Unknown}},
	}
	for _, tt := range tests {
		if got := fromSettings(tt.settings); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestLinkTimeCommitWins(t *testing.T) {
	defer func(c string) { Commit = c }(Commit)
	Commit = "0123456789abcdef"
	if got := PipelineVersion(); got != "0123456" {
		t.Fatalf("PipelineVersion() = %q", got)
	}
	if Modified() {
		t.Fatal("a link-time commit is taken as given")
	}
}
