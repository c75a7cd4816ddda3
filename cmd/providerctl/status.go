package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"providerdir/catalog"
	"providerdir/rest"
	"providerdir/store"
)

// statusTimeout bounds the whole status call: an operator asking for status wants an answer or
// an error, not a hang on an unreachable MongoDB.
const statusTimeout = 30 * time.Second

func init() {
	register(storeCommand("status", "print the serving snapshot per collection and the loaded source manifests", status))
}

// status writes the serving snapshot and the manifests as two aligned tables.
func status(ctx context.Context, w io.Writer, s store.Store) error {
	snap, err := store.Serving(ctx, s)
	if err != nil {
		return fmt.Errorf("read serving snapshot: %w", err)
	}
	ms, err := catalog.Manifests(ctx, s)
	if err != nil {
		return fmt.Errorf("read manifests: %w", err)
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if snap.Version == 0 {
		fmt.Fprintln(tw, "serving snapshot: none (nothing has been ingested)")
	} else {
		fmt.Fprintf(tw, "serving snapshot: version %d, switched %s", snap.Version, rest.Timestamp(snap.SwitchedAt))
		if snap.Label != "" {
			fmt.Fprintf(tw, " (%s)", snap.Label)
		}
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "\nCOLLECTION\tGENERATION")
		names := make([]string, 0, len(snap.Collections))
		for c := range snap.Collections {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			fmt.Fprintf(tw, "%s\t%s\n", c, snap.Collections[c])
		}
	}

	if len(ms) == 0 {
		fmt.Fprintln(tw, "\nmanifests: none")
	} else {
		fmt.Fprintln(tw, "\nFAMILY\tDATASET ID\tSNAPSHOT\tROWS\tREJECTED\tGENERATION\tFINISHED")
		for _, m := range ms {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n",
				m.Family, m.DatasetID, m.Snapshot, m.Rows, m.Rejected, m.Generation, rest.Timestamp(m.FinishedAt))
		}
	}
	return tw.Flush()
}
