package versal

import (
	"fmt"
	"math"
	"sort"

	"github.com/sumacdev/sumac/op"
)

// SearchOptions bounds a design search.
type SearchOptions struct {
	Tiles int    // tiles the design may use (compute and adder tiles)
	Scope string // ScopeArray (default) or ScopeSystem
	// PLIO of the designs (zero: 128-bit at the machine's PL clock, the width MaxEVA and CHARM
	// use: it matches the 32-bit stream at a quarter of the AIE clock)
	PLIO PLIO
	Top  int // candidates simulated after the analytic ranking (0: 4)
	// Families restricts the kernel families (empty: every family for the dtype)
	Families []string
	NoVerify bool
	Seed     uint64
}

// kernelMenu lists the tile kernel configurations the search tries for a dtype.
func kernelMenu(dtype string, k int, families []string) []KernelSpec {
	allow := func(f string) bool {
		if len(families) == 0 {
			return true
		}
		for _, x := range families {
			if x == f {
				return true
			}
		}
		return false
	}
	var out []KernelSpec
	switch dtype {
	case "fp32":
		if allow("f32") {
			out = append(out, KernelSpec{Family: "f32", DType: "fp32", TM: 32, TK: 32, TN: 32})
		}
	case "int8", "uint8":
		if allow("mm8") {
			for _, c := range [][3]int{{4, 4, 128}, {2, 8, 128}, {8, 2, 128}, {2, 4, 256}, {4, 2, 256}, {2, 2, 256}, {4, 4, 64}, {2, 2, 128}, {1, 1, 256}, {1, 2, 128}} {
				out = append(out, KernelSpec{Family: "mm8", DType: dtype, NT: c[0], NQ: c[1], TK: c[2]})
			}
		}
		if dtype == "int8" && allow("i8mmul") {
			out = append(out, KernelSpec{Family: "i8mmul", DType: "int8", TM: 32, TK: 128, TN: 32})
		}
	case "int16":
		if allow("i16") {
			for _, nt := range []int{1, 2, 4, 8} {
				for _, tk := range []int{64, 128, 256} {
					if 32*nt*tk <= 8192 { // the A panel of a call, ping-pong in one tile
						out = append(out, KernelSpec{Family: "i16", DType: "int16", NT: nt, TK: tk})
					}
				}
			}
		}
	}
	for i := range out {
		out[i] = out[i].Normalized()
	}
	return out
}

// candidate is a design with its analytic estimate.
type candidate struct {
	d      *ArrayDesign
	est    float64 // estimated cycles of the whole GEMM
	period float64
	limit  string
}

// estimate is the analytic bound of a plan: per iteration, the busiest resource's cycles.
func (p *arrayPlan) estimate() (period float64, limit string) {
	a, d, k := p.a, p.d, p.k
	inRate, outRate := a.Rate(d.In), a.Rate(d.Out)
	lock := float64(a.M.LockCycles)
	hdr := func(pack int, rate float64) float64 {
		if pack > 1 {
			return float64(4*a.M.PacketHeaderWords) / rate
		}
		return 0
	}
	set := func(name string, v float64) {
		if v > period {
			period, limit = v, name
		}
	}
	// core: the slowest call of a tile
	var core float64
	for _, v := range p.variantsUsed() {
		core = math.Max(core, p.callCycles(v))
	}
	set("core", core)
	aB := float64(k.ABytes)
	if d.AStationary {
		aB /= float64(p.nB)
	}
	win := math.Max(aB, float64(k.BBytes))
	set("plio in", float64(d.PackIn)*(lock+hdr(d.PackIn, inRate)+win/inRate))
	outFrac := 1.0
	if d.Stationary {
		outFrac = 1 / float64(p.kB)
	}
	ob := float64(p.outBytes(iteration{final: p.kB == 1 || d.Stationary}))
	set("plio out", float64(d.PackOut)*outFrac*(lock+hdr(d.PackOut, outRate)+ob/outRate))
	if d.In.GMIO || d.Out.GMIO {
		// every GMIO byte crosses DDR: the streams' bytes per iteration at the aggregate rate
		var bytes float64
		if d.In.GMIO {
			na := float64(d.X * d.Y * (d.Z / d.ACast))
			nb := float64(d.Z * d.Y * (d.X / d.BCast))
			bytes += na*aB + nb*float64(k.BBytes)
		}
		if d.Out.GMIO {
			bytes += float64(d.X*d.Z) * outFrac * ob
		}
		set("ddr", bytes/a.M.DDRRate())
	}
	if p.adder != nil {
		set("adder core", float64(d.Y-1)*p.addCycles())
	}
	if d.Scope == ScopeSystem {
		eb := elemBytes(k.Spec.DType)
		ks := k.Spec
		am, ak, an := float64(p.plM*d.X*ks.TM), float64(p.plK*d.Y*ks.TK), float64(p.plN*d.Z*ks.TN)
		perBlock := (am*ak + ak*an) * float64(eb)
		c := am * an * float64(outElemBytes(p.t)) / float64(p.kB/p.plK)
		set("ddr", (perBlock+c)/float64(p.plM*p.plN*p.plK)/a.M.DDRRate())
	}
	return period, limit
}

func (p *arrayPlan) variantsUsed() []Variant {
	var its []iteration
	if p.d.Stationary && p.kB > 1 {
		its = []iteration{{firstK: true}, {}, {final: true}}
	} else {
		its = []iteration{{firstK: true, final: p.kB == 1 || p.d.Stationary}}
	}
	seen := map[Variant]bool{}
	var out []Variant
	for _, it := range its {
		for pos := 0; pos < p.d.Y; pos++ {
			if v := p.variant(pos, it); !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// plBlocking picks the PL blocks of a system-scope design: the (PLM, PLN, PLK) whose DDR
// traffic per iteration is least among those whose buffers fit PL RAM.
func plBlocking(a *Array, d *ArrayDesign, spec *op.Spec) {
	best := math.Inf(1)
	bm, bn, bk := 1, 1, 1
	k, err := LoadTileKernel(d.Kernel)
	if err != nil {
		return
	}
	ks := k.Spec
	g := spec.GEMM
	mB, nB, kB := ceilDiv(g.M, d.X*ks.TM), ceilDiv(g.N, d.Z*ks.TN), ceilDiv(g.K, d.Y*ks.TK)
	eb := float64(elemBytes(ks.DType))
	ob := float64(outElemBytes(spec.Types))
	bc := 2
	for _, cb := range []int{2, 1} {
		for _, pk := range []int{1, kB} {
			for pm := 1; pm <= min(mB, 64); pm++ {
				for pn := 1; pn <= min(nB, 64); pn++ {
					am, ak, an := float64(pm*d.X*ks.TM), float64(pk*d.Y*ks.TK), float64(pn*d.Z*ks.TN)
					bytes := 2*(am*ak+ak*an)*eb + float64(cb)*am*an*4
					if bytes > float64(a.M.PLRAMBytes) {
						continue
					}
					// DDR time per iteration; with one output buffer the write-back does not
					// overlap the next block's loads
					per := ((am*ak+ak*an)*eb + am*an*ob/float64(kB/pk)) / float64(pm*pn*pk)
					if per < best-1e-9 {
						best, bm, bn, bk, bc = per, pm, pn, pk, cb
					}
				}
			}
		}
	}
	d.PLM, d.PLN, d.PLK, d.PLCBuffers = bm, bn, bk, bc
}

// SearchGEMM finds the fastest design for spec within the tile budget: every kernel of the menu,
// reduction (none, output stationary, cascade chains, adder trees), grid X x Y x Z, with the
// widest broadcast and the fewest windows per PLIO that fit the interface, ranked by the
// analytic bound; the best few are simulated and the fastest is verified.
func SearchGEMM(m *Machine, spec *op.Spec, o SearchOptions) (*ArrayResult, error) {
	if spec.GEMM == nil {
		return nil, fmt.Errorf("versal array: %q is not a gemm", spec.String())
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	a := NewArray(m)
	if o.Tiles < 1 || o.Tiles > a.NumCores() {
		return nil, fmt.Errorf("--tiles %d: want 1 to %d", o.Tiles, a.NumCores())
	}
	if o.Scope == "" {
		o.Scope = ScopeArray
	}
	if o.PLIO.Bits == 0 {
		o.PLIO = PLIO{Bits: 128, MHz: math.Min(m.PLClockMHz, m.PLIOMaxMHz)}
	}
	if o.Top == 0 {
		o.Top = 4
	}
	dtype := map[op.DType]string{op.Int8: "int8", op.UInt8: "uint8", op.Int16: "int16", op.FP32: "fp32"}[spec.Types.A]
	menu := kernelMenu(dtype, spec.GEMM.K, o.Families)
	if len(menu) == 0 {
		return nil, fmt.Errorf("versal array: no tile kernel for %s operands (int8, uint8, int16, fp32)", spec.Types.A)
	}
	var cands []candidate
	var firstErr error
	for _, ks := range menu {
		k, err := LoadTileKernel(ks)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if checkKernelTypes(k, spec.Types, &ArrayDesign{Name: "search"}) != nil {
			continue
		}
		type shape struct {
			reduce     string
			y          int
			stationary bool
		}
		shapes := []shape{{ReduceNone, 1, false}, {ReduceNone, 1, true}}
		if k.HasPartials() && !k.NarrowsPartials {
			for _, y := range []int{2, 3, 4, 6, 8} {
				shapes = append(shapes, shape{ReduceCascade, y, false})
			}
		}
		if k.PartBytes > 0 && !k.NarrowsPartials {
			for _, y := range []int{2, 3, 4} {
				shapes = append(shapes, shape{ReduceAdder, y, false})
			}
		}
		for _, sh := range shapes {
			per := sh.y
			if sh.reduce == ReduceAdder {
				per++
			}
			gmax := o.Tiles / per
			if gmax < 1 {
				continue
			}
			for x := 1; x <= gmax; x++ {
				z := gmax / x
				if z < 1 {
					break
				}
				for _, via := range []PLIO{o.PLIO, {GMIO: true}} {
					d := &ArrayDesign{Name: "searched", Kernel: ks, X: x, Y: sh.y, Z: z, Reduce: sh.reduce,
						ACast: z, BCast: x, Stationary: sh.stationary, In: via, Out: via, Scope: o.Scope}
					inCap, _ := a.PLIOCapacity(via)
					_, outCap := a.PLIOCapacity(via)
					// A stationary where the whole K fits one iteration and the kernel has no partials
					if k.NarrowsPartials && ceilDiv(spec.GEMM.K, sh.y*k.Spec.TK) == 1 {
						d.AStationary, d.Stationary = true, false
					}
					nA, nB := x*sh.y, sh.y*z
					d.PackIn = 1
					for d.PackIn < 8 && ceilDiv(nA, d.PackIn)+ceilDiv(nB, d.PackIn) > inCap {
						d.PackIn *= 2
					}
					d.PackOut = 1
					for d.PackOut < 16 && ceilDiv(x*z, d.PackOut) > outCap {
						d.PackOut *= 2
					}
					if o.Scope == ScopeSystem {
						plBlocking(a, d, spec)
					}
					p, err := shapePlan(a, d, spec)
					if err != nil {
						if firstErr == nil {
							firstErr = err
						}
						continue
					}
					period, limit := p.estimate()
					cands = append(cands, candidate{d: d, est: period * float64(p.iterations()), period: period, limit: limit})
				}
			}
		}
	}
	if len(cands) == 0 {
		if firstErr != nil {
			return nil, fmt.Errorf("no design fits %d tiles: %v", o.Tiles, firstErr)
		}
		return nil, fmt.Errorf("no design fits %d tiles", o.Tiles)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].est != cands[j].est {
			return cands[i].est < cands[j].est
		}
		return cands[i].d.Tiles() < cands[j].d.Tiles()
	})
	var best *ArrayResult
	simulated := 0
	for i := 0; i < len(cands) && simulated < o.Top; i++ {
		r, err := EvaluateDesign(m, cands[i].d, spec, ArrayOptions{NoVerify: true})
		if err != nil {
			continue // the placement failed: the next candidate
		}
		simulated++
		if best == nil || r.Cycles < best.Cycles {
			best = r
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no design of the %d that fit %d tiles could be placed", len(cands), o.Tiles)
	}
	best.Design.Name = fmt.Sprintf("sumac %d-tile", best.Tiles)
	best.Notes = append(best.Notes, fmt.Sprintf("searched %d designs; the best %d simulated", len(cands), simulated))
	if !o.NoVerify {
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		p, err := newArrayPlan(a, best.Design, spec)
		if err != nil {
			return nil, err
		}
		shape, inputs, err := p.verify(seed)
		best.VerifiedOn, best.VerifyInputs = shape, inputs
		if err != nil {
			best.VerifyError = err.Error()
		} else {
			best.Verified = true
		}
	}
	return best, nil
}

// TilePoint is the best design found for one tile budget.
type TilePoint struct {
	Tiles       int                `json:"tiles"`
	Used        int                `json:"tiles_used"`
	TOPS        float64            `json:"tops"`
	Limit       string             `json:"limit"`
	Design      string             `json:"design"`
	Utilization map[string]float64 `json:"utilization"`
	Error       string             `json:"error,omitempty"`
}

// SweepTiles runs the search for each tile budget in ns (without verifying each point: the
// kernels and reductions the points use are verified by the single-budget runs and the tests).
func SweepTiles(m *Machine, spec *op.Spec, o SearchOptions, ns []int) ([]TilePoint, error) {
	o.NoVerify = true
	if o.Top == 0 {
		o.Top = 2
	}
	var out []TilePoint
	for _, n := range ns {
		oo := o
		oo.Tiles = n
		pt := TilePoint{Tiles: n, Utilization: map[string]float64{}}
		r, err := SearchGEMM(m, spec, oo)
		if err != nil {
			pt.Error = err.Error()
			out = append(out, pt)
			continue
		}
		pt.Used, pt.TOPS, pt.Limit = r.Tiles, r.TOPS, r.Limit
		pt.Design = r.Design.String()
		for _, u := range r.Utilization {
			pt.Utilization[u.Resource] = u.Utilization
		}
		out = append(out, pt)
	}
	return out, nil
}
