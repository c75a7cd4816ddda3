// Command providerctl is the operator's command line: each subcommand lives in its own file and
// registers itself, so adding one never touches this file. Exit status is 0 on success, 1 on
// failure with one line on stderr, 2 on bad usage; operators script against it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

// command is one subcommand.
type command struct {
	name    string
	args    string // synopsis of flags and arguments, for help
	summary string // one line, for the command list
	// setup defines the command's flags on fs and returns the function that runs it with the
	// positional arguments left after flag parsing. Keeping definition apart from running lets
	// `providerctl help NAME` list a command's flags without running it.
	setup func(fs *flag.FlagSet, e *env) func(ctx context.Context, args []string) error
}

// env is what a command may touch of its process, so tests can run commands in-process.
type env struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

var commands = map[string]*command{}

// register adds a subcommand; each subcommand's file calls it from init.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("providerctl: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError marks an error as bad usage (exit status 2) rather than a failure (1).
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &env{stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	os.Exit(code)
}

// run dispatches one invocation and returns the exit status.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, "providerctl: no command given (run providerctl help)")
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return help(e, rest)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "providerctl: unknown command %q (run providerctl help)\n", name)
		return 2
	}
	fs := newFlagSet(c)
	runCmd := c.setup(fs, e)
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandHelp(e.stdout, c)
			return 0
		}
		fmt.Fprintf(e.stderr, "providerctl %s: %v (run providerctl help %s)\n", name, err, name)
		return 2
	}
	err := runCmd(ctx, fs.Args())
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "providerctl %s: %s (run providerctl help %s)\n", name, oneLine(err), name)
		return 2
	default:
		fmt.Fprintf(e.stderr, "providerctl %s: %s\n", name, oneLine(err))
		return 1
	}
}

func newFlagSet(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet("providerctl "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported by run, on one line
	fs.Usage = func() {}
	return fs
}

// oneLine keeps a failure to the one line on stderr that scripts and people expect, whatever a
// wrapped error from a driver contains.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func help(e *env, args []string) int {
	switch len(args) {
	case 0:
		fmt.Fprintln(e.stdout, "usage: providerctl COMMAND [flags] [arguments]")
		fmt.Fprintln(e.stdout, "\ncommands:")
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(e.stdout, "  %-12s %s\n", n, commands[n].summary)
		}
		fmt.Fprintln(e.stdout, "\nRun providerctl help COMMAND for a command's flags.")
		fmt.Fprintln(e.stdout, "Exit status: 0 success, 1 failure, 2 bad usage.")
		return 0
	case 1:
		c, ok := commands[args[0]]
		if !ok {
			fmt.Fprintf(e.stderr, "providerctl help: unknown command %q\n", args[0])
			return 2
		}
		commandHelp(e.stdout, c)
		return 0
	}
	fmt.Fprintln(e.stderr, "providerctl help: takes at most one command name")
	return 2
}

func commandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: providerctl %s %s\n\n%s\n", c.name, c.args, c.summary)
	fs := newFlagSet(c)
	c.setup(fs, &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }})
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}
