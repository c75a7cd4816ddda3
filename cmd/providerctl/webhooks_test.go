package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"providerdir/rest/apikey"
	"providerdir/store/embedded"
	"providerdir/testing/liveserver"
	"providerdir/webhook"
)

// The operator lists every webhook and FHIR subscription, whoever owns it, with what the
// subscriber wrote escaped; disables and enables any (not a revoked key's) and deletes any.
// Nothing is delivered: no worker runs, and the receivers are loopback ports nobody serves.
func TestWebhooksCommands(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "db")
	st := "embedded:" + dir
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys := apikey.NewManager(s, nil)
	_, key, err := keys.Create(ctx, apikey.TierStarter, "Acme", apikey.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policy := webhook.AddressPolicy{AllowLoopback: true}
	hook, err := webhook.NewService(s, policy, nil).Create(ctx, key.ID, webhook.Registration{
		URL: "http://127.0.0.1:9/hook?note=\u202egnp.live\u009b", Events: []string{webhook.EventSourceRefreshed}})
	if err != nil {
		t.Fatal(err)
	}
	client := liveserver.AddSMARTClient(t, s, "Acme FHIR", "system/Subscription.cruds")
	fhirSub, err := webhook.CreateFHIR(ctx, s, policy, webhook.FHIROwner(client.ID), "http://127.0.0.1:9/fhir", []string{"1234567893"},
		webhook.FHIRChannel{Topic: "https://directory.example/fhir/SubscriptionTopic/organization-changed", FocusType: "Organization", Content: "id-only"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := keys.Revoke(ctx, key.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		absent []string // substrings stdout must not hold
		stderr string   // substring of the one stderr line
	}{
		{"list", []string{"list", "--store", st}, 0,
			[]string{hook.ID, key.ID, "webhook", fhirSub.ID, "smart:" + client.ID, "fhir", `note=\u202egnp.live\u009b`, "active"},
			[]string{"\u202e", "\u009b"}, ""},
		{"list of an owner", []string{"list", "--owner", key.ID, "--store", st}, 0, []string{hook.ID}, []string{fhirSub.ID}, ""},
		{"disable, id before flag", []string{"disable", hook.ID, "--store", st, "--reason", "key revoked\x1b[2J"}, 0,
			[]string{"disabled: key revoked\\x1b[2J"}, []string{"\x1b"}, ""},
		{"list shows who disabled it and why", []string{"list", "--store", st}, 0, []string{"operator: key revoked"}, nil, ""},
		{"enable a revoked key's webhook", []string{"enable", hook.ID, "--store", st}, 1, nil, nil, key.ID + " is revoked"},
		{"disable a FHIR subscription", []string{"disable", "--store", st, fhirSub.ID}, 0, []string{"disabled by the operator"}, nil, ""},
		{"enable it", []string{"enable", fhirSub.ID, "--store", st}, 0, []string{"enabled"}, nil, ""},
		{"enable it again", []string{"enable", fhirSub.ID, "--store", st}, 0, []string{"already active"}, nil, ""},
		{"delete", []string{"delete", hook.ID, "--store", st}, 0, []string{"deleted"}, nil, ""},
		{"list after delete", []string{"list", "--store", st}, 0, []string{fhirSub.ID}, []string{hook.ID}, ""},
		{"delete an unknown id", []string{"delete", hook.ID, "--store", st}, 1, nil, nil, "no webhook"},
		{"malformed id", []string{"disable", "x\u202ey", "--store", st}, 1, nil, nil, `no webhook x\u202ey`},
		{"no action", nil, 2, nil, nil, "needs an action"},
		{"unknown action", []string{"frob"}, 2, nil, nil, `unknown action "frob"`},
		{"disable without id", []string{"disable", "--store", st}, 2, nil, nil, "exactly one webhook id"},
		{"list with an argument", []string{"list", "x", "--store", st}, 2, nil, nil, "takes no arguments"},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			code, out, errOut := invoke(t, nil, append([]string{"webhooks"}, step.args...)...)
			if code != step.code {
				t.Fatalf("exit %d, want %d (stdout %q, stderr %q)", code, step.code, out, errOut)
			}
			for _, want := range step.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			for _, bad := range step.absent {
				if strings.Contains(out, bad) {
					t.Errorf("stdout holds %q:\n%s", bad, out)
				}
			}
			if step.stderr == "" && errOut != "" || step.stderr != "" && (strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, step.stderr)) {
				t.Errorf("stderr %q, want one line with %q", errOut, step.stderr)
			}
		})
	}
}
