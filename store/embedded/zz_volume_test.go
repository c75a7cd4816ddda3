package embedded

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"testing"
)

func TestZZVolume(t *testing.T) {
	dir := os.Getenv("ZZ_DB")
	if dir == "" {
		t.Skip()
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	it, _ := s.db.NewIter(nil)
	defer it.Close()
	type agg struct{ n, keyb, bodyb, vb, kb int64 }
	m := map[string]*agg{}
	get := func(k string) *agg {
		a := m[k]
		if a == nil {
			a = &agg{}
			m[k] = a
		}
		return a
	}
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		parts := bytes.Split(k, []byte{0})
		switch k[0] {
		case tagDoc:
			a := get("doc " + string(parts[2]))
			a.n++
			v := it.Value()
			_, kenc, body, err := splitDoc(v)
			if err != nil {
				t.Fatal(err)
			}
			a.keyb += int64(len(kenc))
			a.bodyb += int64(len(body))
			a.kb += int64(len(k))
		case tagIndex:
			a := get("idx " + string(parts[2]) + " " + string(parts[3]))
			a.n++
			a.kb += int64(len(k))
		}
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return m[names[i]].n*0+m[names[i]].kb+m[names[i]].keyb+m[names[i]].bodyb > m[names[j]].kb+m[names[j]].keyb+m[names[j]].bodyb })
	var tn, tk, tb, tkb int64
	for _, n := range names {
		a := m[n]
		tn += a.n
		tk += a.keyb
		tb += a.bodyb
		tkb += a.kb
		fmt.Printf("%-60s n=%10d keyb=%8.1fMB body=%8.1fMB pebblekeys=%8.1fMB\n", n, a.n, float64(a.keyb)/1e6, float64(a.bodyb)/1e6, float64(a.kb)/1e6)
	}
	fmt.Printf("TOTAL n=%d keyb=%.1fMB body=%.1fMB pebblekeys=%.1fMB\n", tn, float64(tk)/1e6, float64(tb)/1e6, float64(tkb)/1e6)
}
