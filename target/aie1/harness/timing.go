package harness

import (
	"bytes"
	"fmt"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Timing is a cycle run: the backend's program and the cycle simulator's result.
type Timing struct {
	Program *backend.Program
	Result  *cyclesim.Result
}

// Time compiles kernel k with the AIE1 timing backend for regions of the given sizes and runs
// the bundles on the cycle simulator with the given memory (nil: zeros; cycle counts do not
// depend on the data). An error means the backend cannot compile the kernel or the simulator
// cannot run it.
func Time(k *kernel.Kernel, sizes map[string]int, data map[string][]byte, round num.Round, sat num.Sat) (*Timing, error) {
	p, r, err := cyclesim.CompileRun(k, backend.Options{Sizes: sizes}, cyclesim.Config{Data: data, Sizes: sizes, Round: round, Sat: sat})
	if p == nil {
		return nil, err
	}
	if err != nil {
		return &Timing{Program: p}, err
	}
	return &Timing{Program: p, Result: r}, nil
}

// timing fills the report's cycle figures; a kernel the backend cannot compile yet is
// reported, not failed. The simulator's final memory must equal the interpreter's.
func (s *run) timing(rep *Report, res *interp.Result, data map[string][]byte) {
	t, err := Time(s.k, s.sizes, data, s.opt.Round, s.opt.Sat)
	if t != nil && s.opt.Bundles {
		rep.Bundles = t.Program.String()
	}
	if err != nil {
		rep.TimingError = err.Error()
		return
	}
	p, cr := t.Program, t.Result
	rep.Cycles, rep.MACsPerCycle, rep.Spills, rep.Stalls = &cr.Cycles, &cr.MACsPerCycle, &cr.Spills, &cr.Stalls
	rep.Fills, rep.TimingModel = &cr.Fills, backend.ModelVersion
	rep.SlotUse = map[string]int64{}
	for sl, n := range cr.SlotUse {
		if n > 0 {
			rep.SlotUse[aie1.Slot(sl).String()] = n
		}
	}
	for _, b := range p.Breakdown {
		rep.CycleBreakdown = append(rep.CycleBreakdown, Cost{What: b.What, Cycles: b.Cycles, Source: b.Source})
	}
	if cr.Stalls > 0 {
		rep.CycleBreakdown = append(rep.CycleBreakdown, Cost{What: "bank-conflict stalls", Cycles: int(cr.Stalls), Source: "UG1079 AI Engine Memory"})
	}
	for _, prm := range s.k.Params {
		if prm.Type.IsScalar() {
			continue
		}
		if !bytes.Equal(cr.Data[prm.Name], res.Data[prm.Name]) {
			rep.Mismatches = append(rep.Mismatches, fmt.Sprintf("%s: the cycle simulator's final contents differ from the interpreter's", prm.Name))
		}
	}
}
