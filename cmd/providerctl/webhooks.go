package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/rest"
	"providerdir/rest/apikey"
	"providerdir/smart"
	"providerdir/store"
	"providerdir/webhook"
)

// webhookActions are the webhooks subcommands: the operator's hand on every subscription, the
// resolver keys' webhooks and the SMART clients' FHIR subscriptions alike, whoever owns them.
var webhookActions = map[string]func(ctx context.Context, e *env, args []string) error{
	"list":    webhooksList,
	"disable": webhooksDisable,
	"enable":  webhooksEnable,
	"delete":  webhooksDelete,
}

func init() {
	register(&command{
		name:    "webhooks",
		args:    "list [--owner OWNER] | disable ID [--reason TEXT] | enable ID | delete ID   (each takes [--store STORE])",
		summary: "list, disable, enable and delete webhooks and FHIR subscriptions of any owner",
		setup: func(_ *flag.FlagSet, e *env) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usagef("needs an action: list, disable, enable or delete")
				}
				act, ok := webhookActions[args[0]]
				if !ok {
					return usagef("unknown action %q", args[0])
				}
				return act(ctx, e, args[1:])
			}
		},
	})
}

// webhookCell is a subscriber's text (a URL, a reason) as one table cell or message part.
func webhookCell(s string) string { return oneCell(s, 200) }

// webhookAction parses an action's flags and its one subscription id, and runs f on the
// subscriptions of the store --store names.
func webhookAction(ctx context.Context, e *env, verb string, args []string, define func(*flag.FlagSet), f func(context.Context, *webhook.Service, store.Store, string) error) error {
	fs := flag.NewFlagSet("providerctl webhooks "+verb, flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	if define != nil {
		define(fs)
	}
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("%s takes exactly one webhook id", verb)
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		err := f(ctx, webhook.NewService(s, webhook.AddressPolicy{}, nil), s, pos[0])
		if errors.Is(err, webhook.ErrNotFound) {
			return fmt.Errorf("no webhook %s", webhookCell(pos[0]))
		}
		return err
	}, storeopen.MustExist())
}

func webhooksList(ctx context.Context, e *env, args []string) error {
	fs := flag.NewFlagSet("providerctl webhooks list", flag.ContinueOnError)
	spec := config.StoreFlag(fs, e.getenv)
	owner := fs.String("owner", "", "list only the subscriptions of this owner: a key id (key_...) or smart:CLIENT_ID")
	pos, err := parseAction(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("list takes no arguments, got %s", webhookCell(pos[0]))
	}
	return withStore(ctx, clientsTimeout, spec, func(ctx context.Context, s store.Store) error {
		subs, err := webhook.NewService(s, webhook.AddressPolicy{}, nil).All(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tOWNER\tKIND\tSTATUS\tURL\tEVENTS\tNPIS\tCREATED\tDISABLED")
		for _, sub := range subs {
			if *owner != "" && sub.Owner != *owner {
				continue
			}
			kind, events := "webhook", strings.Join(sub.Events, ",")
			if sub.FHIR != nil {
				kind, events = "fhir", sub.FHIR.Topic
			}
			disabled := "-"
			if sub.Status == webhook.StatusDisabled {
				disabled = sub.DisabledBy + ": " + sub.DisabledReason
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", sub.ID, webhookCell(sub.Owner), kind, sub.Status,
				webhookCell(sub.URL), webhookCell(events), len(sub.NPIs), rest.Timestamp(sub.CreatedAt), webhookCell(disabled))
		}
		return tw.Flush()
	}, storeopen.MustExist())
}

func webhooksDisable(ctx context.Context, e *env, args []string) error {
	var reason *string
	define := func(fs *flag.FlagSet) {
		reason = fs.String("reason", "disabled by the operator", "why, as the owner reads it in the webhook's disabled_reason or the Subscription's error")
	}
	return webhookAction(ctx, e, "disable", args, define, func(ctx context.Context, sv *webhook.Service, _ store.Store, id string) error {
		sub, err := sv.Disable(ctx, id, *reason)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "webhook %s of %s (%s) disabled: %s; nothing more is delivered to it\n",
			sub.ID, webhookCell(sub.Owner), webhookCell(sub.URL), webhookCell(sub.DisabledReason))
		return nil
	})
}

func webhooksEnable(ctx context.Context, e *env, args []string) error {
	return webhookAction(ctx, e, "enable", args, nil, func(ctx context.Context, sv *webhook.Service, s store.Store, id string) error {
		owners := webhook.Owners{Clients: smart.Registry{Store: s}, Keys: apikey.NewManager(s, nil)}
		sub, changed, err := sv.Enable(ctx, id, owners)
		if err != nil {
			return err
		}
		if !changed {
			fmt.Fprintf(e.stdout, "webhook %s of %s (%s) is already active\n", sub.ID, webhookCell(sub.Owner), webhookCell(sub.URL))
			return nil
		}
		fmt.Fprintf(e.stdout, "webhook %s of %s (%s) enabled; it is delivered to from the next event on\n", sub.ID, webhookCell(sub.Owner), webhookCell(sub.URL))
		return nil
	})
}

func webhooksDelete(ctx context.Context, e *env, args []string) error {
	return webhookAction(ctx, e, "delete", args, nil, func(ctx context.Context, sv *webhook.Service, _ store.Store, id string) error {
		sub, err := sv.Find(ctx, id)
		if err != nil {
			return err
		}
		if err := sv.Delete(ctx, sub); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "webhook %s of %s (%s) deleted; its pending deliveries fail\n", sub.ID, webhookCell(sub.Owner), webhookCell(sub.URL))
		return nil
	})
}
