package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/cfront"
	"github.com/sumacdev/sumac/target/aie1/cyclesim"
	"github.com/sumacdev/sumac/target/aie1/emul"
	"github.com/sumacdev/sumac/target/aie1/interp"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/vyasa"
)

// listFlag collects a repeated flag (-D, --window, --input, --scalar).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// simRegion is one window or buffer in the report.
type simRegion struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"` // input window, output window, buffer
	Type   string `json:"type"`
	Bytes  int    `json:"bytes"`
	Addr   uint32 `json:"addr"`
	Size   string `json:"size_from"` // measured | --window
	Inputs string `json:"inputs"`    // random | zeros | FILE
}

type simUninit struct {
	Var  string `json:"var"`
	Type string `json:"type"`
	Pos  string `json:"pos"`
}

// simJSON is the --json report of sumac sim.
type simJSON struct {
	Kernel                  string            `json:"kernel"`
	File                    string            `json:"file"`
	Defines                 map[string]string `json:"defines,omitempty"`
	Round                   string            `json:"round"`
	Sat                     string            `json:"sat"`
	Seed                    uint64            `json:"seed"`
	InputBits               int               `json:"input_bits,omitempty"`
	Windows                 []simRegion       `json:"windows"`
	MACs                    int64             `json:"macs"`
	MACOps                  int64             `json:"mac_ops"`
	Narrowed                int64             `json:"narrowed"`
	Saturated               int64             `json:"saturated"`
	SaturatedFraction       float64           `json:"saturated_fraction"`
	OutputsChecked          int64             `json:"outputs_checked"`
	AccumulatorLanesChecked int64             `json:"accumulator_lanes_checked"`
	Uninitialized           []simUninit       `json:"uninitialized"`
	Emulation               string            `json:"emulation"`
	Cycles                  *int64            `json:"cycles,omitempty"`
	MACsPerCycle            *float64          `json:"macs_per_cycle,omitempty"`
	Spills                  *int64            `json:"spills,omitempty"`
	Stalls                  *int64            `json:"stalls,omitempty"`
	Fills                   *int64            `json:"fills,omitempty"`
	SlotUse                 map[string]int64  `json:"slot_use,omitempty"`
	CycleBreakdown          []simCost         `json:"cycle_breakdown,omitempty"`
	TimingModel             string            `json:"timing_model,omitempty"`
	TimingError             string            `json:"timing_error,omitempty"`
	Bundles                 string            `json:"bundles,omitempty"`
	Reference               string            `json:"reference,omitempty"`
	ReferenceOutputs        int               `json:"reference_outputs,omitempty"`
	Mismatches              []string          `json:"mismatches,omitempty"`
	OK                      bool              `json:"ok"`
}

const simUsage = `Usage: sumac sim KERNEL.cc [-D NAME=VALUE ...] [--window NAME=BYTES ...] [--input NAME=FILE ...]
                 [--scalar NAME=VALUE ...] [--seed S] [--round MODE] [--sat MODE] [--no-emul]
                 [--emit bundles|cpp|ir] [--json]

Runs an AIE1 kernel written in C++ with intrinsics (the subset of docs/aie-sim.md) on sumac's
interpreter, and checks it bit for bit against the same source compiled with g++ and sumac's
emulation header (target/aie1/emul/aie1_emul.h): every window and buffer after the run, and every
accumulator before it is narrowed (srs, lsrs, bsrs, ubsrs). Where the timing backend can
compile the kernel, it also reports cycles, MACs per cycle, spills and stalls.

  -D NAME=VALUE      define a macro (as for a C compiler; -DNAME=VALUE also works)
  --window NAME=BYTES  size of a window or buffer; by default the bytes the kernel uses
                     (measured by a first run), placed by target/aie1/interp's policy (one 32 KB memory
                     module each when there are at most four, else packed)
  --input NAME=FILE  initial contents of a window or buffer (raw little-endian bytes); others are
                     random: integers uniform in the widest range (halving until fewer than 1%
                     of narrowed lanes saturate), floats uniform in [-1, 1]; output windows zero
  --scalar NAME=VALUE  value of a scalar kernel parameter
  --seed S           seed of the random inputs (default 1)
  --round MODE, --sat MODE  shift-round-saturate modes (default floor, saturate; see package num)
  --no-emul          skip the g++ emulation check (the report says so; ok then covers the
                     interpreter run only)
  --emit bundles     print the VLIW schedule of the timing backend (with the report)
  --emit cpp, --emit ir  print the kernel as sumac parsed it (C++ from target/aie1/cemit, or the IR) and
                     stop without running it
  --json             write one JSON object to stdout

Registers read before they are written start at zero and are listed. A read or write outside a
window or buffer stops the run with an error naming the access. Exit status: 0 ok, 1 a check
failed (the report lists the mismatches), 2 bad input.

Example:
  sumac sim target/aie1/testdata/lei_gemm_16x4.cc -D Kc=256 --json
`

func init() {
	c := &command{
		name:    "sim",
		summary: "run an AIE1 intrinsics kernel on the interpreter, check it against g++ emulation, report MACs and cycles",
		usage:   simUsage,
	}
	c.run = func(env *cmdEnv, args []string) error { return runSim(env, c, args) }
	register(c)
}

// splitD turns -DNAME=VALUE into -D NAME=VALUE for the flag package.
func splitD(args []string) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-D") && len(a) > 2 && !strings.HasPrefix(a, "--") {
			out = append(out, "-D", a[2:])
			continue
		}
		out = append(out, a)
	}
	return out
}

func runSim(env *cmdEnv, c *command, args []string) error {
	fs := newFlags(env, c)
	var defines, windows, inputs, scalars listFlag
	fs.Var(&defines, "D", "define a macro")
	fs.Var(&windows, "window", "NAME=BYTES")
	fs.Var(&inputs, "input", "NAME=FILE")
	fs.Var(&scalars, "scalar", "NAME=VALUE")
	seed := fs.Uint64("seed", 1, "random seed")
	roundName := fs.String("round", "floor", "rounding mode")
	satName := fs.String("sat", "saturate", "saturation mode")
	noEmul := fs.Bool("no-emul", false, "skip the g++ check")
	emit := fs.String("emit", "", "bundles")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := parseFlags(env, c, fs, splitD(args))
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("want one KERNEL.cc (see 'sumac sim -h')")
	}
	switch *emit {
	case "", "bundles", "cpp", "ir":
	default:
		return usageErr("--emit %q: want bundles, cpp or ir", *emit)
	}
	round, err := num.ParseRound(*roundName)
	if err != nil {
		return err
	}
	sat, err := num.ParseSat(*satName)
	if err != nil {
		return err
	}
	file := pos[0]
	src, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	for _, d := range defines {
		if n, _, _ := strings.Cut(d, "="); n == "" {
			return usageErr("-D %q: want NAME or NAME=VALUE", d)
		}
	}
	k, err := cfront.ParseKernel(file, src, defines)
	if err != nil {
		return err
	}
	if *emit == "cpp" || *emit == "ir" {
		// print the kernel as sumac understood it and stop
		text := k.String()
		if *emit == "cpp" {
			if text, err = cemit.Emit(k); err != nil {
				return err
			}
		}
		if *asJSON {
			return writeJSON(env.stdout, map[string]string{"kernel": k.Name, *emit: text})
		}
		_, err := io.WriteString(env.stdout, text)
		return err
	}
	s := &simRun{k: k, file: file, src: src, defines: defines, round: round, sat: sat, seed: *seed, stderr: env.stderr}
	if err := s.configure(windows, inputs, scalars); err != nil {
		return err
	}
	rep, err := s.run(!*noEmul, *emit == "bundles")
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(env.stdout, rep); err != nil {
			return err
		}
	} else {
		printSim(env.stdout, rep)
	}
	if !rep.OK {
		return fmt.Errorf("%w: %d mismatches between the interpreter and the g++ emulation (first: %s)", errCheckFailed, len(rep.Mismatches), rep.Mismatches[0])
	}
	return nil
}

// simRun holds one sim invocation.
type simRun struct {
	k       *kernel.Kernel
	file    string
	src     []byte
	defines []string
	round   num.Round
	sat     num.Sat
	seed    uint64
	stderr  io.Writer

	sizes    map[string]int
	sizeFrom map[string]string
	files    map[string][]byte // --input contents
	scalars  map[string]int64
}

func (s *simRun) param(name, flagName string) (*kernel.Var, error) {
	for _, p := range s.k.Params {
		if p.Name == name {
			return p, nil
		}
	}
	var names []string
	for _, p := range s.k.Params {
		names = append(names, p.Name)
	}
	return nil, fmt.Errorf("%s %s: kernel %s has no parameter %s (parameters: %s)", flagName, name, s.k.Name, name, strings.Join(names, ", "))
}

// configure reads --window, --input and --scalar and measures the sizes of the other regions.
func (s *simRun) configure(windows, inputs, scalars []string) error {
	s.sizes, s.sizeFrom, s.files, s.scalars = map[string]int{}, map[string]string{}, map[string][]byte{}, map[string]int64{}
	for _, w := range windows {
		name, val, ok := strings.Cut(w, "=")
		n, err := strconv.Atoi(val)
		if !ok || err != nil || n < 0 {
			return usageErr("--window %q: want NAME=BYTES", w)
		}
		p, err := s.param(name, "--window")
		if err != nil {
			return err
		}
		if !p.Type.IsWindow() && !p.Type.IsPointer() {
			return usageErr("--window %s: %s is a %v, not a window or buffer", name, name, p.Type)
		}
		s.sizes[name], s.sizeFrom[name] = n, "--window"
	}
	for _, in := range inputs {
		name, path, ok := strings.Cut(in, "=")
		if !ok {
			return usageErr("--input %q: want NAME=FILE", in)
		}
		p, err := s.param(name, "--input")
		if err != nil {
			return err
		}
		if !p.Type.IsWindow() && !p.Type.IsPointer() {
			return usageErr("--input %s: %s is a %v, not a window or buffer", name, name, p.Type)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s.files[name] = b
	}
	for _, sc := range scalars {
		name, val, ok := strings.Cut(sc, "=")
		v, err := strconv.ParseInt(val, 0, 64)
		if !ok || err != nil {
			return usageErr("--scalar %q: want NAME=INTEGER", sc)
		}
		p, err := s.param(name, "--scalar")
		if err != nil {
			return err
		}
		if !p.Type.IsIntScalar() {
			return usageErr("--scalar %s: %s is a %v, not an integer parameter", name, name, p.Type)
		}
		s.scalars[name] = v
	}
	for _, p := range s.k.Params {
		if p.Type.IsScalar() {
			if _, ok := s.scalars[p.Name]; !ok {
				return usageErr("kernel %s needs a value for its scalar parameter %s: --scalar %s=VALUE", s.k.Name, p.Name, p.Name)
			}
		}
	}
	// sizes the kernel consumes, from a measuring run on zeros (no data-dependent control flow
	// exists in the subset, so the extent does not depend on the data)
	ext, err := interp.Measure(s.k, interp.Config{Sizes: s.sizes, Scalars: s.scalars, Round: s.round, Sat: s.sat})
	if err != nil {
		return err
	}
	for _, p := range s.k.Params {
		if !p.Type.IsWindow() && !p.Type.IsPointer() {
			continue
		}
		if _, ok := s.sizes[p.Name]; ok {
			continue
		}
		n := ext[p.Name]
		if b, ok := s.files[p.Name]; ok && len(b) > n {
			n = len(b) // an input file sizes its region at least to its length
		}
		s.sizes[p.Name], s.sizeFrom[p.Name] = n, "measured"
	}
	for name, b := range s.files {
		if len(b) > s.sizes[name] {
			return usageErr("--input %s: %d bytes for a %d-byte region", name, len(b), s.sizes[name])
		}
	}
	return nil
}

// fill makes the initial memory: files, random integers of at most bits bits, float
// uniform in [-1, 1], zeros for output windows.
func (s *simRun) fill(bits int) map[string][]byte {
	r := rand.New(rand.NewPCG(s.seed, 0x5eed))
	data := map[string][]byte{}
	for _, p := range s.k.Params {
		if !p.Type.IsWindow() && !p.Type.IsPointer() {
			continue
		}
		b := make([]byte, s.sizes[p.Name])
		data[p.Name] = b
		if f, ok := s.files[p.Name]; ok {
			copy(b, f)
			continue
		}
		if p.Type.IsWindow() && p.Type.Out {
			continue
		}
		e := p.Type.Elem
		sz := e.Bytes()
		for i := 0; i+sz <= len(b); i += sz {
			switch {
			case e == kernel.Float32:
				binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(r.Float64()*2-1)))
			default:
				bb := min(bits, e.Bits())
				var v int64
				if e.Signed() {
					v = r.Int64N(int64(1)<<bb) - int64(1)<<(bb-1)
				} else {
					v = r.Int64N(int64(1) << bb)
				}
				for j := 0; j < sz; j++ {
					b[i+j] = byte(v >> (8 * j))
				}
			}
		}
	}
	return data
}

// maxBits is the widest integer element among the randomly filled regions.
func (s *simRun) maxBits() int {
	m := 0
	for _, p := range s.k.Params {
		if (p.Type.IsWindow() && !p.Type.Out || p.Type.IsPointer()) && p.Type.Elem.IsInt() {
			if _, ok := s.files[p.Name]; !ok {
				m = max(m, p.Type.Elem.Bits())
			}
		}
	}
	return m
}

func (s *simRun) config(data map[string][]byte) interp.Config {
	return interp.Config{Data: data, Sizes: s.sizes, Scalars: s.scalars, Round: s.round, Sat: s.sat}
}

func (s *simRun) run(check, bundles bool) (*simJSON, error) {
	prog, err := interp.Compile(s.k)
	if err != nil {
		return nil, err
	}
	// the input range: the widest that saturates fewer than 1% of the narrowed lanes
	bits := s.maxBits()
	for ; bits > 1; bits-- {
		r, err := prog.Run(s.config(s.fill(bits)))
		if err != nil {
			return nil, err
		}
		if r.Narrowed == 0 || float64(r.Saturated) < 0.01*float64(r.Narrowed) {
			break
		}
	}
	data := s.fill(bits)
	cfg := s.config(data)
	var trace [][]num.Acc
	cfg.OnNarrow = func(_ *kernel.Instr, lanes []num.Acc) { trace = append(trace, append([]num.Acc(nil), lanes...)) }
	res, err := prog.Run(cfg)
	if err != nil {
		return nil, err
	}
	rep := &simJSON{Kernel: s.k.Name, File: s.file, Defines: s.k.Defines, Round: s.round.String(), Sat: s.sat.String(),
		Seed: s.seed, MACs: res.MACs, MACOps: res.MACOps, Narrowed: res.Narrowed, Saturated: res.Saturated,
		Uninitialized: []simUninit{}, OK: true}
	if bits > 0 {
		rep.InputBits = bits
	}
	if res.Narrowed > 0 {
		rep.SaturatedFraction = float64(res.Saturated) / float64(res.Narrowed)
	}
	for _, u := range res.Uninit {
		rep.Uninitialized = append(rep.Uninitialized, simUninit{Var: u.Var, Type: u.Type.String(), Pos: u.Pos.String()})
	}
	addr := map[string]uint32{}
	for _, r := range res.Regions {
		addr[r.Name] = r.Addr
	}
	for _, p := range s.k.Params {
		if !p.Type.IsWindow() && !p.Type.IsPointer() {
			continue
		}
		kind := "buffer"
		if p.Type.IsWindow() {
			kind = "input window"
			if p.Type.Out {
				kind = "output window"
			}
		}
		in := "random"
		switch {
		case s.files[p.Name] != nil:
			in = "file"
		case p.Type.IsWindow() && p.Type.Out:
			in = "zeros"
		}
		rep.Windows = append(rep.Windows, simRegion{Name: p.Name, Kind: kind, Type: p.Type.String(), Bytes: s.sizes[p.Name],
			Addr: addr[p.Name], Size: s.sizeFrom[p.Name], Inputs: in})
		// outputs: every output window, and every buffer the kernel changed
		if p.Type.IsWindow() && p.Type.Out || p.Type.IsPointer() && !bytes.Equal(res.Data[p.Name], data[p.Name]) {
			rep.OutputsChecked += int64(len(res.Data[p.Name]) / p.Type.Elem.Bytes())
		}
	}
	if check {
		if err := s.checkEmul(rep, res, data, trace); err != nil {
			return nil, err
		}
	} else {
		rep.Emulation = "skipped (--no-emul)"
		rep.OutputsChecked, rep.AccumulatorLanesChecked = 0, 0
	}
	s.timing(rep, res, data, bundles)
	s.reference(rep)
	rep.OK = len(rep.Mismatches) == 0
	return rep, nil
}

// checkEmul runs the g++ emulation on the same inputs and compares.
func (s *simRun) checkEmul(rep *simJSON, res *interp.Result, data map[string][]byte, trace [][]num.Acc) error {
	bin, err := emul.Build(emul.Source{Name: filepath.Base(s.file), Text: s.src, Defines: s.defines}, s.k)
	if errors.Is(err, emul.ErrNoCompiler) {
		return fmt.Errorf("%v; the emulation check needs one (or pass --no-emul)", err)
	}
	if err != nil {
		return err
	}
	var mem [][]byte
	for _, p := range s.k.Params {
		if p.Type.IsScalar() {
			b := make([]byte, 8)
			binary.LittleEndian.PutUint64(b, uint64(s.scalars[p.Name]))
			mem = append(mem, b)
			continue
		}
		mem = append(mem, data[p.Name])
	}
	er, err := bin.Run(mem, emul.Modes{Round: s.round, Sat: s.sat})
	if err != nil {
		return err
	}
	rep.Emulation = "checked (g++, aie1_emul.h)"
	if bin.Cached {
		rep.Emulation += ", cached binary"
	}
	bad := func(format string, a ...any) { rep.Mismatches = append(rep.Mismatches, fmt.Sprintf(format, a...)) }
	for i, p := range s.k.Params {
		if p.Type.IsScalar() {
			continue
		}
		a, b := res.Data[p.Name], er.Mem[i]
		if len(a) != len(b) {
			bad("%s: %d bytes after the interpreter, %d after the emulation", p.Name, len(a), len(b))
			continue
		}
		sz := p.Type.Elem.Bytes()
		n := 0
		for j := 0; j+sz <= len(a); j += sz {
			if !bytes.Equal(a[j:j+sz], b[j:j+sz]) {
				if n < 5 {
					bad("%s element %d: interpreter %s, emulation %s", p.Name, j/sz, elemString(a[j:j+sz], p.Type.Elem), elemString(b[j:j+sz], p.Type.Elem))
				}
				n++
			}
		}
		if n > 5 {
			bad("%s: %d more elements differ", p.Name, n-5)
		}
	}
	if er.MACs != res.MACs {
		bad("MAC count: interpreter %d, emulation %d", res.MACs, er.MACs)
	}
	if er.Narrowed != res.Narrowed || er.Saturated != res.Saturated {
		bad("narrowing: interpreter %d lanes (%d saturated), emulation %d (%d)", res.Narrowed, res.Saturated, er.Narrowed, er.Saturated)
	}
	if len(er.Trace) != len(trace) {
		bad("accumulators: interpreter narrowed %d times, emulation %d times", len(trace), len(er.Trace))
		return nil
	}
	emul.SortTrace(trace)
	emul.SortTrace(er.Trace)
	n := 0
	for i := range trace {
		if len(trace[i]) != len(er.Trace[i]) {
			bad("accumulator record %d: %d lanes vs %d", i, len(trace[i]), len(er.Trace[i]))
			continue
		}
		for l := range trace[i] {
			rep.AccumulatorLanesChecked++
			if trace[i][l].Cmp(er.Trace[i][l]) != 0 {
				if n < 5 {
					bad("accumulator before narrowing (sorted record %d, lane %d): interpreter %v, emulation %v", i, l, trace[i][l], er.Trace[i][l])
				}
				n++
			}
		}
	}
	return nil
}

func elemString(b []byte, e kernel.Elem) string {
	var v kernel.Vec
	copy(v[:], b)
	if e == kernel.Float32 {
		return fmt.Sprint(v.F32(0))
	}
	return fmt.Sprint(v.Lane(e, 0))
}

// simCost is one item of the cycle breakdown (timing, AIE-timing's fields).
type simCost struct {
	What   string `json:"what"`
	Cycles int    `json:"cycles"`
	Source string `json:"source"`
}

// timing compiles the kernel with the AIE1 backend and runs the cycle simulator; a kernel the
// backend cannot compile yet is reported, not failed. The simulator's results must equal the
// interpreter's.
func (s *simRun) timing(rep *simJSON, res *interp.Result, data map[string][]byte, bundles bool) {
	p, err := backend.Compile(s.k, backend.Options{Sizes: s.sizes})
	if err != nil {
		rep.TimingError = err.Error()
		return
	}
	if bundles {
		rep.Bundles = p.String()
	}
	cr, err := cyclesim.Run(p, cyclesim.Config{Data: data, Sizes: s.sizes, Round: s.round, Sat: s.sat})
	if err != nil {
		rep.TimingError = err.Error()
		return
	}
	rep.Cycles, rep.MACsPerCycle, rep.Spills, rep.Stalls = &cr.Cycles, &cr.MACsPerCycle, &cr.Spills, &cr.Stalls
	rep.Fills, rep.TimingModel = &cr.Fills, backend.ModelVersion
	rep.SlotUse = map[string]int64{}
	for sl, n := range cr.SlotUse {
		if n > 0 {
			rep.SlotUse[aie1.Slot(sl).String()] = n
		}
	}
	for _, b := range p.Breakdown {
		rep.CycleBreakdown = append(rep.CycleBreakdown, simCost{What: b.What, Cycles: b.Cycles, Source: b.Source})
	}
	if cr.Stalls > 0 {
		rep.CycleBreakdown = append(rep.CycleBreakdown, simCost{What: "bank-conflict stalls", Cycles: int(cr.Stalls), Source: "UG1079 AI Engine Memory"})
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

// reference checks a kernel that sumac compile generated against the exact reference: its
// header names the spec and the schedule; sim regenerates the kernel from them, confirms the
// file holds exactly that kernel, and runs vyasa.Verify (op/ref outputs and accumulators
// before narrowing, on seeded inputs in the kernel's layouts, through the interpreter).
func (s *simRun) reference(rep *simJSON) {
	var specLine, schedLine string
	for i, line := range strings.SplitN(string(s.src), "\n", 12) {
		if i == 0 && !strings.Contains(line, "Code generated by sumac compile") {
			return
		}
		if v, ok := strings.CutPrefix(line, "// spec: "); ok {
			specLine = v
		}
		if v, ok := strings.CutPrefix(line, "// schedule: "); ok {
			schedLine = v
		}
	}
	if specLine == "" || schedLine == "" {
		return
	}
	note := func(format string, a ...any) { rep.Reference = "not checked: " + fmt.Sprintf(format, a...) }
	spec, err := op.Parse(specLine)
	if err != nil {
		note("spec %q: %v", specLine, err)
		return
	}
	def, err := vyasa.DefaultSchedule(spec)
	if err != nil {
		note("%v", err)
		return
	}
	sc, err := sched.Parse(schedLine, def)
	if err != nil {
		note("schedule %q: %v", schedLine, err)
		return
	}
	p, err := vyasa.Generate(spec, sc)
	if err != nil {
		note("regenerating the kernel: %v", err)
		return
	}
	text, err := cemit.Emit(p.Kernel)
	if err != nil || !strings.HasSuffix(string(s.src), text) {
		note("the file's kernel is not the one sumac compile generates for its spec and schedule")
		return
	}
	ck, err := vyasa.Verify(p, s.seed)
	if err != nil {
		rep.Mismatches = append(rep.Mismatches, "exact reference: "+err.Error())
		return
	}
	rep.Reference = fmt.Sprintf("checked against op/ref (%s)", spec)
	rep.ReferenceOutputs = ck.Outputs
	if !ck.OK() {
		rep.Mismatches = append(rep.Mismatches, fmt.Sprintf("exact reference: %d outputs and %d accumulators differ (first: %s)", ck.Mismatches, ck.AccMismatches, ck.First))
	}
}

func printSim(w io.Writer, r *simJSON) {
	var defs []string
	for n, v := range r.Defines {
		defs = append(defs, "-D "+n+"="+v)
	}
	sort.Strings(defs)
	fmt.Fprintf(w, "kernel %s (%s)\n", r.Kernel, strings.Join(append([]string{r.File}, defs...), " "))
	fmt.Fprintln(w, "windows and buffers (target/aie1/interp placement: one 32 KB memory module each when at most four fit):")
	for _, g := range r.Windows {
		fmt.Fprintf(w, "  %-12s %-14s %-20s %6d bytes at 0x%05x  (size %s, inputs %s)\n", g.Name, g.Kind, g.Type, g.Bytes, g.Addr, g.Size, g.Inputs)
	}
	if r.InputBits > 0 {
		fmt.Fprintf(w, "random integer inputs of %d bits (seed %d)\n", r.InputBits, r.Seed)
	}
	fmt.Fprintf(w, "srs modes %s/%s: %d of %d narrowed lanes saturated (%.2f%%)\n", r.Round, r.Sat, r.Saturated, r.Narrowed, 100*r.SaturatedFraction)
	if len(r.Uninitialized) > 0 {
		fmt.Fprintln(w, "registers read before written (taken as zero):")
		for _, u := range r.Uninitialized {
			fmt.Fprintf(w, "  %s %s at %s\n", u.Type, u.Var, u.Pos)
		}
	}
	fmt.Fprintf(w, "MACs %d (%d MAC instructions)\n", r.MACs, r.MACOps)
	fmt.Fprintf(w, "emulation: %s; %d output elements and %d accumulator lanes compared\n", r.Emulation, r.OutputsChecked, r.AccumulatorLanesChecked)
	if r.Cycles != nil {
		fmt.Fprintf(w, "cycles %d, %.2f MACs/cycle, spills %d, stall cycles %d\n", *r.Cycles, *r.MACsPerCycle, *r.Spills, *r.Stalls)
	} else if r.TimingError != "" {
		fmt.Fprintf(w, "timing: not available (%s)\n", r.TimingError)
	}
	switch {
	case r.ReferenceOutputs > 0:
		fmt.Fprintf(w, "exact reference: %s, %d outputs\n", r.Reference, r.ReferenceOutputs)
	case r.Reference != "":
		fmt.Fprintf(w, "exact reference: %s\n", r.Reference)
	}
	if r.Bundles != "" {
		fmt.Fprintf(w, "bundles:\n%s", r.Bundles)
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "MISMATCH %s\n", m)
	}
	if r.OK {
		fmt.Fprintln(w, "ok")
	}
}
