package gemm

import "fmt"

// Blocking holds the cache blocking of the five loops around the micro-kernel (seed 001,
// Fig. 2; Goto and van de Geijn, "Anatomy of high-performance matrix multiplication", TOMS 2008):
// the packed kc x nc block of B is kept in L3, the packed mc x kc block of A in L2, and the
// kc x nr micro-panel of B in L1 while the micro-kernel sweeps over the micro-panels of A.
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
}

// derive computes block sizes from the cache sizes:
//   - kc: the B micro-panel (kc*nr elements) fills half of L1, leaving the other half to
//     the streaming A micro-panel and the C tile;
//   - mc: the packed A block (mc*kc) fills half of L2 (the rest holds B micro-panels
//     passing through and C);
//   - nc: the packed B block (kc*nc) fills a quarter of L3, which is shared with the other
//     cores (and on this workplace with other tenants: reference/cpu.md).
//
// This is the reasoning of Low et al., "Analytical modeling is enough for high-performance
// BLIS", TOMS 2016, with the associativity terms replaced by simple fractions; cpu_test's
// benchmarks confirm the choice on this machine.
func derive(ci CacheInfo, s shape) Blocking {
	unit := 8 * s.group // whole unrolled iterations of the kernel loop
	kc := ci.L1.Size / 2 / (s.nr * s.sizeB)
	kc = max(unit, kc/unit*unit)
	mc := ci.L2.Size / 2 / (kc * s.sizeA)
	mc = max(s.mr, mc/s.mr*s.mr)
	nc := ci.L3.Size / 4 / (kc * s.sizeB)
	nc = max(s.nr, min(nc, 8192)/s.nr*s.nr)
	return Blocking{MC: mc, KC: kc, NC: nc}
}

// fit adapts a blocking to the problem: kc is balanced so the k blocks are nearly equal
// (k = 290 with kc = 256 becomes two blocks of 145, not 256 + 34, which would pay the C tile
// traffic for little work), and mc/nc never exceed the rounded-up problem.
func (b Blocking) fit(s shape, m, n, k int) Blocking {
	nk := max(1, (k+b.KC-1)/b.KC)
	kc := (k + nk - 1) / nk
	kc = (kc + s.group - 1) / s.group * s.group
	mc := min(b.MC, (m+s.mr-1)/s.mr*s.mr)
	nc := min(b.NC, (n+s.nr-1)/s.nr*s.nr)
	return Blocking{MC: max(mc, s.mr), KC: max(kc, s.group), NC: max(nc, s.nr)}
}

// validate checks a user-supplied blocking against a kernel shape.
func (b Blocking) validate(s shape) error {
	if b.MC <= 0 || b.KC <= 0 || b.NC <= 0 {
		return fmt.Errorf("gemm: blocking %v: sizes must be positive", b)
	}
	if b.MC%s.mr != 0 || b.NC%s.nr != 0 || b.KC%s.group != 0 {
		return fmt.Errorf("gemm: blocking %v: mc must be a multiple of %d, nc of %d, kc of %d", b, s.mr, s.nr, s.group)
	}
	if b.MC > 1<<16 || b.KC > 1<<16 || b.NC > 1<<20 {
		return fmt.Errorf("gemm: blocking %v is too large", b)
	}
	return nil
}
