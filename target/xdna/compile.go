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

// Options are compile choices.
type Options struct {
	// Accumulate makes the kernel add to the output buffer (out += A B, the published
	// kernels' semantics) instead of overwriting it; the run starts from a random output.
	Accumulate bool
}

// Compile generates the kernel of an einsum spec for the architecture, runs it on the cycle
// engine with random operands and checks the output against op/ref.
func Compile(a *Arch, spec string) (*Result, error) { return CompileOpts(a, spec, Options{}) }

// CompileOpts is Compile with options.
func CompileOpts(a *Arch, spec string, opt Options) (*Result, error) {
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
	// The generator's choices: output-tile prioritization or round robin, stores spread or
	// packed, the smallest loop body or a few bundles more when placement or registers fail
	// there. Every variant that generates is emitted; the shortest program (its length is
	// known before running) is run and checked.
	var k *kern
	var prog *vliw.Program
	var first error
	for extra := 0; extra <= 4 && (prog == nil || extra <= 2); extra++ {
		for _, prio := range []bool{true, false} {
			for _, spread := range []bool{false, true} {
				if spread && !opt.Accumulate {
					continue
				}
				g := genOpts{prio: prio, acc: opt.Accumulate, extra: extra, spread: spread}
				var kk *kern
				switch a.Gen {
				case AIE2P:
					kk, err = genAIE2P(a, s.Einsum, "einsum_kernel", g)
				case AIE2:
					kk, err = genAIE2(a, s.Einsum, "einsum_kernel", g)
				}
				var p *vliw.Program
				if err == nil {
					if p, err = kk.emit(); err != nil {
						err = fmt.Errorf("%s: %v", a.Name, err)
					}
				}
				if err != nil {
					if first == nil {
						first = err
					}
					continue
				}
				if prog == nil || kk.length() < k.length() {
					k, prog = kk, p
				}
			}
		}
	}
	if prog == nil {
		return nil, first
	}
	lay, err := a.PlaceBuffers(s.Einsum)
	if err != nil {
		return nil, err
	}
	cIn := "zero"
	if opt.Accumulate {
		cIn = "random"
	}
	o, err := a.RandomOperands(s.Einsum, 1, cIn)
	if err != nil {
		return nil, err
	}
	run, err := a.Run(prog, s.Einsum, lay, o)
	if err != nil {
		return &Result{Listing: vliw.Listing(a.M, prog)}, fmt.Errorf("%s: generated kernel: %v", a.Name, err)
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

// SimOptions describe a listing run: the einsum whose buffers the kernel works on and how
// they are placed and filled.
type SimOptions struct {
	Spec string // einsum spec (sizes and layout of the three buffers)
	// In0, In1, Out are buffer addresses; negative: the bank-aware placement (PlaceBuffers).
	In0, In1, Out int
	CIn           string // initial output buffer: zero or random
	Seed          uint64
}

// SimResult is a listing's run.
type SimResult struct {
	Instructions int64
	VMACs        int64
	Cycles       int64
	Stalls       int64
	Verified     bool
	MaxErr       float64
	Mismatch     string
	Hazard       *vliw.Hazard // the rule the run broke (nil: none)
	Layout       Layout
}

// OK reports a run without hazards whose output matched op/ref.
func (r *SimResult) OK() bool { return r.Hazard == nil && r.Verified }

// SimListing reads an assembly listing in the published kernels' syntax, places and fills the
// buffers of opt.Spec, runs it and checks the output. A hazard ends the run and is returned in
// the result (err is for input that cannot run at all).
func SimListing(a *Arch, name, src string, opt SimOptions) (*SimResult, error) {
	s, err := op.Parse(opt.Spec)
	if err != nil {
		return nil, err
	}
	if s.Einsum == nil {
		return nil, fmt.Errorf("the buffers are described by an einsum spec, not %s", s.Op())
	}
	res := &SimResult{}
	p, err := vliw.Parse(a.M, NewISA(a), name, src)
	if h, ok := err.(*vliw.Hazard); ok {
		res.Hazard = h
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	if err := vliw.Link(a.M, p); err != nil {
		if h, ok := err.(*vliw.Hazard); ok {
			res.Hazard = h
			return res, nil
		}
		return nil, err
	}
	lay, err := a.PlaceBuffers(s.Einsum)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		addr int
		dst  *int
	}{{opt.In0, &lay.In0}, {opt.In1, &lay.In1}, {opt.Out, &lay.Out}} {
		if f.addr >= 0 {
			*f.dst = f.addr
		}
	}
	res.Layout = lay
	o, err := a.RandomOperands(s.Einsum, opt.Seed, opt.CIn)
	if err != nil {
		return nil, err
	}
	run, err := a.Run(p, s.Einsum, lay, o)
	if run != nil {
		res.Instructions, res.VMACs, res.Cycles, res.Stalls = run.Stats.Bundles, run.VMACs, run.Stats.Cycles, run.Stats.Stalls
		res.Verified, res.MaxErr, res.Mismatch = run.Verified, run.MaxErr, run.Mismatch
	}
	if h, ok := err.(*vliw.Hazard); ok {
		res.Hazard = h
		return res, nil
	}
	return res, err
}

// SeedSpec is the einsum of the published kernel for a generation (seed 002 for AIE2P, the
// xdna repository's XDNA1 kernel for AIE2): the default buffers of a listing run.
func SeedSpec(g Gen) string {
	if g == AIE2P {
		return "einsum [m2,k1,m1,m0,k0],[n2,k1,n1,n0,k0]->[m1,m2,n2,n1,m0,n0] m2=4 k1=12 m1=2 m0=8 k0=8 n2=4 n1=2 n0=8 dtype=bfp16"
	}
	return "einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=8 k1=4 m0=4 k0=8 n1=8 n0=4 dtype=bf16"
}
