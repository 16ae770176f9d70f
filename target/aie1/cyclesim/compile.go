package cyclesim

import (
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// CompileRun compiles k with the timing back end and runs the bundles. When the back end's
// preferred version (the fastest of its loop-body orders, backend.Compile) fails in the
// simulator, the version with loop bodies clustered by accumulator is compiled and run
// instead, and then the kernel as written (no flattening), so that trying more orders and
// rewrites never loses a kernel a plainer version runs. The returned program is the one that
// ran (or the first, with the error, when none did).
func CompileRun(k *kernel.Kernel, opt backend.Options, cfg Config) (*backend.Program, *Result, error) {
	p, err := backend.Compile(k, opt)
	if err != nil {
		return nil, nil, err
	}
	r, rerr := Run(p, cfg)
	if rerr == nil || opt.BodyOrder != "" {
		return p, r, rerr
	}
	retry := []backend.Options{opt, opt}
	retry[0].BodyOrder = "cluster"
	retry[1].NoFlatten = true
	for i, o := range retry {
		if i == 1 && opt.NoFlatten {
			break
		}
		p2, err := backend.Compile(k, o)
		if err != nil {
			continue
		}
		r2, err := Run(p2, cfg)
		if err != nil {
			continue
		}
		what := []string{"the preferred loop-body order", "the flattened version"}[i]
		p2.Notes = append(p2.Notes, what+" failed in the simulator: "+rerr.Error())
		return p2, r2, nil
	}
	return p, nil, rerr
}
