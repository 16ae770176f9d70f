// Package rng is a small seeded random number generator whose output is fixed by this code alone,
// so shuffles, weight initialisation and dropout masks stay the same across Go releases
// (math/rand's algorithms are free to change between releases).
//
// The generator is SplitMix64 (Steele, Lea, Flood, "Fast Splittable Pseudorandom Number
// Generators", OOPSLA 2014; constants as in Vigna's public-domain reference splitmix64.c).
package rng

// Source is a SplitMix64 generator. The zero value is a valid generator with seed 0.
type Source struct{ state uint64 }

// New returns a generator seeded with seed.
func New(seed uint64) *Source { return &Source{state: seed} }

// Uint64 returns the next 64 pseudo-random bits.
func (s *Source) Uint64() uint64 {
	s.state += 0x9e3779b97f4a7c15
	return Mix(s.state)
}

// Mix is SplitMix64's output function: a bijective scrambler of 64 bits. Hash-based (counter)
// generators use it directly: Mix(seed + i*golden) is the i-th output of New(seed).
func Mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Float32 returns a uniform float32 in [0, 1) with 24 random bits.
func (s *Source) Float32() float32 { return float32(s.Uint64()>>40) / (1 << 24) }

// Float64 returns a uniform float64 in [0, 1) with 53 random bits.
func (s *Source) Float64() float64 { return float64(s.Uint64()>>11) / (1 << 53) }

// Intn returns a uniform integer in [0, n) for n > 0, without modulo bias (Lemire,
// "Fast Random Integer Generation in an Interval", ACM TOMACS 2019: multiply, then reject the
// few low products that would bias the result).
func (s *Source) Intn(n int) int {
	if n <= 0 {
		panic("rng: Intn of non-positive n") // programming error: callers pass lengths
	}
	bound := uint64(n)
	threshold := -bound % bound
	for {
		hi, lo := mul64(s.Uint64(), bound)
		if lo >= threshold {
			return int(hi)
		}
	}
}

func mul64(a, b uint64) (hi, lo uint64) {
	const mask32 = 1<<32 - 1
	a0, a1 := a&mask32, a>>32
	b0, b1 := b&mask32, b>>32
	w0 := a0 * b0
	t := a1*b0 + w0>>32
	w1 := t&mask32 + a0*b1
	return a1*b1 + t>>32 + w1>>32, a * b
}

// Shuffle permutes n elements with the Fisher-Yates algorithm (Knuth, TAOCP vol. 2, 3.4.2,
// Algorithm P), calling swap(i, j) for each exchange.
func (s *Source) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, s.Intn(i+1))
	}
}
