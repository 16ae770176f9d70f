// Package triplet is the Triplet IR of seed 000 (section III-A): the unrolled loop body of a
// tensor convolution as a list of statements, each holding the access of its update (output)
// operand and of the two operands of its multiplication. On it the package builds the reuse
// graphs of section III-B and the 2D fusion of section III-C.
package triplet

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/op"
)

// Index is an affine index expression Mul*Var + Off (Var "" for a constant; Mul 0 means 1).
// A strided convolution reads the input at stride*x + tap: Mul is the stride.
type Index struct {
	Var string
	Off int
	Mul int
}

// Coef is the coefficient of Var.
func (ix Index) Coef() int {
	if ix.Mul == 0 {
		return 1
	}
	return ix.Mul
}

func (ix Index) String() string {
	v := ix.Var
	if v != "" && ix.Coef() != 1 {
		v = fmt.Sprintf("%d%s", ix.Coef(), v)
	}
	switch {
	case ix.Var == "":
		return fmt.Sprint(ix.Off)
	case ix.Off == 0:
		return v
	case ix.Off < 0:
		return fmt.Sprintf("%s-%d", v, -ix.Off)
	}
	return fmt.Sprintf("%s+%d", v, ix.Off)
}

// Tensor names.
const (
	Out = "O"
	W   = "W"
	In  = "I"
)

// Access is a tensor access: one index per dimension, and for a vector access the dimension
// that ranges over Len consecutive values (Vec < 0 for a scalar). Lane, when set, replaces
// that rule: lane i adds Mul*((i/Div)%Mod) to dimension Dim for every entry (a strided
// input, an input duplicated along D, lanes split between x positions and output channels).
type Access struct {
	Tensor string
	Dims   []string // tensor dimension names (O: X Y K N, W: R S C K, I: X' Y' C N [D])
	Idx    []Index
	Vec    int
	Len    int
	Lane   []LaneDim
}

// LaneDim is one term of a vector access's lane mapping: lane i adds Mul*((i/Div)%Mod) to
// index Dim.
type LaneDim struct{ Dim, Div, Mod, Mul int }

// Scalar reports whether the access is a scalar.
func (a Access) Scalar() bool { return a.Vec < 0 }

// At returns the concrete index of lane i with loop variables bound by vars.
func (a Access) At(lane int, vars map[string]int) []int {
	out := make([]int, len(a.Idx))
	for d, ix := range a.Idx {
		v := ix.Off
		if ix.Var != "" {
			v += ix.Coef() * vars[ix.Var]
		}
		if d == a.Vec && a.Lane == nil {
			v += lane
		}
		out[d] = v
	}
	for _, ld := range a.Lane {
		out[ld.Dim] += ld.Mul * ((lane / ld.Div) % ld.Mod)
	}
	return out
}

// Key identifies an access (used to compare update operands and reuse-graph nodes).
func (a Access) Key() string { return a.String() }

// String prints the access as seed 000 does: O(x:x+15, y), W(0, 0), I(x+1:x+16, y). Dimensions
// marked hidden are left out (a 2D convolution prints only its two spatial indices). A lane
// mapping prints each dimension it moves as first:last:step (I(2x:2x+30:2, y)).
func (a Access) String() string {
	var parts []string
	var first, last []int
	if a.Lane != nil {
		first, last = a.At(0, nil), a.At(a.Len-1, nil)
	}
	for d, ix := range a.Idx {
		if a.Dims[d] == "" {
			continue
		}
		s := ix.String()
		switch {
		case a.Lane != nil && first[d] != last[d]:
			step := 0
			for _, ld := range a.Lane {
				if ld.Dim == d && (step == 0 || ld.Mul < step) {
					step = ld.Mul
				}
			}
			s += ":" + Index{ix.Var, ix.Off + last[d] - first[d], ix.Mul}.String()
			if step != 1 {
				s += fmt.Sprintf(":%d", step)
			}
		case a.Lane == nil && d == a.Vec:
			s += ":" + Index{ix.Var, ix.Off + a.Len - 1, ix.Mul}.String()
		}
		parts = append(parts, s)
	}
	return a.Tensor + "(" + strings.Join(parts, ", ") + ")"
}

// Triplet is one statement of the body: Update += Op1 * Op2. Pad marks a multiplication
// added to fill a datapath column (its weight is a zero from the padded filter).
type Triplet struct {
	Update, Op1, Op2 Access
	Pad              bool
	// R, S, C are the filter tap and input channel (within the group) of the statement;
	// U is the index of the output vector (update operand) in the body.
	R, S, C, U int
}

func (t Triplet) String() string {
	return fmt.Sprintf("%s += %s * %s", t.Update, t.Op1, t.Op2)
}

// Body is the Triplet IR of one iteration of the unrolled loop nest.
type Body struct {
	Conv     *op.Conv2D
	Sched    sched.Schedule
	Lanes    int
	Triplets []Triplet
	Updates  []Access // the distinct update operands (output vectors), in order
	// Grouped: a grouped convolution that is not depth-wise runs one group's convolution
	// (CPG input and KPG output channels) in the body and a loop g over the groups moves the
	// tensors' pointers; otherwise CPG = C/Groups and KPG = K. When channels fill the
	// columns, each group's input channels are padded with zeros to CPGIn (a multiple of the
	// columns), so a short group of channels takes zeros of its own pixel.
	Grouped         bool
	CPG, KPG, CPGIn int
}

// Lane layouts of the vectorized loops (sched.Schedule.Vec): lanes of x, lanes of k, or (the
// 8-bit "xk") the lanes split into XKX x positions by XKK output channels, as seed 004's 8x8
// micro-kernel splits its 16 lanes into 8 output pixels of two output channels (Fig. 5).
const (
	XKX = 8
	XKK = 2
)

// Build translates a convolution and a schedule into the Triplet IR: the output loops are
// unrolled by the schedule's factors (the vectorized one by lanes x factor), and the reduction
// loops r, s, c are fully unrolled (seed 000 section III-E, pruning strategy 1). Statements of
// one update operand are listed channel-major, then filter row, then tap (Table I's order).
//
// The input is read at stride*x + dilation*r (and likewise in y) of the zero-padded input: the
// padding is packed into the input's layout (Plan binds the padded extents). With sched.Dup,
// the input is a duplicated tensor I'(X', Y', C, N, D) = I(X' + stride*D, ...) whose D-th copy
// is shifted by D output pixels, so a lane group reads one 32-bit word per tap.
func Build(c *op.Conv2D, s sched.Schedule, sh sched.Shape) (*Body, error) {
	if err := s.Check(c, sh); err != nil {
		return nil, err
	}
	lanes := sh.Lanes
	b := &Body{Conv: c, Sched: s, Lanes: lanes, CPG: c.C / c.Groups, KPG: c.K}
	b.CPGIn = b.CPG
	depthwise := c.Groups > 1 && c.Groups == c.C && c.Groups == c.K
	if c.Groups > 1 && !depthwise {
		b.Grouped, b.KPG = true, c.K/c.Groups
		if s.Fusion == sched.FuseChannels {
			b.CPGIn = (b.CPG + sh.Cols - 1) / sh.Cols * sh.Cols
		}
	}
	twoD := c.C == 1 && c.K == 1 && c.N == 1
	hide := func(dims []string, keep int) []string {
		if !twoD {
			return dims
		}
		out := append([]string(nil), dims...)
		for i := keep; i < len(out); i++ {
			out[i] = ""
		}
		return out
	}
	oDims := hide([]string{"X", "Y", "K", "N"}, 2)
	wDims := hide([]string{"R", "S", "C", "K"}, 2)
	iDims := hide([]string{"X'", "Y'", "C", "N"}, 2)
	if s.Dup > 1 {
		iDims = append(iDims, "D")
	}
	if c.N == 1 && !twoD {
		oDims[3], iDims[3] = "", ""
	}
	st, dl := c.Stride, c.Dilation
	mul := 0 // Index.Mul of the input's spatial indices: the stride (0 keeps unit-stride text)
	if st != 1 {
		mul = st
	}
	cpg := b.CPG
	vecX, vecXK := s.Vec == "x", s.Vec == "xk"
	for uy := 0; uy < s.UY; uy++ {
		for uk := 0; uk < s.UK; uk++ {
			for ux := 0; ux < s.UX; ux++ {
				xo, ko := ux, uk
				switch {
				case vecX:
					xo *= lanes
				case vecXK:
					xo, ko = ux*XKX, uk*XKK
				default:
					ko *= lanes
				}
				upd := Access{Tensor: Out, Dims: oDims, Idx: []Index{{"x", xo, 0}, {"y", uy, 0}, {"k", ko, 0}, {"n", 0, 0}}, Vec: -1, Len: 1}
				switch {
				case vecX:
					upd.Vec, upd.Len = 0, lanes
				case vecXK:
					upd.Vec, upd.Len = 0, lanes
					upd.Lane = []LaneDim{{0, 1, XKX, 1}, {2, XKX, XKK, 1}}
				default:
					upd.Vec, upd.Len = 2, lanes
				}
				u := len(b.Updates)
				b.Updates = append(b.Updates, upd)
				nc, cv := cpg, "" // channels in the body; the reduction loop's variable
				if s.CB > 0 {
					nc, cv = s.CB, "c"
				}
				for cg := 0; cg < nc; cg++ {
					for fs := 0; fs < c.S; fs++ {
						for fr := 0; fr < c.R; fr++ {
							w := Access{Tensor: W, Dims: wDims, Idx: []Index{{"", fr, 0}, {"", fs, 0}, {cv, cg, 0}, {"k", ko, 0}}, Vec: -1, Len: 1}
							in := Access{Tensor: In, Dims: iDims, Idx: []Index{{"x", st*xo + dl*fr, mul}, {"y", st*uy + dl*fs, mul}, {cv, cg, 0}, {"n", 0, 0}}, Vec: -1, Len: 1}
							if s.Dup > 1 {
								in.Idx = append(in.Idx, Index{})
							}
							if depthwise {
								w.Idx[2] = Index{"", 0, 0}
								in.Idx[2] = Index{"k", ko, 0} // channel = output channel (groups = c = k)
							}
							switch {
							case vecX && s.Dup > 1:
								in.Vec, in.Len = 0, lanes
								in.Lane = []LaneDim{{0, s.Dup, lanes / s.Dup, st * s.Dup}, {4, 1, s.Dup, 1}}
							case vecX && st != 1:
								in.Vec, in.Len = 0, lanes
								in.Lane = []LaneDim{{0, 1, lanes, st}}
							case vecX:
								in.Vec, in.Len = 0, lanes
							case vecXK:
								in.Vec, in.Len = 0, lanes
								in.Lane = []LaneDim{{0, 1, XKX, st}}
								if s.Dup > 1 {
									// tap r reads copy d = (dilation*r) % Dup, shifted by d
									// pixels (unit stride): its pixels start on a word
									d := dl * fr % s.Dup
									in.Idx[0].Off -= d
									in.Idx[4] = Index{"", d, 0}
								}
								if depthwise {
									in.Lane = append(in.Lane, LaneDim{2, XKX, XKK, 1})
								}
								w.Vec, w.Len = 3, lanes
								w.Lane = []LaneDim{{3, XKX, XKK, 1}}
							default:
								w.Vec, w.Len = 3, lanes
							}
							b.Triplets = append(b.Triplets, Triplet{Update: upd, Op1: w, Op2: in, R: fr, S: fs, C: cg, U: u})
						}
					}
				}
			}
		}
	}
	return b, nil
}

// String prints the body as a table with the columns of seed 000 Table I.
func (b *Body) String() string {
	rows := [][3]string{{"Update", "Operand1", "Operand2"}}
	for _, t := range b.Triplets {
		rows = append(rows, [3]string{t.Update.String(), t.Op1.String(), t.Op2.String()})
	}
	var w [3]int
	for _, r := range rows {
		for i := range r {
			w[i] = max(w[i], len(r[i]))
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s\n# schedule: %s\n# %d triplets (vector loop %s, %d lanes)\n", b.Conv, b.Sched.Key(), len(b.Triplets), b.Sched.Vec, b.Lanes)
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-*s  %-*s  %s\n", w[0], r[0], w[1], r[1], r[2])
	}
	return sb.String()
}
