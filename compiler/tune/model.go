package tune

import (
	"fmt"

	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// Model evaluates candidates on the AIE1 backend (target/aie1/backend: slot selection, register
// allocation with spills, modulo scheduling honoring chess_loop_range, bundle packing, loop
// set-up, entry and exit) and runs the bundles on the cycle simulator (target/aie1/cyclesim: latencies,
// load/store units, bank-conflict stalls). Cycle counts do not depend on the data, so the
// evaluation runs on zero-filled memory; the winner is verified separately.
type Model struct{}

// Version names the model in cache keys: the back end's and simulator's model version.
func (Model) Version() string { return backend.ModelVersion + "/cyclesim" }

// Evaluate compiles the program's kernel for one tile and counts its cycles.
func (Model) Evaluate(p *vyasa.Program) (Eval, error) {
	eb := p.Datapath.DType.Bits() / 8
	sizes := map[string]int{}
	for t, name := range map[string]string{triplet.In: "in", triplet.W: "w", triplet.Out: "out"} {
		sizes[name] = p.Elems[t] * eb
	}
	bp, err := backend.Compile(p.Kernel, backend.Options{Sizes: sizes})
	if err != nil {
		return Eval{}, err
	}
	// Unroll-and-jam and flattened outer loops are bounded by the program memory
	// (seed 000 section III-E; target/aie1 ProgMemInstrs).
	if n := len(bp.Bundles); n > aie1.ProgMemInstrs {
		return Eval{}, fmt.Errorf("%d instructions exceed the %d of program memory", n, aie1.ProgMemInstrs)
	}
	r, err := cyclesim.Run(bp, cyclesim.Config{Sizes: sizes, Round: p.Spec.Types.Round, Sat: p.Spec.Types.Sat})
	if err != nil {
		return Eval{}, err
	}
	return Eval{Cycles: r.Cycles, Spills: int(r.Spills + r.Fills), Stalls: r.Stalls}, nil
}
