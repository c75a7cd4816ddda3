package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// lockFile is the file Pebble creates and locks in the directory of an open database.
const lockFile = "LOCK"

// Ping reports whether the store's directory is still the one it opened. Pebble answers reads
// from its memtable, its block cache and the files it holds open, so a store whose directory was
// deleted or replaced goes on answering reads, and accepts writes that no restart would find; a
// readiness check needs to notice. Ping compares the lock file in the directory with the one
// found at Open: one stat, no read of data.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.enter(ctx); err != nil {
		return err
	}
	defer s.leave()
	fi, err := os.Stat(filepath.Join(s.dir, lockFile))
	if err != nil {
		return fmt.Errorf("embedded: %w", err)
	}
	if !os.SameFile(fi, s.lock) {
		return fmt.Errorf("embedded: %s is no longer the directory this store opened", s.dir)
	}
	return nil
}
