package backend

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Selection: kernel IR instructions become machine operations on virtual registers (one per
// kernel variable, mutable like the variable), grouped in regions (straight-line code and
// loops). Register allocation (regalloc.go) then maps virtual to physical registers and adds
// spill code; codegen.go schedules and packs bundles.

// vreg is a virtual register: a kernel variable or a temporary of the backend.
type vreg struct {
	name string
	file File
	bits int
	v    *kernel.Var
	// needX / needZ: used as a MAC X buffer (must sit in ya or yd) or Z buffer (wc0/wc1)
	// (VMAC's VEC1024:$pmx and VECFWC:$ipm operands in AIE1InstrInfo.td).
	needX, needZ bool
	// avoidZ: a floating-point accumulator, which takes wc0/wc1 (the only Z buffers) only
	// when no other register is free (backend/adf.go)
	avoidZ bool
	// undefRest: the variable's contents outside the parts its updates write are undefined
	// and never read (undef.go), so a part update starts its value.
	undefRest bool
	// undefOnly: set only by undef_* and read only where that does not matter (undef.go
	// undefSources): its reads do not make it live around a loop.
	undefOnly bool
	// fixed: a register the convention fixes (argument registers).
	fixed *Reg
	phys  Reg
	// spill slot (stack offset) once spilled; -1 otherwise.
	slot int
	// noSpill: temporaries made by spilling must not be spilled again.
	noSpill bool
}

func (r *vreg) String() string { return r.name }

type vopnd struct {
	r    *vreg
	kind aie1.OperandKind
	// part/partBytes: a write to only part of r (byte offset and size); partBytes 0 = all.
	part, partBytes int
	// ptrUpdate: this def is the post-modify pointer write (itinerary PtrDef cycle).
	ptrUpdate bool
}

type vmem struct {
	store           bool
	ptr             *vreg
	offset, postInc int
	bytes           int
	space           string
	spillOf         *vreg
}

// vop is a machine operation on virtual registers.
type vop struct {
	name  string
	alts  []uint16
	itin  *aie1.Itin
	defs  []vopnd
	uses  []vopnd
	mem   *vmem
	lock  *LockOp
	src   *kernel.Instr
	part  int
	macs  int
	spill bool
	imm   int64
	// control: jal/ret/loop-setup roles for the scheduler.
	role opRole
	// wrap names the window whose position this op moves (ADF windows are circular).
	wrap string
	// stream names the stream this op reads or writes (its ops keep their order, adf.go).
	stream string
}

type opRole uint8

const (
	roleNone opRole = iota
	roleCall
	roleRet
	roleKernelEntry // first kernel op marker (no code)
)

// region is straight-line code or a loop.
type region struct {
	ops  []*vop
	loop *loopRegion
	// barrier: nothing is scheduled across the start of this region (a separator or a read
	// of the cycle counter, adf.go)
	barrier bool
}

type loopRegion struct {
	src       *kernel.Loop
	trip      int
	minTrip   int
	pipelined bool
	body      []*region
	counter   *vreg // materialized loop counter (nil if only addresses use it)
	// pre: set-up code the loop needs before its first iteration (induction pointers,
	// counter initialization).
	pre []*vop
}

var (
	ldAlts  = []uint16{SlotMask(aie1.SlotLDA), SlotMask(aie1.SlotLDB)}
	ldaOnly = []uint16{SlotMask(aie1.SlotLDA)}
	stAlts  = []uint16{SlotMask(aie1.SlotST)}
	vecAlts = []uint16{SlotMask(aie1.SlotVEC)}
	mvAlts  = []uint16{SlotMask(aie1.SlotMV0)}
	aluAlts = []uint16{SlotMask(aie1.SlotALU)}
	lngAlts = []uint16{SlotMask(aie1.SlotLNG)}
	// accumulator spill stores are long-format (LNG slot) instructions that also use the
	// store unit (AIE_dmw_sts_spil_mStoreAcc_AM in AIEInstrFormats.td, II_VST_SPIL).
	spillStAlts = []uint16{SlotMask(aie1.SlotLNG) | SlotMask(aie1.SlotST)}
	paddAlts    = []uint16{SlotMask(aie1.SlotLDA), SlotMask(aie1.SlotLDB)}
)

// lowering state
type lowerer struct {
	k      *kernel.Kernel
	vregs  map[*kernel.Var]*vreg
	all    []*vreg
	consts map[*kernel.Var]int64 // scalar variables holding one compile-time constant
	undef  map[*kernel.Var]bool  // vectors whose undefined parts nothing reads (undef.go)
	// undefSrc: undef_* values read only where their contents do not matter (undef.go)
	undefSrc map[*kernel.Var]bool
	// stsrs maps a store to the narrowing it stores (stsrs.go): one vst.srs for both
	stsrs   map[*kernel.Instr]*kernel.Instr
	stsrsOf map[*kernel.Instr]bool // the narrowings fused into their store
	// zeroUndef: undef_* is a vzero (Options.zeroUndef)
	zeroUndef bool
	// window position pointers and buffer pointers
	winPtr  map[*kernel.Var]*vreg
	cfg     map[[6]int64]*vreg
	cfgList []*vreg
	cfgVals [][6]int64
	nTemp   int
	curLoop *loopRegion
	// indOf: the induction-pointer group of each affine load/store of the current loop.
	indOf map[*kernel.Instr]*indGroup
	// counterUsed: the current loop's counter is read by code that remains.
	counterUsed bool
	// order is how loop bodies are ordered before allocation (orderCluster, orderProgram,
	// orderGroup); reordered records that clusterMACs changed some body (Compile then also
	// tries program order), grouped that groupAccs did.
	order              string
	reordered, grouped bool
	unroll             int  // the innermost loops are unrolled this many times (groupAccs' rounds)
	groupUnits         int  // accumulator units per group (groupAccs)
	noPostModify       bool // Options.noPostModify
	nPostMod           int  // pointer additions folded and loop bodies whose chains were split (postmod.go)
	// undefOnly: the temporaries only undef_* defines (undefinedTemp)
	undefOnly map[*kernel.Var]bool
	// outerCounters: the enclosing loops' counters, marked when a nested loop reads them
	outerCounters []*counterUse
	// params: per window and pointer parameter, its register.
	// modes: the kernel sets the rounding or saturation mode (its srs-family ops then keep
	// their order with the mode writes, modeChain)
	modes bool
}

// modeChain orders the writes of the mode control register and the srs-family ops that
// read it, as the ops of one stream are ordered (streamEdges): the rounding and saturation
// modes are core state that every later shift-round-saturate uses (UG1079 "Rounding and
// Saturation Modes").
const modeChain = "<srs mode>"

// setsModes reports whether kernel k calls set_rnd, set_sat or clr_sat.
func setsModes(k *kernel.Kernel) bool {
	found := false
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		if in, ok := s.(*kernel.Instr); ok && (in.Op == kernel.OpSetRnd || in.Op == kernel.OpSetSat) {
			found = true
		}
	})
	return found
}

func (l *lowerer) newReg(name string, f File, bits int) *vreg {
	r := &vreg{name: name, file: f, bits: bits, slot: -1}
	l.all = append(l.all, r)
	return r
}

func fileOf(t kernel.Type) (File, int, error) {
	switch t.Class {
	case kernel.Vector:
		return FileVec, t.Bits(), nil
	case kernel.Accum:
		return FileAcc, t.Bits(), nil
	case kernel.Scalar:
		return FileScalar, 32, nil
	case kernel.Pointer, kernel.Window:
		return FilePtr, 20, nil
	}
	return 0, 0, fmt.Errorf("type %v has no register file", t)
}

func (l *lowerer) reg(v *kernel.Var) (*vreg, error) {
	if r, ok := l.vregs[v]; ok {
		return r, nil
	}
	f, bits, err := fileOf(v.Type)
	if err != nil {
		return nil, fmt.Errorf("variable %s: %v", v.Name, err)
	}
	r := l.newReg(v.Name, f, bits)
	r.v = v
	r.undefRest = l.undef[v]
	r.undefOnly = l.undefSrc[v]
	r.avoidZ = r.undefOnly // its contents do not matter: leave the two Z buffers to MAC operands
	l.vregs[v] = r
	return r, nil
}

// findConsts marks scalar variables assigned exactly once, from an integer immediate, outside
// any loop: they are compile-time constants (MAC parameters become configuration values).
func findConsts(k *kernel.Kernel) map[*kernel.Var]int64 {
	assigns := map[*kernel.Var]int{}
	val := map[*kernel.Var]int64{}
	topImm := map[*kernel.Var]bool{}
	kernel.Walk(k.Body, func(s kernel.Stmt, depth int) {
		switch s := s.(type) {
		case *kernel.Instr:
			if s.Dst != nil {
				assigns[s.Dst]++
				if s.Op == kernel.OpMov && depth == 0 && s.Dst.Type.IsIntScalar() && len(s.Args) == 1 && s.Args[0].IsIntImm() {
					topImm[s.Dst] = true
					val[s.Dst], _ = movImm(s.Args[0], s.Dst.Type)
				}
			}
		case *kernel.Loop:
			if s.Var != nil {
				assigns[s.Var] += 2
			}
		}
	})
	out := map[*kernel.Var]int64{}
	for v, n := range assigns {
		if n == 1 && topImm[v] && !v.Param {
			out[v] = val[v]
		}
	}
	return out
}

// movImm is what a move of the immediate o into a scalar of type t leaves in the register: C's
// conversion of the constant to t on assignment, as the interpreter's move does (an int
// constant into a float is the float's IEEE bits, a float into an integer truncates, an
// integer into a narrower one wraps). ok is false when o is not an immediate. Only integers
// narrower than 32 bits wrap: a 32-bit constant keeps its value (0xfedcba98 as a MAC offset).
func movImm(o kernel.Operand, t kernel.Type) (int64, bool) {
	if o.Var != nil {
		return 0, false
	}
	v, from := o.Imm, kernel.Int32
	switch {
	case o.IsFloat:
		v, from = int64(math.Float32bits(o.F)), kernel.Float32
	case v > math.MaxInt32 || v < math.MinInt32:
		from = kernel.UInt32 // a large literal such as 0xFFFFFFFF
	}
	if !t.IsScalar() || t.Elem == from || t.Elem != kernel.Float32 && from != kernel.Float32 && t.Elem.Bits() >= 32 {
		return v, true
	}
	return kernel.Convert(v, from, t.Elem), true
}

// immOf returns the compile-time value of an operand (immediate or constant variable).
func (l *lowerer) immOf(o kernel.Operand) (int64, bool) {
	if o.IsIntImm() {
		return o.Imm, true
	}
	if o.Var != nil {
		if c, ok := l.consts[o.Var]; ok {
			return c, true
		}
	}
	return 0, false
}

// indGroup is one post-incremented pointer serving every load and store of a loop body that
// addresses the same buffer with the same stride per iteration: in program order each access
// advances it to the next one's address, the last one to the first one's in the next
// iteration (AIE1 post-modify addressing, "vlda wr, [p], #imm").
type indGroup struct {
	q   *vreg
	inc map[*kernel.Instr]int
}

// affine describes value = a*k + b for the iteration number k of the innermost loop.
type affine struct{ a, b int64 }

// affineOf evaluates an operand as an affine function of the loop counter, following the
// definitions (in defs, the body's single assignments before the use).
func (l *lowerer) affineOf(o kernel.Operand, lv *kernel.Var, defs map[*kernel.Var]*kernel.Instr, depth int) (affine, bool) {
	if c, ok := l.immOf(o); ok {
		return affine{0, c}, true
	}
	if o.Var == nil || depth > 16 {
		return affine{}, false
	}
	if lv != nil && o.Var == lv && l.curLoop != nil {
		// In iteration terms k: the counter is start + step*k.
		start, ok1 := l.immOf(l.curLoop.src.Start)
		step, ok2 := l.immOf(l.curLoop.src.Step)
		if !ok1 || !ok2 {
			return affine{}, false
		}
		return affine{step, start}, true
	}
	d, ok := defs[o.Var]
	if !ok || len(d.Args) == 0 {
		return affine{}, false
	}
	x, okx := l.affineOf(d.Args[0], lv, defs, depth+1)
	if !okx {
		return affine{}, false
	}
	if d.Op == kernel.OpMov {
		return x, true
	}
	if len(d.Args) != 2 {
		return affine{}, false
	}
	y, oky := l.affineOf(d.Args[1], lv, defs, depth+1)
	if !oky {
		return affine{}, false
	}
	switch d.Op {
	case kernel.OpAdd:
		return affine{x.a + y.a, x.b + y.b}, true
	case kernel.OpSub:
		return affine{x.a - y.a, x.b - y.b}, true
	case kernel.OpMul:
		if x.a == 0 {
			return affine{x.b * y.a, x.b * y.b}, true
		}
		if y.a == 0 {
			return affine{x.a * y.b, x.b * y.b}, true
		}
	case kernel.OpShl:
		if y.a == 0 && y.b >= 0 && y.b < 31 {
			return affine{x.a << y.b, x.b << y.b}, true
		}
	case kernel.OpDiv, kernel.OpShr:
		// Exact when every value divides: a*k + b with a, b >= 0 multiples of the divisor.
		if y.a != 0 {
			break
		}
		dv := y.b
		if d.Op == kernel.OpShr {
			if dv < 0 || dv > 30 {
				break
			}
			dv = 1 << dv
		}
		if dv > 0 && x.a >= 0 && x.b >= 0 && x.a%dv == 0 && x.b%dv == 0 {
			return affine{x.a / dv, x.b / dv}, true
		}
	}
	return affine{}, false
}

func cfgKey(op kernel.Op, args []kernel.Operand, l *lowerer) ([6]int64, error) {
	// The offsets, steps and squares of a MAC live in configuration registers (mC operands of
	// VMAC in AIE1InstrInfo.td); zstart is an instruction immediate (t04u:$zstart); xstart is a
	// GPR operand, which the backend folds like an immediate (simplification: one scalar
	// register per distinct xstart is not modelled).
	var key [6]int64
	form, err := kernel.FormOf(op, args)
	if err != nil {
		return key, err
	}
	lay := kernel.Layout(form, op.Info().Acc)
	n := 0
	for _, i := range []int{lay.XOffs, lay.XOffsHi, lay.XStep, lay.XSquare, lay.ZOffs, lay.ZOffsHi, lay.ZStep, lay.ZSquare} {
		if i < 0 {
			continue
		}
		v, ok := l.immOf(args[i])
		if !ok {
			return key, fmt.Errorf("%v: argument %d must be a compile-time constant for the AIE1 backend", op, i+1)
		}
		if n < len(key) {
			key[n] = v
		} else {
			key[len(key)-1] = key[len(key)-1]*1000003 + v
		}
		n++
	}
	return key, nil
}

// macCount is the number of multiplications of one MAC instruction: lanes x columns, the
// columns of mac16 depending on the X element size (UG1079 "MAC on 16x16 bits": 16x2;
// "MAC on 8x8 bits": 16x8).
func macCount(in *kernel.Instr) int {
	f, err := kernel.FormOf(in.Op, in.Args)
	if err != nil {
		return 0
	}
	lanes, cols := f.Shape()
	return lanes * cols
}

// lowerBody lowers statements into regions. lv is the innermost enclosing loop's counter
// (nil outside loops); inLoop tells whether we are inside any loop.
func (l *lowerer) lowerBody(body []kernel.Stmt, lv *kernel.Var, lp *loopRegion) ([]*region, error) {
	body = l.inlineTrivialLoops(body) // adf.go
	var regs []*region
	cur := &region{}
	flush := func() {
		if !l.noPostModify {
			n := len(cur.ops)
			cur.ops = foldPostModify(cur.ops) // postmod.go
			l.nPostMod += n - len(cur.ops)
		}
		if len(cur.ops) > 0 {
			regs = append(regs, cur)
		}
		cur = &region{}
	}
	// Single definitions in this body (for address analysis) and use counts of temporaries.
	defs := map[*kernel.Var]*kernel.Instr{}
	ndefs := map[*kernel.Var]int{}
	uses := map[*kernel.Var]int{}
	addrOnly := map[*kernel.Var]bool{}
	kernel.Walk(body, func(s kernel.Stmt, _ int) {
		if in, ok := s.(*kernel.Instr); ok {
			if in.Dst != nil {
				ndefs[in.Dst]++
				defs[in.Dst] = in
			}
			for _, a := range in.Args {
				if a.Var != nil {
					uses[a.Var]++
				}
			}
		}
	})
	for v, n := range ndefs {
		if n != 1 {
			delete(defs, v)
		}
	}
	// Variables used only as load/store indices that are affine in the loop counter need no
	// code: the addresses become post-incremented pointers.
	if lv != nil {
		// A temporary is address-only when every use is a load/store index or an operand of
		// another address-only temporary's definition, and it is affine in the iteration.
		for changed := true; changed; {
			changed = false
			for v, d := range defs {
				if addrOnly[v] || !v.Temp {
					continue
				}
				if _, ok := l.affineOf(kernel.V(v), lv, defs, 0); !ok {
					continue
				}
				okUses := 0
				kernel.Walk(body, func(st kernel.Stmt, _ int) {
					in, ok := st.(*kernel.Instr)
					if !ok {
						return
					}
					for ai, a := range in.Args {
						if a.Var != v {
							continue
						}
						if (in.Op == kernel.OpLoad || in.Op == kernel.OpStore) && ai == 1 {
							okUses++
						} else if in.Dst != nil && addrOnly[in.Dst] {
							okUses++
						}
					}
				})
				_ = d
				if okUses == uses[v] {
					addrOnly[v] = true
					changed = true
				}
			}
		}
	}
	if lv != nil && l.curLoop != nil {
		type key struct {
			p *kernel.Var
			a int64
		}
		type member struct {
			in *kernel.Instr
			b  int64
		}
		groups := map[key][]member{}
		var order []key
		for _, st := range body {
			in, ok := st.(*kernel.Instr)
			if !ok || (in.Op != kernel.OpLoad && in.Op != kernel.OpStore) {
				continue
			}
			if _, c := l.immOf(in.Args[1]); c {
				continue
			}
			aff, ok := l.affineOf(in.Args[1], lv, defs, 0)
			if !ok {
				continue
			}
			k := key{in.Args[0].Var, aff.a}
			if _, seen := groups[k]; !seen {
				order = append(order, k)
			}
			groups[k] = append(groups[k], member{in, aff.b})
		}
		if l.indOf == nil {
			l.indOf = map[*kernel.Instr]*indGroup{}
		}
		for _, k := range order {
			ms := groups[k]
			p, err := l.reg(k.p)
			if err != nil {
				return nil, err
			}
			elem := int64(k.p.Type.Pointee().Bytes())
			l.nTemp++
			g := &indGroup{q: l.newReg(fmt.Sprintf("%s.ind%d", p.name, l.nTemp), FilePtr, 20), inc: map[*kernel.Instr]int{}}
			for j, m := range ms {
				next := ms[0].b + k.a
				if j+1 < len(ms) {
					next = ms[j+1].b
				}
				g.inc[m.in] = int((next - m.b) * elem)
				l.indOf[m.in] = g
			}
			lp := l.curLoop
			lp.pre = append(lp.pre,
				&vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{{r: g.q}}, uses: []vopnd{{r: p, kind: aie1.OpndPtr}}},
				&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{{r: g.q}}, uses: []vopnd{{r: g.q, kind: aie1.OpndPtr}}, imm: ms[0].b * elem})
		}
	}
	// fold: a window or stream read into a temporary used once by the next upd_* writes the
	// part directly (a vlda, or a 128-bit stream move, into a sub-register).
	skip := map[*kernel.Instr]bool{}
	foldInto := map[*kernel.Instr]*kernel.Instr{}
	for i, s := range body {
		in, ok := s.(*kernel.Instr)
		if !ok || (in.Op != kernel.OpWinReadIncr && in.Op != kernel.OpWinRead && in.Op != kernel.OpLoad && in.Op != kernel.OpStreamRead) || in.Dst == nil || !in.Dst.Temp || uses[in.Dst] != 1 {
			continue
		}
		if i+1 < len(body) {
			if nx, ok := body[i+1].(*kernel.Instr); ok && (nx.Op == kernel.OpUpdW || nx.Op == kernel.OpUpdV || nx.Op == kernel.OpUpdX) && nx.Args[2].Var == in.Dst && nx.Args[0].Var == nx.Dst {
				if _, ok := l.immOf(nx.Args[1]); ok {
					skip[nx] = true
					foldInto[in] = nx
				}
			}
		}
	}
	for _, s := range body {
		switch s := s.(type) {
		case *kernel.Instr:
			if s.Op == kernel.OpBarrier || s.Op == kernel.OpCycles {
				// nothing is scheduled across a separator or a cycle counter read (adf.go)
				flush()
				cur.barrier = true
				if err := l.lowerInstr(cur, s, nil, -1, lv, defs); err != nil {
					return nil, err
				}
				flush()
				cur.barrier = true
				continue
			}
			if skip[s] {
				continue // an upd_* folded into the load before it
			}
			if nx := foldInto[s]; nx != nil {
				idx, _ := l.immOf(nx.Args[1])
				if err := l.lowerInstr(cur, s, nx.Dst, int(idx)*nx.Op.PartBits()/8, lv, defs); err != nil {
					return nil, err
				}
				continue
			}
			if s.Dst != nil && addrOnly[s.Dst] {
				continue
			}
			if lv != nil {
				for _, a := range s.Args {
					if a.Var == lv && !(s.Op == kernel.OpLoad || s.Op == kernel.OpStore) {
						l.counterUsed = true
					}
				}
			}
			l.markOuterCounters(s) // adf.go
			if err := l.lowerInstr(cur, s, nil, -1, lv, defs); err != nil {
				return nil, err
			}
		case *kernel.Loop:
			flush()
			lr, err := l.lowerLoop(s)
			if err != nil {
				return nil, err
			}
			regs = append(regs, &region{loop: lr})
		}
	}
	flush()
	return regs, nil
}

func posErr(in *kernel.Instr, err error) error {
	if in != nil && in.Pos.IsValid() {
		return fmt.Errorf("%v: %v", in.Pos, err)
	}
	return err
}

func (l *lowerer) lowerLoop(s *kernel.Loop) (*loopRegion, error) {
	trip, ok := s.TripCount()
	if !ok {
		return nil, fmt.Errorf("%v: loop trip count must be a compile-time constant for the AIE1 backend (define it with -D)", s.Pos)
	}
	// The trip count is a compile-time constant here, so the compiler may pipeline the loop
	// and rely on it ("The loop range pragma is not needed if the loop range is a compile
	// time constant", UG1079 "Loops"); chess_loop_range's minimum, when given, is what the
	// pipeline may assume instead.
	lr := &loopRegion{src: s, trip: int(trip), pipelined: true}
	lr.minTrip = int(trip)
	if s.HasRange {
		lr.minTrip = max(int(s.RangeMin), 1)
	}
	outer, outerUsed := l.curLoop, l.counterUsed
	l.curLoop, l.counterUsed = lr, false
	l.outerCounters = append(l.outerCounters, &counterUse{v: s.Var})
	body, err := l.lowerBody(s.Body, s.Var, lr)
	cu := l.outerCounters[len(l.outerCounters)-1]
	l.outerCounters = l.outerCounters[:len(l.outerCounters)-1]
	// The loop counter is materialized only if something other than an address uses it (in
	// this loop's body or in a loop nested in it).
	needCounter := (l.counterUsed || cu.used) && s.Var != nil
	l.curLoop, l.counterUsed = outer, outerUsed
	if err != nil {
		return nil, err
	}
	if needCounter {
		r, err := l.reg(s.Var)
		if err != nil {
			return nil, err
		}
		lr.counter = r
		start, ok := l.immOf(s.Start)
		if !ok {
			return nil, fmt.Errorf("%v: loop start must be a compile-time constant", s.Pos)
		}
		lr.pre = append(lr.pre, &vop{name: "mov", alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{{r: r}}, imm: start, part: -1})
		step, _ := l.immOf(s.Step)
		inc := &vop{name: "add", alts: aluAlts, itin: &aie1.ItinALU, defs: []vopnd{{r: r}}, uses: []vopnd{{r: r, kind: aie1.OpndScalar}}, imm: step, part: -1}
		if len(body) == 0 || body[len(body)-1].loop != nil {
			body = append(body, &region{})
		}
		last := body[len(body)-1]
		last.ops = append(last.ops, inc)
	}
	if len(body) == 1 && body[0].loop == nil && l.order == orderGroup {
		if ops, ok := l.groupAccs(body[0].ops, lr); ok {
			body[0].ops = ops
			l.grouped = true
		}
	}
	if len(body) == 1 && body[0].loop == nil && l.order == orderCluster && !hasFPMAC(body[0].ops) {
		c := clusterMACs(body[0].ops)
		for i := range c {
			if c[i] != body[0].ops[i] {
				l.reordered = true
				break
			}
		}
		body[0].ops = c
	}
	if len(body) == 1 && body[0].loop == nil && l.order != orderGroup && !l.noPostModify && l.splitChains(body[0].ops, lr) {
		l.nPostMod++ // postmod.go
	}
	lr.body = body
	return lr, nil
}

// clusterMACs reorders a loop body (respecting every dependence) so that the MACs into one
// accumulator follow each other. It changes nothing when registers suffice (the modulo
// scheduler decides the issue order), but when accumulators must be spilled it lets one fill
// and one spill serve all of an accumulator's MACs of an iteration: a register-pressure-aware
// order chosen before allocation, as compilers that integrate scheduling and allocation do.
func clusterMACs(ops []*vop) []*vop {
	n := len(ops)
	preds := make([]int, n)
	succs := make([][]int, n)
	addDep := func(a, b int) {
		succs[a] = append(succs[a], b)
		preds[b]++
	}
	lastW := map[*vreg]int{}
	reads := map[*vreg][]int{}
	for i, o := range ops {
		seen := map[int]bool{}
		dep := func(a int) {
			if a >= 0 && a != i && !seen[a] {
				seen[a] = true
				addDep(a, i)
			}
		}
		for _, u := range o.uses {
			if w, ok := lastW[u.r]; ok {
				dep(w)
			}
		}
		for _, d := range o.defs {
			if w, ok := lastW[d.r]; ok {
				dep(w)
			}
			for _, r := range reads[d.r] {
				dep(r)
			}
		}
		for j := 0; j < i; j++ {
			if a, b := ops[j].mem, o.mem; a != nil && b != nil && a.space == b.space && (a.store || b.store) {
				dep(j)
			}
		}
		for _, u := range o.uses {
			reads[u.r] = append(reads[u.r], i)
		}
		for _, d := range o.defs {
			lastW[d.r] = i
			reads[d.r] = nil
		}
	}
	done := make([]bool, n)
	out := make([]*vop, 0, n)
	var lastAcc *vreg
	isMAC := func(i int) bool { return ops[i].macs > 0 && len(ops[i].defs) > 0 }
	// ancestors(i): the unemitted operations i depends on, transitively.
	predsOf := make([][]int, n)
	for a, ss := range succs {
		for _, b := range ss {
			predsOf[b] = append(predsOf[b], a)
		}
	}
	readyAncestor := func(target int) int {
		best := -1
		seen := map[int]bool{}
		stack := []int{target}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range predsOf[v] {
				if done[p] || seen[p] {
					continue
				}
				seen[p] = true
				if preds[p] == 0 && (best < 0 || p < best) {
					best = p
				}
				stack = append(stack, p)
			}
		}
		return best
	}
	for len(out) < n {
		pick := -1
		// 1. the next MAC into the accumulator just used, or what it waits for
		if lastAcc != nil {
			for i := 0; i < n; i++ {
				if !done[i] && isMAC(i) && ops[i].defs[0].r == lastAcc {
					if preds[i] == 0 {
						pick = i
					} else {
						pick = readyAncestor(i)
					}
					break
				}
			}
		}
		// 2. the first MAC not yet emitted, or what it waits for
		if pick < 0 {
			for i := 0; i < n; i++ {
				if !done[i] && isMAC(i) {
					if preds[i] == 0 {
						pick = i
					} else {
						pick = readyAncestor(i)
					}
					break
				}
			}
		}
		// 3. anything ready, in program order
		if pick < 0 {
			for i := 0; i < n; i++ {
				if !done[i] && preds[i] == 0 {
					pick = i
					break
				}
			}
		}
		done[pick] = true
		out = append(out, ops[pick])
		if isMAC(pick) {
			lastAcc = ops[pick].defs[0].r
		}
		for _, s := range succs[pick] {
			preds[s]--
		}
	}
	return out
}

func (l *lowerer) use(r *vreg, k aie1.OperandKind) vopnd { return vopnd{r: r, kind: k} }
func (l *lowerer) def(r *vreg) vopnd                     { return vopnd{r: r} }

// undefinedTemp reports whether v is a temporary that only undef_* defines, in the kernel or
// (for the copies unrolling makes) as the one definition in the body being lowered (defs): its
// value is undefined wherever it is read.
func (l *lowerer) undefinedTemp(v *kernel.Var, defs map[*kernel.Var]*kernel.Instr) bool {
	if !v.Temp {
		return false
	}
	if d, ok := defs[v]; ok && d.Op == kernel.OpUndef {
		return true
	}
	if l.undefOnly == nil {
		l.undefOnly = map[*kernel.Var]bool{}
		other := map[*kernel.Var]bool{}
		kernel.Walk(l.k.Body, func(s kernel.Stmt, _ int) {
			if in, ok := s.(*kernel.Instr); ok && in.Dst != nil {
				if in.Op == kernel.OpUndef && !other[in.Dst] {
					l.undefOnly[in.Dst] = true
				} else {
					other[in.Dst] = true
					delete(l.undefOnly, in.Dst)
				}
			}
		})
	}
	return l.undefOnly[v]
}

// lowerInstr appends the machine operations of one kernel instruction to cur. dstOver and
// part redirect the result of a load into a part of another variable (folded upd_*).
func (l *lowerer) lowerInstr(cur *region, in *kernel.Instr, dstOver *kernel.Var, part int, lv *kernel.Var, defs map[*kernel.Var]*kernel.Instr) error {
	add := func(o *vop) {
		o.src = in
		if o.part == 0 && part < 0 {
			o.part = -1
		}
		cur.ops = append(cur.ops, o)
	}
	argReg := func(i int) (*vreg, error) {
		a := in.Args[i]
		if a.Var == nil {
			return nil, posErr(in, fmt.Errorf("%v: argument %d must be a variable", in.Op, i+1))
		}
		if a.Var.Type.IsWindow() {
			if r, ok := l.winPtr[a.Var]; ok {
				return r, nil
			}
		}
		if c, ok := l.consts[a.Var]; ok && a.Var.Type.IsScalar() {
			// a compile-time constant has no register of its own (its move is folded into
			// its users): where a register is needed (a stored value), move it into one (a
			// plain move: the simulator must not take it for the op it serves)
			r, err := l.immReg(in, kernel.Imm(c), add)
			cur.ops[len(cur.ops)-1].src = nil
			return r, err
		}
		return l.reg(a.Var)
	}
	dstVar := in.Dst
	if dstOver != nil {
		dstVar = dstOver
	}
	var dst *vreg
	if dstVar != nil {
		var err error
		if dst, err = l.reg(dstVar); err != nil {
			return posErr(in, err)
		}
	}
	dstDef := vopnd{r: dst}
	if dstOver != nil && dst != nil {
		dstDef.part = part
		dstDef.partBytes = in.Dst.Type.Bytes()
	}
	op := in.Op
	switch {
	case op == kernel.OpWinRead || op == kernel.OpWinReadIncr || op == kernel.OpWinWrite || op == kernel.OpWinWriteIncr:
		w, err := argReg(0)
		if err != nil {
			return err
		}
		elem := in.Args[0].Var.Type.Elem.Bytes()
		store := op == kernel.OpWinWrite || op == kernel.OpWinWriteIncr
		incr := op == kernel.OpWinReadIncr || op == kernel.OpWinWriteIncr
		o := &vop{itin: &aie1.ItinLoad, alts: ldAlts, part: part}
		var bytes int
		if store && in.Args[1].Var == nil {
			// a constant written: moved into a register first (backend/adf.go)
			v, _ := l.immReg(in, in.Args[1], add)
			bytes = elem
			o.name, o.itin, o.alts = "vst", &aie1.ItinStore, stAlts
			o.uses = append(o.uses, l.use(v, aie1.OpndStoreData))
		} else if store {
			v, err := argReg(1)
			if err != nil {
				return err
			}
			bytes = in.Args[1].Var.Type.Bytes()
			if in.Args[1].Var.Type.IsScalar() {
				bytes = elem
			}
			o.name, o.itin, o.alts = "vst", &aie1.ItinStore, stAlts
			o.uses = append(o.uses, l.use(v, aie1.OpndStoreData))
		} else {
			bytes = in.Dst.Type.Bytes()
			if in.Dst.Type.IsScalar() {
				bytes = elem
			}
			o.name = "vld"
			o.defs = append(o.defs, dstDef)
		}
		o.uses = append(o.uses, l.use(w, aie1.OpndPtr))
		o.mem = &vmem{store: store, ptr: w, bytes: bytes, space: in.Args[0].Var.Name}
		if incr {
			o.mem.postInc = bytes
			o.defs = append(o.defs, vopnd{r: w, ptrUpdate: true})
			o.wrap = in.Args[0].Var.Name
		}
		add(o)
		return nil
	case op == kernel.OpWinIncr:
		w, err := argReg(0)
		if err != nil {
			return err
		}
		n, ok := l.immOf(in.Args[1])
		if !ok {
			return l.winIncrReg(cur, in, w, add, argReg)
		}
		add(&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{l.def(w)}, uses: []vopnd{l.use(w, aie1.OpndPtr)}, imm: n * int64(in.Args[0].Var.Type.Elem.Bytes()), wrap: in.Args[0].Var.Name})
		return nil
	case op == kernel.OpLoad || op == kernel.OpStore:
		p, err := argReg(0)
		if err != nil {
			return err
		}
		elem := in.Args[0].Var.Type.Pointee().Bytes()
		if in.Args[0].Var.Type.Lanes > 1 {
			elem = in.Args[0].Var.Type.Pointee().Bytes()
		}
		var bytes int
		if op == kernel.OpLoad {
			bytes = in.Dst.Type.Bytes()
		} else {
			bytes = in.Args[2].Type().Bytes()
			if in.Args[2].Var == nil {
				bytes = elem // an immediate: one element of the pointee
			}
		}
		ptr := p
		off, inc := 0, 0
		if c, ok := l.immOf(in.Args[1]); ok {
			off = int(c) * elem
		} else if g := l.indOf[in]; g != nil && l.curLoop != nil {
			ptr = g.q
			inc = g.inc[in]
		} else {
			// a run-time index (affine in no counter of this loop, e.g. an outer loop's):
			// the byte offset on the scalar unit and a pointer add into a temporary pointer
			// (ptrAddReg), then the access through it
			if in.Args[1].Var == nil {
				return posErr(in, fmt.Errorf("%v: index %v is not an integer", op, in.Args[1]))
			}
			l.markIndexCounter(in.Args[1].Var)
			l.nTemp++
			ptr = l.newReg(fmt.Sprintf("addr%d", l.nTemp), FilePtr, 20)
			if err := l.ptrAddReg(cur, in, p, ptr, add, argReg); err != nil {
				return err
			}
		}
		o := &vop{name: "vld", alts: ldAlts, itin: &aie1.ItinLoad, part: part}
		if srs := l.stsrs[in]; srs != nil {
			// the narrowing and the store in one store-unit instruction (stsrs.go)
			acc, err := l.reg(srs.Args[0].Var)
			if err != nil {
				return posErr(in, err)
			}
			o.name, o.itin, o.alts = "vst.srs", &aie1.ItinSTSRS, stAlts
			o.uses = append(o.uses, l.use(acc, aie1.OpndAcc), l.use(ptr, aie1.OpndPtr))
			o.mem = &vmem{store: true, ptr: ptr, offset: off, postInc: inc, bytes: bytes, space: in.Args[0].Var.Name}
			if inc != 0 {
				o.defs = append(o.defs, vopnd{r: ptr, ptrUpdate: true})
			}
			add(o)
			o.src = srs // the simulator executes the narrowing's semantics into memory
			return nil
		}
		if op == kernel.OpStore {
			var v *vreg
			var err error
			if in.Args[2].Var == nil {
				// a constant stored: moved into a register first (as window writes, adf.go)
				v, err = l.immReg(in, in.Args[2], add)
				cur.ops[len(cur.ops)-1].src = nil
			} else {
				v, err = argReg(2)
			}
			if err != nil {
				return err
			}
			o.name, o.itin, o.alts = "vst", &aie1.ItinStore, stAlts
			o.uses = append(o.uses, l.use(v, aie1.OpndStoreData))
		} else {
			o.defs = append(o.defs, dstDef)
		}
		o.uses = append(o.uses, l.use(ptr, aie1.OpndPtr))
		o.mem = &vmem{store: op == kernel.OpStore, ptr: ptr, offset: off, postInc: inc, bytes: bytes, space: in.Args[0].Var.Name}
		if inc != 0 {
			o.defs = append(o.defs, vopnd{r: ptr, ptrUpdate: true})
		}
		add(o)
		return nil
	case op.IsMAC():
		info := op.Info()
		form, err := kernel.FormOf(op, in.Args)
		if err != nil {
			return posErr(in, err)
		}
		lay := kernel.Layout(form, info.Acc)
		x, err := argReg(lay.X)
		if err != nil {
			return err
		}
		z, err := argReg(lay.Z)
		if err != nil {
			return err
		}
		x, z = l.macOperandCopies(x, z, add)
		x.needX = true
		z.needZ = true
		key, err := cfgKey(op, in.Args, l)
		if err != nil {
			return posErr(in, err)
		}
		cfg := l.cfg[key]
		if cfg == nil {
			cfg = l.newReg(fmt.Sprintf("cfg%d", len(l.cfgList)), FileCfg, 64)
			l.cfg[key] = cfg
			l.cfgList = append(l.cfgList, cfg)
			l.cfgVals = append(l.cfgVals, key)
		}
		itin := &aie1.ItinVMAC
		fp := op == kernel.OpFPMul || op == kernel.OpFPMac || op == kernel.OpFPMsc
		switch {
		case fp && info.Acc:
			itin = &aie1.ItinVFMAC
		case fp:
			itin = &aie1.ItinVFMUL
		case !info.Acc:
			itin = &aie1.ItinVMUL
		}
		o := &vop{name: op.String(), alts: vecAlts, itin: itin, macs: macCount(in)}
		if info.Acc {
			acc, err := argReg(0)
			if err != nil {
				return err
			}
			if acc != dst {
				// The hardware MAC accumulates in place (Constraints "$sd = $sdin"): copy first.
				add(&vop{name: "vmov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(acc, aie1.OpndVecX)}})
				cur.ops[len(cur.ops)-1].src = nil
			}
			o.uses = append(o.uses, l.use(dst, aie1.OpndAcc))
		}
		if fp {
			dst.avoidZ = true
		}
		o.uses = append(o.uses, l.use(x, aie1.OpndVecX), l.use(z, aie1.OpndVecZ), l.use(cfg, aie1.OpndScalar))
		o.defs = append(o.defs, l.def(dst))
		add(o)
		return nil
	}
	switch op {
	case kernel.OpSRS, kernel.OpLSRS, kernel.OpBSRS, kernel.OpUBSRS:
		if l.stsrsOf[in] {
			return nil // done by its store (stsrs.go)
		}
		acc, err := argReg(0)
		if err != nil {
			return err
		}
		if _, ok := l.immOf(in.Args[1]); !ok {
			return posErr(in, fmt.Errorf("%v: the shift must be a compile-time constant for the AIE1 backend", op))
		}
		o := &vop{name: op.String(), alts: stAlts, itin: &aie1.ItinSRS, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(acc, aie1.OpndAcc)}}
		if l.modes {
			o.stream = modeChain
		}
		add(o)
	case kernel.OpSetRnd, kernel.OpSetSat:
		// a write of the mode control register (set_rnd / set_sat / clr_sat): sumac issues it
		// as a scalar move of the mode into the control register, on the move slot
		// (ItinMOV), ordered with the srs-family ops (modeChain)
		mode, ok := l.immOf(in.Args[0])
		if !ok {
			return posErr(in, fmt.Errorf("%v: the mode must be a compile-time constant", op))
		}
		name := "mov crRnd"
		if op == kernel.OpSetSat {
			name = "mov crSat"
		}
		add(&vop{name: name, alts: mvAlts, itin: &aie1.ItinMOV, imm: mode, stream: modeChain})
	case kernel.OpUPS, kernel.OpLUPS:
		v, err := argReg(0)
		if err != nil {
			return err
		}
		add(&vop{name: op.String(), alts: vecAlts, itin: &aie1.ItinUPS, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(v, aie1.OpndVecX)}})
	case kernel.OpVAdd, kernel.OpVSub:
		a, err := argReg(0)
		if err != nil {
			return err
		}
		b, err := argReg(1)
		if err != nil {
			return err
		}
		add(&vop{name: map[kernel.Op]string{kernel.OpVAdd: "vadd", kernel.OpVSub: "vsub"}[op], alts: vecAlts, itin: &aie1.ItinVCMP, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(a, aie1.OpndVecX), l.use(b, aie1.OpndVecX)}})
	case kernel.OpUpdV, kernel.OpUpdW, kernel.OpUpdX:
		buf, err := argReg(0)
		if err != nil {
			return err
		}
		idx, ok := l.immOf(in.Args[1])
		if !ok {
			return posErr(in, fmt.Errorf("%v: the index must be a compile-time constant", op))
		}
		v, err := argReg(2)
		if err != nil {
			return err
		}
		if buf != dst {
			add(&vop{name: "vmov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(buf, aie1.OpndVecX)}})
			cur.ops[len(cur.ops)-1].src = nil
		}
		pb := op.PartBits() / 8
		add(&vop{name: "vmov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{{r: dst, part: int(idx) * pb, partBytes: pb}}, uses: []vopnd{l.use(v, aie1.OpndVecX)}, part: int(idx) * pb})
	case kernel.OpExtV, kernel.OpExtW, kernel.OpExtX, kernel.OpConcat, kernel.OpMov, kernel.OpExtElem, kernel.OpUpdElem:
		var us []vopnd
		for i := range in.Args {
			if in.Args[i].Var != nil {
				if i == 0 && op == kernel.OpUpdElem && l.undefinedTemp(in.Args[0].Var, defs) {
					// a lane into an undefined vector (the AI Engine API's vector-from-scalar
					// constructor, cfront scalarVec): the move writes the whole register and
					// reads no vector (the simulator takes the other lanes as undef_*'s zeros)
					continue
				}
				r, err := argReg(i)
				if err != nil {
					return err
				}
				us = append(us, l.use(r, aie1.OpndVecX))
			}
		}
		if op == kernel.OpMov && len(us) == 0 {
			c, _ := movImm(in.Args[0], in.Dst.Type)
			if _, isConst := l.consts[in.Dst]; isConst {
				return nil // a compile-time constant: folded into its users
			}
			add(&vop{name: "mov", alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{l.def(dst)}, imm: c})
			return nil
		}
		itin, alts := &aie1.ItinMOV, mvAlts
		if op == kernel.OpExtElem {
			itin, alts = &aie1.ItinVEXT, []uint16{SlotMask(aie1.SlotMV1)}
		}
		if op == kernel.OpUpdElem {
			itin = &aie1.ItinVUPD
		}
		add(&vop{name: map[bool]string{true: "mov", false: "vmov"}[dst.file == FileScalar || dst.file == FilePtr], alts: alts, itin: itin, defs: []vopnd{l.def(dst)}, uses: us})
	case kernel.OpUndef:
		// No code: the register's contents are whatever it holds (Options.zeroUndef: zeros).
		if l.zeroUndef {
			add(&vop{name: "vzero", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}})
		}
	case kernel.OpNull:
		add(&vop{name: "vzero", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}})
	case kernel.OpPtrAdd:
		p, err := argReg(0)
		if err != nil {
			return err
		}
		n, ok := l.immOf(in.Args[1])
		if !ok {
			return l.ptrAddReg(cur, in, p, dst, add, argReg) // backend/adf.go
		}
		if p != dst {
			add(&vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(p, aie1.OpndPtr)}})
			cur.ops[len(cur.ops)-1].src = nil
		}
		add(&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(dst, aie1.OpndPtr)}, imm: n * int64(in.Args[0].Var.Type.Pointee().Bytes())})
	default:
		if op.IsScalarArith() || op.IsUnary() {
			var us []vopnd
			for i := range in.Args {
				if in.Args[i].Var != nil {
					if _, c := l.consts[in.Args[i].Var]; c {
						continue
					}
					r, err := argReg(i)
					if err != nil {
						return err
					}
					us = append(us, l.use(r, aie1.OpndScalar))
				}
			}
			itin := &aie1.ItinALU
			if op == kernel.OpMul {
				itin = &aie1.ItinMUL
			}
			add(&vop{name: op.String(), alts: aluAlts, itin: itin, defs: []vopnd{l.def(dst)}, uses: us})
			return nil
		}
		n := len(cur.ops)
		if ok, err := l.lowerADF(cur, in, dst, add, argReg); ok {
			if err == nil && op == kernel.OpStreamRead && dstOver != nil && len(cur.ops) == n+1 {
				// folded into the upd_* after it: the stream move writes that part of the
				// destination (a 128-bit stream read targets any 128-bit vector register,
				// as the unfolded move into a temporary does)
				o := cur.ops[n]
				o.defs = []vopnd{dstDef}
				o.part = part
			}
			return err
		}
		return posErr(in, fmt.Errorf("%v is not supported by the AIE1 backend", op))
	}
	return nil
}
