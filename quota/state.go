package quota

import (
	"encoding/binary"
	"fmt"
	"time"
)

// bucket is the number of admitted requests in one step of a window.
type bucket struct {
	idx int64 // start of the bucket, in steps since the Unix epoch
	n   int64
}

// windowState is one window's non-empty buckets, oldest first.
type windowState struct {
	w       Window
	buckets []bucket
}

// floorDiv divides rounding toward minus infinity, so buckets before 1970 stay aligned too.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func (ws *windowState) bucketOf(t time.Time) int64 { return floorDiv(t.UnixNano(), int64(ws.w.Step)) }

// release is when the requests of bucket idx stop counting.
func (ws *windowState) release(idx int64) time.Time {
	return time.Unix(0, (idx+1)*int64(ws.w.Step)+int64(ws.w.Length)).UTC()
}

// prune drops the buckets that no longer count at now. Buckets ahead of now (written by a
// replica whose clock runs ahead) are kept: counting them errs on the safe side.
func (ws *windowState) prune(now time.Time) {
	oldest := ws.bucketOf(now) - int64(ws.w.Length/ws.w.Step)
	i := 0
	for i < len(ws.buckets) && ws.buckets[i].idx < oldest {
		i++
	}
	ws.buckets = ws.buckets[i:]
}

func (ws *windowState) used() int64 {
	var n int64
	for _, b := range ws.buckets {
		n += b.n
	}
	return n
}

// add counts n requests at now.
func (ws *windowState) add(now time.Time, n int64) {
	idx := ws.bucketOf(now)
	i := len(ws.buckets)
	for i > 0 && ws.buckets[i-1].idx > idx {
		i--
	}
	if i > 0 && ws.buckets[i-1].idx == idx {
		ws.buckets[i-1].n += n
		return
	}
	ws.buckets = append(ws.buckets, bucket{})
	copy(ws.buckets[i+1:], ws.buckets[i:])
	ws.buckets[i] = bucket{idx: idx, n: n}
}

// remove takes back up to n requests counted at t, from t's bucket only: a lease's unspent
// slots, counted when it was taken. A bucket left empty is dropped.
func (ws *windowState) remove(t time.Time, n int64) {
	idx := ws.bucketOf(t)
	for i, b := range ws.buckets {
		if b.idx == idx {
			if ws.buckets[i].n -= min(n, b.n); ws.buckets[i].n == 0 {
				ws.buckets = append(ws.buckets[:i], ws.buckets[i+1:]...)
			}
			return
		}
	}
}

// readyFor is the earliest moment (after prune) the window has room for cost more requests:
// now when it has already, else when enough of the oldest counted requests have left it.
func (ws *windowState) readyFor(now time.Time, cost int64) time.Time {
	need := ws.used() - ws.w.Limit + cost
	if need <= 0 {
		return now
	}
	var gone int64
	for _, b := range ws.buckets {
		if gone += b.n; gone >= need {
			return ws.release(b.idx)
		}
	}
	return now.Add(ws.w.Length + ws.w.Step).UTC() // cost exceeds the limit: no sooner than an empty window
}

// state reports the window at now (after prune).
func (ws *windowState) state(now time.Time) State {
	used := ws.used()
	s := State{Window: ws.w, Used: used, Remaining: max(0, ws.w.Limit-used)}
	if used == 0 {
		s.Reset = now.Add(ws.w.Length).UTC()
		return s
	}
	// Remaining grows once enough of the oldest requests have left for the count to drop
	// below the limit, or by one request when it is below already.
	need := max(1, used-ws.w.Limit+1)
	var gone int64
	for _, b := range ws.buckets {
		gone += b.n
		if gone >= need {
			s.Reset = ws.release(b.idx)
			break
		}
	}
	return s
}

// expiry is when the newest bucket stops counting: after it the record holds nothing.
func (ws *windowState) expiry() time.Time {
	if len(ws.buckets) == 0 {
		return time.Time{}
	}
	return ws.release(ws.buckets[len(ws.buckets)-1].idx)
}

const encodingVersion = 1

// encode writes the states compactly: a version byte, the window count, and per window its
// length and step (so a changed policy is recognised), its bucket count, the first bucket's
// index and count, then each later bucket as the distance from the previous one and its count.
func encode(states []windowState) []byte {
	out := []byte{encodingVersion}
	out = binary.AppendUvarint(out, uint64(len(states)))
	for _, ws := range states {
		out = binary.AppendUvarint(out, uint64(ws.w.Length))
		out = binary.AppendUvarint(out, uint64(ws.w.Step))
		out = binary.AppendUvarint(out, uint64(len(ws.buckets)))
		for i, b := range ws.buckets {
			if i == 0 {
				out = binary.AppendVarint(out, b.idx)
			} else {
				out = binary.AppendUvarint(out, uint64(b.idx-ws.buckets[i-1].idx))
			}
			out = binary.AppendUvarint(out, uint64(b.n))
		}
	}
	return out
}

// decode reads a record written by encode into the windows of p. A stored window is matched to
// the policy's window of the same length and step; stored windows the policy no longer has are
// dropped, and policy windows without a stored match start empty. An empty body is a fresh
// record.
func decode(body []byte, p Policy) ([]windowState, error) {
	states := make([]windowState, len(p.Windows))
	for i, w := range p.Windows {
		states[i].w = w
	}
	if len(body) == 0 {
		return states, nil
	}
	r := reader{b: body}
	if v := r.byte(); v != encodingVersion {
		return nil, fmt.Errorf("%w: version %d", errCorrupt, v)
	}
	matched := make([]bool, len(states))
	nw := r.uvarint()
	for range nw {
		length, step, nb := time.Duration(r.uvarint()), time.Duration(r.uvarint()), r.uvarint()
		if r.err != nil || nb > uint64(len(r.b)) { // every bucket takes at least two bytes
			return nil, errCorrupt
		}
		buckets := make([]bucket, 0, nb)
		for i := range nb {
			var b bucket
			if i == 0 {
				b.idx = r.varint()
			} else {
				d := r.uvarint()
				if d == 0 || d > 1<<62 {
					return nil, fmt.Errorf("%w: buckets out of order", errCorrupt)
				}
				b.idx = buckets[i-1].idx + int64(d)
				if b.idx < buckets[i-1].idx {
					return nil, fmt.Errorf("%w: bucket index overflows", errCorrupt)
				}
			}
			n := r.uvarint()
			if r.err != nil || n == 0 || n > 1<<62 {
				return nil, errCorrupt
			}
			b.n = int64(n)
			buckets = append(buckets, b)
		}
		for i := range states {
			if !matched[i] && states[i].w.Length == length && states[i].w.Step == step {
				matched[i] = true
				states[i].buckets = buckets
				break
			}
		}
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errCorrupt
	}
	return states, nil
}

// reader reads varints, remembering the first error so callers check once.
type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = errCorrupt
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *reader) varint() int64 { return readVarint(r, binary.Varint) }

// readVarint takes one varint off r with decode, or marks r corrupt and empties it.
func readVarint[T uint64 | int64](r *reader, decode func([]byte) (T, int)) T {
	v, n := decode(r.b)
	if n <= 0 {
		r.err = errCorrupt
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}
