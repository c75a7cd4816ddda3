//go:build !unix

package ingest

import "time"

// processCPU reports no CPU time where the platform has no getrusage: the phases then carry
// their wall time alone.
func processCPU() (time.Duration, bool) { return 0, false }
