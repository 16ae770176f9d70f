package shuffle

import (
	"fmt"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/target/aie1"
)

var _ triplet.Network = Sel16

// Solve is Solve(k, sel) as the middle's triplet.Network.
func (k Kind) Solve(sel Selection) (triplet.Params, error) {
	p, err := Solve(k, sel)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Select is Eval(k, p, lanes, cols) for parameters this package solved.
func (k Kind) Select(p triplet.Params, lanes, cols int) (x, z [][]int) {
	return Eval(k, p.(Params), lanes, cols)
}

// Of returns the parameters of a fused operation this network solved.
func Of(p triplet.Params) Params {
	if q, ok := p.(Params); ok {
		return q
	}
	panic(fmt.Sprintf("shuffle: parameters %T were not solved by the AIE1 network", p))
}

// XBits is the widest X operand: the 1024-bit Y register view, ya = xa:xb ([AM009-reg] in
// package aie1, VectorViews), filled by 256-bit loads.
var XBits = func() int {
	w := 0
	for _, v := range aie1.VectorViews {
		w = max(w, v.Bits)
	}
	return w
}()

// Datapath is what the middle asks of AIE1 for a MAC shape: 256-bit loads kept 128-bit
// aligned (aie1.LoadBits, aie1.AccessAlignBytes), X up to the 1024-bit view, Z one 256-bit
// register (aie1.MACShapes ZBits), and the network k; the 8-bit MAC gathers separate channel
// vectors into its X operand, so adjacent reuse components share a register.
func Datapath(k Kind, sh sched.Shape) triplet.Datapath {
	z := 0
	for _, s := range aie1.MACShapes {
		z = max(z, s.ZBits)
	}
	return triplet.Datapath{Shape: sh, LoadBits: aie1.LoadBits, AlignBits: 8 * aie1.AccessAlignBytes,
		XBits: XBits, ZBits: z, JoinAdjacent: k == Sel8, Net: k}
}
