package ingest

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress receives the state of a running ingest. Implementations must be safe for concurrent
// use and cheap: the ingest calls Update every few thousand rows.
type Progress interface {
	// Update reports the file being read and totals so far: rows read, bytes read of bytesTotal
	// (the size of every file of the drop, so an ETA can be derived), rows rejected.
	Update(file string, rows, rejected, bytesDone, bytesTotal int64)
	// Phase reports a step after the files are read (a projection, the commit of bulk loads),
	// which can take minutes at national scale.
	Phase(step string)
	// PhaseUpdate reports how far step, a phase reported before, has come: done of total units
	// (total 0 when unknown). A long phase calls it every few hundred units; a commit may have
	// interrupted the step since its Phase report, so the step is named again.
	PhaseUpdate(step string, done, total int64, unit string)
	// Done reports the end of the ingest.
	Done(rows, rejected int64, elapsed time.Duration)
}

// NewProgress returns a Progress writing to w: a single self-rewriting status line with rows/s and
// an ETA when w is a terminal, else a plain line every interval (so CI logs stay readable). The
// first line comes one interval after the start: an ingest shorter than that prints only its
// phases and its total, not a line of zeros.
func NewProgress(w io.Writer, terminal bool, interval time.Duration) Progress {
	return newLineProgress(w, terminal, interval, time.Now)
}

func newLineProgress(w io.Writer, terminal bool, interval time.Duration, now func() time.Time) *lineProgress {
	t := now()
	return &lineProgress{w: w, terminal: terminal, interval: interval, now: now, start: t, last: t, began: map[string]time.Time{}}
}

type lineProgress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	interval time.Duration
	now      func() time.Time
	start    time.Time
	last     time.Time
	began    map[string]time.Time // when each phase was first reported
}

func (p *lineProgress) Update(file string, rows, rejected, bytesDone, bytesTotal int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if !p.due(now) {
		return
	}
	elapsed := now.Sub(p.start)
	p.status(fmt.Sprintf("ingest: %s  %d rows  %d rejected  %s rows/s  %s  ETA %s",
		file, rows, rejected, rate(rows, elapsed), percent(bytesDone, bytesTotal), eta(bytesDone, bytesTotal, elapsed)))
}

// PhaseUpdate prints the step's progress as Update does the files': its units done, of how
// many, at what rate since the step began, and the ETA.
func (p *lineProgress) PhaseUpdate(step string, done, total int64, unit string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	began, ok := p.began[step]
	if !ok {
		began = now
		p.began[step] = now
	}
	// As the ingest's first line, a phase's first comes one interval after it began, when its
	// rate says something.
	elapsed := now.Sub(began)
	if elapsed < p.every() || !p.due(now) {
		return
	}
	of := ""
	if total > 0 {
		of = fmt.Sprintf(" of %d", total)
	}
	p.status(fmt.Sprintf("ingest: %s  %d%s %s  %s %s/s  %s  ETA %s",
		step, done, of, unit, rate(done, elapsed), unit, percent(done, total), eta(done, total, elapsed)))
}

// due reports whether a status line is due at now, and if so counts it as printed. The caller
// holds mu.
func (p *lineProgress) due(now time.Time) bool {
	if now.Sub(p.last) < p.every() {
		return false
	}
	p.last = now
	return true
}

// every is the least time between status lines.
func (p *lineProgress) every() time.Duration {
	if p.terminal {
		return min(p.interval, 200*time.Millisecond) // a rewritten line may change often
	}
	return p.interval
}

// status prints a status line: in place on a terminal, else as a line of its own. The caller
// holds mu.
func (p *lineProgress) status(line string) {
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

func (p *lineProgress) Phase(step string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if _, ok := p.began[step]; !ok {
		p.began[step] = now
	}
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "ingest: %s (at %s)\n", step, now.Sub(p.start).Round(time.Second))
}

func (p *lineProgress) Done(rows, rejected int64, elapsed time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "ingest: %d rows, %d rejected in %s (%s rows/s)\n",
		rows, rejected, elapsed.Round(time.Millisecond), rate(rows, elapsed))
}

func rate(rows int64, elapsed time.Duration) string {
	if elapsed <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(rows)/elapsed.Seconds())
}

func percent(done, total int64) string {
	if total <= 0 {
		return "-%"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(done)/float64(total))
}

// eta extrapolates from the share done: of a drop's bytes, since rows vary in width far less
// than in count per file and the byte total is known before reading starts; of a phase's units.
func eta(done, total int64, elapsed time.Duration) string {
	if done <= 0 || total <= 0 || done > total {
		return "-"
	}
	left := time.Duration(float64(elapsed) * float64(total-done) / float64(done))
	return left.Round(time.Second).String()
}

// discardProgress is the Progress of an ingest nobody watches.
type discardProgress struct{}

func (discardProgress) Update(string, int64, int64, int64, int64) {}

func (discardProgress) Phase(string)                             {}
func (discardProgress) PhaseUpdate(string, int64, int64, string) {}
func (discardProgress) Done(int64, int64, time.Duration)         {}

// PhaseTime is one step of an ingest and how long it took: from its Phase report to the next
// report, or to the end of the ingest.
type PhaseTime struct {
	Step    string
	Elapsed time.Duration
	// CPU is the processor time the whole process used meanwhile, on every core: over Elapsed,
	// how many cores the step kept busy, so a step that runs on one core alone stands out from
	// one that waits on nothing but processors. Zero where the platform does not report it.
	CPU time.Duration
}

// coresMinElapsed is the shortest step whose cores busy are reported: the kernel brings the
// CPU time of the process's other threads up to date at its clock ticks, so over a few
// milliseconds the ratio can read more cores than the machine has.
const coresMinElapsed = time.Second

// Cores is how many cores the step kept busy on average; ok is false when its CPU time is
// unknown or the step was too short to tell.
func (p PhaseTime) Cores() (cores float64, ok bool) {
	if p.CPU <= 0 || p.Elapsed < coresMinElapsed {
		return 0, false
	}
	return p.CPU.Seconds() / p.Elapsed.Seconds(), true
}

// clockReading is the time and the process's CPU time at one moment.
type clockReading struct {
	at  time.Time
	cpu time.Duration
}

// readClock reads the wall clock and the process's CPU time.
func readClock() clockReading {
	cpu, _ := processCPU()
	return clockReading{at: time.Now(), cpu: cpu}
}

// phaseClock passes every report on to a Progress and notes when each phase began, and the CPU
// time used by then, so that the Result can say where an ingest's time went without the caller
// timing its log lines.
type phaseClock struct {
	Progress
	read func() clockReading

	mu     sync.Mutex
	steps  []string
	starts []clockReading
}

func newPhaseClock(p Progress, read func() clockReading, first string) *phaseClock {
	return &phaseClock{Progress: p, read: read, steps: []string{first}, starts: []clockReading{read()}}
}

func (c *phaseClock) Phase(step string) {
	c.mark(step)
	c.Progress.Phase(step)
}

func (c *phaseClock) mark(step string) {
	c.mu.Lock()
	c.steps, c.starts = append(c.steps, step), append(c.starts, c.read())
	c.mu.Unlock()
}

// interrupt reports a step taken in the middle of another (a commit of bulk loads that a
// projection waits for) and returns the function that ends it: from then on the time counts
// to the interrupted step again.
func (c *phaseClock) interrupt(step string) (end func()) {
	c.mu.Lock()
	resumed := c.steps[len(c.steps)-1]
	c.mu.Unlock()
	c.Phase(step)
	return func() { c.mark(resumed) }
}

// phases returns each step's time and CPU time, summed over its spells, in the order the steps
// began; the last spell ends at end.
func (c *phaseClock) phases(end clockReading) []PhaseTime {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []PhaseTime
	at := map[string]int{}
	for i, step := range c.steps {
		until := end
		if i+1 < len(c.starts) {
			until = c.starts[i+1]
		}
		j, seen := at[step]
		if !seen {
			j, at[step] = len(out), len(out)
			out = append(out, PhaseTime{Step: step})
		}
		out[j].Elapsed += until.at.Sub(c.starts[i].at)
		out[j].CPU += until.cpu - c.starts[i].cpu
	}
	return out
}

// interruptions returns how the batch writer reports a commit: as an interruption of the
// current phase when p times phases, else as a plain phase report.
func interruptions(p Progress) func(step string) (end func()) {
	if c, ok := p.(*phaseClock); ok {
		return c.interrupt
	}
	return func(step string) func() {
		p.Phase(step)
		return func() {}
	}
}
