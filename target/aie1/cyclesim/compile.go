package cyclesim

import (
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// CompileRun compiles k with the timing back end and runs the bundles. When the back end's
// preferred version (the fastest of its loop-body orders, backend.Compile) fails in the
// simulator, the version with loop bodies clustered by accumulator is compiled and run
// instead, so that trying more orders never loses a kernel the clustered order runs. The
// returned program is the one that ran (or the first, with the error, when neither did).
func CompileRun(k *kernel.Kernel, opt backend.Options, cfg Config) (*backend.Program, *Result, error) {
	p, err := backend.Compile(k, opt)
	if err != nil {
		return nil, nil, err
	}
	r, rerr := Run(p, cfg)
	if rerr == nil || opt.BodyOrder != "" {
		return p, r, rerr
	}
	opt.BodyOrder = "cluster"
	p2, err := backend.Compile(k, opt)
	if err != nil {
		return p, nil, rerr
	}
	r2, err := Run(p2, cfg)
	if err != nil {
		return p, nil, rerr
	}
	p2.Notes = append(p2.Notes, "the preferred loop-body order failed in the simulator: "+rerr.Error())
	return p2, r2, nil
}
