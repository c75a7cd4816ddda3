package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"providerdir/match/queryset"
	"providerdir/source/synth"
)

func init() {
	register(&command{
		name:    "generate",
		args:    "--out DIR [--providers N] [--seed S] [--reference DIR] [--snapshot YYYY-MM-DD] [--evolve-from DIR] | --weekly-from DIR --out DIR [--changes N] [--merged DIR]",
		summary: "write a synthetic source drop in the real federal file formats, or the next snapshot of one",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			providers := fs.Int64("providers", 2000, "NPPES records of the drop (2000 for the demo, about 9000000 for national scale)")
			seed := fs.Uint64("seed", 1, "seed; the same seed and flags give byte-identical files")
			out := fs.String("out", "", "directory to write the drop to (created if missing)")
			reference := referenceFlag(fs, e.getenv)
			snapshot := fs.String("snapshot", "", "snapshot date of a base drop (default 2025-06-08)")
			evolveFrom := fs.String("evolve-from", "", "earlier drop to write the next snapshot of; seed and scale come from its manifest")
			weeklyFrom := fs.String("weekly-from", "", "drop to write the NPPES weekly update files of (the week after its snapshot); seed from its manifest")
			changes := fs.Int("changes", 1000, "with --weekly-from: the number of changed NPPES records")
			merged := fs.String("merged", "", "with --weekly-from: also write the drop with the week applied (monthly files) to this directory")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				if *out == "" {
					return usagef("--out is required")
				}
				set := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
				if *weeklyFrom != "" {
					return generateWeekly(ctx, e, set, synth.WeeklyConfig{From: *weeklyFrom, Out: *out, Changes: *changes, Merged: *merged})
				}
				if set["changes"] || set["merged"] {
					return usagef("--changes and --merged go with --weekly-from")
				}
				ref, err := reference()
				if err != nil {
					return usageError{err}
				}
				cfg := synth.Config{Providers: *providers, Seed: *seed, Out: *out, Reference: ref, EvolveFrom: *evolveFrom}
				if *snapshot != "" {
					t, err := time.Parse(time.DateOnly, *snapshot)
					if err != nil {
						return usagef("--snapshot %q is not a YYYY-MM-DD date", *snapshot)
					}
					cfg.Snapshot = t
				}
				if cfg.EvolveFrom != "" {
					// The earlier drop fixes seed, scale and dates; flags that would contradict it
					// are refused rather than silently ignored.
					if set["seed"] || set["snapshot"] {
						return usagef("--seed and --snapshot come from the earlier drop's manifest with --evolve-from")
					}
					if !set["providers"] {
						cfg.Providers = 0
					}
				} else if *providers < 1 {
					return usagef("--providers must be positive")
				}
				progress := newGenerateProgress(e.stderr, isTerminal(e.stderr), 5*time.Second)
				cfg.Progress = progress.update
				start := time.Now()
				m, err := synth.Generate(ctx, cfg)
				progress.clear()
				if errors.Is(err, context.Canceled) {
					return errors.New("interrupted: no file of the drop was written")
				}
				if err != nil {
					return err
				}
				printGenerate(e.stdout, *out, m, time.Since(start))
				n, err := writeQueries(*out, defaultQueries, defaultQuerySeed)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "wrote %d labelled search queries to %s\n", n, filepath.Join(*out, queryset.FileName))
				return nil
			}
		},
	})
}

// generateProgress writes the generator's progress to stderr: a self-rewriting line on a
// terminal, a plain line every interval otherwise, and one line as each phase finishes.
type generateProgress struct {
	w        io.Writer
	terminal bool
	interval time.Duration
	last     time.Time
	shown    bool
}

func newGenerateProgress(w io.Writer, terminal bool, interval time.Duration) *generateProgress {
	return &generateProgress{w: w, terminal: terminal, interval: interval}
}

func (p *generateProgress) update(pr synth.Progress) {
	every := p.interval
	if p.terminal {
		every = 200 * time.Millisecond
	}
	if !pr.Finished && time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	pct := 100.0
	if pr.Total > 0 {
		pct = 100 * float64(pr.Done) / float64(pr.Total)
	}
	line := fmt.Sprintf("generate: %s %d/%d (%.1f%%)  %d rows  %.0f rows/s", pr.Phase, pr.Done, pr.Total, pct, pr.Rows, pr.RowsPerSecond)
	switch {
	case p.terminal && !pr.Finished:
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.shown = true
	default:
		p.clear()
		fmt.Fprintln(p.w, line)
	}
}

// clear removes a self-rewriting line before other output.
func (p *generateProgress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// printGenerate lists the drop's files and what a reader should find in them.
func printGenerate(w io.Writer, dir string, m *synth.Manifest, elapsed time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tFILE\tROWS\tBAD\tBYTES")
	var rows, bytes int64
	for _, f := range m.Files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", f.Family, f.Name, f.Rows, f.BadRows, f.Bytes)
		rows, bytes = rows+f.Rows, bytes+f.Bytes
	}
	tw.Flush()
	kind := "base drop"
	if m.Generation > 0 {
		c := m.Changes
		kind = fmt.Sprintf("generation %d after %s: %d moved, %d taxonomies added, %d newly excluded, %d deactivated, %d new providers, %d ratings changed, %d facilities terminated",
			m.Generation, m.PreviousSnapshot, len(c.Moved), len(c.TaxonomyAdded), len(c.NewlyExcluded), len(c.Deactivated),
			len(c.NewProviders), len(c.FacilityRating), len(c.FacilityTerminated))
	}
	fmt.Fprintf(w, "wrote %d files (%d rows, %d bytes) to %s in %s: seed %d, %d providers, snapshot %s, %s\n",
		len(m.Files), rows, bytes, dir, elapsed.Round(time.Millisecond), m.Seed, m.Providers, m.Snapshot, kind)
}

// generateWeekly writes the NPPES weekly update files of a drop.
func generateWeekly(ctx context.Context, e *env, set map[string]bool, cfg synth.WeeklyConfig) error {
	for _, f := range []string{"providers", "seed", "snapshot", "evolve-from"} {
		if set[f] {
			return usagef("--%s does not go with --weekly-from: the drop's manifest fixes seed and dates", f)
		}
	}
	if cfg.Changes < 1 {
		return usagef("--changes must be positive")
	}
	res, err := synth.GenerateWeekly(ctx, cfg)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tFILE\tROWS\tBYTES")
	for _, f := range res.Files {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", f.Family, f.Name, f.Rows, f.Bytes)
	}
	tw.Flush()
	kinds := []string{synth.WeeklyMoved, synth.WeeklyTaxonomy, synth.WeeklyRenamed, synth.WeeklyDeactivated, synth.WeeklyNew}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", len(res.Changes[k]), k)
	}
	fmt.Fprintf(e.stdout, "wrote the week %s to %s to %s: %s\n", res.First, res.Last, cfg.Out, strings.Join(parts, ", "))
	if cfg.Merged != "" {
		fmt.Fprintf(e.stdout, "wrote the drop with the week applied to %s\n", cfg.Merged)
	}
	return nil
}
