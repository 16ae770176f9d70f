// Package compile is AIE1's side of the compiler seam (compiler.Target): the datapaths the
// middle asks for (target/aie1/vyasa, target/aie1/shuffle), the lowering of fused programs to
// the AIE1 kernel IR (vyasa), the cycle model (target/aie1/backend: slot selection, register
// allocation with spills, modulo scheduling honoring chess_loop_range, bundle packing, loop
// set-up, entry and exit; target/aie1/cyclesim: latencies, load/store units, bank-conflict
// stalls), the exact check (vyasa.Verify) and the printers of AIE1's stages (kernel IR,
// bundles, cycles, C++).
package compile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sumacdev/sumac/compiler"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/gemm"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// Target is AIE1 as the compiler and the tuner see it.
type Target struct{}

var _ compiler.Target = Target{}

func (Target) Name() string { return aie1.Name }

// Datapath is vyasa.DatapathFor as the middle sees it.
func (Target) Datapath(t op.Types) (triplet.Datapath, int, error) {
	d, err := vyasa.DatapathFor(t)
	if err != nil {
		return triplet.Datapath{}, 0, err
	}
	return d.Middle(), d.Peak, nil
}

func (Target) DefaultSchedule(spec *op.Spec) (sched.Schedule, error) {
	return vyasa.DefaultSchedule(spec)
}

// Bounds are vyasa's pruning bounds (seed 000 section III-E, from the program memory).
func (Target) Bounds() (int, int) { return vyasa.MaxVectors, vyasa.MaxBodyMACs }

// MemLimit: the 128 KB the core reaches (aie1.ReachBytes), less 8 KB for descriptors and stack.
func (Target) MemLimit() int { return aie1.ReachBytes - 8<<10 }

// Bandwidth: two 256-bit load units (64 B/cycle) and one 256-bit store unit (32 B/cycle)
// (aie1.LoadUnits, LoadBits, StoreUnits, StoreBits; seed 000 Table II, Fig. 8).
func (Target) Bandwidth() (int, int) {
	return aie1.LoadUnits * aie1.LoadBits / 8, aie1.StoreUnits * aie1.StoreBits / 8
}

func (Target) Generate(spec *op.Spec, s sched.Schedule) (compiler.Program, error) {
	p, err := vyasa.Generate(spec, s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// program returns the AIE1 program behind p (a programming error if another target made it).
func program(p compiler.Program) *vyasa.Program {
	vp, ok := p.(*vyasa.Program)
	if !ok {
		panic(fmt.Sprintf("aie1: program %T was not generated for aie1", p))
	}
	return vp
}

// ModelVersion names the model in cache keys: the back end's and simulator's model version.
func (Target) ModelVersion() string { return backend.ModelVersion + "/cyclesim" }

// sizes are the byte sizes of the kernel's three buffers.
func sizes(p *vyasa.Program) map[string]int {
	eb := p.Datapath.DType.Bits() / 8
	out := map[string]int{}
	for t, name := range map[string]string{triplet.In: "in", triplet.W: "w", triplet.Out: "out"} {
		out[name] = p.Elems[t] * eb
	}
	return out
}

// bundles compiles the kernel for one tile (the version that runs, see timed).
func bundles(p *vyasa.Program) (*backend.Program, error) {
	bp, _, err := timed(p.Kernel, sizes(p), p.Spec)
	return bp, err
}

// run counts the cycles of one call. Cycle counts do not depend on the data, so the run uses
// zero-filled memory; the kernel's results are checked by Verify.
func run(p *vyasa.Program) (r *cyclesim.Result, err error) {
	defer func() {
		// a fault of the back end or simulator on one candidate refuses that candidate
		// (with the fault as its reason) instead of ending a whole tuning run
		if e := recover(); e != nil {
			r, err = nil, fmt.Errorf("internal error in the back end or simulator: %v", e)
		}
	}()
	_, r, err = timed(p.Kernel, sizes(p), p.Spec)
	return r, err
}

// timed compiles a kernel for one tile and runs it on the cycle simulator
// (cyclesim.CompileRun). Unroll-and-jam and flattened outer loops are bounded by the program
// memory (seed 000 section III-E; aie1.ProgMemInstrs).
func timed(k *kernel.Kernel, sizes map[string]int, spec *op.Spec) (*backend.Program, *cyclesim.Result, error) {
	bp, r, err := cyclesim.CompileRun(k, backend.Options{Sizes: sizes}, cyclesim.Config{Sizes: sizes, Round: spec.Types.Round, Sat: spec.Types.Sat})
	if bp != nil {
		if n := len(bp.Bundles); n > aie1.ProgMemInstrs {
			return nil, nil, fmt.Errorf("%d instructions exceed the %d of program memory", n, aie1.ProgMemInstrs)
		}
	}
	return bp, r, err
}

// Evaluate compiles the program's kernel for one tile and counts its cycles.
func (t Target) Evaluate(p compiler.Program) (compiler.Eval, error) {
	var r *cyclesim.Result
	var err error
	if gp, ok := p.(*gemm.Program); ok {
		r, err = gemmRun(gp)
	} else {
		if b, _ := program(p).Footprint(); b > t.MemLimit() {
			return compiler.Eval{}, fmt.Errorf("buffers of %d bytes exceed the %d bytes of memory", b, t.MemLimit())
		}
		r, err = run(program(p))
	}
	if err != nil {
		return compiler.Eval{}, err
	}
	return compiler.Eval{Cycles: r.Cycles, Spills: int(r.Spills + r.Fills), Stalls: r.Stalls}, nil
}

// Verify is vyasa.Verify: the fused program against op/ref on seeded inputs (fewer than 1% of
// outputs saturating), and the kernel IR on the interpreter against the fused program.
func (Target) Verify(p compiler.Program, seed uint64) (compiler.Check, error) {
	if gp, ok := p.(*gemm.Program); ok {
		return gemmVerify(gp, seed)
	}
	ck, err := vyasa.Verify(program(p), seed)
	return compiler.Check{OK: ck.OK(), Outputs: ck.Outputs, Saturated: ck.Saturated, First: ck.First, Interpreted: ck.Interpreted}, err
}

// Emit prints AIE1's stages.
func (Target) Emit(stage string, p compiler.Program) (string, error) {
	if gp, ok := p.(*gemm.Program); ok {
		return emitStage(stage, gp.Kernel, func() (*backend.Program, error) { return gemmBundles(gp) }, func() (*cyclesim.Result, error) { return gemmRun(gp) })
	}
	vp := program(p)
	return emitStage(stage, vp.Kernel, func() (*backend.Program, error) { return bundles(vp) }, func() (*cyclesim.Result, error) { return run(vp) })
}

// emitStage prints one of AIE1's stages of a kernel.
func emitStage(stage string, k *kernel.Kernel, bundles func() (*backend.Program, error), run func() (*cyclesim.Result, error)) (string, error) {
	switch stage {
	case "kernel":
		return k.String(), nil
	case "bundles":
		bp, err := bundles()
		if err != nil {
			return "", err
		}
		return bp.String(), nil
	case "cycles":
		r, err := run()
		if err != nil {
			return "", err
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "cycles %d (bank-conflict stalls %d), %d MACs issued (%.2f per cycle), spills %d, fills %d\n", r.Cycles, r.Stalls, r.MACs, r.MACsPerCycle, r.Spills, r.Fills)
		for s := aie1.Slot(0); s < aie1.NumSlots; s++ {
			fmt.Fprintf(&sb, "slot %-3s %d\n", s, r.SlotUse[s])
		}
		return sb.String(), nil
	case "cpp":
		return cemit.Emit(k)
	}
	return "", fmt.Errorf("aie1 has no stage %q", stage)
}

// WriteKernel writes the kernel as DIR/NAME.cc and, as DIR/NAME.txt, the sumac sim command
// line that runs it (its window sizes).
func (Target) WriteKernel(dir, name string, cp compiler.Program) error {
	if gp, ok := cp.(*gemm.Program); ok {
		return gemmWriteKernel(dir, name, gp)
	}
	p := program(cp)
	src, err := cemit.Emit(p.Kernel)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	head := fmt.Sprintf("// Code generated by sumac compile (Vyasa, seed 000). DO NOT EDIT.\n// spec: %s\n// schedule: %s\n// buffers (elements of %v): in %d, w %d, out %d\n\n",
		p.Spec, p.Sched.Key(), p.Datapath.DType, p.Elems[triplet.In], p.Elems[triplet.W], p.Elems[triplet.Out])
	if err := os.WriteFile(filepath.Join(dir, name+".cc"), []byte(head+src), 0o644); err != nil {
		return err
	}
	eb := p.Datapath.DType.Bits() / 8
	note := fmt.Sprintf("sumac sim %s.cc --window in=%d --window w=%d --window out=%d\n", name, p.Elems[triplet.In]*eb, p.Elems[triplet.W]*eb, p.Elems[triplet.Out]*eb)
	return os.WriteFile(filepath.Join(dir, name+".txt"), []byte(note), 0o644)
}
