package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/conformance"
	"providerdir/ingest"
	"providerdir/internal/config"
	"providerdir/internal/storeopen"
	"providerdir/rest/apikey"
	"providerdir/smart"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store/embedded"
	"providerdir/webhook"
)

// The demo command issues working credentials once and prints the same ones on every run.
func TestDemoPrintsWorkingCredentials(t *testing.T) {
	ctx := context.Background()
	ref := reference.Embedded()
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(ctx, synth.Config{Providers: 300, Seed: 3, Out: drop, Reference: ref}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := embedded.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	quiet := slog.New(slog.DiscardHandler)
	var out strings.Builder
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, ""); err == nil {
		t.Fatal("demo on an empty store succeeded; it should ask for an ingest first")
	}
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: drop}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, ""); err != nil {
		t.Fatal(err)
	}
	first := out.String()
	kept, err := os.ReadFile(filepath.Join(dir, demoKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(kept))
	if !strings.Contains(first, key) {
		t.Errorf("printed tour lacks the pilot key %s:\n%s", key, first)
	}
	if _, err := apikey.NewManager(s, nil).Authenticate(ctx, apikey.Supply, key); err != nil {
		t.Errorf("the demo pilot key does not authenticate: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sandbox-client.jwk")); err != nil {
		t.Errorf("no SMART sandbox key file: %v", err)
	}
	out.Reset()
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(first, `-H "Accept: application/fhir+json" -H "Prefer: respond-async" 'http://127.0.0.1:8080/fhir/$export?_type=Practitioner'`) {
		t.Errorf("the tour lacks the bulk export's kick-off:\n%s", first)
	}
	if !strings.Contains(first, "curl http://127.0.0.1:9090/metrics") || strings.Contains(first, "8080/metrics") {
		t.Errorf("the tour does not send metrics to the admin listener:\n%s", first)
	}
	if out.String() != first {
		t.Errorf("a second run printed other credentials:\n%s\nthen\n%s", first, out.String())
	}

	// --json writes the same credentials for a conformance run, owner-only even over a file
	// others could read.
	credFile := filepath.Join(t.TempDir(), "creds.json")
	if err := os.WriteFile(credFile, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080"}, dir, credFile); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(credFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("credentials file: mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	creds, err := conformance.ReadCredentials(credFile)
	if err != nil {
		t.Fatal(err)
	}
	sandbox, _, err := apikey.NewManager(s, nil).Sandbox(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if creds.BaseURL != "http://127.0.0.1:8080" || creds.SupplyKey != key || creds.ResolverKey != sandbox.Reveal() ||
		creds.SMARTClientID != "sandbox" || creds.SMARTKeyFile != filepath.Join(dir, "sandbox-client.jwk") {
		t.Errorf("credentials file: %+v", creds)
	}
	if _, err := creds.PrivateKey(); err != nil {
		t.Errorf("credentials file's SMART key: %v", err)
	}

	// The credentials are the owner's only, and a credential file others may read stops the demo.
	for _, name := range []string{demoKeyFile, "sandbox-client.jwk"} {
		file := filepath.Join(dir, name)
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", name, fi.Mode().Perm(), err)
		}
		if err := os.Chmod(file, 0o644); err != nil {
			t.Fatal(err)
		}
		err := demo(ctx, &out, quiet, s, demoURLs{base: "http://127.0.0.1:8080", metrics: "http://127.0.0.1:9090"}, dir, "")
		if err == nil || !strings.Contains(err.Error(), "chmod 600 "+file) {
			t.Errorf("%s open to others: %v, want a refusal saying chmod 600", name, err)
		}
		if err := os.Chmod(file, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// With a receiver, the demo keeps its webhook, its subscribing client and their credentials
// between runs: a second run prints the same tour and registers nothing more.
func TestDemoReceiversKept(t *testing.T) {
	ctx := context.Background()
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(ctx, synth.Config{Providers: 200, Seed: 3, Out: drop, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	s, err := embedded.Open(filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := ingest.Run(ctx, ingest.Options{Store: s, Dir: drop}); err != nil {
		t.Fatal(err)
	}
	urls := demoURLs{base: "http://127.0.0.1:8080", receiver: 8099, ctl: "bin/providerctl"}
	var first, second strings.Builder
	for _, out := range []*strings.Builder{&first, &second} {
		if err := demo(ctx, out, slog.New(slog.DiscardHandler), s, urls, dir, ""); err != nil {
			t.Fatal(err)
		}
	}
	if first.String() != second.String() {
		t.Errorf("a second run printed another tour:\n%s\nthen\n%s", first.String(), second.String())
	}
	hooks, err := webhook.NewService(s, webhook.AddressPolicy{}, nil).All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 || hooks[0].URL != "http://127.0.0.1:8099/" || !strings.Contains(first.String(), "--secret "+hooks[0].Secret+" ") {
		t.Errorf("webhooks %+v; want the one to the receiver, its secret printed:\n%s", hooks, first.String())
	}
	clients, err := smart.ListClients(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	subscribers := 0
	for _, c := range clients {
		if c.Name == demoSubscriberName {
			subscribers++
		}
	}
	if subscribers != 1 {
		t.Errorf("%d subscriber clients, want 1", subscribers)
	}
	for _, name := range []string{demoResolverKeyFile, demoBearerFile, demoSubscriberKeyFile} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want a file of mode 0600", name, fi, err)
		}
	}
}

// A loopback receiver is for the local demo only: an embedded store and a loopback base URL.
func TestCheckReceiver(t *testing.T) {
	tests := []struct {
		store, base string
		port        int
		ok          bool
	}{
		{"embedded:data/db", "http://127.0.0.1:8080", 8099, true},
		{"embedded:data/db", "http://localhost:8080", 8099, true},
		{"embedded:data/db", "http://[::1]:8080", 8099, true},
		{"embedded:data/db", "http://0.0.0.0:8080", 8099, false},
		{"embedded:data/db", "https://directory.example.org", 8099, false},
		{"mongodb://db.internal:27017/providers", "http://127.0.0.1:8080", 8099, false},
		{"embedded:data/db", "http://127.0.0.1:8080", 70000, false},
		{"mongodb://db.internal:27017/providers", "https://directory.example.org", 0, true},
	}
	for _, tt := range tests {
		spec, err := storeopen.Parse(tt.store)
		if err != nil {
			t.Fatal(err)
		}
		err = checkReceiver(demoURLs{base: tt.base, receiver: tt.port}, spec)
		if (err == nil) != tt.ok {
			t.Errorf("store %s, base %s, port %d: %v; want ok %v", tt.store, tt.base, tt.port, err, tt.ok)
		}
	}
}

func TestDemoDir(t *testing.T) {
	tests := []struct {
		name  string
		dir   string
		store string
		want  string
	}{
		{"beside an embedded store", "", "embedded:/srv/pd/db", "/srv/pd"},
		{"beside the default store", "", config.DefaultStore, "data"},
		{"a MongoDB store keeps them where the default store would", "", "mongodb://db.internal:27017/providers", "data"},
		{"--dir wins", "/tmp/keys", "mongodb://db.internal:27017/providers", "/tmp/keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := storeopen.Parse(tt.store)
			if err != nil {
				t.Fatal(err)
			}
			if got := demoDir(tt.dir, spec); got != tt.want {
				t.Errorf("demoDir(%q, %s) = %q, want %q", tt.dir, tt.store, got, tt.want)
			}
		})
	}
}

// TestDemoOnMongo runs `make run`'s two providerctl steps against a MongoDB store: ingest the
// drop, then demo with no --dir, whose key files land in data/ under the working directory.
// It needs MONGODB_URI (scripts/with-mongotest.sh sets it) and skips without it, except in CI.
func TestDemoOnMongo(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		// CI must run it: a test that skipped there would pass while testing nothing.
		if os.Getenv("CI") != "" {
			t.Fatal("MONGODB_URI is not set; CI runs the tests through scripts/with-mongotest.sh")
		}
		t.Skip("MONGODB_URI is not set (scripts/with-mongotest.sh sets it)")
	}
	db := fmt.Sprintf("demotest_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	dbURI := withDatabase(t, uri, db)
	ctx := context.Background()
	t.Cleanup(func() {
		client, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			t.Errorf("connect to drop %s: %v", db, err)
			return
		}
		defer func() { _ = client.Disconnect(ctx) }()
		if err := client.Database(db).Drop(ctx); err != nil {
			t.Errorf("drop %s: %v", db, err)
		}
	})
	drop := filepath.Join(t.TempDir(), "drop")
	if _, err := synth.Generate(ctx, synth.Config{Providers: 300, Seed: 3, Out: drop, Reference: reference.Embedded()}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := invoke(t, nil, "ingest", "--store", dbURI, drop); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := invoke(t, nil, "demo", "--store", dbURI)
	if code != 0 {
		t.Fatalf("demo: exit %d: %s", code, stderr)
	}
	for _, name := range []string{demoKeyFile, config.SandboxKeyFile} {
		file := filepath.Join("data", name)
		if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, %v; want a file of mode 0600", file, fi, err)
		}
		if !strings.Contains(stdout, file) {
			t.Errorf("the tour does not name %s:\n%s", file, stdout)
		}
	}
}

// withDatabase puts db into the path of a MongoDB URI such as mongodb://host:port/?options.
func withDatabase(t *testing.T, uri, db string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatalf("MONGODB_URI: %v", err)
	}
	u.Path = "/" + db
	return u.String()
}

// TestMakeRunCommandsWork runs `make run` as a newcomer would, on free loopback ports with its
// data under a temporary directory, then runs every command the tour printed (curl's by their
// HTTP equivalent, providerctl's as printed) against the server it started: the webhook
// receiver among them, which must print the test delivery verified by its signature and the FHIR
// subscription's handshake verified by its channel header.
func TestMakeRunCommandsWork(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make runs the demo: %v", err)
	}
	dir := t.TempDir()
	addr, metrics, receiver := freeAddr(t), freeAddr(t), freeAddr(t)
	_, receiverPort, _ := net.SplitHostPort(receiver)
	base := "http://" + addr
	makeRun := exec.Command("make", "-s", "run", "BIN="+filepath.Join(dir, "bin"), "ADDR="+addr, "METRICS_ADDR="+metrics,
		"RECEIVER_PORT="+receiverPort, "DEMO_DIR="+filepath.Join(dir, "demo"), "DEMO_STORE=embedded:"+filepath.Join(dir, "db"), "PROVIDERS=300")
	makeRun.Dir = filepath.Join("..", "..")
	makeRun.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // providerd runs under make: stop both
	var stdout, stderr syncBuffer
	makeRun.Stdout, makeRun.Stderr = &stdout, &stderr
	if err := makeRun.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- makeRun.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-makeRun.Process.Pid, syscall.SIGTERM)
		<-exited
	})
	waitFor(t, 10*time.Minute, "providerd ready after make run", func() bool {
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("make run ended before serving: %v\n%s\n%s", err, stdout.String(), stderr.String())
		default:
		}
		res, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, &stderr)

	if n := strings.Count(stderr.String(), "warning: rows rejected"); n != 0 {
		t.Errorf("make run warned of rejected rows %d times:\n%s", n, stderr.String())
	}
	if n := strings.Count(stderr.String(), "deliberately malformed rows"); n != 1 {
		t.Errorf("make run said %d times that the drop's malformed rows are skipped, want once:\n%s", n, stderr.String())
	}
	tour := stdout.String()
	for _, want := range []string{"npx -y @modelcontextprotocol/inspector --cli " + filepath.Join(dir, "bin", "provider-mcp") + " -e SERVICE_BASE_URL=" + base + " ",
		"--token-url " + base + "/fhir/token"} {
		if !strings.Contains(tour, want) {
			t.Errorf("the tour lacks %q:\n%s", want, tour)
		}
	}

	sh := &tourShell{t: t, vars: map[string]string{}}
	ran := 0
	for _, cmd := range tourCommands(tour) {
		words := sh.words(cmd)
		switch {
		case words[0] == "npx": // fetches the MCP Inspector from npm: its URL is checked above
		case words[0] == "curl":
			sh.curl(words[1:])
		case strings.Contains(words[0], "=$("):
			sh.assign(words)
		case len(words) > 1 && words[1] == "webhook-listen":
			sh.listen(words)
		default:
			t.Fatalf("the tour printed a command the test does not know: %s", cmd)
		}
		ran++
	}
	if ran < 14 {
		t.Fatalf("ran %d commands of the tour, want every one of at least 14:\n%s", ran, tour)
	}
	if sh.listener == nil || len(sh.answers) == 0 {
		t.Fatalf("the tour printed no webhook receiver or no command it answered:\n%s", tour)
	}
	var eventID string
	for _, a := range sh.answers {
		var test struct {
			EventID string `json:"event_id"`
		}
		if json.Unmarshal(a, &test) == nil && test.EventID != "" {
			eventID = test.EventID
		}
	}
	if eventID == "" {
		t.Fatalf("no webhook test delivery was asked for:\n%s", tour)
	}
	waitFor(t, time.Minute, "the receiver verified the test delivery and the FHIR handshake", func() bool {
		out := sh.listened.String()
		return strings.Contains(out, "ping "+eventID+" verified by its signature") &&
			regexp.MustCompile(`handshake evt_\S+ verified by its channel header`).MatchString(out)
	}, &sh.listened)
	if strings.Contains(sh.listened.String(), "refused") {
		t.Errorf("the receiver refused a delivery:\n%s", sh.listened.String())
	}
}

// waitFor polls done until it holds or patience runs out, then fails showing log.
func waitFor(t *testing.T, patience time.Duration, what string, done func() bool, log *syncBuffer) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s:\n%s", what, patience, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// tourCommands are the commands of a printed tour: the lines whose text after the label column
// is a command.
func tourCommands(tour string) []string {
	var cmds []string
	for _, line := range strings.Split(tour, "\n") {
		if len(line) <= tourLabelWidth {
			continue
		}
		text := line[tourLabelWidth:]
		if strings.HasPrefix(text, " ") {
			continue
		}
		first, _, _ := strings.Cut(text, " ")
		if first == "curl" || first == "npx" || strings.Contains(first, "=$(") || filepath.Base(first) == "providerctl" {
			cmds = append(cmds, text)
		}
	}
	return cmds
}

// tourLabelWidth is the width of the tour's label column.
const tourLabelWidth = 20

// tourShell runs the tour's commands as a shell would, for the forms the tour prints: words in
// single quotes (literal) or double quotes, $NAME expanded outside single quotes, NAME=$(...).
type tourShell struct {
	t        *testing.T
	vars     map[string]string
	listener *exec.Cmd
	listened syncBuffer
	answers  [][]byte // the bodies curl was answered
}

func (sh *tourShell) words(line string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ' ':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				sh.t.Fatalf("unclosed quote: %s", line)
			}
			w.WriteString(line[i+1 : i+1+end])
			i, inWord = i+1+end, true
		case c == '"':
			end := strings.IndexByte(line[i+1:], '"')
			if end < 0 {
				sh.t.Fatalf("unclosed quote: %s", line)
			}
			w.WriteString(sh.expand(line[i+1 : i+1+end]))
			i, inWord = i+1+end, true
		case c == '$' && i+1 < len(line) && line[i+1] != '(':
			j := i + 1
			for j < len(line) && (line[j] == '_' || line[j] >= 'A' && line[j] <= 'Z') {
				j++
			}
			w.WriteString(sh.expand(line[i:j]))
			i, inWord = j-1, true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

var shellVar = regexp.MustCompile(`\$[A-Z_]+`)

func (sh *tourShell) expand(s string) string {
	return shellVar.ReplaceAllStringFunc(s, func(v string) string {
		val, ok := sh.vars[v[1:]]
		if !ok {
			sh.t.Fatalf("%s is not set by an earlier command of the tour", v)
		}
		return val
	})
}

// assign runs NAME=$(command ...) and sets NAME to its output, trimmed.
func (sh *tourShell) assign(words []string) {
	name, first, _ := strings.Cut(words[0], "=$(")
	cmd := append([]string{first}, words[1:]...)
	cmd[len(cmd)-1] = strings.TrimSuffix(cmd[len(cmd)-1], ")")
	out, err := exec.Command(cmd[0], cmd[1:]...).Output()
	if err != nil {
		sh.t.Fatalf("%s: %v", strings.Join(cmd, " "), err)
	}
	sh.vars[name] = strings.TrimSpace(string(out))
}

// listen starts the receiver until the test ends, and waits until it listens.
func (sh *tourShell) listen(words []string) {
	sh.listener = exec.Command(words[0], words[1:]...)
	sh.listener.Stdout, sh.listener.Stderr = &sh.listened, &sh.listened
	if err := sh.listener.Start(); err != nil {
		sh.t.Fatal(err)
	}
	sh.t.Cleanup(func() {
		_ = sh.listener.Process.Signal(os.Interrupt)
		_ = sh.listener.Wait()
	})
	waitFor(sh.t, 30*time.Second, "webhook-listen listening", func() bool {
		return strings.Contains(sh.listened.String(), "listening on")
	}, &sh.listened)
}

// curl sends the request of a curl command line of the tour's forms (-X, -H, -d, -D -) and
// requires a 2xx answer.
func (sh *tourShell) curl(args []string) {
	method, target := "", ""
	var body io.Reader
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-X":
			i++
			method = args[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(args[i], ":")
			header.Add(k, strings.TrimSpace(v))
		case "-d":
			i++
			body = strings.NewReader(args[i])
			method = cmp.Or(method, http.MethodPost)
			if header.Get("Content-Type") == "" {
				header.Set("Content-Type", "application/x-www-form-urlencoded") // as curl sends
			}
		case "-D":
			i++
		default:
			target = args[i]
		}
	}
	req, err := http.NewRequest(cmp.Or(method, http.MethodGet), target, body)
	if err != nil {
		sh.t.Fatal(err)
	}
	maps.Copy(req.Header, header)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		sh.t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		sh.t.Errorf("curl %s: %s\n%s", strings.Join(args, " "), res.Status, b)
	}
	sh.answers = append(sh.answers, b)
}
