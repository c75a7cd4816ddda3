package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lestrrat-go/jwx/v3/jwk"

	"providerdir/internal/config"
	"providerdir/internal/safetext"
	"providerdir/rest"
	"providerdir/smart"
	"providerdir/store"
)

// clientsTimeout bounds one registry operation, as statusTimeout bounds status.
const clientsTimeout = 30 * time.Second

// clientActions are the clients subcommands. Each parses its own flags, because flags follow
// the action ("clients add --name N"), where the command's own flag set has stopped parsing.
var clientActions = map[string]func(ctx context.Context, e *env, args []string) error{
	"add":     clientsAdd,
	"list":    clientsList,
	"disable": func(ctx context.Context, e *env, args []string) error { return clientsSetEnabled(ctx, e, args, false) },
	"enable":  func(ctx context.Context, e *env, args []string) error { return clientsSetEnabled(ctx, e, args, true) },
	"rotate":  clientsRotate,
	"scopes":  clientsScopes,
	"update":  clientsUpdate,
	"token":   clientsToken,
}

func init() {
	register(&command{
		name: "clients",
		args: "add --name N (--jwks FILE | --jwks-url URL) --scopes \"system/Practitioner.read ...\" [--budget N] | list |\n" +
			"       disable ID | enable ID | rotate ID (--jwks FILE | --jwks-url URL) | scopes ID --scopes \"...\" |\n" +
			"       update ID --budget N | token --key FILE [--client-id ID] [--token-url URL] [--scope S]\n" +
			"       (all but token take [--store STORE]; --budget: FHIR requests per rolling minute, 0 unmetered, or default)",
		summary: "register and manage SMART backend clients; get an access token with a client key",
		setup: func(_ *flag.FlagSet, e *env) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usagef("needs an action: add, list, disable, enable, rotate, scopes, update or token")
				}
				act, ok := clientActions[args[0]]
				if !ok {
					return usagef("unknown action %q", args[0])
				}
				return act(ctx, e, args[1:])
			}
		},
	})
}

// parseAction parses an action's flags wherever they stand among its positional arguments
// ("disable ID --store S" as well as "disable --store S ID") and returns the positional ones.
func parseAction(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

// budgetFlag is --budget: a client's FHIR budget as smart.ParseBudget reads it. A value it
// refuses is a usage error, as a flag of the wrong type is.
type budgetFlag struct {
	budget *int64
	set    bool
}

func (f *budgetFlag) String() string {
	if !f.set {
		return ""
	}
	return smart.FormatBudget(f.budget)
}

func (f *budgetFlag) Set(s string) error {
	b, err := smart.ParseBudget(s)
	if err != nil {
		return err
	}
	f.budget, f.set = b, true
	return nil
}

// budgetVar defines --budget on fs.
func budgetVar(fs *flag.FlagSet) *budgetFlag {
	f := &budgetFlag{}
	fs.Var(f, "budget", fmt.Sprintf("FHIR requests per rolling minute, 0 (unmetered) to %d, or %q (%s)", smart.MaxClientBudget, smart.DefaultBudget, smart.FormatBudget(nil)))
	return f
}

// keySource reads --jwks FILE or --jwks-url URL; exactly one must be given.
func keySource(file, u string) ([]byte, string, error) {
	switch {
	case file != "" && u != "":
		return nil, "", usagef("give --jwks or --jwks-url, not both")
	case file == "" && u == "":
		return nil, "", usagef("--jwks FILE or --jwks-url URL is required")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, "", fmt.Errorf("read JWKS: %w", err)
		}
		return b, "", nil
	}
	return nil, u, nil
}

func clientsAdd(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl clients add", flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	name := fs.String("name", "", "the client's name, for people")
	jwksFile := fs.String("jwks", "", "file holding the client's public JWK Set")
	jwksURL := fs.String("jwks-url", "", "https URL where the client publishes its JWK Set")
	scopes := fs.String("scopes", "", `scopes the client may be granted, space-separated ("system/Practitioner.read system/Organization.rs")`)
	budget := budgetVar(fs)
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("add takes no arguments, got %q", pos[0])
	}
	if *name == "" || *scopes == "" {
		return usagef("add needs --name and --scopes")
	}
	jwks, u, err := keySource(*jwksFile, *jwksURL)
	if err != nil {
		return err
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		c, err := smart.AddClient(ctx, s, smart.ClientSpec{Name: *name, JWKS: jwks, JWKSURL: u, Scopes: splitScopes(*scopes), Budget: budget.budget})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "registered client %q: scopes %s; keys %s; budget %s\n", c.Name, strings.Join(c.Scopes, " "), keysOf(c), budgetOf(c))
		fmt.Fprintln(e.stdout, c.ID) // the last line: scripts read the id from it
		return nil
	})
}

func splitScopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
}

func keysOf(c smart.Client) string {
	if c.JWKSURL != "" {
		return c.JWKSURL
	}
	if set, err := jwk.Parse(c.JWKS); err == nil {
		return fmt.Sprintf("inline JWKS (%d)", set.Len())
	}
	return "inline JWKS (unreadable)"
}

// budgetOf is a client's FHIR budget as list and add print it.
func budgetOf(c smart.Client) string {
	if c.Sandbox {
		return fmt.Sprintf("%d/h per address (sandbox)", smart.SandboxPolicy.Windows[0].Limit)
	}
	return smart.FormatBudget(c.Budget)
}

func clientsList(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl clients list", flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list takes no arguments, got %q", pos[0])
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		cs, err := smart.ListClients(ctx, s)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSTATE\tBUDGET\tKEYS\tSCOPES\tCREATED\tROTATED")
		for _, c := range cs {
			state := "disabled"
			if c.Enabled {
				state = "enabled"
			}
			if c.Sandbox {
				state += ",sandbox"
			}
			rotated := "-"
			if !c.RotatedAt.IsZero() {
				rotated = rest.Timestamp(c.RotatedAt)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, oneCell(c.Name, 40), state, budgetOf(c), keysOf(c), strings.Join(c.Scopes, " "), rest.Timestamp(c.CreatedAt), rotated)
		}
		return tw.Flush()
	})
}

func clientsSetEnabled(ctx context.Context, e *env, args []string, enabled bool) error {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	fs := flag.NewFlagSet("providerctl clients "+verb, flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s takes exactly one client id", verb)
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		c, err := smart.SetClientEnabled(ctx, s, pos[0], enabled)
		if err != nil {
			return err
		}
		follows := map[bool]string{true: "resume", false: "stop"}[enabled]
		fmt.Fprintf(e.stdout, "client %s (%s) %sd; its FHIR subscriptions %s within seconds while providerd runs\n", c.ID, safetext.Terminal(c.Name), verb, follows)
		return nil
	})
}

func clientsRotate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl clients rotate", flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	jwksFile := fs.String("jwks", "", "file holding the client's new public JWK Set")
	jwksURL := fs.String("jwks-url", "", "new https URL of the client's JWK Set")
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("rotate takes exactly one client id")
	}
	jwks, u, err := keySource(*jwksFile, *jwksURL)
	if err != nil {
		return err
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		c, err := smart.RotateClient(ctx, s, pos[0], jwks, u)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "client %s (%s) now uses keys %s\n", c.ID, safetext.Terminal(c.Name), keysOf(c))
		return nil
	})
}

func clientsScopes(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl clients scopes", flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	scopes := fs.String("scopes", "", `the scopes the client may be granted from now on, space-separated`)
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *scopes == "" {
		return usagef("scopes takes exactly one client id and --scopes")
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		c, err := smart.SetClientScopes(ctx, s, pos[0], splitScopes(*scopes))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "client %s (%s) may now be granted %s; tokens already issued keep their scopes until they expire\n", c.ID, safetext.Terminal(c.Name), strings.Join(c.Scopes, " "))
		return nil
	})
}

func clientsUpdate(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl clients update", flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	budget := budgetVar(fs)
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || !budget.set {
		return usagef("update takes exactly one client id and --budget")
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		c, err := smart.SetClientBudget(ctx, s, pos[0], budget.budget)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "client %s (%s) now has the budget %s; providerd meters its requests by it within %s\n",
			c.ID, safetext.Terminal(c.Name), budgetOf(c), smart.ClientCheckInterval)
		return nil
	})
}

// clientsToken is the client side: sign an assertion with a private JWK and exchange it at a
// running server's token endpoint. It prints only the access token, so that
// TOKEN=$(providerctl clients token --key data/sandbox-client.jwk) works. It needs no store.
func clientsToken(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl clients token", flag.ContinueOnError)
	keyFile := fs.String("key", "", "file holding the client's private JWK (the sandbox's is written by providerd)")
	clientID := fs.String("client-id", smart.SandboxClientID, "client id")
	defURL := e.getenv(config.EnvName("base-url"))
	if defURL == "" {
		defURL = config.DefaultBaseURL(config.DefaultAddr)
	}
	tokenURL := fs.String("token-url", strings.TrimRight(defURL, "/")+"/fhir/token", "token endpoint (default from "+config.EnvName("base-url")+")")
	scope := fs.String("scope", "system/*.read", "scopes to ask for")
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("token takes no arguments, got %q", pos[0])
	}
	if *keyFile == "" {
		return usagef("token needs --key FILE")
	}
	set, err := jwk.ReadFile(*keyFile)
	if err != nil {
		return fmt.Errorf("read key: %w", err)
	}
	key, ok := set.Key(0)
	if priv, _ := jwk.IsPrivateKey(key); !ok || set.Len() != 1 || !priv {
		return errors.New("the key file must hold exactly one private JWK")
	}
	ctx, cancel := context.WithTimeout(ctx, clientsTimeout)
	defer cancel()
	tr, err := smart.RequestToken(ctx, &http.Client{Timeout: clientsTimeout}, *tokenURL, *clientID, key, *scope)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, tr.AccessToken)
	return nil
}
