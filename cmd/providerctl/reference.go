package main

import (
	"flag"
	"fmt"
	iofs "io/fs"

	"providerdir/internal/config"
	"providerdir/source/reference"
)

// referenceFlag defines --reference on fs (config.ReferenceFlag). Call the returned function
// after fs.Parse: it returns the reference files to read, the built-in ones by default.
func referenceFlag(fs *flag.FlagSet, getenv func(string) string) func() (iofs.FS, error) {
	chosen := config.ReferenceFlag(fs, getenv)
	return func() (iofs.FS, error) {
		dir, from := chosen()
		files, err := reference.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("invalid %s: %w", from, err)
		}
		return files, nil
	}
}
