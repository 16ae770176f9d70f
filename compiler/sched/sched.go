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
	// seed 000 section IV-A says Vyasa could not do.
	FuseRows Fusion = "rows"
)

// Operation orders of a loop body (Schedule.Interleave).
const (
	InterleaveUpdate  = "update"
	InterleaveOperand = "operand"
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
}

// Key is a canonical one-line form, used as a cache key and in reports.
func (s Schedule) Key() string {
	k := fmt.Sprintf("vec=%s order=%s u=%d,%d,%d fuse=%s O=%s W=%s I=%s padr=%d",
		s.Vec, s.Order, s.UX, s.UY, s.UK, s.Fusion, s.Out, s.W, s.In, s.PadR)
	if s.Interleave == InterleaveOperand {
		k += " il=" + s.Interleave
	}
	if s.Flat {
		k += " flat=1"
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
	if c.Stride != 1 || c.Dilation != 1 || c.Pad != 0 {
		return fmt.Errorf("only stride 1, dilation 1 and no padding are supported (spec has stride=%d dilation=%d pad=%d)", c.Stride, c.Dilation, c.Pad)
	}
	if c.Groups != 1 && !(c.Groups == c.C && c.Groups == c.K) {
		return fmt.Errorf("groups=%d: only groups=1 and depth-wise (groups=c=k) are supported", c.Groups)
	}
	if len(s.Order) != 3 || !isPerm(s.Order, "kyx") {
		return fmt.Errorf("loop order %q is not a permutation of k, y, x", s.Order)
	}
	if s.UX < 1 || s.UY < 1 || s.UK < 1 {
		return fmt.Errorf("unroll factors must be at least 1")
	}
	switch s.Vec {
	case "x":
		if c.X%(sh.Lanes*s.UX) != 0 {
			return fmt.Errorf("x=%d is not a multiple of %d lanes x unroll %d", c.X, sh.Lanes, s.UX)
		}
		if c.K%s.UK != 0 {
			return fmt.Errorf("k=%d is not a multiple of unroll %d", c.K, s.UK)
		}
	case "k":
		if c.Groups != 1 {
			return fmt.Errorf("the k loop of a depth-wise convolution cannot be vectorized (no reduction shares an input)")
		}
		if c.K%(sh.Lanes*s.UK) != 0 {
			return fmt.Errorf("k=%d is not a multiple of %d lanes x unroll %d", c.K, sh.Lanes, s.UK)
		}
		if c.X%s.UX != 0 {
			return fmt.Errorf("x=%d is not a multiple of unroll %d", c.X, s.UX)
		}
	default:
		return fmt.Errorf("vectorized loop %q: want x or k", s.Vec)
	}
	if c.Y%s.UY != 0 {
		return fmt.Errorf("y=%d is not a multiple of unroll %d", c.Y, s.UY)
	}
	for _, l := range []string{s.Out, s.W, s.In} {
		if _, err := layout.Parse(l); err != nil {
			return err
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
	case FuseChannels:
		if sh.Cols == 1 {
			return fmt.Errorf("fusing channels needs several columns")
		}
		if c.C/c.Groups < 2 {
			return fmt.Errorf("fusing channels needs at least 2 input channels per group")
		}
	default:
		return fmt.Errorf("unknown fusion %q", s.Fusion)
	}
	return nil
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

// Layouts returns the layouts (O, W, I) and the padded filter width a vectorized loop and a
// fusion need. Block sizes come from the datapath: lanes for the vectorized k, columns for
// fused channels.
func Layouts(c *op.Conv2D, vec string, f Fusion, sh Shape) (o, w, in string, padR int) {
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
	}
	taps := c.R * c.S * (c.C / c.Groups)
	for _, vec := range []string{"x", "k"} {
		for _, f := range fusions {
			if vec == "k" && (f == FuseTaps || f == FuseRows) {
				continue
			}
			if f == FuseRows && c.R%sh.Cols == 0 {
				continue // nothing left over: same as FuseTaps
			}
			o, w, in, padR := Layouts(c, vec, f, sh)
			for _, order := range Orders(vec) {
				for ux := 1; ux <= 8; ux *= 2 {
					for uy := 1; uy <= 8; uy *= 2 {
						for uk := 1; uk <= 8; uk *= 2 {
							s := Schedule{Vec: vec, Order: order, UX: ux, UY: uy, UK: uk, Fusion: f, Out: o, W: w, In: in, PadR: padR}
							if ux*uy*uk > maxVectors {
								continue
							}
							if ux*uy*uk > 1 && ux*uy*uk <= 4 {
								// Several output vectors: also try the operand-major order.
								s2 := s
								s2.Interleave = InterleaveOperand
								if s2.Check(c, sh) == nil {
									out = append(out, s2)
								}
							}
							if ops := ux * uy * uk * (taps + sh.Cols - 1) / sh.Cols; ops > maxBodyMACs {
								pruned = append(pruned, fmt.Sprintf("%s: body of %d vector MACs exceeds the program-memory bound %d", s.Key(), ops, maxBodyMACs))
								continue
							}
							if err := s.Check(c, sh); err != nil {
								pruned = append(pruned, fmt.Sprintf("%s: %v", s.Key(), err))
								continue
							}
							out = append(out, s)
						}
					}
				}
			}
		}
	}
	return out, pruned
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
		default:
			return s, fmt.Errorf("unknown schedule field %q", k)
		}
	}
	return s, nil
}
