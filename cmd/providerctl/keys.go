package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"providerdir/internal/config"
	"providerdir/internal/safetext"
	"providerdir/internal/storeopen"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/rest/intake"
	"providerdir/store"
)

// keysTimeout bounds one keys command, as statusTimeout does status.
const keysTimeout = 30 * time.Second

// keysUsage lists the subcommands of providerctl keys.
const keysUsage = `subcommands:
  requests [--all]                          list pilot access requests (pending ones unless --all)
  approve [--expires WHEN] ID               approve a request: issue its pilot key, printed once as the last line
  create --tier TIER --name NAME [--expires WHEN]
                                            issue a key (TIER: pilot, sandbox, starter, pro), printed once as the last line;
                                            --tier sandbox replaces the one published sandbox key and revokes the old one
  revoke ID|HINT|KEY                        revoke a key by id (key_...), hint as listed (pdsupply_…wXyZ) or the key itself
  list                                      list keys: id, prefix and last four characters, tier, name, status
  sandbox                                   print the published sandbox key, creating it if there is none
  import --tier TIER --name NAME --key-file FILE
                                            store an existing key (a legacy pdpilot_ key) read from FILE ("-": stdin)

Every subcommand takes --store STORE. WHEN is a date (2026-12-31, expiring at its start, UTC), an
RFC 3339 time, or a duration from now (720h, 90d).
Keys are stored only as hashes: a key is shown once and cannot be printed again. Nothing is
e-mailed: hand the printed key to its holder yourself.`

func init() {
	register(&command{
		name:    "keys",
		args:    "[--store STORE] SUBCOMMAND [flags] [arguments] (providerctl keys help lists them)",
		summary: "manage API keys and pilot access requests (requests, approve, create, revoke, list, sandbox, import)",
		setup: func(fs *flag.FlagSet, e *env) func(context.Context, []string) error {
			outerStore := config.StoreFlag(fs, e.getenv)
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usagef("needs a subcommand: requests, approve, create, revoke, list, sandbox or import")
				}
				if args[0] == "help" {
					_, err := fmt.Fprintln(e.stdout, keysUsage)
					return err
				}
				sub, ok := keySubcommands[args[0]]
				if !ok {
					return usagef("unknown subcommand %q", args[0])
				}
				k := &keysCmd{env: e, outerStore: outerStore}
				sfs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
				sfs.SetOutput(io.Discard)
				k.store = sfs.String("store", "", "store backend (as the --store of providerctl)")
				runSub := sub(sfs, k)
				if err := sfs.Parse(args[1:]); err != nil {
					return usagef("%s: %v", args[0], err)
				}
				ctx, cancel := context.WithTimeout(ctx, keysTimeout)
				defer cancel()
				return runSub(ctx, sfs.Args())
			}
		},
	})
}

// keysCmd is what a keys subcommand runs with.
type keysCmd struct {
	*env
	outerStore func() (storeopen.Spec, error)
	store      *string
}

// open opens the store named by the subcommand's --store, else the command's (flag,
// PROVIDERD_STORE or default). It must exist: a mistyped directory is an error, not a new store.
func (k *keysCmd) open(ctx context.Context) (store.Store, func(), error) {
	spec, err := k.outerStore()
	if *k.store != "" {
		spec, err = storeopen.Parse(*k.store)
	}
	if err != nil {
		return nil, nil, usageError{err}
	}
	s, err := storeopen.Open(ctx, spec, storeopen.MustExist())
	if err != nil {
		return nil, nil, fmt.Errorf("open store %s: %w", spec, err)
	}
	return s, func() { _ = s.Close() }, nil
}

type keySubcommand func(fs *flag.FlagSet, k *keysCmd) func(context.Context, []string) error

var keySubcommands = map[string]keySubcommand{
	"requests": keysRequests,
	"approve":  keysApprove,
	"create":   keysCreate,
	"revoke":   keysRevoke,
	"list":     keysList,
	"sandbox":  keysSandbox,
	"import":   keysImport,
}

func keysRequests(fs *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	all := fs.Bool("all", false, "list approved requests too")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("requests takes no arguments")
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		reqs, err := intake.New(s, nil, nil).List(ctx, !*all)
		if err != nil {
			return err
		}
		if len(reqs) == 0 {
			_, err := fmt.Fprintln(k.stdout, "no access requests")
			return err
		}
		tw := tabwriter.NewWriter(k.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATUS\tSUBMITTED\tNAME\tEMAIL\tORGANIZATION\tKEY\tINTENDED USE")
		for _, r := range reqs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, rest.Timestamp(r.CreatedAt),
				oneCell(r.Name, 40), oneCell(r.Email, 60), oneCell(r.Organization, 40), orDash(r.KeyID), oneCell(r.IntendedUse, 60))
		}
		return tw.Flush()
	}
}

func keysApprove(fs *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	expires := fs.String("expires", "", "when the key stops working (default never)")
	return func(ctx context.Context, args []string) error {
		if len(args) != 1 {
			return usagef("approve takes one access request id")
		}
		exp, err := parseExpiry(*expires, time.Now())
		if err != nil {
			return usageError{err}
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		secret, req, err := intake.New(s, apikey.NewManager(s, nil), nil).Approve(ctx, args[0], apikey.CreateOptions{ExpiresAt: exp})
		if err != nil {
			return err
		}
		email := safetext.Terminal(req.Email)
		fmt.Fprintf(k.stdout, "approved %s: %s <%s>, %s\n", req.ID, safetext.Terminal(req.Name), email, safetext.Terminal(req.Organization))
		fmt.Fprintf(k.stdout, "issued %s (tier pilot, %s)\n", req.KeyID, expiryText(exp))
		fmt.Fprintf(k.stdout, "Send the key to %s yourself (nothing is e-mailed). It is shown this once; only its hash is kept.\n", email)
		_, err = fmt.Fprintln(k.stdout, secret.Reveal())
		return err
	}
}

func keysCreate(fs *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	tierName := fs.String("tier", "", "pilot, sandbox, starter or pro")
	name := fs.String("name", "", "whose key it is")
	expires := fs.String("expires", "", "when the key stops working (default never)")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("create takes flags only, got %q", args[0])
		}
		tier, err := apikey.ParseTier(*tierName)
		if err != nil {
			return usageError{err}
		}
		if strings.TrimSpace(*name) == "" && tier != apikey.TierSandbox {
			return usagef("create needs --name")
		}
		exp, err := parseExpiry(*expires, time.Now())
		if err != nil {
			return usageError{err}
		}
		if tier == apikey.TierSandbox && !exp.IsZero() {
			return usagef("the published sandbox key does not expire; revoke or replace it instead")
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		m := apikey.NewManager(s, nil)
		if tier == apikey.TierSandbox {
			secret, key, err := m.RotateSandbox(ctx, *name)
			if err != nil {
				return err
			}
			fmt.Fprintf(k.stdout, "published %s as the sandbox key (tier sandbox, read-only); the previous one, if any, is revoked\n", key.ID)
			_, err = fmt.Fprintln(k.stdout, secret.Reveal())
			return err
		}
		secret, key, err := m.Create(ctx, tier, *name, apikey.CreateOptions{ExpiresAt: exp})
		if err != nil {
			return err
		}
		fmt.Fprintf(k.stdout, "issued %s (tier %s, name %q, %s)\n", key.ID, key.Tier, key.Name, expiryText(exp))
		fmt.Fprintln(k.stdout, "The key is shown this once; only its hash is kept.")
		_, err = fmt.Fprintln(k.stdout, secret.Reveal())
		return err
	}
}

func keysRevoke(_ *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) != 1 {
			return usagef("revoke takes one key id, hint or key")
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		key, changed, err := apikey.NewManager(s, nil).Revoke(ctx, args[0])
		if err != nil {
			return err
		}
		if !changed {
			_, err := fmt.Fprintf(k.stdout, "%s (%s) was already revoked at %s\n", key.ID, key.Hint(), rest.Timestamp(*key.RevokedAt))
			return err
		}
		_, err = fmt.Fprintf(k.stdout, "revoked %s (%s, tier %s, name %q); it fails from the next request on\n", key.ID, key.Hint(), key.Tier, key.Name)
		return err
	}
}

func keysList(_ *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("list takes no arguments")
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		keys, err := apikey.NewManager(s, nil).List(ctx)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			_, err := fmt.Fprintln(k.stdout, "no keys")
			return err
		}
		sort.SliceStable(keys, func(i, j int) bool { return keys[i].CreatedAt.Before(keys[j].CreatedAt) })
		now := time.Now()
		tw := tabwriter.NewWriter(k.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tKEY\tTIER\tNAME\tSTATUS\tCREATED\tEXPIRES")
		for _, key := range keys {
			expires := "-"
			if key.ExpiresAt != nil {
				expires = rest.Timestamp(*key.ExpiresAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", key.ID, key.Hint(), key.Tier, oneCell(key.Name, 40),
				key.Status(now), rest.Timestamp(key.CreatedAt), expires)
		}
		return tw.Flush()
	}
}

func keysSandbox(_ *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("sandbox takes no arguments")
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		secret, key, err := apikey.NewManager(s, nil).Sandbox(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(k.stdout, "resolver sandbox key %s: shared and published, read-only, 100 requests per hour per client address\n", key.ID)
		_, err = fmt.Fprintln(k.stdout, secret.Reveal())
		return err
	}
}

func keysImport(fs *flag.FlagSet, k *keysCmd) func(context.Context, []string) error {
	tierName := fs.String("tier", "", "pilot, starter or pro")
	name := fs.String("name", "", "whose key it is")
	keyFile := fs.String("key-file", "", `file holding the key on its first line ("-" reads standard input); never on the command line, where it would stay in shell history`)
	expires := fs.String("expires", "", "when the key stops working (default never)")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usagef("import takes flags only, got %q", args[0])
		}
		tier, err := apikey.ParseTier(*tierName)
		if err != nil {
			return usageError{err}
		}
		if *keyFile == "" || strings.TrimSpace(*name) == "" {
			return usagef("import needs --key-file and --name")
		}
		exp, err := parseExpiry(*expires, time.Now())
		if err != nil {
			return usageError{err}
		}
		plain, err := readKeyFile(*keyFile)
		if err != nil {
			return err
		}
		s, done, err := k.open(ctx)
		if err != nil {
			return err
		}
		defer done()
		key, err := apikey.NewManager(s, nil).Import(ctx, plain, tier, *name, apikey.CreateOptions{ExpiresAt: exp})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(k.stdout, "imported %s (%s, tier %s, name %q, %s)\n", key.ID, key.Hint(), key.Tier, key.Name, expiryText(exp))
		return err
	}
}

// readKeyFile returns the first line of path ("-" is standard input), trimmed.
func readKeyFile(path string) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(os.Stdin, 4096))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("read key: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "", errors.New("read key: the first line is empty")
	}
	return line, nil
}

// parseExpiry reads --expires: "" (never), a date (its start, UTC), an RFC 3339 time, or a
// duration from now ("720h", or days as "90d"). An expiry must lie ahead.
func parseExpiry(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	var t time.Time
	if d, err := time.Parse("2006-01-02", s); err == nil {
		t = d
	} else if ts, err := time.Parse(time.RFC3339, s); err == nil {
		t = ts
	} else if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return time.Time{}, fmt.Errorf("--expires %q: not a number of days", s)
		}
		t = now.Add(time.Duration(n) * 24 * time.Hour)
	} else if d, err := time.ParseDuration(s); err == nil {
		t = now.Add(d)
	} else {
		return time.Time{}, fmt.Errorf("--expires %q: want a date (2026-12-31), an RFC 3339 time or a duration (720h, 90d)", s)
	}
	if !t.After(now) {
		return time.Time{}, fmt.Errorf("--expires %q is not in the future", s)
	}
	return t.UTC(), nil
}

func expiryText(t time.Time) string {
	if t.IsZero() {
		return "no expiry"
	}
	return "expires " + rest.Timestamp(t)
}

// oneCell fits free text from a client into one table cell of the operator's terminal: one
// line, at most n characters, with anything a terminal would act on or hide shown escaped.
func oneCell(s string, n int) string {
	return safetext.Clip(safetext.Terminal(strings.Join(strings.Fields(s), " ")), n)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
