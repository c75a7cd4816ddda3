package main

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"providerdir/ingest"
	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/source"
	"providerdir/source/synth"
)

func init() {
	register(&command{
		name:    "ingest",
		args:    "[--store STORE] [--reference DIR] [--dry-run] [--rejects FILE] [--force] [--snapshot-date YYYY-MM-DD] [--verbose] DIR",
		summary: "load a drop of source files into a new snapshot and switch to it when whole",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			storeSpec := config.StoreFlag(fs, e.getenv)
			reference := referenceFlag(fs, e.getenv)
			dryRun := fs.Bool("dry-run", false, "read and validate every file, write nothing")
			rejects := fs.String("rejects", "", "write every rejected row to FILE as CSV: file, line, column, reason, value")
			force := fs.Bool("force", false, "reload families whose files are identical to the serving ones")
			snapshot := fs.String("snapshot-date", "", "snapshot date to record, overriding the dates in the file names")
			verbose := fs.Bool("verbose", false, "warn of every file's rejected rows, also of a synthetic drop's deliberately malformed ones")
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef("takes exactly one directory, got %d arguments", len(args))
				}
				spec, err := storeSpec()
				if err != nil {
					return usageError{err}
				}
				ref, err := reference()
				if err != nil {
					return usageError{err}
				}
				config.ApplyMemoryLimit(e.getenv, ingest.MemoryLimit)
				if e.getenv("GOGC") == "" {
					debug.SetGCPercent(ingest.GCPercent)
				}
				s, err := storeopen.Open(ctx, spec, storeopen.CacheSize(ingest.StoreCacheSize))
				if err != nil {
					return fmt.Errorf("open store %s: %w", spec, err)
				}
				defer s.Close()
				var report *rejectsFile
				var onReject func(source.RowError)
				if *rejects != "" {
					if report, err = createRejects(*rejects); err != nil {
						return err
					}
					defer report.close()
					onReject = report.row
				}
				log := newLineLogger(e.stderr, "ingest", slog.LevelWarn)
				var held *heldRejects
				if m, err := synth.ReadManifest(args[0]); err == nil && !*verbose {
					held = holdRejects(log, m)
					log = slog.New(held)
				}
				res, err := ingest.Run(ctx, ingest.Options{
					Store:        s,
					Dir:          args[0],
					Reference:    ref,
					DryRun:       *dryRun,
					Force:        *force,
					SnapshotDate: *snapshot,
					Rejects:      onReject,
					Progress:     ingest.NewProgress(e.stderr, isTerminal(e.stderr), 5*time.Second),
					Log:          log,
				})
				if errors.Is(err, context.Canceled) {
					return errors.New("interrupted: nothing was switched, the serving snapshot is unchanged")
				}
				if held != nil {
					held.report(ctx, e.stderr, res)
				}
				if err != nil {
					return err
				}
				if err := report.close(); err != nil {
					return err
				}
				printIngest(e.stdout, res, *dryRun)
				if report != nil {
					fmt.Fprintf(e.stdout, "%d rejected rows listed in %s\n", report.rows, *rejects)
				}
				return nil
			}
		},
	})
}

// rejectsFile is the CSV report of --rejects: a header, then one line per rejected row, as the
// readers meet them (files read concurrently interleave).
type rejectsFile struct {
	mu     sync.Mutex
	f      *os.File
	w      *csv.Writer
	rows   int64
	closed bool
	err    error
}

// rejectsHeader is the report's header row.
var rejectsHeader = []string{"file", "line", "column", "reason", "value"}

func createRejects(path string) (*rejectsFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--rejects: %w", err)
	}
	r := &rejectsFile{f: f, w: csv.NewWriter(f)}
	r.err = r.w.Write(rejectsHeader)
	return r, nil
}

// row writes one rejected row; the readers of several files call it at once.
func (r *rejectsFile) row(e source.RowError) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || r.closed {
		return
	}
	r.err = r.w.Write([]string{e.File, strconv.Itoa(e.Line), e.Column, e.Reason, e.Value})
	r.rows++
}

// close flushes and closes the report once, returning the first error of writing it; a nil
// report (no --rejects) has nothing to close.
func (r *rejectsFile) close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.err
	}
	r.closed = true
	r.w.Flush()
	r.err = cmp.Or(r.err, r.w.Error(), r.f.Close())
	if r.err != nil {
		return fmt.Errorf("--rejects: %w", r.err)
	}
	return nil
}

// rowsRejected is the message of the ingest's warning about one file's rejected rows.
const rowsRejected = "rows rejected"

// heldRejects holds back the rejected-rows warnings of a synthetic drop, whose manifest lists
// the rows it malformed on purpose: when exactly those were rejected, one line says so instead of
// a warning per file, which would read as a failure; when others were, the warnings are let
// through after all. Every other record goes through as it comes.
type heldRejects struct {
	slog.Handler
	manifest *synth.Manifest
	mu       sync.Mutex
	held     []slog.Record
}

func holdRejects(log *slog.Logger, m *synth.Manifest) *heldRejects {
	return &heldRejects{Handler: log.Handler(), manifest: m}
}

func (h *heldRejects) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != rowsRejected {
		return h.Handler.Handle(ctx, r)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = append(h.held, r.Clone())
	return nil
}

// report says what became of the drop's deliberately malformed rows, once: skipped and counted
// when every file loaded rejected exactly its malformed rows; otherwise the held warnings and
// how the counts differ.
func (h *heldRejects) report(ctx context.Context, w io.Writer, res ingest.Result) {
	var want, got int64
	match := true
	for _, f := range res.Families {
		if f.Unchanged {
			continue
		}
		for _, file := range f.Manifest.Files {
			bad := int64(len(h.manifest.BadRowsOf(file.Name)))
			want, got = want+bad, got+file.Rejected
			match = match && bad == file.Rejected
		}
	}
	switch {
	case want == 0 && got == 0:
	case match:
		fmt.Fprintf(w, "ingest: this synthetic drop carries %d deliberately malformed rows (listed in its %s); all were rejected, skipped and counted (the REJECTED column; --verbose warns of each file's)\n", want, synth.ManifestName)
	default:
		for _, r := range h.held {
			_ = h.Handler.Handle(ctx, r)
		}
		fmt.Fprintf(w, "ingest: warning: this synthetic drop's %s lists %d deliberately malformed rows in the files loaded; %d rows were rejected\n", synth.ManifestName, want, got)
	}
}

// printIngest writes one line per family: what was read, rejected and changed.
func printIngest(w io.Writer, res ingest.Result, dryRun bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tSNAPSHOT\tROWS\tREJECTED\tADDED\tCHANGED\tREMOVED\tSTATE")
	for _, f := range res.Families {
		var added, changed, removed int64
		for _, c := range f.Changes {
			added, changed, removed = added+c.Added, changed+c.Changed, removed+c.Removed
		}
		state := "loaded"
		switch {
		case f.Unchanged:
			state = "unchanged"
		case dryRun:
			state = "validated"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\n", f.Manifest.Family, f.Manifest.Snapshot,
			f.Manifest.Rows, f.Manifest.Rejected, added, changed, removed, state)
	}
	tw.Flush()
	switch {
	case dryRun:
		fmt.Fprintf(w, "dry run: %d rows read, %d rejected, nothing written\n", res.Rows, res.Rejected)
	case res.Switched:
		fmt.Fprintf(w, "serving generation %s (%d rows, %d rejected, %s)\n", res.Generation, res.Rows, res.Rejected, res.Elapsed.Round(time.Millisecond))
	default:
		fmt.Fprintln(w, "nothing changed; the serving snapshot is as it was")
		return
	}
	printPhases(w, res)
}

// printPhases writes where the ingest's time went: each step, its seconds, its share of the
// whole, the CPU seconds it took and how many cores that kept busy, so an operator sees which
// family, projection or commit dominates a run and which of them more cores would shorten.
func printPhases(w io.Writer, res ingest.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tSECONDS\tSHARE\tCPU\tCORES")
	for _, p := range res.Phases {
		share := 0.0
		if res.Elapsed > 0 {
			share = 100 * p.Elapsed.Seconds() / res.Elapsed.Seconds()
		}
		cpu, cores := "-", "-"
		if p.CPU > 0 {
			cpu = fmt.Sprintf("%.1f", p.CPU.Seconds())
		}
		if c, ok := p.Cores(); ok {
			cores = fmt.Sprintf("%.2f", c)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f%%\t%s\t%s\n", p.Step, p.Elapsed.Seconds(), share, cpu, cores)
	}
	tw.Flush()
}

// isTerminal reports whether w is a character device, where a self-rewriting progress line reads
// well; logs and pipes get plain periodic lines instead.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
