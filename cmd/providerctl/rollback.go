package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"providerdir/store"
)

func init() {
	register(storeCommand("rollback", "serve again the snapshot served before the last switch (within providerd's --rollback-window)", rollback))
}

// rollback serves the previous snapshot and says which collections moved.
func rollback(ctx context.Context, w io.Writer, s store.Store) error {
	before, err := store.Serving(ctx, s)
	if err != nil {
		return fmt.Errorf("read serving snapshot: %w", err)
	}
	after, err := store.Rollback(ctx, s)
	if errors.Is(err, store.ErrNotFound) {
		return errors.New("no previous snapshot to roll back to: none was switched from, or its rollback window has passed and its data was reclaimed")
	}
	if err != nil {
		return err
	}
	var moved []string
	for c, g := range after.Collections {
		if before.Collections[c] != g {
			moved = append(moved, fmt.Sprintf("%s %s -> %s", c, before.Collections[c], g))
		}
	}
	slices.Sort(moved)
	fmt.Fprintf(w, "rolled back from %q: %d collections switched\n", before.Label, len(moved))
	for _, m := range moved {
		fmt.Fprintln(w, "  "+m)
	}
	_, err = fmt.Fprintln(w, "run rollback again to return to the snapshot just left")
	return err
}
