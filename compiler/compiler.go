// Package compiler is sumac's target-neutral compiler middle and the one list of its stages.
//
// A tensor operation goes through the stages of Stages, in order: the spec, its loop nest, a
// schedule (package sched: vector loop, loop order, unroll-and-jam, fusion, data layouts in
// package layout's notation), Triplet IR (package triplet), reuse graphs and the aligned
// register loads they become, 2D operations fused under the target's selection network, and
// then, past the seam (Target), the target's kernel IR, its VLIW bundles, their cycles and
// the C++ source. `sumac compile --emit NAME` prints any stage's IR and `--explain` prints the
// table. The tuner (compiler/tune) searches the schedule stage with the target's cycle model.
package compiler

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
)

// Stage is one step of the pipeline.
type Stage struct {
	Name    string // the --emit name
	Explain string // one line
	// Target: the stage is the target's (Target.Emit prints it); the middle's stages come first.
	Target bool
	// Print returns the stage's IR for a unit; stages after the schedule need the generated
	// program (Unit.Generate) and say so with NeedsProgram.
	Print        func(u *Unit) (string, error)
	NeedsProgram bool
}

// Stages lists the pipeline in order. Each stage's IR is printable.
var Stages = []Stage{
	{Name: "spec", Explain: "the operation as parsed: shape, types, MACs (package op)", Print: printSpec},
	{Name: "loops", Explain: "the loop nest of the operation in seed 000's notation (section II-A), before scheduling", Print: printLoops},
	{Name: "schedule", Explain: "the schedule: vector loop, loop order, unroll-and-jam, fusion, data layouts (packages sched, layout)", Print: printSchedule},
	{Name: "triplets", Explain: "Triplet IR of the unrolled loop body: update, vector and scalar operand (seed 000 Table I)", Print: printTriplets},
	{Name: "graphs", Explain: "reuse graphs of the vector and scalar operands and the aligned register loads they become", Print: printGraphs, NeedsProgram: true},
	{Name: "fused", Explain: "2D operations: columns of 1D MACs fused under the target's selection network, with its parameters", Print: printFused, NeedsProgram: true},
	{Name: "kernel", Explain: "the target's kernel IR: loads, MAC intrinsics, narrowing, stores, the software-pipelined loop", Target: true, NeedsProgram: true},
	{Name: "bundles", Explain: "VLIW bundles after slot selection, register allocation and (modulo) scheduling", Target: true, NeedsProgram: true},
	{Name: "cycles", Explain: "one call on the cycle model: cycles, stalls, spills, MACs per cycle, slot use", Target: true, NeedsProgram: true},
	{Name: "cpp", Explain: "the kernel as C++ with the target's intrinsics (default of sumac compile)", Target: true, NeedsProgram: true},
}

// constraint says stage a must come before stage b (like the passOrder table of Go's
// cmd/compile/internal/ssa/compile.go).
type constraint struct{ a, b string }

var order = []constraint{
	{"spec", "loops"},
	{"loops", "schedule"},
	{"schedule", "triplets"},
	{"triplets", "graphs"},
	{"graphs", "fused"},
	{"fused", "kernel"},
	{"kernel", "bundles"},
	{"bundles", "cycles"},
	{"kernel", "cpp"},
}

func init() {
	if err := checkStages(Stages, order); err != nil {
		panic("compiler: " + err.Error()) // a programming error, caught by any test
	}
}

// checkStages checks a stage table: names unique and explained, the middle's stages (each
// printable) before the target's, the stages that need the generated program last, and every
// order constraint met.
func checkStages(stages []Stage, order []constraint) error {
	index := map[string]int{}
	seam := -1
	for i, s := range stages {
		if _, dup := index[s.Name]; dup || s.Name == "" || s.Explain == "" {
			return fmt.Errorf("stage %d %q: empty or duplicate name, or no explanation", i, s.Name)
		}
		index[s.Name] = i
		switch {
		case s.Target && seam < 0:
			seam = i
		case !s.Target && seam >= 0:
			return fmt.Errorf("middle stage %q after the target's stage %q", s.Name, stages[seam].Name)
		case !s.Target && s.Print == nil:
			return fmt.Errorf("middle stage %q cannot print its IR", s.Name)
		}
		if s.Target && !s.NeedsProgram {
			return fmt.Errorf("target stage %q must need the program", s.Name)
		}
		if i > 0 && stages[i-1].NeedsProgram && !s.NeedsProgram {
			return fmt.Errorf("stage %q needs no program after %q does", s.Name, stages[i-1].Name)
		}
	}
	for _, c := range order {
		ia, oka := index[c.a]
		ib, okb := index[c.b]
		if !oka || !okb {
			return fmt.Errorf("order constraint %q before %q names a missing stage", c.a, c.b)
		}
		if ia >= ib {
			return fmt.Errorf("stage %q must come before %q", c.a, c.b)
		}
	}
	return nil
}

// Lookup returns the stage named name; an unknown name is an error listing the stages.
func Lookup(name string) (Stage, error) {
	for _, s := range Stages {
		if s.Name == name {
			return s, nil
		}
	}
	return Stage{}, fmt.Errorf("no stage %q: want %s", name, strings.Join(Names(), ", "))
}

// Names returns the stage names in order.
func Names() []string {
	var out []string
	for _, s := range Stages {
		out = append(out, s.Name)
	}
	return out
}

// Table is the stage table as text (sumac compile --explain).
func Table() string {
	var sb strings.Builder
	for i, s := range Stages {
		who := "middle"
		if s.Target {
			who = "target"
		}
		fmt.Fprintf(&sb, "%2d  %-9s %-6s  %s\n", i+1, s.Name, who, s.Explain)
	}
	return sb.String()
}

// Unit is one compilation: a spec and schedule on a target, and what the stages produced.
type Unit struct {
	Target   Target
	Spec     *op.Spec
	Sched    sched.Schedule
	GEMM     *sched.GEMM // the schedule of a contraction (gemm, einsum); Sched is then unused
	Datapath triplet.Datapath
	Peak     int
	Program  Program // nil until Generate
}

// New starts a compilation of a conv2d spec. schedText holds schedule fields as `sumac tune`
// prints them (sched.Parse); fields left out take the target's default schedule's values, and
// the layouts follow the vector loop and fusion unless the text gives the output layout.
func New(t Target, spec *op.Spec, schedText string) (*Unit, error) {
	if IsContraction(spec) {
		return newContraction(t, spec, schedText)
	}
	if spec.Conv == nil {
		return nil, fmt.Errorf("the compiler handles conv2d, gemm and einsum specs, not %s", spec.Op())
	}
	dp, peak, err := t.Datapath(spec.Types)
	if err != nil {
		return nil, err
	}
	def, err := t.DefaultSchedule(spec)
	if err != nil {
		return nil, err
	}
	s, err := sched.Parse(schedText, def)
	if err != nil {
		return nil, err
	}
	if schedText != "" && !strings.Contains(schedText, "O=") {
		s.Out, s.W, s.In, s.PadR = sched.Layouts(spec.Conv, s.Vec, s.Fusion, dp.Shape)
		// the layout variant of the schedule's input duplication (dup=), with its padded
		// filter height
		for _, v := range sched.Variants(spec.Conv, s.Vec, s.Fusion, dp.Shape) {
			if v.Dup == s.Dup || s.Dup <= 1 && v.Dup <= 1 {
				s.Out, s.W, s.In, s.PadR, s.PadS = v.Out, v.W, v.In, v.PadR, v.PadS
				break
			}
		}
	}
	return &Unit{Target: t, Spec: spec, Sched: s, Datapath: dp, Peak: peak}, nil
}

// Generate runs the middle and the target's lowering (once).
func (u *Unit) Generate() (Program, error) {
	if u.Program != nil {
		return u.Program, nil
	}
	if u.GEMM != nil {
		ct, err := contractionTarget(u.Target)
		if err != nil {
			return nil, err
		}
		p, err := ct.GenerateGEMM(u.Spec, *u.GEMM)
		if err != nil {
			return nil, fmt.Errorf("schedule %s: %v", u.GEMM.Key(), err)
		}
		u.Program = p
		return p, nil
	}
	p, err := u.Target.Generate(u.Spec, u.Sched)
	if err != nil {
		return nil, fmt.Errorf("schedule %s: %v", u.ScheduleKey(), err)
	}
	u.Program = p
	return p, nil
}

// Emit returns the IR of the stage named name, generating the program if the stage needs it.
func (u *Unit) Emit(name string) (string, error) {
	st, err := Lookup(name)
	if err != nil {
		return "", err
	}
	if st.NeedsProgram {
		if _, err := u.Generate(); err != nil {
			return "", err
		}
	}
	if st.Target {
		return u.Target.Emit(st.Name, u.Program)
	}
	if u.GEMM != nil {
		switch st.Name {
		case "loops":
			return printContractionLoops(u)
		case "schedule":
			return printContractionSchedule(u)
		case "triplets":
			if _, err := u.Generate(); err != nil {
				return "", err
			}
			fallthrough
		case "graphs", "fused":
			return contractionStage(u, st.Name)
		}
	}
	return st.Print(u)
}

// Triplets builds the Triplet IR of the unit's schedule.
func (u *Unit) Triplets() (*triplet.Body, error) {
	return triplet.Build(u.Spec.Conv, u.Sched, u.Datapath.Shape)
}
