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

// Index is an affine index expression Var + Off (Var "" for a constant).
type Index struct {
	Var string
	Off int
}

func (ix Index) String() string {
	switch {
	case ix.Var == "":
		return fmt.Sprint(ix.Off)
	case ix.Off == 0:
		return ix.Var
	case ix.Off < 0:
		return fmt.Sprintf("%s-%d", ix.Var, -ix.Off)
	}
	return fmt.Sprintf("%s+%d", ix.Var, ix.Off)
}

// Tensor names.
const (
	Out = "O"
	W   = "W"
	In  = "I"
)

// Access is a tensor access: one index per dimension, and for a vector access the dimension
// that ranges over Len consecutive values (Vec < 0 for a scalar).
type Access struct {
	Tensor string
	Dims   []string // tensor dimension names (O: X Y K N, W: R S C K, I: X' Y' C N)
	Idx    []Index
	Vec    int
	Len    int
}

// Scalar reports whether the access is a scalar.
func (a Access) Scalar() bool { return a.Vec < 0 }

// At returns the concrete index of lane i with loop variables bound by vars.
func (a Access) At(lane int, vars map[string]int) []int {
	out := make([]int, len(a.Idx))
	for d, ix := range a.Idx {
		v := ix.Off
		if ix.Var != "" {
			v += vars[ix.Var]
		}
		if d == a.Vec {
			v += lane
		}
		out[d] = v
	}
	return out
}

// Key identifies an access (used to compare update operands and reuse-graph nodes).
func (a Access) Key() string { return a.String() }

// String prints the access as seed 000 does: O(x:x+15, y), W(0, 0), I(x+1:x+16, y). Dimensions
// marked hidden are left out (a 2D convolution prints only its two spatial indices).
func (a Access) String() string {
	var parts []string
	for d, ix := range a.Idx {
		if a.Dims[d] == "" {
			continue
		}
		s := ix.String()
		if d == a.Vec {
			s += ":" + Index{ix.Var, ix.Off + a.Len - 1}.String()
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
}

// Build translates a convolution and a schedule into the Triplet IR: the output loops are
// unrolled by the schedule's factors (the vectorized one by lanes x factor), and the reduction
// loops r, s, c are fully unrolled (seed 000 section III-E, pruning strategy 1). Statements of
// one update operand are listed channel-major, then filter row, then tap (Table I's order).
func Build(c *op.Conv2D, s sched.Schedule, sh sched.Shape) (*Body, error) {
	if err := s.Check(c, sh); err != nil {
		return nil, err
	}
	lanes := sh.Lanes
	b := &Body{Conv: c, Sched: s, Lanes: lanes}
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
	if c.N == 1 && !twoD {
		oDims[3], iDims[3] = "", ""
	}
	cpg := c.C / c.Groups
	depthwise := c.Groups > 1
	vecX := s.Vec == "x"
	for uy := 0; uy < s.UY; uy++ {
		for uk := 0; uk < s.UK; uk++ {
			for ux := 0; ux < s.UX; ux++ {
				xo, ko := ux, uk
				if vecX {
					xo *= lanes
				} else {
					ko *= lanes
				}
				upd := Access{Tensor: Out, Dims: oDims, Idx: []Index{{"x", xo}, {"y", uy}, {"k", ko}, {"n", 0}}, Vec: -1, Len: 1}
				if vecX {
					upd.Vec, upd.Len = 0, lanes
				} else {
					upd.Vec, upd.Len = 2, lanes
				}
				u := len(b.Updates)
				b.Updates = append(b.Updates, upd)
				for cg := 0; cg < cpg; cg++ {
					for fs := 0; fs < c.S; fs++ {
						for fr := 0; fr < c.R; fr++ {
							w := Access{Tensor: W, Dims: wDims, Idx: []Index{{"", fr}, {"", fs}, {"", cg}, {"k", ko}}, Vec: -1, Len: 1}
							in := Access{Tensor: In, Dims: iDims, Idx: []Index{{"x", xo + fr}, {"y", uy + fs}, {"", cg}, {"n", 0}}, Vec: -1, Len: 1}
							if depthwise {
								w.Idx[2] = Index{"", 0}
								in.Idx[2] = Index{"k", ko} // channel = output channel (groups = c = k)
							}
							if vecX {
								in.Vec, in.Len = 0, lanes
							} else {
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
