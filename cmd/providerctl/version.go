package main

import (
	"context"
	"flag"
	"fmt"

	"providerdir/internal/buildinfo"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print the git commit the binary was built from",
		setup: func(_ *flag.FlagSet, e *env) func(context.Context, []string) error {
			return func(_ context.Context, args []string) error {
				if len(args) > 0 {
					return usagef("takes no arguments")
				}
				v := buildinfo.PipelineVersion()
				if buildinfo.Modified() {
					v += " (built from a checkout with uncommitted changes)"
				}
				_, err := fmt.Fprintln(e.stdout, v)
				return err
			}
		},
	})
}
