package embedded

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"providerdir/store"
)

// TestHoldsAtScale writes PROVIDERDIR_STORE_SCALE registry-sized documents (25000000 for the
// national registry's documents) into a fresh store and checks that gets, exact finds, prefix
// finds and counts still answer, reporting write rate, query times, disk use and peak memory. It
// is a measurement, run only when asked:
//
//	PROVIDERDIR_STORE_SCALE=25000000 go test -run TestHoldsAtScale -v -timeout 2h ./store/embedded/
func TestHoldsAtScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PROVIDERDIR_STORE_SCALE"))
	if n <= 0 {
		t.Skip("set PROVIDERDIR_STORE_SCALE to run the scale measurement")
	}
	dir := os.Getenv("PROVIDERDIR_SCALE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	dir = filepath.Join(dir, "store-scale")
	os.RemoveAll(dir)
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	states := []string{"CA", "TX", "FL", "NY", "PA", "IL", "OH", "GA", "NC", "MI"}
	body := []byte(`{"record":{"npi":"%s","entity_type":"individual","name":{"first":"Alex","last":"Rivera"},"practice_address":{"city":"Springfield","state":"CA","postal_code":"62701"}},"provenance":{"_source":"x"}}`)
	start := time.Now()
	const batch = 1000
	docs := make([]store.Document, 0, batch)
	for i := range n {
		id := fmt.Sprintf("%010d", i)
		docs = append(docs, store.Document{ID: id, Body: body, Keys: []store.Key{
			{Param: "npi", Value: id},
			{Param: "state", Value: states[i%len(states)]},
			{Param: "family", Value: fmt.Sprintf("name%05d", i%50000)},
			{Param: "active", Value: strconv.FormatBool(i%10 != 0)},
		}})
		if len(docs) == batch || i == n-1 {
			if err := s.Put(ctx, "g1", "docs", docs); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
		if (i+1)%5_000_000 == 0 {
			t.Logf("%d documents written, %.0f docs/s", i+1, float64(i+1)/time.Since(start).Seconds())
		}
	}
	t.Logf("wrote %d documents in %s: %.0f docs/s", n, time.Since(start).Round(time.Second), float64(n)/time.Since(start).Seconds())

	timed := func(what string, f func() error) {
		t.Helper()
		began := time.Now()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %s", what, time.Since(began))
	}
	timed("get one document", func() error {
		_, err := s.Get(ctx, "g1", "docs", fmt.Sprintf("%010d", n/2))
		return err
	})
	timed("find by exact npi", func() error {
		p, err := s.Find(ctx, store.Query{Collection: "docs", Generation: "g1", Where: []store.Condition{{Param: "npi", Values: []string{fmt.Sprintf("%010d", n-1)}}}})
		if err == nil && len(p.Docs) != 1 {
			err = fmt.Errorf("%d docs", len(p.Docs))
		}
		return err
	})
	timed("find state AND family, first page", func() error {
		_, err := s.Find(ctx, store.Query{Collection: "docs", Generation: "g1", Where: []store.Condition{
			{Param: "state", Values: []string{"TX"}}, {Param: "family", Values: []string{"name00001"}}}})
		return err
	})
	timed("find by family prefix, first page", func() error {
		_, err := s.Find(ctx, store.Query{Collection: "docs", Generation: "g1", Where: []store.Condition{{Param: "family", Values: []string{"name0004"}, Match: store.Prefix}}})
		return err
	})
	timed("count all documents", func() error {
		c, err := s.Count(ctx, store.Query{Collection: "docs", Generation: "g1"})
		if err == nil && c != int64(n) {
			err = fmt.Errorf("count %d, want %d", c, n)
		}
		return err
	})
	var size int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			size += info.Size()
		}
		return nil
	})
	t.Logf("on disk: %.1f GB; peak resident memory: %s", float64(size)/1e9, peakRSS())
}

func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}
