// Package sched describes the schedule space of seed 000's auto-tuner for a CONV2D on a 2D
// SIMD datapath (section III-E): the vectorized loop, the loop order, unroll-and-jam factors,
// the data layouts of the three tensors and how the datapath's columns are filled.
//
// Pruning follows the seed: reduction loops (r, s, c) are always fully unrolled, and
// unroll-and-jam factors are bounded so that the loop body fits the 16 KB program memory.
package sched

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/compiler/layout"
	"github.com/sumacdev/sumac/op"
)

// Fusion says which 1D logical MACs share one 2D datapath operation (its columns).
type Fusion string

const (
	// FuseNone: one column (int32 lmac8, fp32 fpmac).
	FuseNone Fusion = "none"
	// FuseTaps: adjacent filter taps r, r+1 of one filter row, the filter row padded with
	// zero taps to a multiple of the columns (Vyasa, seed 000 section IV-A).
	FuseTaps Fusion = "taps"
	// FuseChannels: adjacent input channels c, c+1 (layouts with a (C/2) block, seed 000
	// Fig. 11 and Table IV).
	FuseChannels Fusion = "channels"
	// FuseRows: as FuseTaps, but the odd tap left over in each filter row is paired with the
	// leftover tap of another filter row (two input rows in one 1024-bit register), so odd
	// filter widths waste at most one column per output vector. This is the experts' trick
	// seed 000 section IV-A says Vyasa could not do. With an 8-bit input duplicated four
	// times (Dup 4), the columns hold one tap of two filter rows, tap after tap.
	FuseRows Fusion = "rows"
	// FuseTapsChannels: k vectorized, the columns take consecutive (tap, channel) pairs of a
	// filter row: with the input's channels innermost (Y'X'C), a filter row's R x C inputs
	// are one run of memory, so a layer with few channels (ResNet-50's first layer, c=3)
	// fills the columns with taps instead of zero channels.
	FuseTapsChannels Fusion = "rc"
)

// Operation orders of a loop body (Schedule.Interleave).
const (
	InterleaveUpdate  = "update"
	InterleaveOperand = "operand"
	// InterleaveTap: by X register as InterleaveOperand, the registers in filter-tap order,
	// so that each tap's scalar registers are live briefly (bodies of a reduction loop).
	InterleaveTap = "tap"
)

// Schedule is one point of the space.
type Schedule struct {
	Vec    string // the vectorized loop: "x" or "k"
	Order  string // output loops outermost first, e.g. "kyx"; the last is the software-pipelined loop
	UX     int    // unroll-and-jam factors (in vectors for the vectorized loop)
	UY     int
	UK     int
	Fusion Fusion
	// Layouts in seed 000's notation (package layout). Input dimensions are X', Y', C.
	Out, W, In string
	// PadR is the filter width after padding with zero taps (FuseTaps), else R.
	PadR int
	// Interleave orders the body's operations: InterleaveUpdate (by output vector) or
	// InterleaveOperand (by X register).
	Interleave string
	// Flat unrolls the loops around the software-pipelined one into straight-line copies of it
	// (for back ends without nested loops; bounded by the program memory).
	Flat bool
	// Dup (x vectorized, 8-bit): the input is stored Dup times, copy d shifted by d output
	// pixels, as the innermost dimension D of its layout (0 or 1: not duplicated).
	Dup int
	// PadS is the filter height after padding with zero rows (0: S).
	PadS int
	// CB: input channels per iteration of a reduction loop c, innermost and software
	// pipelined, the accumulators carried across it (0: every channel unrolled in the body,
	// seed 000's pruning strategy 1). Deep layers need it: a body with every channel of a
	// 3x3 filter over 128 channels exceeds the program memory.
	CB int
}

// Key is a canonical one-line form, used as a cache key and in reports.
func (s Schedule) Key() string {
	k := fmt.Sprintf("vec=%s order=%s u=%d,%d,%d fuse=%s O=%s W=%s I=%s padr=%d",
		s.Vec, s.Order, s.UX, s.UY, s.UK, s.Fusion, s.Out, s.W, s.In, s.PadR)
	if s.Interleave == InterleaveOperand || s.Interleave == InterleaveTap {
		k += " il=" + s.Interleave
	}
	if s.Flat {
		k += " flat=1"
	}
	if s.Dup > 1 {
		k += fmt.Sprintf(" dup=%d", s.Dup)
	}
	if s.PadS > 0 {
		k += fmt.Sprintf(" pads=%d", s.PadS)
	}
	if s.CB > 0 {
		k += fmt.Sprintf(" cb=%d", s.CB)
	}
	return k
}

func (s Schedule) String() string { return s.Key() }

// Shape is the datapath a schedule targets: lanes x columns for the operand type.
type Shape struct {
	Lanes, Cols int
	ElemBits    int
}

// SW returns the software-pipelined loop (the innermost output loop).
func (s Schedule) SW() string { return s.Order[len(s.Order)-1:] }

// Check reports why a schedule does not apply to a convolution (nil if it does).
func (s Schedule) Check(c *op.Conv2D, sh Shape) error {
	depthwise := c.Groups > 1 && c.Groups == c.C && c.Groups == c.K
	kpg := c.K
	if c.Groups > 1 && !depthwise {
		kpg = c.K / c.Groups // the k loop runs over one group's output channels
	}
	if len(s.Order) != 3 || !isPerm(s.Order, "kyx") {
		return fmt.Errorf("loop order %q is not a permutation of k, y, x", s.Order)
	}
	if s.UX < 1 || s.UY < 1 || s.UK < 1 {
		return fmt.Errorf("unroll factors must be at least 1")
	}
	switch s.Vec {
	case "x":
		if c.X%(sh.Lanes*s.UX) != 0 && !Ragged(c, sh, sh.Lanes*s.UX) {
			return fmt.Errorf("x=%d is not a multiple of %d lanes x unroll %d", c.X, sh.Lanes, s.UX)
		}
		if kpg%s.UK != 0 {
			return fmt.Errorf("k=%d is not a multiple of unroll %d", kpg, s.UK)
		}
	case "k":
		if depthwise {
			return fmt.Errorf("the k loop of a depth-wise convolution cannot be vectorized (no reduction shares an input)")
		}
		if kpg%(sh.Lanes*s.UK) != 0 {
			return fmt.Errorf("k=%d is not a multiple of %d lanes x unroll %d", kpg, sh.Lanes, s.UK)
		}
		if waste := (c.X+s.UX-1)/s.UX*s.UX - c.X; waste > 0 && 4*waste >= c.X {
			// (a row may end in a partial iteration wasting under a quarter of it: its
			// extra pixels are computed into the output layout's padding, which nobody
			// reads)
			return fmt.Errorf("x=%d is not a multiple of unroll %d", c.X, s.UX)
		}
	case "xk":
		if sh.Lanes != 16 || sh.Cols != 8 {
			return fmt.Errorf("lanes split as 8 x positions by 2 output channels: the 8-bit datapath only")
		}
		if depthwise {
			return fmt.Errorf("depth-wise: the columns would hold taps, which need a duplicated input (dup)")
		}
		if round := func(m int) int { return (c.X + m - 1) / m * m }; round(8*s.UX) != round(8) {
			// (the last vector may run past the width, as sched.Ragged allows x: no more
			// waste than one vector)
			return fmt.Errorf("x=%d is not a multiple of 8 x positions x unroll %d", c.X, s.UX)
		}
		if kpg%(2*s.UK) != 0 {
			return fmt.Errorf("k=%d is not a multiple of 2 output channels x unroll %d", kpg, s.UK)
		}
	default:
		return fmt.Errorf("vectorized loop %q: want x, k or xk", s.Vec)
	}
	if c.Y%s.UY != 0 {
		return fmt.Errorf("y=%d is not a multiple of unroll %d", c.Y, s.UY)
	}
	for _, l := range []string{s.Out, s.W, s.In} {
		if _, err := layout.Parse(l); err != nil {
			return err
		}
	}
	if s.Dup != 0 && s.Dup != 1 {
		if s.Vec == "k" || sh.Cols != 8 {
			return fmt.Errorf("dup=%d: a duplicated input serves the 8-bit datapath with x vectorized", s.Dup)
		}
		if s.Vec == "xk" && c.Stride != 1 {
			return fmt.Errorf("dup=%d with lanes split (xk): unit stride only", s.Dup)
		}
		if s.Dup != 2 && s.Dup != 4 {
			return fmt.Errorf("dup=%d: want 2 or 4 copies", s.Dup)
		}
	}
	if s.PadS != 0 && s.PadS < c.S {
		return fmt.Errorf("pads=%d is smaller than the filter height %d", s.PadS, c.S)
	}
	if s.CB != 0 {
		cpg := c.C / c.Groups
		switch {
		case s.CB < 0 || s.CB >= cpg || cpg%s.CB != 0:
			return fmt.Errorf("cb=%d: the reduction loop takes a proper divisor of the %d input channels", s.CB, cpg)
		case s.CB%sh.Cols != 0:
			return fmt.Errorf("cb=%d: not a multiple of the %d columns", s.CB, sh.Cols)
		case s.CB*sh.ElemBits%128 != 0:
			return fmt.Errorf("cb=%d: the loop would move the pointers by %d bits, not a multiple of 128", s.CB, s.CB*sh.ElemBits)
		case s.Fusion == FuseTapsChannels:
			return fmt.Errorf("cb=%d: the (tap, channel) runs of rc need every channel", s.CB)
		}
	}
	switch s.Fusion {
	case FuseNone:
		if sh.Cols != 1 {
			return fmt.Errorf("%d columns need a fusion", sh.Cols)
		}
	case FuseTaps, FuseRows:
		if sh.Cols == 1 || s.Vec != "x" {
			return fmt.Errorf("fusing taps needs x vectorized and several columns")
		}
		if sh.Cols == 8 && s.Dup <= 1 {
			return fmt.Errorf("8-bit byte pairs: taps one element apart cannot share a column pair without a duplicated input (dup)")
		}
	case FuseChannels:
		if sh.Cols == 1 {
			return fmt.Errorf("fusing channels needs several columns")
		}
		if c.C/c.Groups < 2 {
			return fmt.Errorf("fusing channels needs at least 2 input channels per group")
		}
	case FuseTapsChannels:
		if sh.Cols == 1 || s.Vec != "k" {
			return fmt.Errorf("fusing taps and channels needs k vectorized and several columns")
		}
	default:
		return fmt.Errorf("unknown fusion %q", s.Fusion)
	}
	return nil
}

// Ragged reports whether x vectorized may run past the output width in steps of step x
// positions (the last vector's extra lanes compute outputs into the output layout's padding,
// which nobody reads): only where no output-channel vectorization exists (depth-wise, or
// fewer output channels per group than lanes) and without more waste than one vector.
func Ragged(c *op.Conv2D, sh Shape, step int) bool {
	depthwise := c.Groups > 1 && c.Groups == c.C && c.Groups == c.K
	if !depthwise && (c.K/c.Groups)%sh.Lanes == 0 {
		return false
	}
	round := func(m int) int { return (c.X + m - 1) / m * m }
	return round(step) == round(sh.Lanes)
}

func isPerm(a, b string) bool {
	x, y := []byte(a), []byte(b)
	sort.Slice(x, func(i, j int) bool { return x[i] < x[j] })
	sort.Slice(y, func(i, j int) bool { return y[i] < y[j] })
	return string(x) == string(y)
}

// Orders lists the loop orders the tuner tries for a vectorized loop: the software-pipelined
// loop is the vectorized one or the other spatial loop (seed 000 Table IV: SW loop x or k).
func Orders(vec string) []string {
	if vec == "x" {
		return []string{"kyx", "ykx", "kxy"}
	}
	return []string{"xyk", "yxk", "kyx"}
}

// Variant is one choice of data layouts and filter padding for a vectorized loop and a
// fusion: O, W and I in seed 000's notation, the padded filter width and height (PadS 0: S),
// and the input's duplication (Dup 0: none).
type Variant struct {
	Out, W, In string
	PadR, PadS int
	Dup        int
}

// Layouts returns the layouts (O, W, I) and the padded filter width a vectorized loop and a
// fusion need (the first of Variants). Block sizes come from the datapath: lanes for the
// vectorized k, columns for fused channels.
func Layouts(c *op.Conv2D, vec string, f Fusion, sh Shape) (o, w, in string, padR int) {
	vs := Variants(c, vec, f, sh)
	if len(vs) == 0 {
		return seedLayouts(c, vec, f, sh)
	}
	return vs[0].Out, vs[0].W, vs[0].In, vs[0].PadR
}

// roundUp rounds n up to a multiple of m.
func roundUp(n, m int) int { return (n + m - 1) / m * m }

// Variants lists the layout choices the tuner tries for a vectorized loop and a fusion:
//
//   - seed 000's layouts (seedLayouts) for unit-stride convolutions on the 16- and 32-bit
//     datapaths;
//   - for a strided convolution with x vectorized, the input's rows also split into their
//     stride phases, (X'%s)(X'/s): the taps of one phase are then one element apart, as in a
//     unit-stride convolution, and the filter row is padded so every phase fills the columns;
//   - 8-bit with x vectorized: an input duplicated along D (Dup 2: each 16-bit unit holds
//     pixels j and j+1, so any tap reads whole units - mlir-aie's AIEVectorize meets the same
//     byte-pair rule with dup-factor=2 on the filter; Dup 4: each 32-bit word holds pixels j..j+3,
//     so a lane group reads one word per tap and the columns can hold two filter rows);
//   - 8-bit "xk" (lanes = 8 x positions by 2 output channels, seed 004 Fig. 5): the input in
//     tiles of 8 channels by 8 pixels, the weights in tiles of 2 output by 8 input channels;
//   - "rc" (k vectorized): weights as (tap, channel) rows of 16 output channels, output
//     channels innermost, so the X operand's lane pairs read one word per column pair.
func Variants(c *op.Conv2D, vec string, f Fusion, sh Shape) []Variant {
	vs := variants(c, vec, f, sh)
	cpg := c.C / c.Groups
	if c.Groups > 1 && !(c.Groups == c.C && c.Groups == c.K) {
		// A grouped convolution's loop over groups moves the input by C/groups channels:
		// the groups are the outermost part of the channels so that the move keeps alignment.
		// Channels in the columns pad each group's channels to a multiple of the columns
		// (triplet.Body.CPGIn).
		if f == FuseChannels {
			cpg = roundUp(cpg, sh.Cols)
		}
		grp := "C"
		if cpg > 1 {
			grp = fmt.Sprintf("(C/%d)", cpg)
		}
		for i := range vs {
			if strings.HasSuffix(vs[i].In, "C") && strings.HasPrefix(vs[i].In, "Y'") {
				in := strings.TrimSuffix(vs[i].In, "C")
				if cpg > 1 {
					in += fmt.Sprintf("(C%%%d)", cpg)
				}
				vs[i].In = grp + in
			}
		}
	}
	return vs
}

func variants(c *op.Conv2D, vec string, f Fusion, sh Shape) []Variant {
	st := c.Stride
	cols := sh.Cols
	seed := func() Variant {
		o, w, in, padR := seedLayouts(c, vec, f, sh)
		return Variant{Out: o, W: w, In: in, PadR: padR}
	}
	phase := func(in string) string {
		return strings.Replace(in, "X'", fmt.Sprintf("(X'%%%d)(X'/%d)", st, st), 1)
	}
	switch {
	case sh.Cols == 8 && vec == "x":
		// duplicated input (the D copies innermost); weights KCSR (taps) or KCRS (rows)
		switch f {
		case FuseTaps:
			return []Variant{{Out: "KYX", W: "KCSR", In: "CY'X'D", PadR: roundUp(c.R, 8), Dup: 2}}
		case FuseRows:
			padS := roundUp(c.S, 2)
			if st == 1 {
				return []Variant{{Out: "KYX", W: "KCRS", In: "CY'X'D", PadR: roundUp(c.R, 4), PadS: padS, Dup: 4}}
			}
			// phases outside the rows: consecutive rows of one phase pair in a register
			// and the weights' taps by phase: a MAC's four taps of one phase are one filter
			// column pair apart in its Z register
			return []Variant{{Out: "KYX", W: fmt.Sprintf("KC(R%%%d)(R/%d)S", st, st), In: fmt.Sprintf("C(X'%%%d)Y'(X'/%d)D", st, st), PadR: roundUp(c.R, 4*st), PadS: padS, Dup: 4}}
		}
		return nil
	case sh.Cols == 8 && vec == "xk":
		if f != FuseChannels {
			return nil
		}
		vs := []Variant{{Out: "(K/2)Y(X/8)(K%2)(X%8)", W: "(K/2)SR(C/8)(K%2)(C%8)", In: "(C/8)Y'(X'/8)(C%8)(X'%8)", PadR: c.R}}
		if c.R > 1 && st == 1 {
			// taps one pixel apart: four copies of the input, copy d shifted by d pixels, so
			// that tap r reads its 8 pixels from copy r%4 at a word boundary
			vs = append(vs, Variant{Out: vs[0].Out, W: vs[0].W, In: "(C/8)Y'D(X'/8)(C%8)(X'%8)", PadR: c.R, Dup: 4})
		}
		return vs
	case sh.Cols > 1 && vec == "k" && f == FuseTapsChannels:
		cpg := c.C / c.Groups
		padR := c.R
		for padR*cpg%cols != 0 {
			padR++
		}
		return []Variant{{Out: "YXK", W: fmt.Sprintf("(K/%d)SRC(K%%%d)", sh.Lanes, sh.Lanes), In: "Y'X'C", PadR: padR}}
	case f == FuseTapsChannels:
		return nil // x vectorized
	case vec == "x" && st > 1:
		v := seed()
		if f == FuseRows {
			return nil
		}
		out := []Variant{v}
		ph := v
		ph.In = phase(v.In)
		if f == FuseTaps {
			ph.PadR = roundUp(c.R, cols*st)
		}
		return append(out, ph)
	}
	return []Variant{seed()}
}

// seedLayouts are seed 000's layouts for a vectorized loop and a fusion (Table IV).
func seedLayouts(c *op.Conv2D, vec string, f Fusion, sh Shape) (o, w, in string, padR int) {
	padR = c.R
	switch {
	case vec == "x" && f == FuseChannels:
		return "KYX", fmt.Sprintf("K(C/%d)SR(%d)", sh.Cols, sh.Cols), fmt.Sprintf("(C/%d)Y'X'(%d)", sh.Cols, sh.Cols), padR
	case vec == "x":
		switch f {
		case FuseTaps:
			padR = (c.R + sh.Cols - 1) / sh.Cols * sh.Cols
		case FuseRows:
			padR = c.R + 1 // one zero tap per row pads the last odd leftover
		}
		return "KYX", "KCSR", "CY'X'", padR
	case f == FuseChannels && sh.ElemBits == 8:
		// k vectorized, channels in the columns, 8-bit: the 8-bit mac16 reads a 16-bit unit's
		// two bytes in lanes 2i and 2i+1 of a column, so the tile keeps K innermost (byte
		// 16c+k); see target/aie1/shuffle/shuffle8.go
		return "YXK", fmt.Sprintf("(K/%d)SR(C/%d)(C%%%d)(K%%%d)", sh.Lanes, sh.Cols, sh.Cols, sh.Lanes), "Y'X'C", padR
	case f == FuseChannels: // k vectorized, channels in the columns
		return "YXK", fmt.Sprintf("(K/%d)SR(C/%d)(%d)(%d)", sh.Lanes, sh.Cols, sh.Lanes, sh.Cols), "Y'X'C", padR
	default: // k vectorized, one column
		return "YXK", fmt.Sprintf("(K/%d)SRC(%d)", sh.Lanes, sh.Lanes), "Y'X'C", padR
	}
}

// Space enumerates the candidate schedules for a convolution on a datapath shape, pruned as
// seed 000 prunes: unroll-and-jam factors are powers of two whose product (the number of
// output vectors of one loop body) is at most maxVectors, and the body's MAC count fits
// maxBodyMACs (the 16 KB program memory holds 1024 128-bit instructions; the body plus its
// software-pipeline pro- and epilogue must fit). Schedules that do not apply are dropped;
// reasons are returned for the explain output.
func Space(c *op.Conv2D, sh Shape, maxVectors, maxBodyMACs int) (out []Schedule, pruned []string) {
	var fusions []Fusion
	if sh.Cols == 1 {
		fusions = []Fusion{FuseNone}
	} else {
		fusions = []Fusion{FuseTaps, FuseRows, FuseChannels}
		if sh.Cols == 8 || (c.C/c.Groups)%sh.Cols != 0 {
			fusions = append(fusions, FuseTapsChannels)
		}
	}
	taps := c.R * c.S * (c.C / c.Groups)
	vecs := []string{"x", "k"}
	if sh.Cols == 8 {
		vecs = append(vecs, "xk")
	}
	for _, vec := range vecs {
		for _, f := range fusions {
			if vec != "x" && (f == FuseTaps || f == FuseRows) {
				continue
			}
			if f == FuseRows && c.R%sh.Cols == 0 && sh.Cols != 8 {
				continue // nothing left over: same as FuseTaps
			}
			for _, v := range Variants(c, vec, f, sh) {
				space(c, sh, vec, f, v, taps, maxVectors, maxBodyMACs, &out, &pruned)
			}
		}
	}
	return out, pruned
}

// space adds the candidates of one vectorized loop, fusion and layout variant.
func space(c *op.Conv2D, sh Shape, vec string, f Fusion, v Variant, taps, maxVectors, maxBodyMACs int, out *[]Schedule, pruned *[]string) {
	o, w, in, padR := v.Out, v.W, v.In, v.PadR
	uxs := []int{1, 2, 4, 8}
	if c.X < 8 && c.X&(c.X-1) != 0 {
		uxs = append(uxs, c.X) // a short row unrolled whole: no loop moves the input along x
	}
	// Deep layers: a reduction loop over blocks of input channels (Schedule.CB), in blocks
	// down to 128 bits of channels.
	cbs := []int{0}
	if cpg := c.C / c.Groups; cpg >= 32 && f != FuseTapsChannels {
		for cb := cpg / 2; cb >= sh.Cols && cb*sh.ElemBits >= 128; cb /= 2 {
			if cpg%cb == 0 && cb%sh.Cols == 0 {
				cbs = append(cbs, cb)
			}
		}
	}
	orders := Orders(vec)
	if vec == "x" && c.Groups > 1 && c.Groups == c.C && c.Groups == c.K && c.K >= 16 {
		// a deep depth-wise layer: its channels are independent 2D convolutions, and a
		// software-pipelined loop over them is long where x and y are short
		orders = append(orders, "yxk", "xyk")
	}
	for _, order := range orders {
		for _, ux := range uxs {
			for uy := 1; uy <= 8; uy *= 2 {
				for uk := 1; uk <= 8; uk *= 2 {
					if ux*uy*uk > maxVectors {
						continue
					}
					for _, cb := range pickCB(c, sh, cbs, ux*uy*uk, taps, maxBodyMACs) {
						s := Schedule{Vec: vec, Order: order, UX: ux, UY: uy, UK: uk, Fusion: f, Out: o, W: w, In: in, PadR: padR, PadS: v.PadS, Dup: v.Dup, CB: cb}
						bodyTaps := taps
						if cb > 0 {
							bodyTaps = taps / (c.C / c.Groups) * cb
						}
						ops := ux * uy * uk * (bodyTaps + sh.Cols - 1) / sh.Cols
						if ux*uy*uk > 1 && (ux*uy*uk <= 4 || v.Dup > 1 && vec == "x") && (cb == 0 || ops <= maxBodyMACs) {
							// Several output vectors: also try the operand-major order (for
							// any body on a duplicated input, whose output vectors share
							// registers of equal contents: triplet.Fuse).
							s2 := s
							s2.Interleave = InterleaveOperand
							if s2.Check(c, sh) == nil {
								*out = append(*out, s2)
							}
						}
						if cb > 0 && ops <= maxBodyMACs {
							// a reduction loop's body: also tap by tap
							s2 := s
							s2.Interleave = InterleaveTap
							if s2.Check(c, sh) == nil {
								*out = append(*out, s2)
							}
						}
						if ops > maxBodyMACs {
							*pruned = append(*pruned, fmt.Sprintf("%s: body of %d vector MACs exceeds the program-memory bound %d", s.Key(), ops, maxBodyMACs))
							continue
						}
						if err := s.Check(c, sh); err != nil {
							*pruned = append(*pruned, fmt.Sprintf("%s: %v", s.Key(), err))
							continue
						}
						*out = append(*out, s)
					}
				}
			}
		}
	}
}

// pickCB keeps, of the reduction-loop blocks cbs (0: none, then largest first), the first two
// whose bodies fit maxBodyMACs: a longer body runs fewer loop iterations, and the tuner
// compares the two.
func pickCB(c *op.Conv2D, sh Shape, cbs []int, vectors, taps, maxBodyMACs int) []int {
	cpg := c.C / c.Groups
	var out []int
	for _, cb := range cbs {
		n := cpg
		if cb > 0 {
			n = cb
		}
		if vectors*(taps/cpg*n+sh.Cols-1)/sh.Cols <= maxBodyMACs || cb == 0 && len(cbs) == 1 {
			out = append(out, cb)
		}
		if len(out) == 2 {
			break
		}
	}
	if len(out) == 0 {
		return cbs[:1] // pruned with the reason by the caller
	}
	return out
}

// Parse reads a schedule written as Key prints it (fields in any order; missing fields keep
// the defaults in def).
func Parse(text string, def Schedule) (Schedule, error) {
	s := def
	for _, tok := range strings.Fields(text) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			return s, fmt.Errorf("schedule token %q is not key=value", tok)
		}
		switch k {
		case "vec":
			s.Vec = v
		case "order":
			s.Order = v
		case "u":
			if _, err := fmt.Sscanf(v, "%d,%d,%d", &s.UX, &s.UY, &s.UK); err != nil {
				return s, fmt.Errorf("u=%s: want UX,UY,UK", v)
			}
		case "fuse":
			s.Fusion = Fusion(v)
		case "O":
			s.Out = v
		case "W":
			s.W = v
		case "I":
			s.In = v
		case "il":
			s.Interleave = v
		case "flat":
			s.Flat = v == "1" || v == "true"
		case "padr":
			if _, err := fmt.Sscanf(v, "%d", &s.PadR); err != nil {
				return s, fmt.Errorf("padr=%s: not an integer", v)
			}
		case "pads":
			if _, err := fmt.Sscanf(v, "%d", &s.PadS); err != nil {
				return s, fmt.Errorf("pads=%s: not an integer", v)
			}
		case "dup":
			if _, err := fmt.Sscanf(v, "%d", &s.Dup); err != nil {
				return s, fmt.Errorf("dup=%s: not an integer", v)
			}
		case "cb":
			if _, err := fmt.Sscanf(v, "%d", &s.CB); err != nil {
				return s, fmt.Errorf("cb=%s: not an integer", v)
			}
		default:
			return s, fmt.Errorf("unknown schedule field %q", k)
		}
	}
	return s, nil
}
