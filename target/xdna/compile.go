package xdna

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/vliw"
)

// Result is a compiled and simulated einsum kernel.
type Result struct {
	Target string
	Spec   string
	// Instructions are the bundles the run issues (each hardware-loop trip counted), VMACs
	// those holding a VMAC.F or VMUL.F; Utilization = VMACs / Instructions.
	Instructions int64
	VMACs        int64
	Utilization  float64
	Cycles       int64 // Instructions + stall cycles
	Stalls       int64
	ClockGHz     float64
	GFLOPS       float64 // 2 x MACs per cycle x clock
	Verified     bool    // the output matched op/ref within ref.FloatBound
	MaxErr       float64 // largest |error| / bound
	Mismatch     string

	Program  *vliw.Program
	Listing  string
	Layout   Layout
	II       int // bundles per loop iteration (one block of output tiles)
	Blocks   int // iterations
	Loop     int // hardware-loop trips (0: no loop)
	Prologue int // bundles before the loop body
	Epilogue int // bundles after it
}

// Compile generates the kernel of an einsum spec for the architecture, runs it on the cycle
// engine with random operands and checks the output against op/ref.
func Compile(a *Arch, spec string) (*Result, error) {
	s, err := op.Parse(spec)
	if err != nil {
		return nil, err
	}
	if s.Einsum == nil {
		return nil, fmt.Errorf("%s compiles einsum specs, not %s", a.Name, s.Op())
	}
	if s.Types.A != a.TileDType || s.Types.B != a.TileDType {
		return nil, fmt.Errorf("%s einsum kernels take dtype=%v (the native VMAC.F %s %dx%dx%d), not %v x %v", a.Name, a.TileDType, a.Mode.DType, a.Mode.M, a.Mode.K, a.Mode.N, s.Types.A, s.Types.B)
	}
	if s.Types.Out != op.FP32 {
		return nil, fmt.Errorf("%s einsum kernels write fp32 (out=fp32), not %v", a.Name, s.Types.Out)
	}
	var k *kern
	switch a.Gen {
	case AIE2P:
		k, err = genAIE2P(a, s.Einsum, "einsum_kernel")
	case AIE2:
		k, err = genAIE2(a, s.Einsum, "einsum_kernel")
	}
	if err != nil {
		return nil, err
	}
	prog, err := k.emit()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Name, err)
	}
	lay, err := a.PlaceBuffers(s.Einsum)
	if err != nil {
		return nil, err
	}
	o, err := a.RandomOperands(s.Einsum, 1, "zero")
	if err != nil {
		return nil, err
	}
	run, err := a.Run(prog, s.Einsum, lay, o)
	if err != nil {
		return nil, fmt.Errorf("%s: generated kernel: %v", a.Name, err)
	}
	r := &Result{
		Target: a.Name, Spec: s.String(),
		Instructions: run.Stats.Bundles, VMACs: run.VMACs, Cycles: run.Stats.Cycles, Stalls: run.Stats.Stalls,
		ClockGHz: a.M.ClockGHz, Verified: run.Verified, MaxErr: run.MaxErr, Mismatch: run.Mismatch,
		Program: prog, Listing: vliw.Listing(a.M, prog), Layout: lay,
		II: k.ii, Blocks: k.n, Loop: k.plan.lc,
	}
	if r.Instructions > 0 {
		r.Utilization = float64(r.VMACs) / float64(r.Instructions)
	}
	if r.Cycles > 0 {
		r.GFLOPS = 2 * float64(r.VMACs) * float64(a.MACsPerInstr()) * a.M.ClockGHz / float64(r.Cycles)
	}
	if k.plan.lc > 0 {
		r.Prologue = k.plan.l0 - k.plan.tstart
		r.Epilogue = k.plan.tend - (k.plan.l0 + k.plan.lc*k.ii) + 1
	}
	return r, nil
}
