package versal

import (
	"errors"
	"fmt"
	"math"

	"github.com/sumacdev/sumac/op"
)

// Reductions of a K split over tiles.
const (
	ReduceNone    = "none"    // Y = 1: each tile reduces its whole K block
	ReduceCascade = "cascade" // a chain of Y horizontally adjacent tiles passes the accumulators on
	ReduceAdder   = "adder"   // Y tiles write partial sums; an adder tile sums them (a tree of adds)
)

// Scopes of a result.
const (
	ScopeArray  = "array"  // the array and its PLIOs, fed by the PL at PLIO rate (as the AIE simulator feeds PLIO files)
	ScopeSystem = "system" // and the PL buffers refilled from DDR through the NoC
)

// ArrayDesign maps a GEMM C(M x N) = A(M x K) B(K x N) onto the array. One iteration runs one
// kernel call on each of the X*Y*Z compute tiles: tile (i, k, j) multiplies the A block
// (i, k) (TM x TK) by the B block (k, j) (TK x TN); the Y tiles of an (i, j) group reduce their
// products (Reduce). An iteration covers an (X*TM) x (Y*TK) x (Z*TN) block of the GEMM; the
// iterations walk M, N and K (K innermost).
type ArrayDesign struct {
	Name   string     `json:"name"`
	Kernel KernelSpec `json:"kernel"`
	X      int        `json:"x"` // compute tiles along M
	Y      int        `json:"y"` // along K (the reduction over tiles)
	Z      int        `json:"z"` // along N
	Reduce string     `json:"reduce"`
	// ACast: tiles one A stream feeds (a divisor of Z: A(i, k) is broadcast to the tiles (i, k,
	// j) of ACast consecutive j); BCast likewise for B (a divisor of X).
	ACast int `json:"a_broadcast"`
	BCast int `json:"b_broadcast"`
	// PackIn: windows one input PLIO carries in turn by packet switching (1: circuit switched);
	// PackOut: outputs one output PLIO carries (packet merge).
	PackIn  int `json:"pack_in"`
	PackOut int `json:"pack_out"`
	// AStationary: A blocks stay in their tiles while the iterations walk N (needs Y*TK >= K):
	// A streams once per block row, B every iteration.
	AStationary bool `json:"a_stationary,omitempty"`
	// Stationary: with Y = 1 the partial sums stay in the tile across the K iterations (the
	// kernel starts from its own previous partial sum) and leave once, narrowed.
	Stationary bool `json:"output_stationary,omitempty"`
	In         PLIO `json:"plio_in"`
	Out        PLIO `json:"plio_out"`
	// Scope: ScopeArray or ScopeSystem; PLM, PLN, PLK: a PL buffer holds PLM x PLK iterations'
	// A blocks and PLK x PLN B blocks (double-buffered), and PLM x PLN output blocks; 0 = all.
	Scope string `json:"scope"`
	PLM   int    `json:"pl_m,omitempty"`
	PLN   int    `json:"pl_n,omitempty"`
	PLK   int    `json:"pl_k,omitempty"`
	// PLCBuffers: output blocks the PL holds (2: the next block fills while the last goes back
	// to DDR; 1: a bigger block, its write-back stalls the next one's outputs). 0 = 2.
	PLCBuffers int `json:"pl_c_buffers,omitempty"`
}

// ComputeTiles is X*Y*Z; Tiles adds the adder tiles.
func (d *ArrayDesign) ComputeTiles() int { return d.X * d.Y * d.Z }
func (d *ArrayDesign) Tiles() int {
	n := d.ComputeTiles()
	if d.Reduce == ReduceAdder {
		n += d.X * d.Z
	}
	return n
}

func (d *ArrayDesign) String() string {
	s := fmt.Sprintf("%s: %d x %d x %d tiles of %s, reduce %s, A to %d tiles, B to %d, %d windows per input stream, %d outputs per output stream, in by %s, out by %s",
		d.Name, d.X, d.Y, d.Z, d.Kernel, d.Reduce, d.ACast, d.BCast, d.PackIn, d.PackOut, d.In, d.Out)
	if d.AStationary {
		s += ", A stationary"
	}
	if d.Stationary {
		s += ", output stationary"
	}
	return s
}

// Util is one resource's use: busy cycles per iteration against the period (rates), or a count
// against what the device has (capacities).
type Util struct {
	Resource    string  `json:"resource"`
	Count       int     `json:"count"`               // instances the design uses
	Available   int     `json:"available,omitempty"` // instances the device has (capacities)
	BusyCycles  float64 `json:"busy_cycles_per_iteration,omitempty"`
	Utilization float64 `json:"utilization"` // busiest instance: busy / period, or count / available
	Kind        string  `json:"kind"`        // "rate" or "capacity"
	Note        string  `json:"note,omitempty"`
}

// ArrayResult is a design's performance on one GEMM.
type ArrayResult struct {
	Design       *ArrayDesign `json:"design"`
	Spec         string       `json:"spec"`
	Scope        string       `json:"scope"`
	Tiles        int          `json:"tiles"`
	ComputeTiles int          `json:"compute_tiles"`
	Iterations   int64        `json:"iterations"`
	Simulated    int          `json:"iterations_simulated"`
	Cycles       int64        `json:"cycles"`
	PeriodCycles float64      `json:"period_cycles"` // steady state, per iteration
	BoundCycles  float64      `json:"bound_cycles"`  // the busiest resource's cycles per iteration
	MACs         int64        `json:"macs"`
	ExecutedMACs int64        `json:"executed_macs"` // padding included
	ClockGHz     float64      `json:"clock_ghz"`
	TOPS         float64      `json:"tops"`
	// SteadyTOPS: the steady state, every call's MACs counted (2 x tiles x MACs per call /
	// period), as MaxEVA's performance_calc.py measures from the output TLAST times
	SteadyTOPS   float64          `json:"steady_tops"`
	PctPeak      float64          `json:"pct_peak"` // of the whole array's peak at this clock
	MACsPerCycle float64          `json:"macs_per_cycle_per_tile"`
	Limit        string           `json:"limit"`
	Utilization  []Util           `json:"utilization"`
	PLIOIn       int              `json:"plio_in"`
	PLIOOut      int              `json:"plio_out"`
	KernelCycles map[string]int64 `json:"kernel_cycles"`
	AdderCycles  int64            `json:"adder_cycles,omitempty"`
	SharedPct    float64          `json:"adder_inputs_in_place_pct,omitempty"`
	TileBytes    int              `json:"tile_memory_bytes"` // the fullest tile
	PLBytes      int64            `json:"pl_buffer_bytes,omitempty"`
	DDRBytes     int64            `json:"ddr_bytes,omitempty"`
	Verified     bool             `json:"verified"`
	VerifiedOn   string           `json:"verified_shape,omitempty"`
	VerifyInputs string           `json:"verified_inputs,omitempty"`
	VerifyError  string           `json:"verify_error,omitempty"`
	Notes        []string         `json:"notes,omitempty"`
	ddrPeriodLB  float64
	placement    *Placement
	kernel       *TileKernel
	adder        *Kernel
}

// arrayPlan is a design resolved for one GEMM: kernels, placement, blocks, streams.
type arrayPlan struct {
	a             *Array
	d             *ArrayDesign
	g             *op.GEMM
	t             op.Types
	k             *TileKernel
	adder         *Kernel
	place         *Placement
	mB, nB, kB    int // iteration blocks along M, N, K
	plM, plN, plK int
	aStreams      []logicalStream
	bStreams      []logicalStream
	nIn, nOut     int
	int32Out      bool    // the 8-bit kernels' int32 partial sums are the output (out=int32)
	kScale        float64 // sensitivity: the compute kernels' cycles x kScale (0: 1)
	aScale        float64 // and the adds' x aScale
	inPLIO        [][]int // physical input PLIO -> logical streams (index into all = a then b)
	outPLIO       [][]int // physical output PLIO -> groups
	tileBytes     int
	plBytes       int64
}

// logicalStream is one window per iteration broadcast to a set of tiles.
type logicalStream struct {
	isA   bool
	dests []int // compute tile indices
	bytes int
}

// tile index of (i, k, j): groups (i, j) in row-major order, k = the position in the group
func (d *ArrayDesign) tile(i, k, j int) int { return (i*d.Z+j)*d.Y + k }

func (d *ArrayDesign) validate() error {
	d.Kernel = d.Kernel.Normalized()
	if d.X < 1 || d.Y < 1 || d.Z < 1 {
		return fmt.Errorf("design %s: X, Y, Z must be >= 1", d.Name)
	}
	switch d.Reduce {
	case ReduceNone:
		if d.Y != 1 {
			return fmt.Errorf("design %s: reduce none needs Y = 1", d.Name)
		}
	case ReduceCascade, ReduceAdder:
		if d.Y < 2 {
			return fmt.Errorf("design %s: reduce %s needs Y >= 2", d.Name, d.Reduce)
		}
	default:
		return fmt.Errorf("design %s: reduce %q (want none, cascade or adder)", d.Name, d.Reduce)
	}
	if d.ACast < 1 || d.Z%d.ACast != 0 || d.BCast < 1 || d.X%d.BCast != 0 {
		return fmt.Errorf("design %s: A broadcast %d must divide Z = %d and B broadcast %d divide X = %d", d.Name, d.ACast, d.Z, d.BCast, d.X)
	}
	if d.PackIn < 1 || d.PackOut < 1 {
		return fmt.Errorf("design %s: pack factors must be >= 1", d.Name)
	}
	if !d.In.GMIO && (d.In.Bits <= 0 || d.In.MHz <= 0) || !d.Out.GMIO && (d.Out.Bits <= 0 || d.Out.MHz <= 0) {
		return fmt.Errorf("design %s: PLIO widths and clocks must be positive", d.Name)
	}
	if d.Stationary && d.Y != 1 {
		return fmt.Errorf("design %s: output stationary needs Y = 1", d.Name)
	}
	if d.Scope != ScopeArray && d.Scope != ScopeSystem {
		return fmt.Errorf("design %s: scope %q (want array or system)", d.Name, d.Scope)
	}
	return nil
}

func newArrayPlan(a *Array, d *ArrayDesign, spec *op.Spec) (*arrayPlan, error) {
	p, err := shapePlan(a, d, spec)
	if err != nil {
		return nil, err
	}
	return p.build()
}

// shapePlan checks a design against the GEMM and the device by counting (kernels, capacities,
// memories); build then places it and lists its streams.
func shapePlan(a *Array, d *ArrayDesign, spec *op.Spec) (*arrayPlan, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	if spec.GEMM == nil {
		return nil, fmt.Errorf("versal array: %q is not a gemm", spec.String())
	}
	g := spec.GEMM
	if g.TA || g.TB {
		return nil, errors.New("versal array: ta/tb are not supported")
	}
	k, err := LoadTileKernel(d.Kernel)
	if err != nil {
		return nil, err
	}
	if err := checkKernelTypes(k, spec.Types, d); err != nil {
		return nil, err
	}
	p := &arrayPlan{a: a, d: d, g: g, t: spec.Types, k: k}
	p.int32Out = ks0(k) == "mm8" && spec.Types.Out == op.Int32
	ks := k.Spec
	p.mB, p.nB, p.kB = ceilDiv(g.M, d.X*ks.TM), ceilDiv(g.N, d.Z*ks.TN), ceilDiv(g.K, d.Y*ks.TK)
	if d.AStationary && p.kB != 1 {
		return nil, fmt.Errorf("design %s: A stationary needs the whole K (%d) in one iteration (Y*TK = %d)", d.Name, g.K, d.Y*ks.TK)
	}
	if d.Y > 1 && !k.HasPartials() && d.Reduce == ReduceCascade {
		return nil, fmt.Errorf("design %s: kernel %s passes no partial sums (no cascade variants)", d.Name, ks)
	}
	if p.kB > 1 && !d.Stationary && k.PartBytes == 0 {
		return nil, fmt.Errorf("design %s: K = %d needs %d iterations along K and kernel %s has no partial sums for the PL to add; give Y*TK >= K", d.Name, g.K, p.kB, ks)
	}
	if d.Stationary && k.Variants[Mid] == nil {
		return nil, fmt.Errorf("design %s: output stationary needs a kernel with partial-sum variants", d.Name)
	}
	if k.NarrowsPartials && (d.Y > 1 || p.kB > 1 && !d.Stationary) {
		return nil, fmt.Errorf("design %s: kernel %s narrows its partial sums to %s; it keeps K in one tile (Y = 1, output stationary across K iterations)", d.Name, ks, ks.DType)
	}
	if d.Reduce == ReduceAdder {
		dt := "int32"
		if ks.DType == "fp32" {
			dt = "fp32"
		}
		if p.adder, err = adderKernel(dt, ks.TM*ks.TN); err != nil {
			return nil, err
		}
	}
	// interface capacity (counted; the streams are built by build)
	nA := d.X * d.Y * (d.Z / d.ACast)
	nB := d.Z * d.Y * (d.X / d.BCast)
	p.nIn = ceilDiv(nA, d.PackIn) + ceilDiv(nB, d.PackIn)
	p.nOut = ceilDiv(d.X*d.Z, d.PackOut)
	inCap, _ := a.PLIOCapacity(d.In)
	_, outCap := a.PLIOCapacity(d.Out)
	if p.nIn > inCap {
		return nil, fmt.Errorf("design %s: %d input PLIOs of %d bits; the interface has %d", d.Name, p.nIn, d.In.Bits, inCap)
	}
	if p.nOut > outCap {
		return nil, fmt.Errorf("design %s: %d output PLIOs of %d bits; the interface has %d", d.Name, p.nOut, d.Out.Bits, outCap)
	}
	if d.Tiles() > a.NumCores() {
		return nil, fmt.Errorf("design %s: %d tiles; the array has %d", d.Name, d.Tiles(), a.NumCores())
	}
	if d.Reduce == ReduceCascade {
		if per := a.Dev.Columns() / d.Y; d.X*d.Z > a.CoreRows()*per {
			return nil, fmt.Errorf("design %s: %d cascade chains of %d tiles: the array has room for %d", d.Name, d.X*d.Z, d.Y, a.CoreRows()*per)
		}
	}
	// tile memory: A and B windows ping-pong, the output (or partial) ping-pong, a stationary
	// partial sum, resident extras; cascade partials travel in the cascade, not in memory
	outB := k.OutBytes
	if k.PartBytes > 0 && (p.kB > 1 || d.Reduce != ReduceNone) {
		outB = max(outB, k.PartBytes)
	}
	mem := 2*k.ABytes + 2*k.BBytes + 2*outB
	if d.Stationary {
		mem += k.PartBytes
	}
	p.tileBytes = mem
	if d.Reduce == ReduceAdder {
		// the adder keeps the intermediate sums and its output ping-pong
		p.tileBytes = max(p.tileBytes, 2*(d.Y-1)*k.PartBytes)
	}
	if mem > a.UsableBytes() {
		return nil, fmt.Errorf("design %s: a tile needs %d bytes (A, B, output ping-pong) of the %d available", d.Name, mem, a.UsableBytes())
	}
	// PL blocks
	p.plM, p.plN, p.plK = d.PLM, d.PLN, d.PLK
	if d.Scope == ScopeArray || p.plM == 0 {
		p.plM = p.mB
	}
	if d.Scope == ScopeArray || p.plN == 0 {
		p.plN = p.nB
	}
	if d.Scope == ScopeArray || p.plK == 0 {
		p.plK = p.kB
	}
	p.plM, p.plN, p.plK = min(p.plM, p.mB), min(p.plN, p.nB), min(p.plK, p.kB)
	if d.Scope == ScopeSystem {
		eb := elemBytes(ks.DType)
		accB := int64(4)
		if ks.DType == "int16" && p.kB == 1 {
			accB = 2
		}
		am, ak, an := int64(p.plM*d.X*ks.TM), int64(p.plK*d.Y*ks.TK), int64(p.plN*d.Z*ks.TN)
		cb := int64(d.PLCBuffers)
		if cb == 0 {
			cb = 2
		}
		p.plBytes = 2*(am*ak+ak*an)*eb + cb*am*an*accB
		if p.plBytes > a.M.PLRAMBytes {
			return nil, fmt.Errorf("design %s: PL buffers need %d bytes (A and B blocks and the output block, double-buffered); the PL has %d", d.Name, p.plBytes, a.M.PLRAMBytes)
		}
	}
	return p, nil
}

// build places the design and lists its streams.
func (p *arrayPlan) build() (*arrayPlan, error) {
	a, d, k := p.a, p.d, p.k
	var err error
	// placement
	groups := d.X * d.Z
	switch d.Reduce {
	case ReduceNone:
		p.place, err = a.PlaceSingles(groups)
	case ReduceCascade:
		p.place, err = a.PlaceChains(groups, d.Y)
	case ReduceAdder:
		p.place, err = a.PlaceAdderGroups(groups, d.Y)
	}
	if err != nil {
		return nil, fmt.Errorf("design %s: %v", d.Name, err)
	}
	// streams: A (i, k) to ACast consecutive j; B (k, j) to BCast consecutive i
	for i := 0; i < d.X; i++ {
		for jg := 0; jg < d.Z/d.ACast; jg++ {
			for kk := 0; kk < d.Y; kk++ {
				s := logicalStream{isA: true, bytes: k.ABytes}
				for j := jg * d.ACast; j < (jg+1)*d.ACast; j++ {
					s.dests = append(s.dests, d.tile(i, kk, j))
				}
				p.aStreams = append(p.aStreams, s)
			}
		}
	}
	for j := 0; j < d.Z; j++ {
		for ig := 0; ig < d.X/d.BCast; ig++ {
			for kk := 0; kk < d.Y; kk++ {
				s := logicalStream{bytes: k.BBytes}
				for i := ig * d.BCast; i < (ig+1)*d.BCast; i++ {
					s.dests = append(s.dests, d.tile(i, kk, j))
				}
				p.bStreams = append(p.bStreams, s)
			}
		}
	}
	na := len(p.aStreams)
	for s := 0; s < na; s += d.PackIn {
		var ph []int
		for t := s; t < min(s+d.PackIn, na); t++ {
			ph = append(ph, t)
		}
		p.inPLIO = append(p.inPLIO, ph)
	}
	for s := 0; s < len(p.bStreams); s += d.PackIn {
		var ph []int
		for t := s; t < min(s+d.PackIn, len(p.bStreams)); t++ {
			ph = append(ph, na+t)
		}
		p.inPLIO = append(p.inPLIO, ph)
	}
	for gi := 0; gi < groups; gi += d.PackOut {
		var ph []int
		for t := gi; t < min(gi+d.PackOut, groups); t++ {
			ph = append(ph, t)
		}
		p.outPLIO = append(p.outPLIO, ph)
	}
	return p, nil
}

func elemBytes(dtype string) int64 {
	switch dtype {
	case "fp32":
		return 4
	case "int16":
		return 2
	}
	return 1
}

func checkKernelTypes(k *TileKernel, t op.Types, d *ArrayDesign) error {
	want := map[string]op.DType{"int8": op.Int8, "uint8": op.UInt8, "int16": op.Int16, "fp32": op.FP32}[k.Spec.DType]
	if t.A != want || t.B != want {
		return fmt.Errorf("design %s: kernel %s takes %s operands, the spec %s", d.Name, k.Spec, k.Spec.DType, t)
	}
	switch k.Spec.DType {
	case "fp32":
		if t.Acc != op.AccF32 || t.Out != op.FP32 {
			return fmt.Errorf("design %s: the fp32 kernel accumulates in fp32 and writes fp32, the spec %s", d.Name, t)
		}
	default:
		if t.Acc != op.Acc48 || t.Shift != 0 {
			return fmt.Errorf("design %s: the integer kernels accumulate in acc48 with shift 0, the spec %s", d.Name, t)
		}
		if k.Spec.Family == "i8mmul" && t.Out != op.Int32 {
			return fmt.Errorf("design %s: MaxEVA's int8 kernel writes int32 (out=int32), the spec %s", d.Name, t)
		}
		if k.Spec.Family != "i8mmul" && t.Out != want && t.Out != op.Int32 {
			return fmt.Errorf("design %s: output %v: the %s kernels narrow to %s (or leave int32 partial sums)", d.Name, t.Out, k.Spec.Family, k.Spec.DType)
		}
	}
	return nil
}

// iteration is one iteration's place in the walk.
type iteration struct {
	mb, nb, kb  int
	plBlock     int  // PL block index (loads)
	plFirst     bool // the first iteration of its PL block
	aNew        bool // A windows stream in this iteration
	out         bool // outputs leave the array in this iteration
	final       bool // the outputs are final (narrowed), not partial sums
	firstK      bool // the first K iteration of a stationary run
	lastInBlock bool
	cFirst      bool // the first iteration of a new output block in the PL
}

// walk lists the iterations: PL blocks (mB, nB, kB) outermost, then (mb, nb, kb) inside.
func (p *arrayPlan) walk(limit int, visit func(n int, it iteration) bool) {
	n := 0
	block := 0
	for m0 := 0; m0 < p.mB; m0 += p.plM {
		for n0 := 0; n0 < p.nB; n0 += p.plN {
			for k0 := 0; k0 < p.kB; k0 += p.plK {
				first := true
				ms, ns, kn := min(p.plM, p.mB-m0), min(p.plN, p.nB-n0), min(p.plK, p.kB-k0)
				for mb := m0; mb < m0+ms; mb++ {
					for nb := n0; nb < n0+ns; nb++ {
						for kb := k0; kb < k0+kn; kb++ {
							it := iteration{mb: mb, nb: nb, kb: kb, plBlock: block, plFirst: first, cFirst: first && k0 == 0}
							first = false
							it.aNew = !p.d.AStationary || nb == n0
							lastK := kb == k0+kn-1
							it.firstK = kb == k0
							if p.d.Stationary {
								it.out = lastK
								it.final = lastK && kn == p.kB
							} else {
								it.out = true
								it.final = p.kB == 1
							}
							it.lastInBlock = mb == m0+ms-1 && nb == n0+ns-1 && lastK
							if limit > 0 && n >= limit || !visit(n, it) {
								return
							}
							n++
						}
					}
				}
				block++
			}
		}
	}
}

func ks0(k *TileKernel) string { return k.Spec.Family }

// variant is the call a tile makes in an iteration; with int32 outputs (8-bit kernels, out=int32)
// the narrowing variants give way to the ones that leave int32 partial sums.
func (p *arrayPlan) variant(pos int, it iteration) Variant {
	v := p.variant1(pos, it)
	if p.int32Out {
		switch v {
		case Solo:
			v = First
		case Last:
			v = Mid
		}
	}
	return v
}

func (p *arrayPlan) variant1(pos int, it iteration) Variant {
	d := p.d
	switch d.Reduce {
	case ReduceNone:
		if d.Stationary {
			switch {
			case it.firstK && it.final:
				return Solo
			case it.firstK:
				return First
			case it.final:
				return Last
			}
			return Mid
		}
		if it.final {
			return Solo
		}
		return First
	case ReduceCascade:
		switch {
		case pos == 0:
			return First
		case pos < d.Y-1:
			return Mid
		case it.final:
			return Last
		}
		return Mid
	}
	return First // adder tree: every tile writes a partial sum
}

// outBytes is the bytes one group's output carries.
func (p *arrayPlan) outBytes(it iteration) int {
	if p.d.Reduce == ReduceAdder || !it.final || p.int32Out {
		return p.k.PartBytes
	}
	return p.k.OutBytes
}

// ArrayOptions controls an evaluation.
type ArrayOptions struct {
	// Window: iterations simulated (0: enough to repeat the walk's pattern several times);
	// the rest repeat the measured steady period.
	Window   int
	NoVerify bool
	Seed     uint64
	// KernelScale, AdderScale multiply the cycle simulator's cycles of the compute and adder
	// calls (0: 1): what-if settings for sensitivity studies, not calibration.
	KernelScale, AdderScale float64
}

// pattern is the number of iterations after which the walk repeats its kinds of iterations.
func (p *arrayPlan) pattern() int {
	if p.d.Scope == ScopeSystem {
		return p.plM * p.plN * p.kB
	}
	switch {
	case p.d.AStationary:
		return p.nB
	case p.d.Stationary:
		return p.kB
	}
	return 1
}

func (p *arrayPlan) iterations() int64 { return int64(p.mB) * int64(p.nB) * int64(p.kB) }

// EvaluateDesign models the design on the GEMM spec.
func EvaluateDesign(m *Machine, d *ArrayDesign, spec *op.Spec, o ArrayOptions) (*ArrayResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	a := NewArray(m)
	p, err := newArrayPlan(a, d, spec)
	if err != nil {
		return nil, err
	}
	p.kScale, p.aScale = o.KernelScale, o.AdderScale
	r := p.evaluate(o.Window)
	r.Spec = spec.String()
	if !o.NoVerify {
		seed := o.Seed
		if seed == 0 {
			seed = 1
		}
		shape, inputs, err := p.verify(seed)
		r.VerifiedOn, r.VerifyInputs = shape, inputs
		if err != nil {
			r.VerifyError = err.Error()
		} else {
			r.Verified = true
		}
	}
	return r, nil
}

func (p *arrayPlan) evaluate(window int) *ArrayResult {
	a, d, k := p.a, p.d, p.k
	iters := p.iterations()
	pat := p.pattern()
	w := window
	if w <= 0 {
		w = max(32, 4*pat)
		w = min(w, 20000)
	}
	w = int(min(int64(w), iters))
	st := p.simulate(w)
	last := st.iterEnd[len(st.iterEnd)-1]
	period := last / float64(w)
	if w >= 4 {
		// the steady period: the second half of the window, a whole number of patterns
		l := w / 2
		if pat > 1 && l >= pat {
			l = l / pat * pat
		}
		period = (last - st.iterEnd[w-1-l]) / float64(l)
	}
	cycles := last + float64(iters-int64(w))*period
	r := &ArrayResult{Design: d, Scope: d.Scope, Tiles: d.Tiles(), ComputeTiles: d.ComputeTiles(), Iterations: iters,
		Simulated: w, PeriodCycles: round1(period), ClockGHz: a.M.AIEClockGHz, placement: p.place, kernel: k, adder: p.adder,
		PLIOIn: len(p.inPLIO), PLIOOut: len(p.outPLIO), TileBytes: p.tileBytes, PLBytes: p.plBytes}
	r.Cycles = int64(math.Ceil(cycles))
	r.MACs = p.g.MACs()
	r.ExecutedMACs = iters * int64(d.ComputeTiles()) * k.MACs
	if cycles > 0 {
		r.TOPS = math.Round(2*float64(r.MACs)/cycles*a.M.AIEClockGHz/1e3*1000) / 1000
		r.MACsPerCycle = math.Round(float64(r.MACs)/cycles/float64(a.NumCores())*100) / 100
		r.PctPeak = pct(float64(r.MACs) / cycles / float64(a.NumCores()*k.Peak))
	}
	if period > 0 {
		r.SteadyTOPS = math.Round(2*float64(d.ComputeTiles())*float64(k.MACs)/period*a.M.AIEClockGHz/1e3*1000) / 1000
	}
	r.KernelCycles = map[string]int64{}
	for v := Variant(0); v < numVariants; v++ {
		if k.Variants[v] != nil {
			r.KernelCycles[v.String()] = k.Variants[v].Cycles
		}
	}
	if p.adder != nil {
		r.AdderCycles = p.adder.Cycles
		r.SharedPct = pct(p.place.SharedFraction())
	}
	if d.Scope == ScopeSystem {
		r.DDRBytes = int64(float64(st.ddrBytes) / float64(w) * float64(iters))
	}
	// utilization: busy cycles per iteration of the busiest instance against the period
	fw := float64(w)
	var us []Util
	rate := func(name string, count int, busyMax float64, note string) {
		if count == 0 {
			return
		}
		us = append(us, Util{Resource: name, Count: count, Kind: "rate", BusyCycles: round1(busyMax / fw), Utilization: math.Round(busyMax/fw/period*1000) / 1000, Note: note})
	}
	var coreMax, s2mmMax float64
	for _, t := range st.tiles {
		coreMax = math.Max(coreMax, t.core.busy)
		s2mmMax = math.Max(s2mmMax, t.s2mm/2) // two S2MM channels per tile (A and B)
	}
	rate("core", d.ComputeTiles(), coreMax, fmt.Sprintf("kernel %s", k.Describe()))
	var adMax float64
	for _, ad := range st.adders {
		adMax = math.Max(adMax, ad.core.busy)
	}
	if p.adder != nil {
		rate("adder core", len(st.adders), adMax, fmt.Sprintf("%d adds of %d cycles per iteration", d.Y-1, p.adder.Cycles))
	}
	var inMax, outMax float64
	for _, x := range st.in {
		inMax = math.Max(inMax, x.busy)
	}
	for _, x := range st.out {
		outMax = math.Max(outMax, x.busy)
	}
	rate("plio in", len(st.in), inMax, fmt.Sprintf("%s: %.2f bytes per cycle", d.In, a.Rate(d.In)))
	rate("plio out", len(st.out), outMax, fmt.Sprintf("%s: %.2f bytes per cycle", d.Out, a.Rate(d.Out)))
	rate("tile dma s2mm", d.ComputeTiles(), s2mmMax, "per channel (A and B on one channel each)")
	if st.cascade > 0 {
		rate("cascade", d.X*d.Z*(d.Y-1), st.cascade*fw, fmt.Sprintf("%d bits per cycle", a.Dev.CascadeBits()))
	}
	if st.dma > 0 {
		rate("tile dma (adder inputs)", d.X*d.Z, st.dma, "partial sums to an adder that shares no module")
	}
	if d.Scope == ScopeSystem || d.In.GMIO || d.Out.GMIO {
		rate("ddr", 1, st.ddr.busy, fmt.Sprintf("%.1f GB/s", a.M.DDRGBps))
	}
	capacity := func(name string, count, avail int, note string) {
		us = append(us, Util{Resource: name, Count: count, Available: avail, Kind: "capacity", Utilization: math.Round(float64(count)/float64(avail)*1000) / 1000, Note: note})
	}
	inCap, _ := a.PLIOCapacity(d.In)
	_, outCap := a.PLIOCapacity(d.Out)
	capacity("tiles", d.Tiles(), a.NumCores(), "")
	capacity("plio in ports", len(p.inPLIO), inCap, "PL tiles' 64-bit channels and the columns' up streams")
	capacity("plio out ports", len(p.outPLIO), outCap, "PL tiles' 64-bit channels and the columns' down streams")
	capacity("tile memory", p.tileBytes, a.UsableBytes(), "the fullest tile, bytes")
	if d.Scope == ScopeSystem {
		capacity("pl buffers", int(p.plBytes), int(a.M.PLRAMBytes), "bytes")
	}
	r.Utilization = us
	// the limit: the busiest rate resource
	best := -1.0
	for _, u := range us {
		if u.Kind == "rate" && u.Utilization > best {
			best, r.Limit = u.Utilization, u.Resource
		}
	}
	r.BoundCycles = round1(best * period)
	return r
}
