package compiler

import (
	"fmt"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
)

// Contractions is what a target adds to Target to compile gemm and einsum specs: register-
// blocked micro-kernels (seed 001's BLIS micro-kernel, seed 002's einsum kernel) scheduled by
// a sched.GEMM instead of Vyasa's convolution schedule. The tuner and sumac compile find it
// by a type assertion on the registry's Target.
type Contractions interface {
	// ContractionDatapath is the MAC datapath for a contraction's types (it may accept types
	// the convolution datapath does not) and its peak MACs per cycle.
	ContractionDatapath(t op.Types) (triplet.Datapath, int, error)
	// DefaultGEMM is the schedule used when none is given.
	DefaultGEMM(spec *op.Spec) (sched.GEMM, error)
	// MaxAccs bounds the accumulators of a block in the schedule space (blocks beyond the
	// register file spill).
	MaxAccs() int
	// GenerateGEMM lowers a contraction with a schedule to the target's kernel; the error
	// names the rule that refuses the schedule.
	GenerateGEMM(spec *op.Spec, s sched.GEMM) (Program, error)
}

// ContractionProgram is a Program generated for a contraction: it prints the middle's stages
// after the schedule itself (there is no Triplet IR or reuse graph).
type ContractionProgram interface {
	Program
	// Stage returns the IR of "triplets" (the MACs of one iteration of the pipelined loop),
	// "graphs" (the registers one iteration fills and where their loads come from) or
	// "fused" (every MAC with its operand-selection parameters).
	Stage(name string) (string, error)
	// Resolved is the schedule as generated: the register orders and layouts it left to the
	// target filled in.
	Resolved() sched.GEMM
}

// IsContraction reports whether a spec is compiled as a contraction (gemm or einsum).
func IsContraction(s *op.Spec) bool { return s.GEMM != nil || s.Einsum != nil }

// ContractionOf returns the batch, m, n, k view of a gemm or einsum spec (einsum indices in
// both inputs and the output are batch, in one input and the output m or n, contracted k).
func ContractionOf(s *op.Spec) (sched.Contraction, error) {
	switch {
	case s.GEMM != nil:
		return sched.Contraction{Batch: 1, M: s.GEMM.M, N: s.GEMM.N, K: s.GEMM.K}, nil
	case s.Einsum != nil:
		e := s.Einsum
		c := sched.Contraction{Batch: 1, M: 1, N: 1, K: 1}
		has := func(list []string, ix string) bool {
			for _, v := range list {
				if v == ix {
					return true
				}
			}
			return false
		}
		for _, ix := range e.Indices() {
			a, b, o := has(e.In[0], ix), has(e.In[1], ix), has(e.Out, ix)
			n := e.Sizes[ix]
			switch {
			case a && b && o:
				c.Batch *= n
			case a && o:
				c.M *= n
			case b && o:
				c.N *= n
			default:
				c.K *= n
			}
		}
		return c, nil
	}
	return sched.Contraction{}, fmt.Errorf("%s is not a contraction (gemm or einsum)", s.Op())
}

// contractionTarget returns t's contraction compiler or says t has none.
func contractionTarget(t Target) (Contractions, error) {
	c, ok := t.(Contractions)
	if !ok {
		return nil, fmt.Errorf("target %s compiles conv2d only, not gemm or einsum", t.Name())
	}
	return c, nil
}

// newContraction starts the compilation of a gemm or einsum spec (New for contractions).
func newContraction(t Target, spec *op.Spec, schedText string) (*Unit, error) {
	ct, err := contractionTarget(t)
	if err != nil {
		return nil, err
	}
	dp, peak, err := ct.ContractionDatapath(spec.Types)
	if err != nil {
		return nil, err
	}
	def, err := ct.DefaultGEMM(spec)
	if err != nil {
		return nil, err
	}
	g, err := sched.ParseGEMM(schedText, def)
	if err != nil {
		return nil, err
	}
	return &Unit{Target: t, Spec: spec, GEMM: &g, Datapath: dp, Peak: peak}, nil
}

// printContractionLoops writes the contraction's loop nest before scheduling.
func printContractionLoops(u *Unit) (string, error) {
	c, err := ContractionOf(u.Spec)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	if e := u.Spec.Einsum; e != nil {
		fmt.Fprintf(&sb, "# einsum %s: batch x m x n x k = %d x %d x %d x %d\n", e, c.Batch, c.M, c.N, c.K)
	}
	d := 0
	loop := func(v string, n int) {
		if n > 1 || v != "b" {
			fmt.Fprintf(&sb, "%sfor %s in 0..%d\n", strings.Repeat("  ", d), v, n-1)
			d++
		}
	}
	loop("b", c.Batch)
	loop("i", c.M)
	loop("j", c.N)
	loop("k", c.K)
	upd := "C(i, j) += A(i, k) * B(k, j)"
	if c.Batch > 1 {
		upd = "C(b, i, j) += A(b, i, k) * B(b, k, j)"
	}
	fmt.Fprintf(&sb, "%s%s\n", strings.Repeat("  ", d), upd)
	return sb.String(), nil
}

func printContractionSchedule(u *Unit) (string, error) {
	sh := u.Datapath.Shape
	c, err := ContractionOf(u.Spec)
	if err != nil {
		return "", err
	}
	tm, tn, it := u.GEMM.Tiles(c)
	return fmt.Sprintf("%s\n# datapath %d lanes x %d columns of %d-bit elements, %d MACs/cycle; %d x %d tiles of %dx%d, pipelined loop over k: %d iterations of %d\n",
		u.GEMM.Key(), sh.Lanes, sh.Cols, sh.ElemBits, u.Peak, tm, tn, u.GEMM.MR, u.GEMM.NR, it, u.GEMM.KB), nil
}

// contractionStage prints a middle stage of a generated contraction.
func contractionStage(u *Unit, name string) (string, error) {
	cp, ok := u.Program.(ContractionProgram)
	if !ok {
		return "", fmt.Errorf("internal: program %T prints no contraction stages", u.Program)
	}
	return cp.Stage(name)
}

// ScheduleKey is the unit's schedule in one line (a contraction's or a convolution's).
func (u *Unit) ScheduleKey() string {
	if u.GEMM != nil {
		return u.GEMM.Key()
	}
	return u.Sched.Key()
}
