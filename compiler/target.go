package compiler

import (
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
)

// Target is what a target provides to the pipeline (Stages after the seam) and to the tuner
// (compiler/tune): its datapaths, the lowering of a fused program to its kernel, a cycle model
// and an exact check. The middle never imports a target; the registry (package target) hands
// the command the implementation (AIE1: target/aie1/compile).
type Target interface {
	Name() string
	// Datapath is the middle's view of the vector MAC unit for a spec's types (widths and the
	// operand-selection network) and its peak MACs per cycle.
	Datapath(t op.Types) (triplet.Datapath, int, error)
	// DefaultSchedule is the schedule used when none is given.
	DefaultSchedule(spec *op.Spec) (sched.Schedule, error)
	// Bounds prune the schedule space: output vectors and vector MACs of one loop body.
	Bounds() (maxVectors, maxBodyMACs int)
	// MemLimit is the data one kernel call may place in memory (bytes).
	MemLimit() int
	// Bandwidth is the bytes per cycle the core loads and stores at most (the roofline).
	Bandwidth() (load, store int)
	// Generate runs the middle and lowers its result to the target's kernel.
	Generate(spec *op.Spec, s sched.Schedule) (Program, error)
	// Evaluate counts the cycles of one call on the target's cycle model; ModelVersion names
	// the model (evaluations are cached under it).
	Evaluate(p Program) (Eval, error)
	ModelVersion() string
	// Verify checks the program bit for bit against the exact reference on seeded inputs.
	Verify(p Program, seed uint64) (Check, error)
	// Emit prints the IR of one of the target's stages (Stage.Target) for p.
	Emit(stage string, p Program) (string, error)
	// WriteKernel writes p's source as DIR/NAME.* with a note on how to run it.
	WriteKernel(dir, name string, p Program) error
}

// Program is a target's kernel for one spec and schedule.
type Program interface {
	// Middle is the result of reuse analysis and fusion the kernel was lowered from.
	Middle() *triplet.Result
	// LoopNest lists the emitted loops, outermost first (loops of one iteration left out);
	// OuterIterations is how often the innermost one is entered.
	LoopNest() []string
	OuterIterations() int
	// Name is the kernel's name; MACCounts the MAC instructions executed and the MACs they
	// issue (lanes x columns each, padding included).
	Name() string
	MACCounts() (vector, issued int64)
}

// Eval is the cost of one kernel call on a target's cycle model.
type Eval struct {
	Cycles int64 `json:"cycles"`
	Spills int   `json:"spills"`
	Stalls int64 `json:"stalls"`
	// Err: the model refused the candidate (too large for the program memory, a loop nest the
	// back end cannot compile, ...); kept too, so a second run does not compile it again.
	Err string `json:"err,omitempty"`
}

// Check is the outcome of verifying a program against the exact reference.
type Check struct {
	OK          bool
	Outputs     int     // outputs compared
	Saturated   float64 // fraction of reference outputs that saturate
	First       string  // the first mismatch, described
	Interpreted bool    // the kernel itself ran (not only its fused operations)
}
