package vyasa

import (
	"fmt"
	"math"
	"strings"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/target/aie1/cemit"
	"github.com/sumacdev/sumac/target/aie1/harness"
)

// Emulated is the result of executing a program's fused operations directly.
type Emulated struct {
	OutInt   []int64   // output memory (integer types), kernel layout
	OutFloat []float64 // output memory (fp32)
	// Acc holds, per output element in the kernel's output layout, the accumulator before
	// narrowing (integers, wrapped to the accumulator width).
	Acc []num.Acc
	// AccSeq lists the accumulator lanes of every narrowing in execution order.
	AccSeq [][]num.Acc
}

// Emulate executes the fused operations of a program on packed memory, iteration by
// iteration, selecting every lane's operands with the shuffle parameters (triplet.Eval) from
// the registers the loads build. It is the compiler's own check that layouts, reuse-graph
// loads, fusion and parameters compute the convolution; the kernel IR itself is checked by
// the AIE1 interpreter and cycle simulator.
func Emulate(p *Program, inI, wI []int64, inF, wF []float64) (*Emulated, error) {
	plan := p.Fused.Plan
	d := p.Datapath
	isF := d.DType == op.FP32
	if isF {
		if err := checkLen("input", len(inF), p.Elems[triplet.In]); err != nil {
			return nil, err
		}
		if err := checkLen("weights", len(wF), p.Elems[triplet.W]); err != nil {
			return nil, err
		}
	} else {
		if err := checkLen("input", len(inI), p.Elems[triplet.In]); err != nil {
			return nil, err
		}
		if err := checkLen("weights", len(wI), p.Elems[triplet.W]); err != nil {
			return nil, err
		}
	}
	e := &Emulated{}
	nOut := p.Elems[triplet.Out]
	if isF {
		e.OutFloat = make([]float64, nOut)
	} else {
		e.OutInt = make([]int64, nOut)
		e.Acc = make([]num.Acc, nOut)
	}
	accBits := p.Spec.Types.Acc.Bits()
	narrow := p.Spec.Types.Narrow()
	lanes, cols := d.Shape.Lanes, d.Shape.Cols
	vars := p.Loops
	it := map[string]int{}
	var accI map[int][]num.Acc
	var accF map[int][]float64
	var rec func(i int) error
	rec = func(i int) error {
		if i < len(vars) {
			for j := 0; j < plan.Trips[vars[i]]; j++ {
				it[vars[i]] = j
				if err := rec(i + 1); err != nil {
					return err
				}
			}
			return nil
		}
		base := map[string]int{}
		for t, st := range plan.Strides {
			for v, s := range st {
				base[t] += s * it[v]
			}
		}
		elem := func(b *triplet.Buffer, pos int) (int, error) {
			part := pos / b.LoadElems
			if part >= len(b.Starts) || b.Starts[part] == triplet.NoPart {
				return 0, fmt.Errorf("selection reads an unloaded part of %v", b)
			}
			off := base[b.Tensor] + b.Starts[part] + pos%b.LoadElems
			if off < 0 || off >= p.Elems[b.Tensor] {
				return 0, fmt.Errorf("%s offset %d outside its %d elements", b.Tensor, off, p.Elems[b.Tensor])
			}
			return off, nil
		}
		if it["c"] == 0 {
			// a new set of output vectors (the reduction loop c carries them)
			accI = map[int][]num.Acc{}
			accF = map[int][]float64{}
		}
		for _, o := range p.Fused.Ops {
			if _, ok := accI[o.U]; !ok {
				accI[o.U] = make([]num.Acc, lanes)
				accF[o.U] = make([]float64, lanes)
			}
			xs, zs := triplet.Eval(d.Sel, o.Params, lanes, cols)
			xMem, zMem := inI, wI
			xMemF, zMemF := inF, wF
			if o.X.Tensor == triplet.W {
				xMem, zMem, xMemF, zMemF = wI, inI, wF, inF
			}
			for l := 0; l < lanes; l++ {
				for c := 0; c < cols; c++ {
					xo, err := elem(o.X, xs[l][c])
					if err != nil {
						return err
					}
					zo, err := elem(o.Z, zs[l][c])
					if err != nil {
						return err
					}
					if isF {
						accF[o.U][l] += xMemF[xo] * zMemF[zo]
					} else {
						accI[o.U][l] = accI[o.U][l].MulAdd(xMem[xo], zMem[zo], accBits)
					}
				}
			}
		}
		if it["c"] != plan.Trips["c"]-1 {
			return nil
		}
		if !isF {
			for _, u := range p.SRSOrder {
				e.AccSeq = append(e.AccSeq, append([]num.Acc(nil), accI[u]...))
			}
		}
		for u, upd := range plan.Body.Updates {
			offs := plan.Offsets(upd)
			for l, o := range offs {
				off := base[triplet.Out] + o
				if isF {
					e.OutFloat[off] = float64(float32(accF[u][l]))
				} else {
					e.Acc[off] = accI[u][l]
					e.OutInt[off], _ = num.SRS(accI[u][l], narrow)
				}
			}
		}
		return nil
	}
	if err := rec(0); err != nil {
		return nil, err
	}
	return e, nil
}

// Check is the outcome of comparing a program's results with the exact reference.
type Check struct {
	Outputs       int     // outputs compared
	Mismatches    int     // outputs that differ (integers: bit for bit; fp32: beyond the bound)
	AccMismatches int     // accumulators (before narrowing) that differ
	Saturated     float64 // fraction of reference outputs that saturate
	MaxError      float64 // fp32: largest |error| / bound
	First         string  // the first mismatch, described
	Interpreted   bool    // the kernel IR itself ran on the AIE1 interpreter and matched
}

// OK reports whether everything matched.
func (c Check) OK() bool { return c.Mismatches == 0 && c.AccMismatches == 0 }

// Verify runs the program's fused operations (Emulate) on seeded random inputs and compares
// outputs and accumulators with op/ref. For integers the inputs are scaled down until fewer
// than 1% of the reference outputs saturate (harness.InputRange, the search sumac sim makes).
func Verify(p *Program, seed uint64) (Check, error) {
	c := p.Spec.Conv
	t := p.Spec.Types
	var ck Check
	if p.Datapath.DType == op.FP32 {
		in, w := FloatInputs(c, seed)
		want, err := refFloat(p, in, w)
		if err != nil {
			return ck, err
		}
		pin, err := p.PackFloat(triplet.In, in)
		if err != nil {
			return ck, err
		}
		pw, err := p.PackFloat(triplet.W, w)
		if err != nil {
			return ck, err
		}
		e, err := Emulate(p, nil, nil, pin, pw)
		if err != nil {
			return ck, err
		}
		got, err := unpack(p, e.OutFloat)
		if err != nil {
			return ck, err
		}
		ck = compareFloat(p, in, w, want, got)
		if ck.OK() && p.interpret {
			r, err := p.Interpret(p.Memory(nil, nil, pin, pw))
			if err != nil {
				return ck, fmt.Errorf("interpreter: %v", err)
			}
			if err := checkInterp(p, e, r); err != nil {
				ck.Mismatches++
				ck.First = "kernel IR: " + err.Error()
			}
			ck.Interpreted = true
		}
		return ck, nil
	}
	// the input range: inputs scaled by 1, 1/2, ... 2^-20 until fewer than
	// harness.MaxSaturated of the reference outputs saturate
	var in, w []int64
	var want ref.IntResult
	drawn := -1
	draw := func(step int) (int64, int64, error) {
		var err error
		in, w = IntInputs(c, t, seed, math.Ldexp(1, -step))
		want, err = refInt(p, in, w)
		drawn = step
		return int64(len(want.Out)), int64(want.Saturated), err
	}
	step, err := harness.InputRange(21, draw)
	if err != nil {
		return ck, err
	}
	if drawn != step {
		if _, _, err := draw(step); err != nil {
			return ck, err
		}
	}
	ck.Saturated = float64(want.Saturated) / float64(len(want.Out))
	pin, err := p.PackInt(triplet.In, in)
	if err != nil {
		return ck, err
	}
	pw, err := p.PackInt(triplet.W, w)
	if err != nil {
		return ck, err
	}
	e, err := Emulate(p, pin, pw, nil, nil)
	if err != nil {
		return ck, err
	}
	sat := ck.Saturated
	ck, err = CompareInt(p, want.Out, want.Acc, e.OutInt, e.Acc)
	ck.Saturated = sat
	if err != nil || !ck.OK() || !p.interpret {
		return ck, err
	}
	r, err := p.Interpret(p.Memory(pin, pw, nil, nil))
	if err != nil {
		return ck, fmt.Errorf("interpreter: %v", err)
	}
	if err := checkInterp(p, e, r); err != nil {
		ck.Mismatches++
		ck.First = "kernel IR: " + err.Error()
	}
	ck.Interpreted = true
	return ck, nil
}

// CompareInt compares kernel-layout outputs and accumulators with canonical reference values.
func CompareInt(p *Program, wantOut []int64, wantAcc []num.Acc, out []int64, acc []num.Acc) (Check, error) {
	var ck Check
	got, err := unpack(p, out)
	if err != nil {
		return ck, err
	}
	ck.Outputs = len(wantOut)
	for i := range wantOut {
		if got[i] != wantOut[i] {
			if ck.Mismatches == 0 {
				ck.First = fmt.Sprintf("output %d: got %d, want %d", i, got[i], wantOut[i])
			}
			ck.Mismatches++
		}
	}
	if acc != nil {
		gotAcc, err := unpack(p, acc)
		if err != nil {
			return ck, err
		}
		for i := range wantAcc {
			if gotAcc[i] != wantAcc[i] {
				if ck.AccMismatches == 0 && ck.First == "" {
					ck.First = fmt.Sprintf("accumulator %d: got %v, want %v", i, gotAcc[i], wantAcc[i])
				}
				ck.AccMismatches++
			}
		}
	}
	return ck, nil
}

func compareFloat(p *Program, in, w, want, got []float64) Check {
	c := p.Spec.Conv
	abs := refAbs(c, in, w)
	n := c.R * c.S * c.C / c.Groups
	ck := Check{Outputs: len(want)}
	for i := range want {
		bound := refBound(n, abs[i], p.Spec.Types.Acc)
		errv := math.Abs(got[i] - want[i])
		if bound > 0 {
			ck.MaxError = math.Max(ck.MaxError, errv/bound)
		}
		if errv > bound || math.IsNaN(got[i]) {
			if ck.Mismatches == 0 {
				ck.First = fmt.Sprintf("output %d: got %g, want %g (bound %g)", i, got[i], want[i], bound)
			}
			ck.Mismatches++
		}
	}
	return ck
}

// CheckSource is the harness's exact-reference check (a harness.Referee) for kernels sumac
// compile wrote: their header names the spec and the schedule; CheckSource regenerates the
// kernel from them, confirms the source holds exactly that kernel, and runs Verify (op/ref
// outputs and accumulators before narrowing, on seeded inputs in the kernel's layouts, through
// the interpreter). Any other source returns the zero Reference.
func CheckSource(src []byte, seed uint64) harness.Reference {
	var specLine, schedLine string
	for i, line := range strings.SplitN(string(src), "\n", 12) {
		if i == 0 && !strings.Contains(line, "Code generated by sumac compile") {
			return harness.Reference{}
		}
		if v, ok := strings.CutPrefix(line, "// spec: "); ok {
			specLine = v
		}
		if v, ok := strings.CutPrefix(line, "// schedule: "); ok {
			schedLine = v
		}
	}
	if specLine == "" || schedLine == "" {
		return harness.Reference{}
	}
	not := func(format string, a ...any) harness.Reference {
		return harness.Reference{Note: "not checked: " + fmt.Sprintf(format, a...)}
	}
	spec, err := op.Parse(specLine)
	if err != nil {
		return not("spec %q: %v", specLine, err)
	}
	def, err := DefaultSchedule(spec)
	if err != nil {
		return not("%v", err)
	}
	sc, err := sched.Parse(schedLine, def)
	if err != nil {
		return not("schedule %q: %v", schedLine, err)
	}
	p, err := Generate(spec, sc)
	if err != nil {
		return not("regenerating the kernel: %v", err)
	}
	text, err := cemit.Emit(p.Kernel)
	if err != nil || !strings.HasSuffix(string(src), text) {
		return not("the file's kernel is not the one sumac compile generates for its spec and schedule")
	}
	ck, err := Verify(p, seed)
	if err != nil {
		return harness.Reference{Mismatch: "exact reference: " + err.Error()}
	}
	r := harness.Reference{Note: fmt.Sprintf("checked against op/ref (%s)", spec), Outputs: ck.Outputs}
	if !ck.OK() {
		r.Mismatch = fmt.Sprintf("exact reference: %d outputs and %d accumulators differ (first: %s)", ck.Mismatches, ck.AccMismatches, ck.First)
	}
	return r
}
