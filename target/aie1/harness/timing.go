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
	return timeRun(k, sizes, data, cyclesim.Config{Round: round, Sat: sat})
}

func timeRun(k *kernel.Kernel, sizes map[string]int, data map[string][]byte, cfg cyclesim.Config) (*Timing, error) {
	cfg.Data, cfg.Sizes = data, sizes
	p, r, err := cyclesim.CompileRun(k, backend.Options{Sizes: sizes}, cfg)
	if p == nil {
		return nil, err
	}
	if err != nil {
		return &Timing{Program: p}, err
	}
	return &Timing{Program: p, Result: r}, nil
}

// readsCycles reports whether kernel k reads the cycle counter (aie::tile::cycles,
// get_cycles): its runs then take the values from the cycle simulator.
func readsCycles(k *kernel.Kernel) bool {
	found := false
	kernel.Walk(k.Body, func(st kernel.Stmt, _ int) {
		if in, ok := st.(*kernel.Instr); ok && in.Op == kernel.OpCycles {
			found = true
		}
	})
	return found
}

// time runs the timing backend and the cycle simulator once per Run: a kernel that reads the
// cycle counter is timed before the interpreter and the emulation run, which return the
// simulator's counter values.
func (s *run) time(data map[string][]byte) (*Timing, error) {
	if !s.timed {
		s.timed = true
		s.timingRun, s.timingErr = timeRun(s.k, s.sizes, data, cyclesim.Config{Round: s.opt.Round, Sat: s.opt.Sat, MaxCycles: s.opt.MaxSteps, PLIO: s.opt.PLIO})
	}
	return s.timingRun, s.timingErr
}

// timing fills the report's cycle figures; a kernel the backend cannot compile yet is
// reported, not failed. The simulator's final memory must equal the interpreter's.
func (s *run) timing(rep *Report, res *interp.Result, data map[string][]byte) {
	t, err := s.time(data)
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
	if cr.StreamStalls > 0 {
		rep.StreamStalls = &cr.StreamStalls
		rep.CycleBreakdown = append(rep.CycleBreakdown, Cost{What: "stream stalls (32 bits per cycle per port)", Cycles: int(cr.StreamStalls), Source: "AM009 AI Engine Interfaces"})
	}
	if len(cr.CycleReads) > 0 {
		rep.CycleReads = cr.CycleReads
		m := cr.CycleReads[len(cr.CycleReads)-1] - cr.CycleReads[0]
		rep.MeasuredCycles = &m
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
