// Package harness runs one AIE1 kernel the way sumac checks every kernel it runs or generates.
//
// Run sizes the kernel's windows and buffers (the bytes a first run touches, unless given),
// fills them (given contents, zeros for output windows, random floats in [-1, 1], random
// integers of the widest range that saturates fewer than MaxSaturated of the narrowed lanes),
// runs the kernel on the interpreter (target/aie1/interp) recording every accumulator before it
// is narrowed, checks the run bit for bit against the same source compiled with g++ and the
// emulation header (target/aie1/emul), compiles it with the timing backend (target/aie1/backend)
// and runs the bundles on the cycle simulator (target/aie1/cyclesim), whose final memory must
// equal the interpreter's, and finally asks an optional Referee for an exact-reference check.
// The Report holds every figure and every mismatch; `sumac sim` prints it as it is.
//
// InputRange is the range search on its own, shared with the compiler's verification
// (target/aie1/vyasa.Verify), and Time the cycle run on its own.
package harness

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Source is the C++ text a kernel was parsed from: the g++ emulation check compiles it.
type Source struct {
	File    string   // the file as the user named it (reports and messages)
	Text    []byte   // its contents
	Defines []string // NAME or NAME=VALUE macros it was parsed with
	// IncludeDirs are the -I directories it was parsed with (its own directory comes first)
	IncludeDirs []string
}

// Options say how to run a kernel. The zero value runs with measured sizes, random inputs of
// seed 0, floor rounding, saturation, the g++ check, and no reference.
type Options struct {
	Sizes   map[string]int    // bytes of a window or buffer (others: what the kernel uses)
	Inputs  map[string][]byte // initial contents of a window or buffer (others: random or zero)
	Scalars map[string]int64  // value of every integer scalar parameter
	Round   num.Round         // shift-round-saturate modes
	Sat     num.Sat
	Seed    uint64 // seed of the random inputs
	// SkipEmulation, when not empty, skips the g++ check and is the reason the report gives
	// (the report's ok then covers the interpreter and the cycle simulator only).
	SkipEmulation string
	Bundles       bool    // put the timing backend's VLIW schedule in the report
	Reference     Referee // exact-reference check of the source, if any
	// MaxSteps bounds every interpreter run (instructions) and the cycle run (cycles); 0: the
	// packages' defaults (2e9 and 1e9). A run that reaches it is an error.
	MaxSteps int64
	// PLIO gives the stream parameters connected straight to a PLIO (cyclesim.Config.PLIO);
	// timing only.
	PLIO map[string]cyclesim.PLIO
}

// A Referee checks a kernel's source against an exact reference of the operation it computes
// (for example target/aie1/vyasa.CheckSource for kernels sumac compile wrote). A source it does
// not know returns the zero Reference.
type Referee func(src []byte, seed uint64) Reference

// Reference is the outcome of a Referee.
type Reference struct {
	Note     string // what was checked, or "not checked: why"; empty: the source is not one it knows
	Outputs  int    // outputs compared
	Mismatch string // the failure, described; empty when everything matched
}

// MaxSaturated is the fraction of narrowed lanes (or reference outputs) that random integer
// inputs may saturate: inputs are narrowed until fewer saturate, so that the checks compare
// arithmetic rather than clamped values.
const MaxSaturated = 0.01

// InputRange searches the widest input range that saturates few enough lanes. Step 0 is the
// widest range and each further step narrower; try runs one step and returns how many lanes
// it narrowed and how many of those saturated. InputRange returns the first step with no
// narrowing or fewer than MaxSaturated saturated, or steps-1 (not tried) when none is.
func InputRange(steps int, try func(step int) (narrowed, saturated int64, err error)) (int, error) {
	for i := 0; i < steps-1; i++ {
		n, s, err := try(i)
		if err != nil {
			return 0, err
		}
		if n == 0 || float64(s) < MaxSaturated*float64(n) {
			return i, nil
		}
	}
	return max(steps-1, 0), nil
}

// Run runs kernel k, parsed from src, with the options and checks it. Errors are bad input
// (an unknown parameter, a missing scalar, an access outside a window, no C++ compiler); a
// check that fails is a mismatch in the report, whose OK is then false.
func Run(k *kernel.Kernel, src Source, opt Options) (*Report, error) {
	s := &run{k: k, src: src, opt: opt}
	if err := s.configure(); err != nil {
		return nil, oneLine(err)
	}
	rep, err := s.run()
	return rep, oneLine(err)
}

// oneLine reports the first of several joined errors on one line, with how many more there
// were.
func oneLine(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok || len(j.Unwrap()) < 2 {
		return err
	}
	es := j.Unwrap()
	return fmt.Errorf("%w (and %d more errors)", es[0], len(es)-1)
}

// run holds one Run.
type run struct {
	k        *kernel.Kernel
	src      Source
	opt      Options
	sizes    map[string]int
	sizeFrom map[string]string
	// cycleReads are the cycle simulator's reads of the cycle counter, which the
	// interpreter's and the emulation's reads return too
	cycleReads []int64
	// the timing run (once per Run)
	timed     bool
	timingRun *Timing
	timingErr error
}

// Param returns kernel k's parameter name, or an error listing the parameters it has.
func Param(k *kernel.Kernel, name string) (*kernel.Var, error) {
	var names []string
	for _, p := range k.Params {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("kernel %s has no parameter %s (parameters: %s)", k.Name, name, strings.Join(names, ", "))
}

func isRegion(p *kernel.Var) bool { return p.Type.IsWindow() || p.Type.IsPointer() }

// isInput reports whether a parameter's contents are an input (filled at random unless
// given): input windows, buffers, pointers and input streams.
func isInput(p *kernel.Var) bool {
	return p.Type.IsWindow() && !p.Type.Out || p.Type.IsPointer() || p.Type.IsStream() && !p.Type.Out
}

// declared is the size in bytes a parameter's declaration gives (an array parameter, a buffer
// port with extents), 0 if none.
func declared(p *kernel.Var) int {
	if p.Array > 0 && p.Port != kernel.PortPointer && p.Type.IsPointer() {
		return p.Array * p.Type.Pointee().Bytes()
	}
	return 0
}

// configure checks the options against the kernel's parameters and measures the sizes of the
// regions the options do not size.
func (s *run) configure() error {
	s.sizes, s.sizeFrom = map[string]int{}, map[string]string{}
	for name, n := range s.opt.Sizes {
		p, err := Param(s.k, name)
		if err != nil {
			return err
		}
		if !(isRegion(p) || p.Type.IsStream() && !p.Type.Out) || n < 0 {
			return fmt.Errorf("size of %s: %d bytes for a %v", name, n, p.Type)
		}
		s.sizes[name], s.sizeFrom[name] = n, "--window"
	}
	for _, p := range s.k.Params {
		if _, ok := s.sizes[p.Name]; !ok && declared(p) > 0 {
			s.sizes[p.Name], s.sizeFrom[p.Name] = declared(p), "declared"
		}
	}
	for name := range s.opt.Inputs {
		p, err := Param(s.k, name)
		if err != nil {
			return err
		}
		if !isInput(p) && !isRegion(p) {
			return fmt.Errorf("input %s: %s is a %v, not a window, buffer or input stream", name, name, p.Type)
		}
	}
	for name := range s.opt.Scalars {
		p, err := Param(s.k, name)
		if err != nil {
			return err
		}
		if !p.Type.IsScalar() {
			return fmt.Errorf("scalar %s: %s is a %v, not a scalar parameter", name, name, p.Type)
		}
	}
	for _, p := range s.k.Params {
		if _, ok := s.opt.Scalars[p.Name]; p.Type.IsScalar() && !ok {
			return fmt.Errorf("kernel %s needs a value for its scalar parameter %s", s.k.Name, p.Name)
		}
	}
	// sizes the kernel consumes, from a measuring run on zeros (no data-dependent control flow
	// exists in the subset, so the extent does not depend on the data)
	ext, err := interp.Measure(s.k, interp.Config{Sizes: s.sizes, Scalars: s.opt.Scalars, Round: s.opt.Round, Sat: s.opt.Sat, MaxSteps: s.opt.MaxSteps})
	if err != nil {
		return err
	}
	for _, p := range s.k.Params {
		if !isRegion(p) && !(p.Type.IsStream() && !p.Type.Out) {
			continue
		}
		if _, ok := s.sizes[p.Name]; ok {
			continue
		}
		n := ext[p.Name]
		if b, ok := s.opt.Inputs[p.Name]; ok && len(b) > n {
			n = len(b) // an input sizes its region at least to its length
		}
		s.sizes[p.Name], s.sizeFrom[p.Name] = n, "measured"
	}
	for name, b := range s.opt.Inputs {
		if len(b) > s.sizes[name] {
			return fmt.Errorf("input %s: %d bytes for a %d-byte region", name, len(b), s.sizes[name])
		}
	}
	return nil
}

func (s *run) config(data map[string][]byte) interp.Config {
	return interp.Config{Data: data, Sizes: s.sizes, Scalars: s.opt.Scalars, Round: s.opt.Round, Sat: s.opt.Sat, CycleReads: s.cycleReads, MaxSteps: s.opt.MaxSteps}
}

func (s *run) run() (*Report, error) {
	prog, err := interp.Compile(s.k)
	if err != nil {
		return nil, err
	}
	// the input range: the widest that saturates fewer than MaxSaturated of the narrowed lanes
	top := s.maxBits()
	step, err := InputRange(top, func(i int) (int64, int64, error) {
		r, err := prog.Run(s.config(s.fill(top - i)))
		if err != nil {
			return 0, 0, err
		}
		return r.Narrowed, r.Saturated, nil
	})
	if err != nil {
		return nil, err
	}
	bits := top - step
	data := s.fill(bits)
	if readsCycles(s.k) {
		if t, err := s.time(data); err == nil {
			s.cycleReads = t.Result.CycleReads
		}
	}
	cfg := s.config(data)
	var trace [][]num.Acc
	cfg.OnNarrow = func(_ *kernel.Instr, lanes []num.Acc) { trace = append(trace, append([]num.Acc(nil), lanes...)) }
	res, err := prog.Run(cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{Kernel: s.k.Name, File: s.src.File, Defines: s.k.Defines, Round: s.opt.Round.String(), Sat: s.opt.Sat.String(),
		Seed: s.opt.Seed, MACs: res.MACs, MACOps: res.MACOps, Narrowed: res.Narrowed, Saturated: res.Saturated,
		Uninitialized: []Uninit{}, OK: true, Notes: s.k.Notes, Wrapped: res.Wrapped}
	if s.k.Entry != nil {
		rep.Instance = s.k.Entry.Name
	}
	if bits > 0 {
		rep.InputBits = bits
	}
	if res.Narrowed > 0 {
		rep.SaturatedFraction = float64(res.Saturated) / float64(res.Narrowed)
	}
	for _, u := range res.Uninit {
		rep.Uninitialized = append(rep.Uninitialized, Uninit{Var: u.Var, Type: u.Type.String(), Pos: u.Pos.String()})
	}
	for _, o := range res.OutsideReads {
		rep.OutsideReads = append(rep.OutsideReads, OutsideRead{Pos: o.Pos.String(), Access: o.Access, Buffer: o.Region, Size: o.Size,
			Bytes: fmt.Sprintf("[%d, %d)", o.Off, o.End), Addr: o.Addr, Holds: o.Holds, Count: o.Count, Message: o.String()})
	}
	s.regions(rep, res, data)
	rep.Outputs, rep.Initial = map[string][]byte{}, map[string][]byte{}
	for _, p := range s.k.Params {
		if !p.Type.IsScalar() {
			rep.Outputs[p.Name] = res.Data[p.Name]
			if d, ok := data[p.Name]; ok {
				rep.Initial[p.Name] = d
			}
		}
	}
	if s.opt.SkipEmulation == "" {
		if err := s.checkEmul(rep, res, data, trace); err != nil {
			return nil, err
		}
	} else {
		rep.Emulation = "skipped (" + s.opt.SkipEmulation + ")"
		rep.OutputsChecked, rep.AccumulatorLanesChecked = 0, 0
	}
	s.timing(rep, res, data)
	if s.opt.Reference != nil {
		r := s.opt.Reference(s.src.Text, s.opt.Seed)
		rep.Reference, rep.ReferenceOutputs = r.Note, r.Outputs
		if r.Mismatch != "" {
			rep.Mismatches = append(rep.Mismatches, r.Mismatch)
		}
	}
	rep.OK = len(rep.Mismatches) == 0
	return rep, nil
}

// regions reports the windows and buffers, where the interpreter placed them, and counts the
// outputs: every output window, and every buffer the kernel changed.
func (s *run) regions(rep *Report, res *interp.Result, data map[string][]byte) {
	addr := map[string]uint32{}
	for _, r := range res.Regions {
		addr[r.Name] = r.Addr
	}
	for _, p := range s.k.Params {
		if p.Type.IsStream() {
			kind, in, n := "input stream", "random", s.sizes[p.Name]
			switch {
			case p.Type.IsCascade() && p.Type.Out:
				kind, in, n = "output cascade", "-", len(res.Data[p.Name])
			case p.Type.IsCascade():
				kind = "input cascade"
			case p.Type.Out:
				kind, in, n = "output stream", "-", len(res.Data[p.Name])
			}
			if s.opt.Inputs[p.Name] != nil {
				in = "file"
			}
			size := s.sizeFrom[p.Name]
			if p.Type.Out {
				size = "written"
			}
			rep.Windows = append(rep.Windows, Region{Name: p.Name, Kind: kind, Type: p.Type.String(), Bytes: n, Size: size, Inputs: in})
			if p.Type.Out {
				rep.OutputsChecked += int64(len(res.Data[p.Name]) / streamElemBytes(p.Type))
			}
			continue
		}
		if !isRegion(p) {
			continue
		}
		kind := "buffer"
		switch {
		case p.Type.IsWindow() && p.Type.Out:
			kind = "output window"
		case p.Type.IsWindow():
			kind = "input window"
		case p.Port == kernel.PortInBuffer:
			kind = "input buffer"
		case p.Port == kernel.PortOutBuffer:
			kind = "output buffer"
		case p.Member:
			kind = "member array"
		case p.Port == kernel.PortArrayRef:
			kind = "array parameter"
		}
		in := "random"
		switch {
		case s.opt.Inputs[p.Name] != nil:
			in = "file"
		case p.Type.IsWindow() && p.Type.Out || p.Port == kernel.PortOutBuffer:
			in = "zeros"
		}
		rep.Windows = append(rep.Windows, Region{Name: p.Name, Kind: kind, Type: p.Type.String(), Bytes: s.sizes[p.Name],
			Addr: addr[p.Name], Size: s.sizeFrom[p.Name], Inputs: in})
		if p.Type.IsWindow() && p.Type.Out || p.Port == kernel.PortOutBuffer || p.Type.IsPointer() && !bytes.Equal(res.Data[p.Name], data[p.Name]) {
			rep.OutputsChecked += int64(len(res.Data[p.Name]) / p.Type.Elem.Bytes())
		}
	}
}

// streamElemBytes is the bytes one element takes on a stream (a cascade lane: 8 or 16).
func streamElemBytes(t kernel.Type) int {
	switch t.Elem {
	case kernel.Acc48:
		return 8
	case kernel.Acc80:
		return 16
	}
	return t.Elem.Bytes()
}
