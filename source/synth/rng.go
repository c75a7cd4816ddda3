package synth

import (
	"math/bits"
	"math/rand/v2"
)

// Every random choice the generator makes is a pure function of (seed, stream, index): a record
// is recomputed, not remembered. That is what lets a national-scale run stream with bounded
// memory and lets --evolve-from rebuild any earlier record from the earlier drop's seed alone.

// Streams name independent sources of randomness, so that adding a draw to one kind of record
// never shifts the values of another.
const (
	streamProvider uint64 = iota + 1
	streamFacility
	streamLayout
	streamEvolve
	streamLEIE
	streamPayments
	streamNames
	streamBad
	streamPECOS
	streamNewProvider
	streamEndpoints
	streamSAM
	streamMIPS
)

// mix is the SplitMix64 finaliser: a fast bijective scrambler of 64-bit words.
func mix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// hash combines words into one well-mixed word.
func hash(words ...uint64) uint64 {
	h := uint64(0x6A09E667F3BCC908)
	for _, w := range words {
		h = mix(h ^ w)
	}
	return h
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// rng is a reusable seeded generator. Re-seeding a PCG in place costs nothing, so one rng per
// writer goroutine is reseeded for every record instead of allocating a generator per record.
type rng struct {
	pcg *rand.PCG
	*rand.Rand
}

func newRNG() *rng {
	p := rand.NewPCG(0, 0)
	return &rng{pcg: p, Rand: rand.New(p)}
}

// reset positions the generator at the start of the sequence of (seed, stream, index).
func (r *rng) reset(seed, stream uint64, index int64) {
	r.pcg.Seed(hash(seed, stream, uint64(index)), hash(uint64(index), stream, ^seed))
}

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.Float64() < p }

// pick returns one element of a non-empty slice.
func pick[T any](r *rng, xs []T) T { return xs[r.IntN(len(xs))] }

// digits returns n random decimal digits.
func (r *rng) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

// chars returns n characters drawn from alphabet.
func (r *rng) chars(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// Low-discrepancy sequences. The taxonomy and state of the k-th individual are read off the
// additive recurrence R2 (Roberts' Kronecker sequence built on the plastic number) rather than
// drawn at random. Its points fill the unit square evenly for every prefix, so at 2,000
// providers every registered specialty and subspecialty gets close to its expected count and is
// spread over states in proportion to population, instead of leaving a rare code at zero by
// bad luck. The seed rotates the sequence (Cranley-Patterson rotation), so seeds differ.
const (
	r2a1 uint64 = 0xC13FA9A902A6328F // 1/g   * 2^64, g = 1.3247179572447460 (plastic number)
	r2a2 uint64 = 0x91E10DA5C79E7B1C // 1/g^2 * 2^64
	r1a  uint64 = 0x9E3779B97F4A7C15 // golden ratio conjugate * 2^64
)

// r2 returns the k-th point of the rotated R2 sequence as two fixed-point fractions of 2^64.
func r2(seed uint64, stream uint64, k int64) (uint64, uint64) {
	o1, o2 := hash(seed, stream, 1), hash(seed, stream, 2)
	return o1 + uint64(k)*r2a1, o2 + uint64(k)*r2a2
}

// r1 returns the k-th point of the rotated golden-ratio sequence as a fraction of 2^64.
func r1(seed uint64, stream uint64, k int64) uint64 {
	return hash(seed, stream, 3) + uint64(k)*r1a
}

// cumulative is a discrete distribution over len(cum) outcomes: cum[i] is the upper bound, as a
// fraction of 2^64, of outcome i. Lookup from a 64-bit fraction is a binary search.
type cumulative []uint64

func newCumulative(weights []float64) cumulative {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	c := make(cumulative, len(weights))
	acc := 0.0
	for i, w := range weights {
		acc += w
		if i == len(weights)-1 {
			c[i] = ^uint64(0)
			break
		}
		c[i] = uint64(acc/total*(1<<53)) << 11
	}
	return c
}

// at returns the outcome whose interval holds the fraction u.
func (c cumulative) at(u uint64) int {
	lo, hi := 0, len(c)-1
	for lo < hi {
		m := (lo + hi) / 2
		if u < c[m] {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// draw picks an outcome with a random draw.
func (c cumulative) draw(r *rng) int { return c.at(r.Uint64()) }

// permutation is an affine bijection of [0, m): i -> (a*i + b) mod m with gcd(a, m) = 1. It
// turns record indices into identifiers (NPI bodies, PAC ids, profile ids) that are unique by
// construction and look scattered, without a table.
type permutation struct{ a, b, m uint64 }

func newPermutation(seed, stream, m uint64) permutation {
	a := hash(seed, stream, 11)%m | 1
	for gcd(a, m) != 1 {
		a = (a + 2) % m
	}
	return permutation{a: a, b: hash(seed, stream, 12) % m, m: m}
}

func (p permutation) at(i uint64) uint64 {
	hi, lo := bits.Mul64(p.a, i%p.m)
	_, r := bits.Div64(hi%p.m, lo, p.m)
	return (r + p.b) % p.m
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
