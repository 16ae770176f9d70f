package triplet

import "github.com/sumacdev/sumac/compiler/sched"

// The seam between the target-neutral middle and a target: planning and fusion ask the target
// for the widths of its vector datapath and for the legality of every operand selection, and
// never assume one machine's numbers. An AI Engine generation implements it under its folder
// (AIE1: target/aie1/shuffle).

// Selection is what a fused operation needs: for every lane and column, the position of its
// X element and of its Z element inside the X and Z registers.
type Selection struct {
	Lanes, Cols    int
	X, Z           [][]int // [lane][col]
	XElems, ZElems int     // register sizes in elements
}

// Params are a target's operand-selection parameters of one fused operation (the immediates
// of its MAC instruction); the target that solved them reads them back.
type Params interface{ String() string }

// Network is a target's operand-selection network for one datapath.
type Network interface {
	// Solve finds parameters that make the MAC select exactly sel, or returns the rule of
	// the network that forbids it.
	Solve(sel Selection) (Params, error)
	// Select applies parameters: the X and Z positions every lane and column reads.
	Select(p Params, lanes, cols int) (x, z [][]int)
}

// Datapath is what the target tells the middle about the vector MAC unit for one operand type.
type Datapath struct {
	Shape     sched.Shape // lanes x columns and element bits
	LoadBits  int         // one vector load (and store)
	AlignBits int         // alignment every load and store keeps
	XBits     int         // widest X (vector operand) register, filled load by load
	ZBits     int         // the Z (scalar operand) register
	// JoinAdjacent: the X operand gathers vectors that do not overlap (the AIE1 8-bit MAC's
	// channel vectors), so reuse components that touch end to end share one register.
	JoinAdjacent bool
	Net          Network
}

// Eval applies a network's parameters: the positions every lane and column reads.
func Eval(n Network, p Params, lanes, cols int) (x, z [][]int) { return n.Select(p, lanes, cols) }
