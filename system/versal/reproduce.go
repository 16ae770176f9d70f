package versal

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/op"
)

// Published multi-tile designs on the VCK190, rebuilt from their published parameters and
// predicted from mechanism: the kernels are sumac's restatements timed on the cycle simulator,
// the array and its interface are the Array model with the machine's cited defaults, and only the
// design's own published parameters (tiles, kernel sizes, broadcast and packing, PLIO width and
// clock, AIE clock, PL blocking) are set. Nothing is fitted to the published throughput.
//
// Sources (keys used below):
//   [CHARM]   Zhuang et al., "CHARM: Composing Heterogeneous AcceleRators for Matrix Multiply on
//             Versal ACAP Architecture", FPGA'23; repository arc-research-lab/CHARM: README
//             (configuration A=6 B=4 C=16, A_BRO=4, C_BRO=3, NUM_PACK=4, I=K=J=32, X=8 Y=1 Z=2,
//             LHS/RHS in BRAM, output in URAM; on-board table 6144^3 3277.99, 4096^3 2718.42,
//             1024^3 1103.46 GFLOP/s; "95% efficiency when calculating 32*32*32 MM"),
//             CACG/gen_aie/gen_aie_design.py (port_width=128, freq=230), the AIE graph template
//             (cascade between the B kernels of a chain, pktsplit per 4 windows, pktmerge<4> per
//             output port), templates/pl_kernel (ping-pong PL buffers); peak 6.4 TFLOPS fp32
//             (400 tiles x 16 flops at 1 GHz) in the paper.
//   [MaxEVA]  Taka et al., "MaxEVA: Maximizing the Efficiency of Matrix Multiplication on Versal
//             AI Engine", FPT'23; repository enyac-group/MaxEVA: README (5.44 TFLOPS fp32, 77.01
//             TOPS int8; 1.25 GHz, 128 TOPS / 8 TFLOPS peak; circuit switching only; input
//             broadcast, adder-tree reduction), Pattern{1,2}_{int8,fp32}/src (X x Y x Z = 13 x 4 x 6
//             and 10 x 3 x 10; kernels int8 32x128x32 (aie::mmul<4,8,4>), fp32 32x32x32 (CHARM's);
//             plio_128_bits without a frequency; one window per kernel input; Y-1 adds on one
//             tile), performance_calc.py (throughput = 2 XM YK ZN / mean time between output
//             TLASTs, from the AIE simulator).
//   [UG1076]  the AIE compiler's --pl-freq defaults to a quarter of the AIE clock.

// PaperDesign is one published design: its parameters and what it reported.
type PaperDesign struct {
	Name      string         `json:"name"`
	DType     string         `json:"dtype"`
	Published float64        `json:"published_tops"` // TOPS or TFLOPS
	Source    string         `json:"published_source"`
	ClockGHz  float64        `json:"clock_ghz"`
	Spec      string         `json:"spec"` // the GEMM the figure was measured on (or its types)
	Types     string         `json:"-"`    // the operand and output types
	Scope     string         `json:"scope"`
	Patterns  []*ArrayDesign `json:"patterns"` // the published configurations (the figure is their best)
	Extra     []PaperPoint   `json:"extra_points,omitempty"`
	set       map[string]float64
}

// PaperPoint is another published figure of the same design.
type PaperPoint struct {
	Spec      string  `json:"spec"`
	Published float64 `json:"published_tops"`
	Model     float64 `json:"model_tops"`
	ErrorPct  float64 `json:"error_pct"`
}

// Sensitivity is the prediction with one uncertain parameter moved by -20% and +20%.
type Sensitivity struct {
	Parameter string  `json:"parameter"`
	Value     float64 `json:"value"`
	Low       float64 `json:"low"`  // the value at -20% (integers rounded)
	High      float64 `json:"high"` // at +20%
	Why       string  `json:"uncertain_because"`
	Minus20   float64 `json:"minus_20pct_tops"`
	Plus20    float64 `json:"plus_20pct_tops"`
}

// Reproduction is the model's prediction of one published design.
type Reproduction struct {
	PaperDesign
	ModelTOPS   float64        `json:"model_tops"`
	ErrorPct    float64        `json:"error_pct"`
	Within15    bool           `json:"within_15pct"`
	Best        string         `json:"best_pattern"`
	PatternTOPS []PatternPoint `json:"pattern_tops"`
	Limit       string         `json:"limit"`
	Sensitivity []Sensitivity  `json:"sensitivity"`
	Result      *ArrayResult   `json:"result"`
	Beaten      *Beaten        `json:"beaten_by,omitempty"`
}

// PatternPoint is one configuration's prediction.
type PatternPoint struct {
	Name  string  `json:"name"`
	Tiles int     `json:"tiles"`
	TOPS  float64 `json:"model_tops"`
	Limit string  `json:"limit"`
}

// Beaten is sumac's design for the same GEMM, scope, clocks and PLIO, and what wins.
type Beaten struct {
	Spec      string       `json:"spec"`
	TOPS      float64      `json:"tops"`
	Design    string       `json:"design"`
	Limit     string       `json:"limit"`
	Mechanism []string     `json:"mechanism"`
	Result    *ArrayResult `json:"result"`
}

// PaperReproduction is a paper's designs.
type PaperReproduction struct {
	Paper   string          `json:"paper"`
	Designs []*Reproduction `json:"designs"`
}

// Papers lists the designs `reproduce` knows.
var Papers = []string{"charm", "maxeva"}

func paperDesigns(name string) ([]*PaperDesign, error) {
	p128 := func(mhz float64) PLIO { return PLIO{Bits: 128, MHz: mhz} }
	switch name {
	case "charm":
		d := &ArrayDesign{Name: "CHARM 6x4x16", Kernel: KernelSpec{Family: "f32", DType: "fp32", TK: 32},
			X: 6, Y: 4, Z: 16, Reduce: ReduceCascade, ACast: 4, BCast: 3, PackIn: 4, PackOut: 4,
			In: p128(230), Out: p128(230), Scope: ScopeSystem, PLM: 8, PLN: 2, PLK: 1, PLCBuffers: 2}
		return []*PaperDesign{{
			Name: "CHARM", DType: "fp32", Published: 3.27799, Source: "[CHARM] README table, 6144^3 on the VCK190",
			ClockGHz: 1.0, Spec: "gemm m=6144 n=6144 k=6144 dtype=fp32", Types: "dtype=fp32", Scope: ScopeSystem, Patterns: []*ArrayDesign{d},
			Extra: []PaperPoint{{Spec: "gemm m=4096 n=4096 k=4096 dtype=fp32", Published: 2.71842}, {Spec: "gemm m=1024 n=1024 k=1024 dtype=fp32", Published: 1.10346}},
			set:   map[string]float64{"aie_clock_ghz": 1.0},
		}}, nil
	case "maxeva":
		var out []*PaperDesign
		for _, dt := range []struct {
			dtype, spec string
			pub         float64
			ks          KernelSpec
		}{
			{"int8", "atype=int8 btype=int8 out=int32", 77.01, KernelSpec{Family: "i8mmul", DType: "int8", TM: 32, TK: 128, TN: 32}},
			{"fp32", "dtype=fp32", 5.44, KernelSpec{Family: "f32", DType: "fp32", TK: 32}},
		} {
			var pats []*ArrayDesign
			for _, pt := range [][3]int{{13, 4, 6}, {10, 3, 10}} {
				name := "P1"
				if pt[0] == 10 {
					name = "P2"
				}
				pats = append(pats, &ArrayDesign{Name: fmt.Sprintf("MaxEVA %s %s %dx%dx%d", dt.dtype, name, pt[0], pt[1], pt[2]), Kernel: dt.ks,
					X: pt[0], Y: pt[1], Z: pt[2], Reduce: ReduceAdder, ACast: pt[2], BCast: pt[0], PackIn: 1, PackOut: 1,
					In: p128(312.5), Out: p128(312.5), Scope: ScopeArray})
			}
			out = append(out, &PaperDesign{Name: "MaxEVA " + dt.dtype, DType: dt.dtype, Published: dt.pub,
				Source: "[MaxEVA] README abstract (AIE simulator, steady state)", ClockGHz: 1.25, Spec: dt.spec, Types: dt.spec, Scope: ScopeArray, Patterns: pats,
				set: map[string]float64{"aie_clock_ghz": 1.25}})
		}
		return out, nil
	}
	return nil, fmt.Errorf("reproduce: unknown design %q (want %s)", name, strings.Join(Papers, " or "))
}

// machineFor is the machine with the design's published settings over m.
func machineFor(m *Machine, pd *PaperDesign) (*Machine, error) {
	mm := *m
	for k, v := range pd.set {
		if err := mm.Set(k, fmt.Sprint(v)); err != nil {
			return nil, err
		}
	}
	return &mm, mm.Validate()
}

// specFor is the GEMM a pattern is measured on: the paper's (CHARM), or for an AIE-simulator
// figure (MaxEVA) 64 iterations of the pattern's block, whose steady state is the figure.
func specFor(pd *PaperDesign, d *ArrayDesign) (*op.Spec, error) {
	if strings.HasPrefix(pd.Spec, "gemm") {
		return op.Parse(pd.Spec)
	}
	ks := d.Kernel.Normalized()
	return op.Parse(fmt.Sprintf("gemm m=%d n=%d k=%d %s", 8*d.X*ks.TM, 8*d.Z*ks.TN, d.Y*ks.TK, pd.Spec))
}

// predict evaluates every pattern and returns the best (the figure is the design's best).
func predict(m *Machine, pd *PaperDesign, o ArrayOptions) (*ArrayResult, []PatternPoint, error) {
	var best *ArrayResult
	var pts []PatternPoint
	for _, d := range pd.Patterns {
		spec, err := specFor(pd, d)
		if err != nil {
			return nil, nil, err
		}
		dd := *d
		r, err := EvaluateDesign(m, &dd, spec, o)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", d.Name, err)
		}
		pts = append(pts, PatternPoint{Name: d.Name, Tiles: r.Tiles, TOPS: paperTOPS(pd, r), Limit: r.Limit})
		if best == nil || paperTOPS(pd, r) > paperTOPS(pd, best) {
			best = r
		}
	}
	return best, pts, nil
}

// paperTOPS is the figure the paper's method measures: whole-GEMM time on the board (CHARM) or
// the steady state in the AIE simulator (MaxEVA).
func paperTOPS(pd *PaperDesign, r *ArrayResult) float64 {
	if pd.Scope == ScopeArray {
		return r.SteadyTOPS
	}
	return r.TOPS
}

// Reproduce predicts a paper's designs, their sensitivity to the uncertain parameters, and
// sumac's design for the same GEMM, clocks and PLIO.
func Reproduce(m *Machine, paper string, noVerify bool) (*PaperReproduction, error) {
	pds, err := paperDesigns(paper)
	if err != nil {
		return nil, err
	}
	out := &PaperReproduction{Paper: paper}
	for _, pd := range pds {
		mm, err := machineFor(m, pd)
		if err != nil {
			return nil, err
		}
		best, pts, err := predict(mm, pd, ArrayOptions{NoVerify: noVerify})
		if err != nil {
			return nil, err
		}
		rep := &Reproduction{PaperDesign: *pd, Result: best, PatternTOPS: pts, Limit: best.Limit, Best: best.Design.Name}
		rep.ClockGHz = mm.AIEClockGHz
		rep.ModelTOPS = paperTOPS(pd, best)
		rep.ErrorPct = math.Round((rep.ModelTOPS/pd.Published-1)*1000) / 10
		rep.Within15 = math.Abs(rep.ModelTOPS/pd.Published-1) <= 0.15
		for i := range rep.Extra {
			x := &rep.Extra[i]
			spec, err := op.Parse(x.Spec)
			if err != nil {
				return nil, err
			}
			d := *best.Design
			r, err := EvaluateDesign(mm, &d, spec, ArrayOptions{NoVerify: true})
			if err != nil {
				return nil, err
			}
			x.Model = paperTOPS(pd, r)
			x.ErrorPct = math.Round((x.Model/x.Published-1)*1000) / 10
		}
		if rep.Sensitivity, err = sensitivity(mm, pd); err != nil {
			return nil, err
		}
		if rep.Beaten, err = beat(mm, pd, rep, noVerify); err != nil {
			return nil, err
		}
		out.Designs = append(out.Designs, rep)
	}
	return out, nil
}

// sensitivity moves each uncertain parameter by -20% and +20% and predicts again.
func sensitivity(m *Machine, pd *PaperDesign) ([]Sensitivity, error) {
	type knob struct {
		name, why string
		value     float64
		apply     func(m *Machine, d *PaperDesign, o *ArrayOptions, f float64) error
	}
	setM := func(key string) func(m *Machine, d *PaperDesign, o *ArrayOptions, f float64) error {
		return func(m *Machine, d *PaperDesign, o *ArrayOptions, f float64) error {
			v := reflectValue(m, key) * f
			if key == "lock_cycles" {
				return m.Set(key, fmt.Sprint(int(math.Round(v))))
			}
			return m.Set(key, fmt.Sprint(v))
		}
	}
	knobs := []knob{
		{"kernel cycles", "sumac's restatement of the design's kernel on sumac's cycle simulator, not the AMD compiler's code", 1,
			func(m *Machine, d *PaperDesign, o *ArrayOptions, f float64) error { o.KernelScale = f; return nil }},
		{"plio_mhz", "the PL clock of the PLIOs (CHARM sets 230 MHz; MaxEVA sets none: the compiler's default, a quarter of the AIE clock, UG1076)", pd.Patterns[0].In.MHz,
			func(m *Machine, d *PaperDesign, o *ArrayOptions, f float64) error {
				for _, p := range d.Patterns {
					p.In.MHz *= f
					p.Out.MHz *= f
				}
				return nil
			}},
		{"lock_cycles", "a lock acquire and release per window, 'a minimum of seven cycles' (XD100)", float64(m.LockCycles), setM("lock_cycles")},
	}
	if pd.Scope == ScopeSystem {
		knobs = append(knobs, knob{"ddr_gbps", "measured for GMIO on the VCK190 (XD100); the PL's AXI masters may see another rate", m.DDRGBps, setM("ddr_gbps")})
	}
	for _, p := range pd.Patterns {
		if p.Reduce == ReduceAdder {
			knobs = append(knobs, knob{"adder cycles", "sumac's adder kernel on sumac's cycle simulator", 1,
				func(m *Machine, d *PaperDesign, o *ArrayOptions, f float64) error { o.AdderScale = f; return nil }})
			break
		}
	}
	knobs = append(knobs, knob{"aie_clock_ghz", "the design's AIE clock as published", m.AIEClockGHz, setM("aie_clock_ghz")})
	var out []Sensitivity
	for _, k := range knobs {
		s := Sensitivity{Parameter: k.name, Value: k.value, Why: k.why, Low: 0.8 * k.value, High: 1.2 * k.value}
		if k.name == "lock_cycles" {
			s.Low, s.High = math.Round(s.Low), math.Round(s.High)
		}
		for _, f := range []float64{0.8, 1.2} {
			mm := *m
			d := *pd
			d.Patterns = nil
			for _, p := range pd.Patterns {
				pp := *p
				d.Patterns = append(d.Patterns, &pp)
			}
			o := ArrayOptions{NoVerify: true}
			if err := k.apply(&mm, &d, &o, f); err != nil {
				return nil, err
			}
			r, _, err := predict(&mm, &d, o)
			if err != nil {
				return nil, fmt.Errorf("sensitivity %s x%g: %v", k.name, f, err)
			}
			if f < 1 {
				s.Minus20 = paperTOPS(pd, r)
			} else {
				s.Plus20 = paperTOPS(pd, r)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// reflectValue reads a numeric machine parameter by key.
func reflectValue(m *Machine, key string) float64 {
	switch key {
	case "lock_cycles":
		return float64(m.LockCycles)
	case "ddr_gbps":
		return m.DDRGBps
	case "aie_clock_ghz":
		return m.AIEClockGHz
	}
	return 0
}

// beat searches sumac's design for the acceptance GEMM (6144^3 in the design's dtype) at the
// design's clocks, PLIO and scope, and names what wins.
func beat(m *Machine, pd *PaperDesign, rep *Reproduction, noVerify bool) (*Beaten, error) {
	spec, err := op.Parse("gemm m=6144 n=6144 k=6144 " + pd.Types)
	if err != nil {
		return nil, err
	}
	p := pd.Patterns[0]
	r, err := SearchGEMM(m, spec, SearchOptions{Tiles: NewArray(m).NumCores(), Scope: pd.Scope, PLIO: p.In, NoVerify: noVerify})
	if err != nil {
		return nil, err
	}
	b := &Beaten{Spec: spec.String(), TOPS: r.TOPS, Design: r.Design.String(), Limit: r.Limit, Result: r}
	theirs := rep.Result
	ours := r
	// name the mechanisms: the differences that change the binding resource's time
	if ours.ComputeTiles > theirs.ComputeTiles {
		mech := fmt.Sprintf("%d compute tiles against %d", ours.ComputeTiles, theirs.ComputeTiles)
		if theirs.Design.Reduce == ReduceAdder {
			mech += fmt.Sprintf(": the K reduction stays in the tiles (%s) instead of %d adder tiles", reduction(ours.Design), theirs.Tiles-theirs.ComputeTiles)
		}
		b.Mechanism = append(b.Mechanism, mech)
	}
	kt := float64(theirs.kernel.Cycles(Solo)) / float64(theirs.kernel.MACs)
	ko := 0.0
	for _, c := range ours.KernelCycles {
		ko = math.Max(ko, float64(c))
	}
	ko /= float64(ours.kernel.MACs)
	if ko < kt*0.99 {
		b.Mechanism = append(b.Mechanism, fmt.Sprintf("the tile kernel %s takes %.4f cycles per MAC against %.4f (%s)", ours.kernel.Spec, ko, kt, theirs.kernel.Spec))
	}
	if pd.Scope == ScopeSystem && theirs.DDRBytes > 0 && ours.DDRBytes > 0 {
		ft := float64(theirs.DDRBytes) / float64(theirs.MACs)
		fo := float64(ours.DDRBytes) / float64(ours.MACs)
		if fo < ft*0.99 {
			ks := ours.kernel.Spec
			d := ours.Design
			b.Mechanism = append(b.Mechanism, fmt.Sprintf("PL blocking: a %d x %d output block (%d PL buffer(s)) moves %.4f DDR bytes per MAC against %.4f for %d x %d (x%d): DDR, the limit of both, carries less per result",
				d.PLM*d.X*ks.TM, d.PLN*d.Z*ks.TN, d.PLCBuffers, fo, ft, theirs.Design.PLM*theirs.Design.X*theirs.kernel.Spec.TM, theirs.Design.PLN*theirs.Design.Z*theirs.kernel.Spec.TN, max(theirs.Design.PLCBuffers, 1)))
		}
	}
	if ours.Design.Stationary && !theirs.Design.Stationary {
		b.Mechanism = append(b.Mechanism, "output stationary: partial sums stay in the tiles across K and leave once, narrowed, instead of streaming out every call")
	}
	sort.Strings(b.Mechanism)
	return b, nil
}

func reduction(d *ArrayDesign) string {
	switch {
	case d.Stationary:
		return "output stationary"
	case d.Reduce == ReduceCascade:
		return "cascade chains"
	case d.Y == 1:
		return "each tile reduces its K block in one call; the PL adds the blocks' partial sums"
	}
	return d.Reduce
}
