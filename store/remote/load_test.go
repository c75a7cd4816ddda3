package remote

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"providerdir/store"
	"providerdir/store/embedded"
)

// A load its client abandoned is aborted once idle, without another load starting: its files
// go, its id answers ErrInvalid, and the collection can be loaded again.
func TestIdleLoadIsAborted(t *testing.T) {
	dir := t.TempDir()
	st, err := embedded.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	loads := newLoadTable(st, 20*time.Millisecond)
	id, err := loads.start(t.Context(), "g1", "c")
	if err != nil {
		t.Fatal(err)
	}
	doc := store.Document{ID: "a", Body: []byte(`{}`), Keys: []store.Key{{Param: "k", Value: "v"}}}
	if err := loads.with(id, false, func(ld store.Loading) error { return ld.Add(t.Context(), []store.Document{doc}) }); err != nil {
		t.Fatal(err)
	}
	// The table forgets the load, then the abort removes its files.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		loads.mu.Lock()
		n := len(loads.loads)
		loads.mu.Unlock()
		left, err := os.ReadDir(filepath.Join(dir, "loads"))
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 && len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an idle load was never aborted: %d loads held, %d entries in loads/", n, len(left))
		}
	}
	if err := loads.with(id, false, func(store.Loading) error { return nil }); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a call on the aborted load: %v, want ErrInvalid", err)
	}
	again, err := loads.start(t.Context(), "g1", "c")
	if err != nil {
		t.Fatal(err)
	}
	if err := loads.with(again, true, func(ld store.Loading) error { return ld.Commit(t.Context()) }); err != nil {
		t.Fatal(err)
	}
}
