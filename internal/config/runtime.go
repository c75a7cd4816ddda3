package config

import "runtime/debug"

// ApplyMemoryLimit sets the Go runtime's soft memory limit to limit unless the operator set
// GOMEMLIMIT, which the runtime has then applied at start and which wins. It returns the limit in
// force. Both commands that run bulk loads call it with the same limit (ingest.MemoryLimit):
// providerctl ingest, and providerd, which runs the loads an operator's ingest sends through its
// store socket.
func ApplyMemoryLimit(getenv func(string) string, limit int64) int64 {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
	return debug.SetMemoryLimit(-1)
}
