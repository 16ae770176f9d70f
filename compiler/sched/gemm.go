package sched

import (
	"fmt"
	"strconv"
	"strings"
)

// Contraction is a matrix multiplication as the GEMM schedule sees it: Batch independent
// products C(M x N) (+)= A(M x K) * B(K x N). A GEMM spec is one; an einsum groups its indices
// into batch (in both inputs and the output), m (A and the output), n (B and the output) and
// k (contracted) ones.
type Contraction struct {
	Batch, M, N, K int
}

// GEMM is the schedule of a contraction on a 2D-SIMD MAC datapath of lanes x columns (seed
// 001's BLIS micro-kernel, seed 002's register blocking): an MR x NR register block of
// accumulators updated by a software-pipelined loop over k, KB values of k per iteration.
//
// One operand fills the MAC's X register and its free index (m for A, n for B) runs along
// LX lanes; the other fills the Z register, whose free index runs along the remaining
// lanes/LX lanes (seed 004's 8x8 kernel puts 8 rows and 2 output channels in 16 lanes; seed
// 001's 16x4 kernel 16 rows and 1 column). The datapath's columns run along k. One X register
// fill holds XK values of k for LX values of the free index, one Z register ZK values of k for
// zbits/(ZK x element bits) values of its free index; XOrd and ZOrd give the order of the
// elements in them ("kf": the free index fastest, "fk": k fastest).
type GEMM struct {
	X          string // "A" or "B": the operand in the X register
	LX         int    // lanes along the X operand's free index
	MR, NR     int    // register block (outputs per tile)
	KB         int    // k values per iteration of the pipelined loop
	XK, ZK     int    // k values per X register fill and per Z register
	XOrd, ZOrd string // "kf" or "fk"; "" lets the target pick the first its network accepts
	// Inner orders the MACs of one k column group: "xz" keeps an X register while the Z
	// registers change (X reused back to back), "zx" the other way round.
	Inner string
	// Order of the tile loops, outermost first: "mn" or "nm".
	Order string
	// Layouts of A, B and C: "packed" (BLIS micro-panels in the order the kernel reads them,
	// padded with zeros to whole blocks) or "canon" (the spec's own layout, read in place);
	// "" takes canon where the block can read it in place, else packed.
	LA, LB, LC string
	// Flat unrolls the tile loops into straight-line copies of the pipelined loop.
	Flat bool
}

// Key is the schedule in one line (the tuner's cache key and report).
func (g GEMM) Key() string {
	k := fmt.Sprintf("x=%s lx=%d mr=%d nr=%d kb=%d xk=%d zk=%d ord=%s,%s inner=%s order=%s layout=%s,%s,%s",
		g.X, g.LX, g.MR, g.NR, g.KB, g.XK, g.ZK, or(g.XOrd, "any"), or(g.ZOrd, "any"), g.Inner, g.Order, or(g.LA, "auto"), or(g.LB, "auto"), or(g.LC, "auto"))
	if g.Flat {
		k += " flat=1"
	}
	return k
}

func (g GEMM) String() string { return g.Key() }

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Accs is the number of accumulator registers of the block.
func (g GEMM) Accs(lanes int) int { return g.MR * g.NR / lanes }

// Free returns the block's extent along the X and the Z operand's free index.
func (g GEMM) Free() (mx, mz int) {
	if g.X == "A" {
		return g.MR, g.NR
	}
	return g.NR, g.MR
}

// Check says why a schedule does not fit a datapath of shape sh with X registers of xbits
// and Z registers of zbits bits (nil if it fits). It checks the block's arithmetic; whether
// the selection network can feed it is the target's question.
func (g GEMM) Check(c Contraction, sh Shape, xbits, zbits int) error {
	if g.X != "A" && g.X != "B" {
		return fmt.Errorf("x=%q: want A or B (the operand in the X register)", g.X)
	}
	if g.LX < 1 || sh.Lanes%g.LX != 0 {
		return fmt.Errorf("lx=%d: must divide the %d lanes", g.LX, sh.Lanes)
	}
	lz := sh.Lanes / g.LX
	mx, mz := g.Free()
	if g.MR < 1 || g.NR < 1 || mx%g.LX != 0 || mz%lz != 0 {
		return fmt.Errorf("block %dx%d: the X operand's free extent %d must be a multiple of lx=%d and the Z operand's %d of %d", g.MR, g.NR, mx, g.LX, mz, lz)
	}
	if g.KB < 1 || g.XK < 1 || g.ZK < 1 || g.XK%sh.Cols != 0 || g.ZK%sh.Cols != 0 || g.KB%g.XK != 0 || g.KB%g.ZK != 0 {
		return fmt.Errorf("kb=%d xk=%d zk=%d: xk and zk must be multiples of the %d columns and divide kb", g.KB, g.XK, g.ZK, sh.Cols)
	}
	if b := g.LX * g.XK * sh.ElemBits; b != 512 && b != 1024 || b > xbits {
		return fmt.Errorf("X register of %d lanes x %d values of k is %d bits: want 512 or 1024 (at most %d)", g.LX, g.XK, b, xbits)
	}
	ze := zbits / sh.ElemBits
	if ze%g.ZK != 0 {
		return fmt.Errorf("zk=%d does not divide the Z register's %d elements", g.ZK, ze)
	}
	if nz := ze / g.ZK; nz%lz != 0 || mz%nz != 0 {
		return fmt.Errorf("Z register of %d free values x %d of k: %d lanes per X element need a multiple of %d, and the block's %d a multiple of %d", nz, g.ZK, lz, lz, mz, nz)
	}
	for _, o := range []string{g.XOrd, g.ZOrd} {
		if o != "" && o != "kf" && o != "fk" {
			return fmt.Errorf("register order %q: want kf or fk", o)
		}
	}
	if g.Inner != "xz" && g.Inner != "zx" {
		return fmt.Errorf("inner=%q: want xz or zx", g.Inner)
	}
	if g.Order != "mn" && g.Order != "nm" {
		return fmt.Errorf("order=%q: want mn or nm", g.Order)
	}
	for _, l := range []string{g.LA, g.LB, g.LC} {
		if l != "" && l != "packed" && l != "canon" {
			return fmt.Errorf("layout %q: want packed or canon", l)
		}
	}
	if c.M < 1 || c.N < 1 || c.K < 1 || c.Batch < 1 {
		return fmt.Errorf("empty contraction %+v", c)
	}
	return nil
}

// Tiles returns the tile counts along m and n and the iterations of the pipelined loop (the
// padded extents divided by the block).
func (g GEMM) Tiles(c Contraction) (tm, tn, iters int) {
	return ceilDiv(c.M, g.MR), ceilDiv(c.N, g.NR), ceilDiv(c.K, g.KB)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// GEMMSpace enumerates the schedules of a contraction on a datapath (xbits, zbits: the X and Z
// register widths): both operands in the X register, all lanes or half of them along its free
// index, blocks of up to maxAccs accumulators no larger than the padded problem, k steps of
// one and two register fills, both MAC orders and tile-loop orders. Blocks whose loop body
// has more than maxBodyMACs MACs are pruned, and said so.
func GEMMSpace(c Contraction, sh Shape, xbits, zbits, maxAccs, maxBodyMACs int) (out []GEMM, pruned []string) {
	ze := zbits / sh.ElemBits
	for _, x := range []string{"A", "B"} {
		xdim, zdim := c.M, c.N
		if x == "B" {
			xdim, zdim = c.N, c.M
		}
		for _, lx := range []int{sh.Lanes, sh.Lanes / 2} {
			if lx < 1 || sh.Lanes%lx != 0 {
				continue
			}
			lz := sh.Lanes / lx
			for bx := 1; bx <= maxAccs; bx *= 2 {
				mx := bx * lx
				if mx > roundUp(xdim, lx) {
					break
				}
				for bz := 1; bx*bz <= maxAccs; bz *= 2 {
					mz := bz * lz
					if mz > roundUp(zdim, lz) {
						break
					}
					for xk := sh.Cols; lx*xk*sh.ElemBits <= xbits; xk *= 2 {
						if b := lx * xk * sh.ElemBits; b != 512 && b != 1024 {
							continue
						}
						for zk := sh.Cols; zk <= ze; zk *= 2 {
							nz := ze / zk
							if ze%zk != 0 || nz%lz != 0 || mz%nz != 0 {
								continue
							}
							base := lcm(xk, zk)
							for _, kb := range []int{base, 2 * base} {
								if kb > roundUp(c.K, base) && kb != base {
									continue
								}
								g := GEMM{X: x, LX: lx, KB: kb, XK: xk, ZK: zk}
								g.MR, g.NR = mx, mz
								if x == "B" {
									g.MR, g.NR = mz, mx
								}
								if macs := bx * bz * kb / sh.Cols; macs > maxBodyMACs {
									pruned = append(pruned, fmt.Sprintf("%s: %d MACs per iteration exceed %d", g.Key(), macs, maxBodyMACs))
									continue
								}
								tm, tn, _ := g.Tiles(c)
								orders := []string{"nm"}
								if tm > 1 && tn > 1 {
									orders = append(orders, "mn")
								}
								for _, inner := range []string{"xz", "zx"} {
									if bx == 1 || bz == 1 {
										if inner == "zx" {
											continue // one X (or one Z) register per column group: the orders coincide
										}
									}
									for _, o := range orders {
										g.Inner, g.Order = inner, o
										out = append(out, g)
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return out, pruned
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func lcm(a, b int) int { return a / gcd(a, b) * b }

// ParseGEMM reads a GEMM schedule as Key prints it (fields in any order; fields left out keep
// def's values).
func ParseGEMM(text string, def GEMM) (GEMM, error) {
	g := def
	for _, tok := range strings.Fields(text) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			return g, fmt.Errorf("schedule token %q is not key=value", tok)
		}
		num := func(dst *int) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("%s=%s: want a positive integer", k, v)
			}
			*dst = n
			return nil
		}
		var err error
		switch k {
		case "x":
			g.X = strings.ToUpper(v)
		case "lx":
			err = num(&g.LX)
		case "mr":
			err = num(&g.MR)
		case "nr":
			err = num(&g.NR)
		case "kb":
			err = num(&g.KB)
		case "xk":
			err = num(&g.XK)
		case "zk":
			err = num(&g.ZK)
		case "ord":
			a, b, ok := strings.Cut(v, ",")
			if !ok {
				return g, fmt.Errorf("ord=%s: want X,Z orders such as kf,fk", v)
			}
			g.XOrd, g.ZOrd = unAuto(a, "any"), unAuto(b, "any")
		case "inner":
			g.Inner = v
		case "order":
			g.Order = v
		case "layout":
			parts := strings.Split(v, ",")
			if len(parts) != 3 {
				return g, fmt.Errorf("layout=%s: want the layouts of A, B and C, such as packed,packed,canon", v)
			}
			g.LA, g.LB, g.LC = unAuto(parts[0], "auto"), unAuto(parts[1], "auto"), unAuto(parts[2], "auto")
		case "flat":
			g.Flat = v == "1" || v == "true"
		default:
			return g, fmt.Errorf("unknown GEMM schedule field %q (want x, lx, mr, nr, kb, xk, zk, ord, inner, order, layout, flat)", k)
		}
		if err != nil {
			return g, err
		}
	}
	return g, nil
}

func unAuto(s, auto string) string {
	if s == auto {
		return ""
	}
	return s
}
