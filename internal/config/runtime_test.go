package config

import (
	"runtime/debug"
	"testing"
)

func TestApplyMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })
	const limit = 1536 << 20
	tests := []struct {
		name  string
		env   func(string) string
		start int64 // the limit in force before the call, as GOMEMLIMIT would have set it
		want  int64
	}{
		{"no GOMEMLIMIT: the limit applies", env(), 4 << 30, limit},
		{"GOMEMLIMIT set: the operator's limit stays", env("GOMEMLIMIT", "3GiB"), 3 << 30, 3 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetMemoryLimit(tt.start)
			if got := ApplyMemoryLimit(tt.env, limit); got != tt.want {
				t.Fatalf("ApplyMemoryLimit = %d, want %d", got, tt.want)
			}
			if got := debug.SetMemoryLimit(-1); got != tt.want {
				t.Fatalf("limit in force %d, want %d", got, tt.want)
			}
		})
	}
}
