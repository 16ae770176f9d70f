package versal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
	"github.com/sumacdev/sumac/target/aie1"
)

// Placements and rates.
const (
	PlacementSeed = "seed" // the seeds' placement (001 Fig. 3, 004 Fig. 4)
	PlacementBest = "best" // sumac's placement (docs/versal.md)
	RatesReal     = "real" // every transfer costs what its mechanism costs
	RatesSeed     = "seed" // the seeds' simulator: window contents present when a call starts
)

// GEMM micro-tile of seed 001 (s.V-B): mr x nr = 16 x 4 int16.
const (
	gemmMR = 16
	gemmNR = 4
)

// GEMMOptions selects placement, rates and blocking (0: chosen from the capacities).
type GEMMOptions struct {
	Placement string
	Rates     string
	KC, MC    int
	Trace     *Trace
	NoVerify  bool
	Seed      uint64 // inputs of the verification (0: 1)
}

// Result is the outcome of one run.
type Result struct {
	Op           string           `json:"op"`
	Spec         string           `json:"spec"`
	Placement    string           `json:"placement"`
	Rates        string           `json:"rates"`
	Cycles       int64            `json:"cycles"`
	MACs         int64            `json:"macs"`
	MACsPerCycle float64          `json:"macs_per_cycle"`
	PctPeak      float64          `json:"pct_peak"`
	Peak         int              `json:"peak_macs_per_cycle"`
	ClockGHz     float64          `json:"clock_ghz"`
	Limit        string           `json:"limit"`
	Breakdown    map[string]int64 `json:"breakdown"`
	Resources    []ResourceUse    `json:"resources"`
	Calls        int64            `json:"calls"`
	Kernels      []KernelUse      `json:"kernels"`
	Blocking     map[string]int   `json:"blocking"`
	Memory       map[string]int   `json:"tile_memory_bytes"`
	Verified     bool             `json:"verified"`
	VerifiedOn   string           `json:"verified_shape"`
	VerifyInputs string           `json:"verified_inputs,omitempty"`
	VerifyError  string           `json:"verify_error,omitempty"`
	Notes        []string         `json:"notes,omitempty"`
}

// KernelUse is one kernel configuration a run calls.
type KernelUse struct {
	Kernel string `json:"kernel"`
	Cycles int64  `json:"cycles_per_call"`
	MACs   int64  `json:"macs_per_call"`
	Calls  int64  `json:"calls"`
}

func (r *Result) finish(rep *Report, macs int64, peak int, clock float64) {
	r.Cycles = int64(math.Ceil(rep.Cycles))
	r.MACs, r.Peak, r.ClockGHz, r.Calls = macs, peak, clock, rep.Calls
	if rep.Cycles > 0 {
		r.MACsPerCycle = math.Round(float64(macs)/rep.Cycles*100) / 100
		r.PctPeak = pct(float64(macs) / rep.Cycles / float64(peak))
	}
	r.Limit = rep.Limit()
	r.Breakdown = map[string]int64{}
	for k, v := range rep.Breakdown {
		if c := int64(math.Round(v)); c != 0 {
			r.Breakdown[k] = c
		}
	}
	r.Resources = rep.Resources
	for i := range r.Resources {
		r.Resources[i].BusyCycles = math.Round(r.Resources[i].BusyCycles)
		r.Resources[i].Utilization = math.Round(r.Resources[i].Utilization*1000) / 1000
	}
}

// gemmCall is one kernel call of a GEMM plan.
type gemmCall struct {
	ic, ir, rows int // first row of the call, rows it computes (a multiple of 16 but the edge)
	jr, cols     int // first column, columns (<= 4)
	pc, kcb      int // first k, k of the block
	a, b, c      int // feed items: A operand, B_r, C tile(s)
	k            *Kernel
	tiles        int
}

// gemmPlan is a GEMM with a placement and blocking.
type gemmPlan struct {
	m          *Machine
	g          *op.GEMM
	t          op.Types
	placement  string
	rates      string
	kc, mc, nc int
	kernels    map[int]*Kernel // by key (seed: padded kc; best: tiles)
	kcPad      func(kcb int) int
	memory     map[string]int
	notes      []string
}

// seedKCMax is the largest kc (a multiple of 4) for which the seed kernel's buffers fit the
// tile's own 32 KB less stack, heap and sync buffer: the PL_IN window (A_r, 16 x kc int16)
// and the C_r windows in and out (16 x 4 int16) each with WindowBuffers copies, and B_r
// (kc x 4 int16) once.
func seedKCMax(m *Machine) int {
	wb := m.WindowBuffers
	free := m.UsableTileBytes(0) - 2*wb*gemmMR*gemmNR*2
	return free / (wb*gemmMR*2 + gemmNR*2) / 4 * 4
}

func newGEMMPlan(m *Machine, spec *op.Spec, o GEMMOptions) (*gemmPlan, error) {
	if spec.GEMM == nil {
		return nil, fmt.Errorf("versal gemm: %q is not a gemm", spec.String())
	}
	g := spec.GEMM
	if g.TA || g.TB {
		return nil, errors.New("versal gemm: ta/tb are not supported (the packing reads row-major A and B)")
	}
	if spec.Types.A != op.Int16 || spec.Types.B != op.Int16 || spec.Types.Acc != op.Acc48 || spec.Types.Out != op.Int16 {
		return nil, fmt.Errorf("versal gemm: types %s: seed 001's micro-kernel is int16 x int16 -> acc48 -> int16", spec.Types)
	}
	if spec.Types.Shift != 0 {
		return nil, errors.New("versal gemm: shift must be 0 (the seed kernel narrows with srs(acc, 0))")
	}
	p := &gemmPlan{m: m, g: g, t: spec.Types, placement: o.Placement, rates: o.Rates, kernels: map[int]*Kernel{}, memory: map[string]int{}}
	if p.placement == "" {
		p.placement = PlacementBest
	}
	if p.rates == "" {
		p.rates = RatesReal
	}
	p.kcPad = func(kcb int) int { return roundUp(kcb, 4) }
	switch p.placement {
	case PlacementSeed:
		return p, p.seedBlocking(o)
	case PlacementBest:
		return p, p.bestBlocking(o)
	}
	return nil, fmt.Errorf("versal gemm: placement %q (want seed or best)", p.placement)
}

// seedBlocking: kc from the tile memory (B_r and the kernel's windows), mc from PL RAM
// (A_c = mc x kc int16), nc = n (B_c in DDR), as seed 001 s.V-C/D choose them.
func (p *gemmPlan) seedBlocking(o GEMMOptions) error {
	g, m := p.g, p.m
	kcMax := seedKCMax(m)
	p.kc = o.KC
	if p.kc == 0 {
		p.kc = min(g.K, kcMax)
	}
	kc4 := p.kcPad(min(p.kc, g.K))
	wb := m.WindowBuffers
	used, err := CheckFit(fmt.Sprintf("seed placement, kc = %d", p.kc), m.UsableTileBytes(0), []Buffer{
		{"A_r window", gemmMR * kc4 * 2, wb}, {"B_r", kc4 * gemmNR * 2, 1},
		{"C_r in window", gemmMR * gemmNR * 2, wb}, {"C_r out window", gemmMR * gemmNR * 2, wb}})
	if err != nil {
		return err
	}
	p.memory["used"], p.memory["available"] = used, m.UsableTileBytes(0)
	mcMax := int(m.PLRAMBytes/int64(p.kc*2)) / gemmMR * gemmMR
	p.mc = o.MC
	if p.mc == 0 {
		p.mc = min(roundUp(g.M, gemmMR), mcMax)
	}
	if p.mc%gemmMR != 0 || p.mc <= 0 {
		return fmt.Errorf("mc = %d: must be a positive multiple of mr = %d", p.mc, gemmMR)
	}
	if int64(p.mc)*int64(p.kc)*2 > m.PLRAMBytes {
		return fmt.Errorf("mc = %d, kc = %d: A_c (%d bytes) does not fit PL RAM (%d bytes)", p.mc, p.kc, p.mc*p.kc*2, m.PLRAMBytes)
	}
	p.nc = g.N
	if int64(p.kc)*int64(p.nc)*2 > m.DDRBytes {
		return fmt.Errorf("B_c (%d bytes) does not fit DDR", p.kc*p.nc*2)
	}
	p.notes = append(p.notes, fmt.Sprintf("kc <= %d from the tile's 32 KB (A_r window x%d, B_r, C_r windows, stack+heap+sync %d B)", kcMax, wb, m.StackBytes+m.HeapBytes+m.SyncBytes))
	for pc := 0; pc < g.K; pc += p.kc {
		if _, err := p.kernel(p.kcPad(min(p.kc, g.K-pc))); err != nil {
			return err
		}
	}
	return nil
}

// kernel returns the kernel of a call: the seed kernel by padded kc, the block kernel by its
// number of micro-tiles.
func (p *gemmPlan) kernel(key int) (*Kernel, error) {
	if k := p.kernels[key]; k != nil {
		return k, nil
	}
	var k *Kernel
	var err error
	if p.placement == PlacementSeed {
		k, err = LoadKernel("lei_gemm_16x4.cc", fmt.Sprintf("Kc=%d", key))
	} else {
		k, err = LoadKernel("kernels/gemm_16x4_block.cc", fmt.Sprintf("Kc=%d", p.kcPad(p.g.K)), fmt.Sprintf("NT=%d", key))
	}
	if err != nil {
		return nil, err
	}
	p.kernels[key] = k
	return k, nil
}

// bestBlocking: the whole k in one block (the accumulators narrow once, as the reference
// does); mc = the most 16-row micro-panels of A (mc x k int16) that fit the tile's and its
// three neighbours' memory beside B_r (ping-pong) and the C tiles in and out (ping-pong);
// one call computes all mc/16 micro-tiles that share a B_r.
func (p *gemmPlan) bestBlocking(o GEMMOptions) error {
	g, m := p.g, p.m
	if o.KC != 0 && o.KC < g.K {
		return fmt.Errorf("kc = %d < k = %d: the best placement keeps the whole k in one block (one narrowing); use --placement seed to block k", o.KC, g.K)
	}
	p.kc = g.K
	kc4 := p.kcPad(g.K)
	avail := m.UsableTileBytes(m.NeighbourModules)
	perTile := gemmMR*kc4*2 + 2*2*gemmMR*gemmNR*2
	fixed := 2 * kc4 * gemmNR * 2
	ntMax := (avail - fixed) / perTile
	if ntMax < 1 {
		_, err := CheckFit(fmt.Sprintf("best placement, k = %d", g.K), avail, []Buffer{{"A micro-panel", gemmMR * kc4 * 2, 1}, {"B_r", kc4 * gemmNR * 2, 2}, {"C tiles", gemmMR * gemmNR * 2, 4}})
		return err
	}
	p.mc = o.MC
	if p.mc == 0 {
		p.mc = min(ntMax*gemmMR, roundUp(g.M, gemmMR))
		// the same number of calls with fewer rows per block balances the blocks
		blocks := ceilDiv(g.M, p.mc)
		p.mc = roundUp(ceilDiv(g.M, blocks), gemmMR)
	}
	if p.mc%gemmMR != 0 || p.mc <= 0 {
		return fmt.Errorf("mc = %d: must be a positive multiple of mr = %d", p.mc, gemmMR)
	}
	nt := p.mc / gemmMR
	used, err := CheckFit(fmt.Sprintf("best placement, mc = %d, k = %d", p.mc, g.K), avail, []Buffer{
		{"A block", nt * gemmMR * kc4 * 2, 1}, {"B_r", kc4 * gemmNR * 2, 2},
		{"C tiles in", nt * gemmMR * gemmNR * 2, 2}, {"C tiles out", nt * gemmMR * gemmNR * 2, 2}})
	if err != nil {
		return err
	}
	p.memory["used"], p.memory["available"] = used, avail
	p.nc = g.N
	for ic := 0; ic < g.M; ic += p.mc {
		if _, err := p.kernel(ceilDiv(min(p.mc, g.M-ic), gemmMR)); err != nil {
			return err
		}
	}
	p.notes = append(p.notes, fmt.Sprintf("A block of %d rows resident in the tile's and %d neighbours' memory (%d of %d bytes)", p.mc, m.NeighbourModules, used, avail))
	return nil
}

// walk visits the calls in program order.
func (p *gemmPlan) walk(visit func(c *gemmCall) error) error {
	g := p.g
	ncall, nb, na := 0, 0, 0
	if p.placement == PlacementSeed {
		for jc := 0; jc < g.N; jc += p.nc {
			ncb := min(p.nc, g.N-jc)
			for pc := 0; pc < g.K; pc += p.kc {
				kcb := min(p.kc, g.K-pc)
				for ic := 0; ic < g.M; ic += p.mc {
					mcb := min(p.mc, g.M-ic)
					for jr := 0; jr < ncb; jr += gemmNR {
						for ir := 0; ir < mcb; ir += gemmMR {
							k, err := p.kernel(p.kcPad(kcb))
							if err != nil {
								return err
							}
							c := &gemmCall{ic: ic + ir, rows: min(gemmMR, mcb-ir), jr: jc + jr, cols: min(gemmNR, ncb-jr),
								pc: pc, kcb: kcb, a: ncall, b: nb, c: ncall, k: k, tiles: 1}
							if err := visit(c); err != nil {
								return err
							}
							ncall++
						}
						nb++
					}
				}
			}
		}
		return nil
	}
	for ic := 0; ic < g.M; ic += p.mc {
		mcb := min(p.mc, g.M-ic)
		t := ceilDiv(mcb, gemmMR)
		k, err := p.kernel(t)
		if err != nil {
			return err
		}
		for jr := 0; jr < g.N; jr += gemmNR {
			c := &gemmCall{ic: ic, rows: mcb, jr: jr, cols: min(gemmNR, g.N-jr), pc: 0, kcb: g.K,
				a: na, b: nb, c: ncall, k: k, tiles: t}
			if err := visit(c); err != nil {
				return err
			}
			ncall++
			nb++
		}
		na++
	}
	return nil
}

// timeline runs the plan's transfers and calls.
func (p *gemmPlan) timeline(tr *Trace) (*Report, []KernelUse, error) {
	m := p.m
	tl := NewTimeline(m, tr)
	real := p.rates == RatesReal
	// item sizes, from a first walk: per A item its k block (seed) or micro-tiles (best), per
	// B_r its k block, per call its micro-tiles
	var aK, bK, cT []int32
	if err := p.walk(func(c *gemmCall) error {
		if c.a == len(aK) {
			aK = append(aK, int32(c.kcb))
			if p.placement == PlacementBest {
				aK[c.a] = int32(c.tiles)
			}
		}
		if c.b == len(bK) {
			bK = append(bK, int32(c.kcb))
		}
		cT = append(cT, int32(c.tiles))
		return nil
	}); err != nil {
		return nil, nil, err
	}
	calls, na, nb := len(cT), len(aK), len(bK)
	var fa, fb, fc *feed
	var out *OutRing
	cBytes := func(j int) int { return int(cT[j]) * gemmMR * gemmNR * 2 }
	if p.placement == PlacementSeed {
		wb := m.WindowBuffers
		kcMaxPad := p.kcPad(min(p.kc, p.g.K))
		fa = newFeed(NewRing("A_r window", wb, gemmMR*kcMaxPad*2), na, func(j int) []*Transfer {
			if !real {
				return nil
			}
			n := gemmMR * p.kcPad(int(aK[j])) * 2
			return []*Transfer{m.PLIO(tl.Name("A_r %d", j), "plio A_r", n, "plio0", "s2mm0")}
		})
		fb = newFeed(NewRing("B_r", 1, kcMaxPad*gemmNR*2), nb, func(j int) []*Transfer {
			return []*Transfer{m.ARMCopy(tl.Name("B_r %d", j), "arm copy B_r", p.kcPad(int(bK[j]))*gemmNR*2)}
		})
		fc = newFeed(NewRing("C_r in window", wb, gemmMR*gemmNR*2), calls, func(j int) []*Transfer {
			if !real {
				return nil
			}
			return []*Transfer{m.GMIOIn(tl.Name("C_r in %d", j), "gmio C_r in", gemmMR*gemmNR*2, "shim_mm2s0", "s2mm1")}
		})
		out = NewOutRing("C_r out window", wb, gemmMR*gemmNR*2)
	} else {
		kc4 := p.kcPad(p.g.K)
		fa = newFeed(NewRing("A block", 1, p.mc*kc4*2), na, func(j int) []*Transfer {
			bytes := int(aK[j]) * gemmMR * kc4 * 2
			var xs []*Transfer
			for s, part := range Split(bytes, m.Streams) {
				if part > 0 {
					xs = append(xs, m.PLIO(tl.Name("A block %d part %d", j, s), "plio A block", part, fmt.Sprintf("plio%d", s), fmt.Sprintf("s2mm%d", s)))
				}
			}
			return xs
		})
		fb = newFeed(NewRing("B_r", 2, kc4*gemmNR*2), nb, func(j int) []*Transfer {
			return []*Transfer{m.GMIOIn(tl.Name("B_r %d", j), "gmio B_r", kc4*gemmNR*2, "shim_mm2s0", "s2mm0")}
		})
		fc = newFeed(NewRing("C tiles in", 2, p.mc*gemmNR*2), calls, func(j int) []*Transfer {
			return []*Transfer{m.GMIOIn(tl.Name("C in %d", j), "gmio C in", cBytes(j), "shim_mm2s1", "s2mm1")}
		})
		out = NewOutRing("C tiles out", 2, p.mc*gemmNR*2)
	}
	uses := map[*Kernel]*KernelUse{}
	pk, err := aie1.Peak("int16")
	if err != nil {
		return nil, nil, err
	}
	peak := float64(pk)
	err = p.walk(func(c *gemmCall) error {
		da, err := fa.use(tl, c.a)
		if err != nil {
			return err
		}
		db, err := fb.use(tl, c.b)
		if err != nil {
			return err
		}
		dc, err := fc.use(tl, c.c)
		if err != nil {
			return err
		}
		useful := int64(c.rows) * int64(c.cols) * int64(c.kcb)
		_, end := tl.Call(tl.Name("call %d", c.c), float64(c.k.Cycles), float64(useful)/peak, c.k.MACs, da, db, dc, out.Slot())
		fa.done(end)
		fb.done(end)
		fc.done(end)
		var x *Transfer
		if real {
			name := "gmio C_r out"
			if p.placement == PlacementBest {
				name = "gmio C out"
			}
			x = m.GMIOOut(tl.Name("C out %d", c.c), name, cBytes(c.c), "mm2s0", "shim_s2mm0")
		}
		if err := drain(tl, out, end, x); err != nil {
			return err
		}
		u := uses[c.k]
		if u == nil {
			u = &KernelUse{Kernel: c.k.String(), Cycles: c.k.Cycles, MACs: c.k.MACs}
			uses[c.k] = u
		}
		u.Calls++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var ku []KernelUse
	for _, u := range uses {
		ku = append(ku, *u)
	}
	sortKernelUses(ku)
	return tl.Finish(), ku, nil
}

func sortKernelUses(ku []KernelUse) {
	for i := 1; i < len(ku); i++ {
		for j := i; j > 0 && ku[j].Calls > ku[j-1].Calls; j-- {
			ku[j], ku[j-1] = ku[j-1], ku[j]
		}
	}
}

// execute runs every call of the plan on the cycle simulator with the given operands and
// returns C (m x n, row-major).
func (p *gemmPlan) execute(a, b []int64) ([]int64, error) {
	g := p.g
	cm := make([]int64, g.M*g.N)
	put := func(buf []byte, i int, v int64) { binary.LittleEndian.PutUint16(buf[2*i:], uint16(int16(v))) }
	get := func(buf []byte, i int) int64 { return int64(int16(binary.LittleEndian.Uint16(buf[2*i:]))) }
	aAt := func(i, kk int) int64 {
		if i < g.M && kk < g.K {
			return a[i*g.K+kk]
		}
		return 0
	}
	bAt := func(kk, j int) int64 {
		if kk < g.K && j < g.N {
			return b[kk*g.N+j]
		}
		return 0
	}
	cAt := func(i, j int) int64 {
		if i < g.M && j < g.N {
			return cm[i*g.N+j]
		}
		return 0
	}
	return cm, p.walk(func(c *gemmCall) error {
		k := c.k
		kc4 := p.kcPad(c.kcb)
		data := map[string][]byte{}
		for n, s := range k.Sizes {
			data[n] = make([]byte, s)
		}
		for kk := 0; kk < c.kcb; kk++ {
			for j := 0; j < gemmNR; j++ {
				put(data["Br"], kk*gemmNR+j, bAt(c.pc+kk, c.jr+j))
			}
		}
		var aName, cIn, cOut string
		if p.placement == PlacementSeed {
			aName, cIn, cOut = "PL_IN", "DDR_IN", "out"
		} else {
			aName, cIn, cOut = "A", "C_IN", "C_OUT"
		}
		for t := 0; t < c.tiles; t++ {
			row := c.ic + t*gemmMR
			for kk := 0; kk < c.kcb; kk++ {
				for r := 0; r < gemmMR; r++ {
					if row+r < c.ic+c.rows {
						put(data[aName], (t*kc4+kk)*gemmMR+r, aAt(row+r, c.pc+kk))
					}
				}
			}
			for j := 0; j < gemmNR; j++ {
				for r := 0; r < gemmMR; r++ {
					put(data[cIn], (t*gemmNR+j)*gemmMR+r, cAt(row+r, c.jr+j))
				}
			}
		}
		res, err := k.Run(data, p.t.Round, p.t.Sat)
		if err != nil {
			return err
		}
		for t := 0; t < c.tiles; t++ {
			row := c.ic + t*gemmMR
			for j := 0; j < c.cols; j++ {
				for r := 0; r < gemmMR && row+r < c.ic+c.rows; r++ {
					cm[(row+r)*g.N+c.jr+j] = get(res[cOut], (t*gemmNR+j)*gemmMR+r)
				}
			}
		}
		return nil
	})
}

// verifyShape is the scaled-down GEMM the verification runs: the same k (so the same kernel
// configurations and k blocks), a few micro-tiles in m and n, and with the best placement one
// full A block and one edge block when the full problem has more than one.
func (p *gemmPlan) verifyShape() *op.GEMM {
	g := p.g
	m := min(g.M, 3*gemmMR)
	if p.placement == PlacementBest {
		m = min(g.M, p.mc+gemmMR)
	}
	return &op.GEMM{M: m, N: min(g.N, 2*gemmNR+1), K: g.K}
}

// verify runs the plan on the scaled-down shape with seeded inputs and compares C with
// op/ref bit for bit. Inputs: the widest range for which fewer than 1% of the outputs
// saturate when the kernel narrows once (best placement, or one k block); when k is
// blocked, C_r carries int16 partial sums through DDR (seed 001 Fig. 4: C_r + srs(acc)), so
// the range is the widest for which no partial sum can leave int16 at all.
func (p *gemmPlan) verify(seed uint64) (shape, inputs string, err error) {
	vg := p.verifyShape()
	vp := *p
	vp.g = vg
	vp.kernels = map[int]*Kernel{}
	vp.mc = min(p.mc, roundUp(vg.M, gemmMR))
	if p.placement == PlacementBest {
		vp.mc = p.mc
	}
	shape = vg.String() + " dtype=int16"
	blocked := vp.kc < vg.K
	r := rng.New(seed)
	gen := func(n, bits int) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(r.Intn(1<<bits)) - int64(1)<<(bits-1)
		}
		return v
	}
	var a, b []int64
	var want ref.IntResult
	bits := 16
	if blocked {
		for bits = 15; bits > 1; bits-- {
			if int64(vg.K)<<(2*(bits-1)) < 1<<15 {
				break
			}
		}
	}
	for ; bits >= 1; bits-- {
		a, b = gen(vg.M*vg.K, bits), gen(vg.K*vg.N, bits)
		want, err = ref.GEMMInt(vg, p.t, a, b)
		if err != nil {
			return shape, "", err
		}
		if blocked || want.Saturated*100 < len(want.Out) {
			break
		}
	}
	inputs = fmt.Sprintf("int16 in [-%d, %d), %d of %d outputs saturate", 1<<(bits-1), 1<<(bits-1), want.Saturated, len(want.Out))
	if blocked {
		inputs += fmt.Sprintf("; k is blocked (kc = %d), so the range keeps every partial sum in int16", vp.kc)
	}
	got, err := vp.execute(a, b)
	if err != nil {
		return shape, inputs, err
	}
	for i := range got {
		if got[i] != want.Out[i] {
			return shape, inputs, fmt.Errorf("C[%d][%d] = %d, op/ref %d", i/vg.N, i%vg.N, got[i], want.Out[i])
		}
	}
	return shape, inputs, nil
}

// RunGEMM models spec on the machine.
func RunGEMM(m *Machine, spec *op.Spec, o GEMMOptions) (*Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if g := spec.GEMM; g != nil && spec.Types.A == op.Int8 {
		return runGEMM8(m, spec, o)
	}
	p, err := newGEMMPlan(m, spec, o)
	if err != nil {
		return nil, err
	}
	rep, ku, err := p.timeline(o.Trace)
	if err != nil {
		return nil, err
	}
	res := &Result{Op: "gemm", Spec: spec.String(), Placement: p.placement, Rates: p.rates, Kernels: ku,
		Blocking: map[string]int{"mr": gemmMR, "nr": gemmNR, "kc": p.kc, "mc": p.mc, "nc": p.nc}, Memory: p.memory, Notes: p.notes}
	res.finish(rep, p.g.MACs(), 32, m.AIEClockGHz)
	if !o.NoVerify {
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		shape, inputs, err := p.verify(seed)
		res.VerifiedOn, res.VerifyInputs = shape, inputs
		if err != nil {
			res.VerifyError = err.Error()
		} else {
			res.Verified = true
		}
	}
	return res, nil
}

// runGEMM8 is the int8 GEMM of seed 001's future work: C(m x n) = A(m x k) B(k x n) is the 1x1
// convolution whose pixels are the rows of A, input channels the k columns and output channels
// the n columns of B, so it runs in the convolution's best placement with the int8 build of
// sumac's 8-bit kernels (mac16 on int8, 128 MACs per cycle, bsrs to int8); its verification
// checks that convolution against op/ref.
func runGEMM8(m *Machine, spec *op.Spec, o GEMMOptions) (*Result, error) {
	g, t := spec.GEMM, spec.Types
	if g.TA || g.TB {
		return nil, errors.New("versal gemm: ta/tb are not supported")
	}
	if o.Placement == PlacementSeed || o.KC != 0 || o.MC != 0 {
		return nil, errors.New("versal gemm: int8 has no seed placement (seed 001 leaves it to future work); it runs in the best placement without --kc/--mc")
	}
	if t.B != op.Int8 || t.Out != op.Int8 || t.Acc != op.Acc48 || t.Shift != 0 {
		return nil, fmt.Errorf("versal gemm: types %s: the int8 kernels are int8 x int8 -> acc48 -> bsrs(acc, 0) -> int8", t)
	}
	cs, err := op.Parse(fmt.Sprintf("conv2d x=%d y=1 k=%d c=%d r=1 s=1 dtype=int8 round=%s sat=%s", g.M, g.N, g.K, t.Round, t.Sat))
	if err != nil {
		return nil, err
	}
	cr, err := RunConv(m, cs, ConvOptions{Placement: PlacementBest, Rates: o.Rates, Trace: o.Trace, NoVerify: o.NoVerify, Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	r := cr.Result
	r.Op, r.Spec = "gemm", spec.String()
	r.Notes = append([]string{"int8 as the 1x1 convolution " + cs.Conv.String() + " (rows of A = pixels, k = input channels, n = output channels); verified_shape is that convolution scaled down"}, r.Notes...)
	return &r, nil
}
