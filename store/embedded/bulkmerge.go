package embedded

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// openRuns opens runs and adds a list still in memory. Beyond the store's fan-in, groups of
// runs are merged together first (name tells the merged files apart): each group is of runs
// not merged before, and only as many as bring the count down to the fan-in, so an item is
// rewritten at most once until there are more than fan-in squared runs. (Merging the first
// fan-in runs into one and that one with the next ones would rewrite the oldest items once per
// group.) Every
// item keeps its sequence number, so the order of runs does not matter.
func (l *loading) openRuns(ctx context.Context, paths []string, name string, last []item, prefix []byte, kind runKind) ([]source, error) {
	fanIn := l.s.cfg.loadFanIn
	for merged := 0; len(paths) > fanIn; merged++ {
		group := min(fanIn, len(paths)-fanIn+1) // merging g runs leaves g-1 fewer
		out := filepath.Join(l.dir, fmt.Sprintf("merged-%06d.%s", merged, name))
		if err := mergeRuns(ctx, paths[:group], out, prefix, kind); err != nil {
			return nil, err
		}
		paths = append(paths[group:], out)
	}
	var out []source
	for _, p := range paths {
		r, err := openRun(p, prefix)
		if err != nil {
			for _, o := range out {
				o.close()
			}
			return nil, err
		}
		out = append(out, r)
	}
	return append(out, &memRun{buf: l.buf, items: last, k: bytes.Clone(prefix)}), nil
}

// mergeDocs merges the document runs, each key range on its own core, records the stale index
// entries of superseded versions into stale, and returns the tables in key order and the
// number of documents.
func (l *loading) mergeDocs(ctx context.Context, stale map[string]struct{}) ([]string, int64, error) {
	parts := len(l.splits) + 1
	streamed := make([]string, parts)
	if l.streamed > 0 {
		var err error
		if streamed, err = l.splitStreamed(parts); err != nil {
			return nil, 0, err
		}
	}
	last := l.buf.partition(l.buf.docs, l.splits)
	tables := make([][]string, parts)
	counts := make([]int64, parts)
	stales := make([]map[string]struct{}, parts)
	err := l.parallel(parts, func(j int) error {
		var paths []string
		if streamed[j] != "" {
			paths = append(paths, streamed[j])
		}
		for n := range l.runs {
			paths = append(paths, l.runPath(n, fmt.Sprintf("d%d", j)))
		}
		name := fmt.Sprintf("d%d", j)
		srcs, err := l.openRuns(ctx, paths, name, last[j], docPrefix(l.gen, l.coll), docRun)
		if err != nil {
			return err
		}
		m := merger{ctx: ctx, skip: l.skip, stale: map[string]struct{}{}, gen: l.gen, coll: l.coll}
		tw := &tableWriter{dir: l.dir, name: "table-" + name, opts: l.s.docTableOptions(), cached: l.readBack}
		if counts[j], err = m.mergeDocs(srcs, tw); err != nil {
			tw.abandon()
			return err
		}
		tables[j], stales[j] = tw.paths, m.stale
		if err := tw.cut(); err != nil {
			return err
		}
		return removeRuns(l.dir, name)
	})
	if err != nil {
		return nil, 0, err
	}
	var count int64
	for j := range parts {
		count += counts[j]
		maps.Copy(stale, stales[j])
	}
	return slices.Concat(tables...), count, nil
}

// splitStreamed cuts the run of documents streamed before the first out-of-order one at the
// split points, one file per partition.
func (l *loading) splitStreamed(parts int) ([]string, error) {
	src := filepath.Join(l.dir, "streamed.docs")
	paths := make([]string, parts)
	for j := range paths {
		paths[j] = filepath.Join(l.dir, fmt.Sprintf("streamed.d%d", j))
	}
	if parts == 1 {
		return paths, os.Rename(src, paths[0])
	}
	r, err := openRun(src, docPrefix(l.gen, l.coll))
	if err != nil {
		return nil, err
	}
	defer r.close()
	j := 0
	w, err := createRun(paths[j], l.skip, docRun)
	if err != nil {
		return nil, err
	}
	for {
		ok, err := r.next()
		if err != nil || !ok {
			if err != nil {
				w.abandon()
				return nil, err
			}
			break
		}
		for j < len(l.splits) && bytes.Compare(r.key()[l.skip:], l.splits[j]) >= 0 {
			if err := w.finish(); err != nil {
				return nil, err
			}
			j++
			if w, err = createRun(paths[j], l.skip, docRun); err != nil {
				return nil, err
			}
		}
		w.put(r.key(), r.seq(), r.value())
	}
	if err := w.finish(); err != nil {
		return nil, err
	}
	clear(paths[j+1:]) // partitions past the streamed keys have no streamed file
	return paths, nil
}

// removeRuns deletes the runs (spilled, streamed, merged) of one partition or param as soon as
// its tables are written, so that a commit's disk peak is its runs plus the tables of the
// merges in flight, not runs plus all tables.
func removeRuns(dir, name string) error {
	runs, err := filepath.Glob(filepath.Join(dir, "*."+name))
	if err != nil {
		return err
	}
	for _, r := range runs {
		if err := os.Remove(r); err != nil {
			return fmt.Errorf("embedded: load: %w", err)
		}
	}
	return nil
}

// parallel runs f(0) .. f(n-1), each in one of the store's merge slots (as many at once as
// there are cores, across every load committing), and joins their errors.
func (l *loading) parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := l.s.merges
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// mergeParams merges each param's entry runs into tables of its own, several params at once,
// and returns the tables in key order. stale is only read.
func (l *loading) mergeParams(ctx context.Context, stale map[string]struct{}) ([]string, error) {
	set := map[string]struct{}{}
	for p := range l.paramRuns {
		set[p] = struct{}{}
	}
	for p, pi := range l.buf.entries {
		if len(pi.items) > 0 {
			set[p] = struct{}{}
		}
	}
	for p := range l.entryStreams {
		set[p] = struct{}{} // streamed whole, or turned into a run
	}
	params := slices.Sorted(maps.Keys(set))
	tables := make([][]string, len(params))
	paths := make([][]string, len(params))
	names := make([]string, len(params))
	for i, p := range params {
		if run, ok := l.streamedRuns[p]; ok {
			paths[i] = append(paths[i], run)
		}
		for _, n := range l.paramRuns[p] {
			paths[i] = append(paths[i], l.entryRunPath(n, p))
		}
		names[i] = l.paramName(p)
	}
	order, err := largestFirst(paths, func(i int) int64 { return int64(len(l.buf.entriesOf(params[i]))) * itemSize })
	if err != nil {
		return nil, err
	}
	err = l.parallel(len(params), func(k int) error {
		i := order[k]
		if es := l.entryStreams[params[i]]; es != nil && es.on {
			// Every entry of the param came in order: its stream's tables are its entries.
			tables[i] = es.tw.paths
			return es.tw.cut()
		}
		srcs, err := l.openRuns(ctx, paths[i], names[i], l.buf.entriesOf(params[i]), paramPrefix(l.gen, l.coll, params[i]), entryRun)
		if err != nil {
			return err
		}
		m := merger{ctx: ctx, skip: l.skip, stale: stale}
		tw := &tableWriter{dir: l.dir, name: "table-" + names[i], opts: l.s.entryTableOptions()}
		if err := m.mergeEntries(srcs, tw); err != nil {
			tw.abandon()
			return err
		}
		tables[i] = tw.paths
		if err := tw.cut(); err != nil {
			return err
		}
		return removeRuns(l.dir, names[i])
	})
	if err != nil {
		return nil, err
	}
	return slices.Concat(tables...), nil
}

// largestFirst orders merges by the bytes they read, largest first: runs' sizes on disk
// (paths[i] are merge i's) plus buffered bytes. Merges share one slot per core, and when the
// last to start is a large one, the other cores sit idle while it finishes.
func largestFirst(paths [][]string, buffered func(i int) int64) ([]int, error) {
	sizes := make([]int64, len(paths))
	for i, ps := range paths {
		sizes[i] = buffered(i)
		for _, p := range ps {
			info, err := os.Stat(p)
			if err != nil {
				return nil, fmt.Errorf("embedded: load: %w", err)
			}
			sizes[i] += info.Size()
		}
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	return order, nil
}

// merger merges runs into tables, keeping the last version of each key.
type merger struct {
	ctx       context.Context
	skip      int
	gen, coll string
	stale     map[string]struct{} // index entries only superseded documents had
	steps     int
}

func (m *merger) tick() error {
	m.steps++
	if m.steps%4096 == 0 {
		return m.ctx.Err()
	}
	return nil
}

// mergeDocs writes the last version of each document and returns how many documents there are.
func (m *merger) mergeDocs(srcs []source, tw *tableWriter) (int64, error) {
	var count int64
	err := m.merge(srcs, func(key, value []byte, older [][]byte) error {
		count++
		if len(older) > 0 {
			if err := m.markStale(key[m.skip:], value, older); err != nil {
				return err
			}
		}
		return tw.add(key, value)
	})
	return count, err
}

// markStale records the index entries of a document's superseded versions that its last
// version does not have.
func (m *merger) markStale(id, last []byte, older [][]byte) error {
	keep := map[string]bool{}
	lastKeys, _, err := decodeKeys(last)
	if err != nil {
		return fmt.Errorf("%w: document %q", err, id)
	}
	for _, k := range lastKeys {
		keep[string(indexKey(m.gen, m.coll, k.Param, k.Value, string(id)))] = true
	}
	for _, v := range older {
		keys, _, err := decodeKeys(v)
		if err != nil {
			return fmt.Errorf("%w: document %q", err, id)
		}
		for _, k := range keys {
			if ik := string(indexKey(m.gen, m.coll, k.Param, k.Value, string(id))); !keep[ik] {
				m.stale[ik] = struct{}{}
			}
		}
	}
	return nil
}

// mergeEntries writes the last version of each index entry that is not stale.
func (m *merger) mergeEntries(srcs []source, tw *tableWriter) error {
	checkStale := len(m.stale) > 0 // almost always empty: hashing every key for nothing is not free
	return m.merge(srcs, func(key, value []byte, _ [][]byte) error {
		if checkStale {
			if _, ok := m.stale[string(key)]; ok {
				return nil
			}
		}
		return tw.add(key, value)
	})
}

// merge walks the sources in (key, sequence) order and calls emit once per key with its last
// value and, when the key came more than once, the earlier values (oldest first). The slices
// passed to emit are valid only during the call.
func (m *merger) merge(srcs []source, emit func(key, value []byte, older [][]byte) error) error {
	h := sourceHeap{skip: m.skip}
	defer func() {
		for _, s := range srcs {
			s.close()
		}
	}()
	if err := h.start(srcs); err != nil {
		return err
	}
	var key, value []byte
	var older [][]byte
	for len(h.items) > 0 {
		if err := m.tick(); err != nil {
			return err
		}
		top := h.top()
		key = append(key[:0], top.key()...)
		value = append(value[:0], top.value()...)
		older = older[:0]
		if err := h.advance(); err != nil {
			return err
		}
		for len(h.items) > 0 && bytes.Equal(h.top().key(), key) {
			older = append(older, bytes.Clone(value))
			value = append(value[:0], h.top().value()...)
			if err := h.advance(); err != nil {
				return err
			}
		}
		if err := emit(key, value, older); err != nil {
			return err
		}
	}
	return nil
}
