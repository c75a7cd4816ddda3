package supply_test

import (
	"os"
	"path/filepath"
	"testing"

	"providerdir/internal/httpserver"
	"providerdir/rest/gate"
	"providerdir/source/synth"
	"providerdir/store"
	"providerdir/testing/apiclient"
	"providerdir/testing/demostore"
	"providerdir/testing/handclock"
	"providerdir/testing/liveserver"
)

func TestMain(m *testing.M) { demostore.Main(m) }

// demoSnapshot is the shared demo snapshot: its store, source drop and generation manifest.
func demoSnapshot(tb testing.TB) (store.Store, string, *synth.Manifest) {
	d := demostore.Open(tb)
	return d.Store, d.Drop, d.Manifest
}

// referenceDir is the repository's copy of the reference files, which the independent
// recomputation reads from disk rather than through the files built into the binary.
func referenceDir(tb testing.TB) string {
	return filepath.Join(repoRoot(tb), "source", "reference")
}

// repoRoot is the directory holding go.mod.
func repoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// env is one running server over a store: the real router, middleware, gate (keys and quotas
// in the store) and supply API, the resolver beside it, with a clock the test moves; and the
// client address a test plays against it.
type env struct {
	apiclient.Client
	clock *handclock.Clock
	store store.Store
}

// newEnv serves the supply API over st. Its base URL is the server's own, so that the links in
// responses can be followed.
func newEnv(tb testing.TB, st store.Store) *env {
	tb.Helper()
	e := &env{clock: handclock.New(), store: st}
	srv := liveserver.Start(tb, st, liveserver.Options{Now: e.clock.Now}, func(base string, g *gate.Gate) []httpserver.Surface {
		return []httpserver.Surface{liveserver.Supply(st, base, g), liveserver.Resolver(st, g)}
	})
	e.Client = apiclient.NewClient(srv)
	return e
}

// demoEnv is newEnv over the demo snapshot.
func demoEnv(tb testing.TB) *env {
	st, _, _ := demoSnapshot(tb)
	return newEnv(tb, st)
}
