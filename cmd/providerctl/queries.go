package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"providerdir/match/queryset"
)

// Labelled query set defaults: as many queries as measure a search to within about a
// percentage point, drawn with a fixed seed so that a drop's set is the same every time.
const (
	defaultQueries   = 2000
	defaultQuerySeed = 1
)

func init() {
	register(&command{
		name:    "search-queries",
		args:    "--drop DIR [--n N] [--seed S] | --base-url URL --key KEY [--file FILE]",
		summary: "write a drop's labelled search query set, or measure a running resolver's search with it",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			drop := fs.String("drop", "", "drop directory to draw the set from and write "+queryset.FileName+" into")
			n := fs.Int("n", defaultQueries, "most queries to draw")
			seed := fs.Uint64("seed", defaultQuerySeed, "seed of the draw and the deformations")
			base := fs.String("base-url", "", "resolver base URL to measure, ending in /resolver/v1")
			key := fs.String("key", "", "resolver API key (X-Service-Key) for the measurement")
			file := fs.String("file", "", "labelled query set to measure with (default DROP/"+queryset.FileName+")")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments, got %q", args[0])
				}
				switch {
				case *base != "":
					path := *file
					if path == "" && *drop != "" {
						path = filepath.Join(*drop, queryset.FileName)
					}
					if path == "" || *key == "" {
						return usagef("--base-url needs --key and --file (or --drop)")
					}
					return measureSearch(ctx, e.stdout, strings.TrimRight(*base, "/"), *key, path)
				case *drop != "":
					if *n < 1 {
						return usagef("--n must be positive")
					}
					count, err := writeQueries(*drop, *n, *seed)
					if err != nil {
						return err
					}
					fmt.Fprintf(e.stdout, "wrote %d labelled queries to %s\n", count, filepath.Join(*drop, queryset.FileName))
					return nil
				}
				return usagef("give --drop DIR to write a set, or --base-url, --key and --file to measure")
			}
		},
	})
}

// writeQueries draws a drop's labelled query set and writes it beside the drop's files.
func writeQueries(drop string, n int, seed uint64) (int, error) {
	qs, err := queryset.Build(drop, n, seed)
	if err != nil {
		return 0, err
	}
	return len(qs), queryset.Write(drop, qs)
}

// measureSearch runs a labelled set through a running resolver's search and prints precision@1
// and recall@10, overall and per deformation, and the searches' latency percentiles.
func measureSearch(ctx context.Context, w io.Writer, base, key, path string) error {
	qs, err := queryset.Read(path)
	if err != nil {
		return err
	}
	client := &http.Client{Timeout: 30 * time.Second}
	rep, err := queryset.Evaluate(ctx, qs, queryset.HTTPSearch(client, base, key))
	if err != nil {
		return err
	}
	printSearchReport(w, rep)
	return nil
}

func printSearchReport(w io.Writer, rep queryset.Report) {
	kinds := make([]string, 0, len(rep.ByDeformation))
	for k := range rep.ByDeformation {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "search quality: %d labelled queries, precision@1 %.4f, recall@10 %.4f, latency p50 %s p99 %s (one at a time)\n",
		rep.Queries, rep.PrecisionAt1(), rep.RecallAt10(), rep.Percentile(50).Round(10*time.Microsecond), rep.Percentile(99).Round(10*time.Microsecond))
	for _, k := range kinds {
		t := rep.ByDeformation[k]
		fmt.Fprintf(w, "  %-12s %5d queries  precision@1 %.4f  recall@10 %.4f\n", k, t.Queries, t.PrecisionAt1(), t.RecallAt10())
	}
}
