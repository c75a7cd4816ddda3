package embedded

import (
	"bytes"
)

// source is one sorted run.
type source interface {
	next() (bool, error)
	key() []byte
	value() []byte
	seq() uint64
	close()
}

// sourceHeap is a min-heap of sources by their current (key, sequence). Each node holds its
// source's current key (after skip) beside it, so that comparisons read no method; a merge
// of hundreds of runs compares keys a dozen times per item, so those comparisons are a large
// part of a commit.
type sourceHeap struct {
	items []heapNode
	skip  int
}

type heapNode struct {
	src source
	key []byte // src.key()[skip:], valid until src moves
	seq uint64
}

func (h *sourceHeap) node(s source) heapNode {
	return heapNode{src: s, key: s.key()[h.skip:], seq: s.seq()}
}

func (a *heapNode) less(b *heapNode) bool {
	c := bytes.Compare(a.key, b.key)
	return c < 0 || c == 0 && a.seq < b.seq
}

// top is the smallest source.
func (h *sourceHeap) top() source { return h.items[0].src }

// start reads the first item of each source and orders them.
func (h *sourceHeap) start(srcs []source) error {
	for _, s := range srcs {
		ok, err := s.next()
		if err != nil {
			return err
		}
		if ok {
			h.items = append(h.items, h.node(s))
		}
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return nil
}

// advance moves the smallest source to its next item, dropping it when it is exhausted.
func (h *sourceHeap) advance() error {
	s := h.items[0].src
	ok, err := s.next()
	if err != nil {
		return err
	}
	if !ok {
		last := len(h.items) - 1
		s.close()
		h.items[0] = h.items[last]
		h.items = h.items[:last]
		h.down(0)
		return nil
	}
	h.items[0] = h.node(s)
	h.replaceTop()
	return nil
}

// down restores the order below i, two comparisons a level.
func (h *sourceHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h.items[r].less(&h.items[l]) {
			j = r
		}
		if !h.items[j].less(&h.items[i]) {
			return
		}
		h.items[i], h.items[j] = h.items[j], h.items[i]
		i = j
	}
}

// replaceTop places a new root. It first asks whether the root stays, two comparisons: the
// runs of a load whose documents came in id order hold each value's entries in id order, so
// the run that gave an entry usually gives the next one too while a value lasts (a state, a
// specialty, "true"). Otherwise a run's next key usually belongs near the bottom, so it walks
// the path of smaller children to a leaf (one comparison a level), then climbs back to where
// the root goes: about half the comparisons of down.
func (h *sourceHeap) replaceTop() {
	n := len(h.items)
	if n < 2 {
		return
	}
	j := 1
	if n > 2 && h.items[2].less(&h.items[1]) {
		j = 2
	}
	if !h.items[j].less(&h.items[0]) {
		return
	}
	root := h.items[0]
	h.items[0] = h.items[j]
	i := j
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.items[r].less(&h.items[l]) {
			j = r
		}
		h.items[i] = h.items[j]
		i = j
	}
	for i > 0 {
		parent := (i - 1) / 2
		if !root.less(&h.items[parent]) {
			break
		}
		h.items[i] = h.items[parent]
		i = parent
	}
	h.items[i] = root
}

// memRun is the sorted buffer still in memory at Commit. k starts as the prefix its list's
// buffered keys leave out; next appends the current key to it.
type memRun struct {
	buf    *loadBuffer
	items  []item
	pos    int
	k      []byte
	prefix int
}

func (r *memRun) next() (bool, error) {
	if r.pos >= len(r.items) {
		return false, nil
	}
	if r.pos == 0 {
		r.prefix = len(r.k)
	}
	r.k = append(r.k[:r.prefix], r.buf.key(r.items[r.pos])...)
	r.pos++
	return true, nil
}

func (r *memRun) key() []byte   { return r.k }
func (r *memRun) value() []byte { return r.buf.value(r.items[r.pos-1]) }
func (r *memRun) seq() uint64   { return r.items[r.pos-1].seq }
func (r *memRun) close()        {}
