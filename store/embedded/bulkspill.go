package embedded

import (
	"fmt"
	"path/filepath"
)

type spillResult struct {
	buf *loadBuffer
	err error
}

// spill hands the full buffer to a goroutine that writes it as one sorted run, after the
// previous spill has finished, and continues with the emptied buffer that spill returns.
func (l *loading) spill() error {
	if err := l.waitSpill(); err != nil {
		return err
	}
	full, n := l.buf, l.runs
	l.buf, l.spare = l.spare, nil
	l.runs++
	var params []string
	for p, pi := range full.entries {
		if len(pi.items) > 0 {
			params = append(params, p)
			l.paramRuns[p] = append(l.paramRuns[p], n)
		}
	}
	paths := make([]string, len(params))
	for i, p := range params {
		paths[i] = l.entryRunPath(n, p)
	}
	l.spilled = make(chan spillResult, 1)
	go func() {
		full.sortAll()
		if n == 0 {
			l.splits = full.splitPoints(full.docs, docPartitions())
		}
		var err error
		for j, part := range full.partition(full.docs, l.splits) {
			if err == nil {
				err = writeRun(l.runPath(n, fmt.Sprintf("d%d", j)), full, part, docRun)
			}
		}
		for i, p := range params {
			if err == nil {
				err = writeRun(paths[i], full, full.entries[p].items, entryRun)
			}
		}
		full.reset()
		l.spilled <- spillResult{full, err}
	}()
	return nil
}

// waitSpill waits for the spill in flight, if any, and takes its buffer back as the spare.
func (l *loading) waitSpill() error {
	if l.spilled == nil {
		return nil
	}
	r := <-l.spilled
	l.spilled, l.spare = nil, r.buf
	return r.err
}

func (l *loading) runPath(n int, ext string) string {
	return filepath.Join(l.dir, fmt.Sprintf("%06d.%s", n, ext))
}

// paramName names a param in file names ("e" and its number). It is called only by the
// goroutine that owns the load (params is not shared with spills).
func (l *loading) paramName(param string) string {
	id, ok := l.params[param]
	if !ok {
		id = len(l.params)
		l.params[param] = id
	}
	return fmt.Sprintf("e%d", id)
}

// entryRunPath names run n's file of a param's entries.
func (l *loading) entryRunPath(n int, param string) string {
	return l.runPath(n, l.paramName(param))
}
