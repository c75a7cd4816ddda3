package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"providerdir/rest/apikey"
	"providerdir/rest/intake"
	"providerdir/store"
	"providerdir/store/embedded"
)

// lastLine returns the last line of out and fails unless out ends in a newline.
func lastLine(t *testing.T, out string) string {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end in a newline: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[len(lines)-1]
}

// keysRun runs providerctl keys with --store on dir and expects success.
func keysRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, stdout, stderr := invoke(t, nil, append([]string{"keys", "--store", "embedded:" + dir}, args...)...)
	if code != 0 || stderr != "" {
		t.Fatalf("keys %v: exit %d, stderr %q", args, code, stderr)
	}
	return stdout
}

// withManager opens the store between commands, as a server restart would.
func withManager(t *testing.T, dir string, fn func(m *apikey.Manager, s *embedded.Store)) {
	t.Helper()
	s, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fn(apikey.NewManager(s, nil), s)
}

func TestKeysLifecycle(t *testing.T) {
	dir := t.TempDir()
	out := keysRun(t, dir, "create", "--tier", "pilot", "--name", "Acme Health")
	key := lastLine(t, out)
	if p, ok := apikey.Parse(key); !ok || p != apikey.PrefixSupply || strings.Count(out, key) != 1 {
		t.Fatalf("create printed %q", out)
	}
	out = keysRun(t, dir, "create", "--tier", "starter", "--name", "Beta Labs", "--expires", "90d")
	live := lastLine(t, out)
	if p, _ := apikey.Parse(live); p != apikey.PrefixLive || !strings.Contains(out, "expires 20") {
		t.Fatalf("create starter printed %q", out)
	}
	var pilotID string
	withManager(t, dir, func(m *apikey.Manager, _ *embedded.Store) {
		k, err := m.Authenticate(context.Background(), apikey.Supply, key)
		if err != nil || k.Name != "Acme Health" || k.Tier != apikey.TierPilot {
			t.Fatalf("the printed key does not work: %+v %v", k, err)
		}
		pilotID = k.ID
	})

	out = keysRun(t, dir, "list")
	hint := "pdsupply_…" + key[len(key)-4:]
	for _, want := range []string{"ID", "KEY", pilotID, hint, "pilot", "Acme Health", "active", "starter"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, key[len("pdsupply_"):len(key)-4]) || strings.Contains(out, live[len("pdlive_"):len(live)-4]) {
		t.Fatalf("list shows more of a key than its prefix and last four:\n%s", out)
	}

	out = keysRun(t, dir, "revoke", hint)
	if !strings.Contains(out, "revoked "+pilotID) {
		t.Fatalf("revoke printed %q", out)
	}
	if out := keysRun(t, dir, "revoke", pilotID); !strings.Contains(out, "already revoked") {
		t.Fatalf("second revoke printed %q", out)
	}
	if out := keysRun(t, dir, "list"); !strings.Contains(out, "revoked") {
		t.Fatalf("list after revoke:\n%s", out)
	}
	withManager(t, dir, func(m *apikey.Manager, _ *embedded.Store) {
		if _, err := m.Authenticate(context.Background(), apikey.Supply, key); err == nil {
			t.Fatal("a revoked key still works")
		}
	})

	// The sandbox key: printed by `keys sandbox` (created on first use), replaced by
	// `keys create --tier sandbox`.
	first := lastLine(t, keysRun(t, dir, "sandbox"))
	if again := lastLine(t, keysRun(t, dir, "sandbox")); again != first {
		t.Fatal("keys sandbox printed two different keys")
	}
	rotated := lastLine(t, keysRun(t, dir, "create", "--tier", "sandbox"))
	if p, _ := apikey.Parse(rotated); p != apikey.PrefixSandbox || rotated == first {
		t.Fatalf("create --tier sandbox printed %q", rotated)
	}
	if now := lastLine(t, keysRun(t, dir, "sandbox")); now != rotated {
		t.Fatal("keys sandbox does not print the replacement")
	}
}

func TestKeysApprove(t *testing.T) {
	dir := t.TempDir()
	var id string
	withManager(t, dir, func(m *apikey.Manager, s *embedded.Store) {
		req, err := intake.New(s, m, nil).Submit(context.Background(), intake.Form{
			Name: "Ada Lovelace", Email: "ada@example.org", Organization: "Analytical Health", IntendedUse: "Network adequacy\nstudies.",
		})
		if err != nil {
			t.Fatal(err)
		}
		id = req.ID
	})
	out := keysRun(t, dir, "requests")
	for _, want := range []string{id, "pending", "Ada Lovelace", "ada@example.org", "Analytical Health", "Network adequacy studies."} {
		if !strings.Contains(out, want) {
			t.Errorf("requests lacks %q:\n%s", want, out)
		}
	}
	out = keysRun(t, dir, "approve", id)
	key := lastLine(t, out)
	if p, _ := apikey.Parse(key); p != apikey.PrefixSupply || !strings.Contains(out, "approved "+id) || !strings.Contains(out, "ada@example.org") {
		t.Fatalf("approve printed %q", out)
	}
	if out := keysRun(t, dir, "requests"); strings.TrimSpace(out) != "no access requests" {
		t.Fatalf("pending after approval:\n%s", out)
	}
	out = keysRun(t, dir, "requests", "--all")
	if !strings.Contains(out, "approved") || !strings.Contains(out, "key_") {
		t.Fatalf("requests --all:\n%s", out)
	}
	withManager(t, dir, func(m *apikey.Manager, _ *embedded.Store) {
		k, err := m.Authenticate(context.Background(), apikey.Supply, key)
		if err != nil || k.AccessRequest != id || k.Name != "Analytical Health" {
			t.Fatalf("approved key: %+v %v", k, err)
		}
	})
	code, _, stderr := invoke(t, nil, "keys", "--store", "embedded:"+dir, "approve", id)
	if code != 1 || !strings.Contains(stderr, "already approved") {
		t.Fatalf("second approval: %d %q", code, stderr)
	}
}

// TestKeysApproveEscapesStoredText runs requests and approve on a request stored before the
// form refused control and formatting characters in every field: what they print holds none,
// each shown as an escape instead.
func TestKeysApproveEscapesStoredText(t *testing.T) {
	dir := t.TempDir()
	stored := intake.Request{ID: "ar_20240101T000000_old001", Name: "Ada\u009b2J Lovelace", Email: "ada\u202egro.elpmaxe@example.org",
		Organization: "Analytical Health", IntendedUse: "Network adequacy\x1b]0;pwned\x07 \u2066studies\u2069\ufffd.", Status: intake.StatusPending,
		CreatedAt: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	withManager(t, dir, func(_ *apikey.Manager, s *embedded.Store) {
		body, err := json.Marshal(stored)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.PutRecord(context.Background(), store.Record{Kind: intake.RecordKind, ID: stored.ID, Body: body}); err != nil {
			t.Fatal(err)
		}
	})
	tests := []struct {
		args []string
		want []string // escapes the output shows
	}{
		{[]string{"requests"}, []string{`Ada\u009b2J Lovelace`, `ada\u202egro.elpmaxe@example.org`, `adequacy\x1b]0;pwned\a \u2066studies\u2069\ufffd.`}},
		{[]string{"approve", stored.ID}, []string{`approved ` + stored.ID + `: Ada\u009b2J Lovelace <ada\u202egro.elpmaxe@example.org>, Analytical Health`,
			`Send the key to ada\u202egro.elpmaxe@example.org yourself`}},
		{[]string{"requests", "--all"}, []string{`Ada\u009b2J Lovelace`, `ada\u202egro.elpmaxe@example.org`}},
	}
	for _, tt := range tests {
		out := keysRun(t, dir, tt.args...)
		if !utf8.ValidString(out) {
			t.Errorf("keys %v printed bytes that are not UTF-8: %q", tt.args, out)
		}
		for _, r := range out {
			if r != '\n' && (unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)) {
				t.Errorf("keys %v printed %U:\n%q", tt.args, r, out)
			}
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("keys %v lacks %q:\n%s", tt.args, w, out)
			}
		}
	}
}

func TestKeysImport(t *testing.T) {
	dir := t.TempDir()
	legacy := "pdpilot_" + strings.Repeat("Lg7", 12)
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(legacy+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := keysRun(t, dir, "import", "--tier", "pilot", "--name", "First customer", "--key-file", file)
	if !strings.Contains(out, "imported key_") || strings.Contains(out, legacy[8:30]) {
		t.Fatalf("import printed %q", out)
	}
	withManager(t, dir, func(m *apikey.Manager, _ *embedded.Store) {
		if k, err := m.Authenticate(context.Background(), apikey.Supply, legacy); err != nil || k.Prefix != "pdpilot" {
			t.Fatalf("imported legacy key: %+v %v", k, err)
		}
	})
}

func TestKeysUsage(t *testing.T) {
	dir := t.TempDir()
	store := "embedded:" + dir
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no subcommand", []string{"keys"}, 2, "needs a subcommand"},
		{"unknown subcommand", []string{"keys", "mint"}, 2, `unknown subcommand "mint"`},
		{"create without a tier", []string{"keys", "create", "--name", "x"}, 2, `unknown tier ""`},
		{"create with an unknown tier", []string{"keys", "create", "--tier", "gold", "--name", "x"}, 2, "pilot, sandbox, starter, pro"},
		{"create without a name", []string{"keys", "create", "--tier", "pilot"}, 2, "needs --name"},
		{"create with a bad expiry", []string{"keys", "create", "--tier", "pilot", "--name", "x", "--expires", "soon"}, 2, "--expires"},
		{"create with a past expiry", []string{"keys", "create", "--tier", "pilot", "--name", "x", "--expires", "2001-01-01"}, 2, "not in the future"},
		{"an unknown flag", []string{"keys", "list", "--long"}, 2, "flag provided but not defined"},
		{"revoke without a key", []string{"keys", "revoke"}, 2, "revoke takes one"},
		{"revoke of an unknown key", []string{"keys", "--store", store, "revoke", "key_0123456789abcdef"}, 1, "no such key"},
		{"approve of an unknown request", []string{"keys", "--store", store, "approve", "ar_nope"}, 1, "no such access request"},
		{"import without a file", []string{"keys", "import", "--tier", "pilot", "--name", "x"}, 2, "needs --key-file"},
		{"a store that is not there", []string{"keys", "--store", "embedded:" + filepath.Join(dir, "absent"), "list"}, 1, "open store"},
		{"the subcommand's --store wins", []string{"keys", "--store", "embedded:" + filepath.Join(dir, "absent"), "list", "--store", store}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := invoke(t, nil, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if tt.stderr == "" {
				if stderr != "" {
					t.Fatalf("stderr %q", stderr)
				}
				return
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("stderr %q, want one line containing %q", stderr, tt.stderr)
			}
		})
	}
	code, stdout, _ := invoke(t, nil, "keys", "help")
	if code != 0 || !strings.Contains(stdout, "approve [--expires WHEN] ID") || !strings.Contains(stdout, "Nothing is\ne-mailed") {
		t.Fatalf("keys help: %d %q", code, stdout)
	}
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2025, 6, 8, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time // zero with ok: never
		ok   bool
	}{
		{"", time.Time{}, true},
		{"2026-12-31", time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC), true},
		{"2025-06-09T08:00:00-04:00", time.Date(2025, 6, 9, 12, 0, 0, 0, time.UTC), true},
		{"720h", now.Add(720 * time.Hour), true},
		{"90d", now.Add(90 * 24 * time.Hour), true},
		{"0d", time.Time{}, false},
		{"-5h", time.Time{}, false},
		{"2025-06-08", time.Time{}, false},
		{"tomorrow", time.Time{}, false},
	}
	for _, tt := range tests {
		got, err := parseExpiry(tt.in, now)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseExpiry(%q) = %s, %v", tt.in, got, err)
		}
	}
}

func TestOneCell(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"Ada  Lovelace\n", 40, "Ada Lovelace"},
		{"Network adequacy\nstudies.", 60, "Network adequacy studies."},
		{"evil\x1b]0;pwned\x07 name", 40, `evil\x1b]0;pwned\a name`},
		{"Ada\u202eecalevoL", 40, `Ada\u202eecalevoL`},
		{"bad\xffbyte", 40, `bad\xffbyte`},
		{"José Müller", 40, "José Müller"},
		{"abcdefghij", 5, "abcd…"},
	}
	for _, tt := range tests {
		if got := oneCell(tt.in, tt.n); got != tt.want {
			t.Errorf("oneCell(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
