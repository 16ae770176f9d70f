package cyclesim

import (
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// CompileRun compiles k with the timing back end (backend.Compile: the fastest of its
// versions) and runs the bundles. A program that fails in the simulator is an error, not
// replaced by a plainer version: the back end's programs are legal by construction, and a
// failure is a bug to see. (A fallback to the kernel as written used to hide the simulator's
// false latency violations in flattened loop nests, see TestLoopSetupSeqInTrace.)
func CompileRun(k *kernel.Kernel, opt backend.Options, cfg Config) (*backend.Program, *Result, error) {
	p, err := backend.Compile(k, opt)
	if err != nil {
		return nil, nil, err
	}
	r, err := Run(p, cfg)
	return p, r, err
}
