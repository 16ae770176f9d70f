package gemm

import "fmt"

// Blocking holds the cache blocking of the five loops around the micro-kernel (seed 001,
// Fig. 2; Goto and van de Geijn, "Anatomy of high-performance matrix multiplication", TOMS 2008):
// the packed kc x nc block of B is kept in L3, the packed mc x kc block of A in L2, and the
// kc x nr micro-panel of B in L1 while the micro-kernel sweeps over the micro-panels of A.
//
// A user-supplied blocking is rounded up to the kernel's multiples (MC of MR, KC of the k
// group, NC of NR), which depend on the element type and on the CPU (the AVX-512 float
// kernels are twice as wide), so one blocking serves every type and machine.
type Blocking struct {
	MC int // rows of A per packed block (a multiple of the kernel's MR)
	KC int // k per packed block (a multiple of the kernel's k group)
	NC int // columns of B per packed block (a multiple of the kernel's NR)
}

func (b Blocking) String() string { return fmt.Sprintf("mc=%d kc=%d nc=%d", b.MC, b.KC, b.NC) }

// shape is what the blocking model needs to know about a micro-kernel.
type shape struct {
	mr, nr, group int // register block and k group
	sizeA, sizeB  int // bytes per packed element of A and B
	// The B micro-panel takes l1Share of L1, the packed A block l2Share of L2 (derive).
	l1Share, l2Share float64
}

// derive computes block sizes from the cache sizes:
//   - kc: the B micro-panel (kc*nr elements) takes l1Share of L1: half for the AVX2
//     kernels, leaving the other half to the streaming A micro-panel and the C tile (all of
//     it for float32, whose longer kc cuts the passes over C); all of it (float64) or twice
//     it (float32) for the AVX-512 ones, whose 64-byte vectors read B at half the rate per
//     flop, so a B panel partly refetched from L2 costs little;
//   - mc: the packed A block (mc*kc) takes l2Share of L2, half of it (the rest holds the B
//     micro-panels passing through and C);
//   - nc: the packed B block (kc*nc) fills a quarter of L3, which is shared with the other
//     cores (and on this workplace with other tenants: HOST-ZEN3).
//
// This is the reasoning of Low et al., "Analytical modeling is enough for high-performance
// BLIS", TOMS 2016, with the associativity terms replaced by simple fractions. The
// fractions were chosen by measurement (TestTuneBlocking; docs/cpu-gemm.md): on a Zen 4
// (L1 32 KiB, L2 1 MiB) the AVX-512 kernels with half of L1 ran 1-3% slower; float32 with
// kc = 512 gained 1% at 1024^3 and 2048^3 on AVX-512, 0.6-0.8% on AVX2 (512^3 to 2048^3),
// float64 did not; DGEMM 4096x4096x290 with a quarter of L2 for A ran 3% slower.
func derive(ci CacheInfo, s shape) Blocking {
	unit := 8 * s.group // whole unrolled iterations of the kernel loop
	kc := int(float64(ci.L1.Size)*s.l1Share) / (s.nr * s.sizeB)
	kc = max(unit, kc/unit*unit)
	mc := int(float64(ci.L2.Size)*s.l2Share) / (kc * s.sizeA)
	mc = max(s.mr, mc/s.mr*s.mr)
	nc := ci.L3.Size / 4 / (kc * s.sizeB)
	nc = max(s.nr, min(nc, 8192)/s.nr*s.nr)
	return Blocking{MC: mc, KC: kc, NC: nc}
}

// fit adapts a blocking to the problem: k is cut into the nearest whole number of blocks
// of about kc, all nearly equal (k = 290 with kc = 256 is one block of 290, k = 400 two of
// 200, never 256 + 34, which would pay a pass over C for little work): the blocks run from
// 3/4 to 3/2 of kc. m is cut the same way (m = 256 with mc = 252 is one block, not a
// 4-row one that sweeps the whole packed B block for little work). nc never exceeds the
// rounded-up problem.
func (b Blocking) fit(s shape, m, n, k int) Blocking {
	kc := nearestBlocks(k, b.KC, s.group)
	mc := nearestBlocks(m, b.MC, s.mr)
	nc := min(b.NC, (n+s.nr-1)/s.nr*s.nr)
	return Blocking{MC: max(mc, s.mr), KC: max(kc, s.group), NC: max(nc, s.nr)}
}

// validate checks a user-supplied blocking and rounds it up to the kernel's multiples.
func (b Blocking) validate(s shape) (Blocking, error) {
	if b.MC <= 0 || b.KC <= 0 || b.NC <= 0 {
		return Blocking{}, fmt.Errorf("gemm: blocking %v: sizes must be positive", b)
	}
	if b.MC > 1<<16 || b.KC > 1<<16 || b.NC > 1<<20 {
		return Blocking{}, fmt.Errorf("gemm: blocking %v is too large", b)
	}
	up := func(v, m int) int { return (v + m - 1) / m * m } // at most m-1 more than the limits
	return Blocking{MC: up(b.MC, s.mr), KC: up(b.KC, s.group), NC: up(b.NC, s.nr)}, nil
}

// nearestBlocks cuts n into the nearest whole number of nearly equal blocks of about b
// (from 3/4 to 3/2 of b; n itself when n < 3b/2) and returns the block size, rounded up
// to a multiple of unit (which can move it outside that range when b is only a few units).
func nearestBlocks(n, b, unit int) int {
	nb := max(1, (n+b/2)/b)
	size := (n + nb - 1) / nb
	return max(unit, (size+unit-1)/unit*unit)
}
