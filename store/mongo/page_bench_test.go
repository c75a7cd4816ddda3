package mongo_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"providerdir/catalog"
	"providerdir/fhir"
	"providerdir/ingest"
	"providerdir/internal/httpserver"
	"providerdir/smart"
	"providerdir/source/reference"
	"providerdir/source/synth"
	"providerdir/store"
	mongostore "providerdir/store/mongo"
	"providerdir/testing/backends"
)

// specialtyPage is the search of providerbench's specialty scenario: a page of cardiology roles
// with the practitioners they name.
const specialtyPage = "/fhir/PractitionerRole?specialty=http://nucc.org/provider-taxonomy|207RC0000X&_include=PractitionerRole:practitioner"

// pageCollections are what the page reads: the roles, the practitioners they include and the
// tag sets the resources' provenance names.
var pageCollections = []string{catalog.FHIRCollection("PractitionerRole"), catalog.FHIRCollection("Practitioner"), catalog.FHIRTags}

// BenchmarkSpecialtyPage serves the specialty page from this backend through the FHIR handler
// and drives it with PAGE_BENCH_CLIENTS concurrent clients (16) for PAGE_BENCH_DURATION (15s);
// beside it the dependency's ceiling: the database commands one page sends, captured with the
// driver's command monitor, replayed straight through the driver by as many clients, each
// page's include reads all at once; then the page's query alone the same way, and one client
// alone for a third of the time: ours, the commands replayed, and the includes read with one
// $in query instead. The snapshot is a synthetic drop of PAGE_BENCH_PROVIDERS providers
// ingested into an embedded store, whose page collections are copied into a database of their
// own on the server at MONGODB_URI (dropped afterwards). The page must be byte for byte the one
// the embedded store serves. It reports p50 and p99 latency and pages a
// second of both, the round trips (commands) of one page and the entries it holds.
func BenchmarkSpecialtyPage(b *testing.B) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" || os.Getenv("PAGE_BENCH_PROVIDERS") == "" {
		b.Skip("runs with PAGE_BENCH_PROVIDERS and MONGODB_URI set (scripts/bench.sh sets both)")
	}
	providers := envInt(b, "PAGE_BENCH_PROVIDERS", 0)
	clients := envInt(b, "PAGE_BENCH_CLIENTS", 16)
	duration, err := time.ParseDuration(envOr("PAGE_BENCH_DURATION", "15s"))
	if err != nil {
		b.Fatalf("PAGE_BENCH_DURATION: %v", err)
	}
	ctx := context.Background()

	emb := ingested(b, providers)
	var commands commandLog
	dbName := fmt.Sprintf("pagebench_%d", os.Getpid())
	ms, err := mongostore.OpenMonitored(ctx, uriWithDatabase(uri, dbName), commands.monitor())
	if err != nil {
		b.Fatal(err)
	}
	bare, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = bare.Database(dbName).Drop(context.Background())
		_ = bare.Disconnect(context.Background())
		_ = ms.Close()
	})
	start := time.Now()
	copyPageCollections(b, emb, ms)
	b.Logf("copied the page's collections in %s", time.Since(start).Round(time.Millisecond))

	// One clock for both servers, so that their pages can be compared byte for byte.
	now := func() time.Time { return time.Date(2025, 6, 9, 0, 0, 0, 0, time.UTC) }
	ours := serve(b, ms, now)
	want := fetch(b, serve(b, emb, now)+specialtyPage)
	got := fetch(b, ours+specialtyPage)
	if !bytes.Equal(withoutBundleID(got), withoutBundleID(want)) {
		b.Fatalf("the page differs between the backends:\nmongo    %.300s\nembedded %.300s", got, want)
	}
	entries := bytes.Count(got, []byte(`"fullUrl"`))

	// The page's round trips, with the serving snapshot and the tag sets already read. Only the
	// commands on data collections are the page's own: the serving pointer is read once a
	// second whatever the load.
	fetch(b, ours+specialtyPage)
	commands.record(true)
	t := time.Now()
	fetch(b, ours+specialtyPage)
	alone := time.Since(t)
	recorded, what := commands.record(false)
	page := dataCommands(recorded)
	b.Logf("one page alone: %s, %d commands: %s", alone.Round(time.Millisecond), len(recorded), what)
	if len(page) == 0 {
		b.Fatal("the page sent no command on a data collection")
	}

	db, inPage := bare.Database(dbName), asOneIn(b, page)
	b.ResetTimer()
	runs := []struct {
		name, metric string
		clients      int
		duration     time.Duration
		page         func() error
	}{
		{"ours", "ours", clients, duration, func() error { _, err := get(ours + specialtyPage); return err }},
		{"bare driver, the page's commands", "bare", clients, duration, func() error { return replay(ctx, db, page) }},
		{"bare driver, the page's query alone", "query", clients, duration, func() error { return replay(ctx, db, page[:1]) }},
		// One client alone: what a page costs without queueing, and how else the includes
		// could be read (one $in query instead of the point reads).
		{"ours, one client", "ours1", 1, duration / 3, func() error { _, err := get(ours + specialtyPage); return err }},
		{"bare driver, one client, the page's commands", "bare1", 1, duration / 3, func() error { return replay(ctx, db, page) }},
		{"bare driver, one client, includes as one $in", "in1", 1, duration / 3, func() error { return replay(ctx, db, inPage) }},
	}
	for _, run := range runs {
		r := drive(run.clients, run.duration, run.page)
		b.Logf("%s: %d clients, %d pages, p50 %.1f ms, p99 %.1f ms, %.2f pages/s, %d errors (first: %v)",
			run.name, run.clients, len(r.latencies), r.p(50), r.p(99), r.rate(), r.errors, r.first)
		b.ReportMetric(r.p(50), run.metric+"-p50-ms")
		b.ReportMetric(r.p(99), run.metric+"-p99-ms")
		b.ReportMetric(r.rate(), run.metric+"-pages/s")
		b.ReportMetric(float64(r.errors), run.metric+"-errors")
	}
	b.StopTimer()
	b.ReportMetric(float64(providers), "providers")
	b.ReportMetric(float64(clients), "clients")
	b.ReportMetric(float64(entries), "entries/page")
	b.ReportMetric(float64(len(page)), "round-trips/page")
}

// dataCommands are the commands on data collections.
func dataCommands(cmds []bson.Raw) []bson.Raw {
	var out []bson.Raw
	for _, c := range cmds {
		if e, err := c.IndexErr(0); err == nil && strings.HasPrefix(e.Value().StringValue(), "data~") {
			out = append(out, c)
		}
	}
	return out
}

// asOneIn turns a page's point reads (a find by _id each, after the page's query) into one find
// of all their ids with $in, as the store reads includes from MongoDB. A page whose include
// reads are not all point reads of one collection (MongoDB's already are $in queries) is
// returned as it is.
func asOneIn(b *testing.B, page []bson.Raw) []bson.Raw {
	var ids bson.A
	var coll string
	var projection bson.RawValue
	for _, c := range page[1:] {
		name, id := c.Index(0).Value().StringValue(), c.Lookup("filter", "_id")
		if id.Type != bson.TypeString || coll != "" && name != coll {
			return page
		}
		coll, projection = name, c.Lookup("projection")
		ids = append(ids, id)
	}
	if len(ids) < 2 {
		return page
	}
	cmd, err := bson.Marshal(bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}},
		{Key: "projection", Value: projection}})
	if err != nil {
		b.Fatal(err)
	}
	return []bson.Raw{page[0], cmd}
}

// withoutBundleID blanks the Bundle's id, which is random.
func withoutBundleID(page []byte) []byte {
	const head = `{"resourceType":"Bundle","id":"`
	out := slices.Clone(page)
	if bytes.HasPrefix(out, []byte(head)) && len(out) >= len(head)+32 {
		copy(out[len(head):len(head)+32], strings.Repeat("0", 32))
	}
	return out
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(b *testing.B, name string, def int) int {
	n, err := strconv.Atoi(envOr(name, strconv.Itoa(def)))
	if err != nil || n < 1 {
		b.Fatalf("%s: want a positive number, got %q", name, os.Getenv(name))
	}
	return n
}

// uriWithDatabase sets a single-host URI's database path.
func uriWithDatabase(uri, db string) string {
	scheme, rest, _ := strings.Cut(uri, "://")
	hosts, query, _ := strings.Cut(rest, "?")
	hosts, _, _ = strings.Cut(hosts, "/")
	if query != "" {
		query = "?" + query
	}
	return scheme + "://" + hosts + "/" + db + query
}

// ingested generates a drop of n providers and ingests it into an embedded store.
func ingested(b *testing.B, n int) store.Store {
	dir := b.TempDir()
	ctx := context.Background()
	ref := reference.Embedded()
	if _, err := synth.Generate(ctx, synth.Config{Providers: int64(n), Seed: 7, Out: dir + "/drop", Reference: ref}); err != nil {
		b.Fatal(err)
	}
	st := backends.Embedded(b)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := ingest.Run(ctx, ingest.Options{Store: st, Dir: dir + "/drop", Reference: ref, Log: quiet}); err != nil {
		b.Fatal(err)
	}
	return st
}

// copyPageCollections copies the serving generations of the page's collections from one store
// into another, and serves them there.
func copyPageCollections(b *testing.B, from, to store.Store) {
	ctx := context.Background()
	snap, err := store.Serving(ctx, from)
	if err != nil {
		b.Fatal(err)
	}
	changes := map[string]string{}
	for _, coll := range pageCollections {
		gen := snap.Generation(coll)
		if gen == "" {
			b.Fatalf("the snapshot serves no %s", coll)
		}
		q := store.Query{Collection: coll, Generation: gen, Limit: 1000}
		for {
			page, err := from.Find(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			if err := to.Put(ctx, gen, coll, page.Docs); err != nil {
				b.Fatal(err)
			}
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
		changes[coll] = gen
	}
	cur, err := store.Serving(ctx, to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.Switch(ctx, to, cur, changes, "page benchmark"); err != nil {
		b.Fatal(err)
	}
}

// serve runs the FHIR surface over st on loopback, as providerd does with public reads, and
// returns its root URL. Both servers name themselves by one base URL, so that their pages can be
// compared byte for byte.
func serve(b *testing.B, st store.Store, now func() time.Time) string {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ln := httptest.NewUnstartedServer(nil)
	srv := fhir.New(fhir.Config{Store: st, BaseURL: "https://directory.example/fhir", PublicRead: true, Now: now, Log: quiet,
		GrantFrom: func(ctx context.Context) (fhir.Grant, bool) { return smart.GrantFrom(ctx) }})
	public := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(smart.WithGrant(r.Context(), smart.Grant{Public: true})))
		})
	}
	h, err := httpserver.New(httpserver.Options{Logger: quiet, Surfaces: []httpserver.Surface{{Name: "fhir", Prefix: "/fhir", Error: fhir.Error,
		Routes: func(r *mux.Router) { r.Use(public); srv.Routes(r) }}}})
	if err != nil {
		b.Fatal(err)
	}
	ln.Config.Handler = h
	ln.Start()
	b.Cleanup(ln.Close)
	return ln.URL
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

func get(u string) ([]byte, error) {
	resp, err := client.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s: %d %.200s", u, resp.StatusCode, body)
	}
	return body, err
}

func fetch(b *testing.B, u string) []byte {
	body, err := get(u)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// commandLog keeps the commands the store sends while recording, and how long the server took
// to answer each (by request id).
type commandLog struct {
	on   atomic.Bool
	mu   sync.Mutex
	cmds []bson.Raw
	ids  []int64
	took map[int64]time.Duration
}

func (l *commandLog) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if !l.on.Load() {
				return
			}
			l.mu.Lock()
			l.cmds = append(l.cmds, slices.Clone(e.Command))
			l.ids = append(l.ids, e.RequestID)
			l.mu.Unlock()
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			if !l.on.Load() {
				return
			}
			l.mu.Lock()
			if l.took == nil {
				l.took = map[int64]time.Duration{}
			}
			l.took[e.RequestID] = e.Duration
			l.mu.Unlock()
		},
	}
}

// record starts (on) or stops recording. Stopping returns the commands recorded and says what
// they were: how many of each command on each collection, and the server's time for them.
func (l *commandLog) record(on bool) ([]bson.Raw, string) {
	l.on.Store(on)
	l.mu.Lock()
	defer l.mu.Unlock()
	count := map[string]int{}
	took := map[string]time.Duration{}
	var order []string
	for i, c := range l.cmds {
		e, _ := c.IndexErr(0)
		name := e.Key() + " " + e.Value().StringValue()
		if count[name] == 0 {
			order = append(order, name)
		}
		count[name]++
		took[name] += l.took[l.ids[i]]
	}
	parts := make([]string, len(order))
	for i, n := range order {
		parts[i] = fmt.Sprintf("%d× %s (%s in all)", count[n], n, took[n].Round(time.Millisecond))
	}
	cmds := l.cmds
	l.cmds, l.ids, l.took = nil, nil, nil
	return cmds, strings.Join(parts, ", ")
}

// sessionFields are what the driver adds to every command it sends; RunCommand adds its own.
var sessionFields = map[string]bool{"lsid": true, "$db": true, "$clusterTime": true, "$readPreference": true, "maxTimeMS": true}

// replay sends the page's commands as the page does: the first (the page's query), then the
// others (its include reads) all at once, each read to its last batch.
func replay(ctx context.Context, db *mongo.Database, cmds []bson.Raw) error {
	run := func(raw bson.Raw) error {
		elems, err := raw.Elements()
		if err != nil {
			return err
		}
		cmd := bson.D{}
		for _, e := range elems {
			if !sessionFields[e.Key()] {
				cmd = append(cmd, bson.E{Key: e.Key(), Value: e.Value()})
			}
		}
		cur, err := db.RunCommandCursor(ctx, cmd)
		if err != nil {
			return err
		}
		defer cur.Close(ctx)
		for cur.Next(ctx) {
		}
		return cur.Err()
	}
	if len(cmds) == 0 {
		return nil
	}
	if err := run(cmds[0]); err != nil {
		return err
	}
	errs := make(chan error, len(cmds)-1)
	for _, c := range cmds[1:] {
		go func() { errs <- run(c) }()
	}
	var first error
	for range cmds[1:] {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// loadResult is what drive measured.
type loadResult struct {
	latencies []time.Duration
	elapsed   time.Duration
	errors    int
	first     error
}

func (r loadResult) p(q int) float64 {
	if len(r.latencies) == 0 {
		return 0
	}
	return float64(r.latencies[(len(r.latencies)-1)*q/100]) / float64(time.Millisecond)
}

func (r loadResult) rate() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

// drive runs f in a loop on each of n clients for d, each call as soon as the client's last
// one answered, and returns the sorted latencies of the calls that succeeded.
func drive(n int, d time.Duration, f func() error) loadResult {
	var mu sync.Mutex
	var r loadResult
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(d)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(end) {
				t := time.Now()
				err := f()
				if err != nil {
					mu.Lock()
					if r.errors++; r.first == nil {
						r.first = err
					}
					mu.Unlock()
					continue
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			r.latencies = append(r.latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	slices.Sort(r.latencies)
	return r
}
