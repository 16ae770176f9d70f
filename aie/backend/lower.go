package backend

import (
	"fmt"

	"github.com/sumacdev/sumac/aie/kernel"
	"github.com/sumacdev/sumac/target/aie1"
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
	// spill stores and fills are long-format (LNG slot) instructions that also use the store
	// unit or load unit A (AIE_dmw_sts_spil / AIE_dmw_lda_spil in AIEInstrFormats.td with the
	// II_VST_SPIL / II_LDASP_R itineraries).
	spillStAlts = []uint16{SlotMask(aie1.SlotLNG) | SlotMask(aie1.SlotST)}
	fillAlts    = []uint16{SlotMask(aie1.SlotLNG) | SlotMask(aie1.SlotLDA)}
	paddAlts    = []uint16{SlotMask(aie1.SlotLDA), SlotMask(aie1.SlotLDB)}
)

// lowering state
type lowerer struct {
	k      *kernel.Kernel
	vregs  map[*kernel.Var]*vreg
	all    []*vreg
	consts map[*kernel.Var]int64 // scalar variables holding one compile-time constant
	// window position pointers and buffer pointers
	winPtr  map[*kernel.Var]*vreg
	cfg     map[[6]int64]*vreg
	cfgList []*vreg
	cfgVals [][6]int64
	nTemp   int
	curLoop *loopRegion
	// params: per window and pointer parameter, its register.
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
					val[s.Dst] = s.Args[0].Imm
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

// affine describes value = a*i + b for the innermost loop counter i.
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
	if lv != nil && o.Var == lv {
		return affine{1, 0}, true
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
	}
	return affine{}, false
}

func cfgKey(op kernel.Op, args []kernel.Operand, l *lowerer) ([6]int64, error) {
	// The parameters of a MAC other than its buffers and zstart live in configuration
	// registers; zstart is an instruction immediate (t04u:$zstart in VMAC, AIE1InstrInfo.td).
	var key [6]int64
	form, err := kernel.FormOf(op, args)
	if err != nil {
		return key, err
	}
	lay := kernel.Layout(form, op.Info().Acc)
	n := 0
	for _, i := range []int{lay.XStart, lay.XOffs, lay.XOffsHi, lay.XStep, lay.XSquare, lay.ZOffs, lay.ZOffsHi, lay.ZStep, lay.ZSquare} {
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
	var regs []*region
	cur := &region{}
	flush := func() {
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
		idxUses := map[*kernel.Var]int{}
		kernel.Walk(body, func(s kernel.Stmt, _ int) {
			if in, ok := s.(*kernel.Instr); ok && (in.Op == kernel.OpLoad || in.Op == kernel.OpStore) && in.Args[1].Var != nil {
				idxUses[in.Args[1].Var]++
			}
		})
		for v, n := range idxUses {
			if n == uses[v] && v.Temp {
				if _, ok := l.affineOf(kernel.V(v), lv, defs, 0); ok {
					addrOnly[v] = true
				}
			}
		}
	}
	// fold: a window read into a temporary used once by the next upd_* writes the part
	// directly (a vlda into a sub-register).
	skip := map[*kernel.Instr]bool{}
	foldInto := map[*kernel.Instr]*kernel.Instr{}
	for i, s := range body {
		in, ok := s.(*kernel.Instr)
		if !ok || (in.Op != kernel.OpWinReadIncr && in.Op != kernel.OpWinRead && in.Op != kernel.OpLoad) || in.Dst == nil || !in.Dst.Temp || uses[in.Dst] != 1 {
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
	lr := &loopRegion{src: s, trip: int(trip), pipelined: s.Pipelined}
	lr.minTrip = 1
	if s.HasRange && s.RangeMin > 0 {
		lr.minTrip = int(s.RangeMin)
	}
	// The loop counter is materialized only if something other than an address uses it.
	needCounter := false
	if s.Var != nil {
		kernel.Walk(s.Body, func(st kernel.Stmt, _ int) {
			if in, ok := st.(*kernel.Instr); ok {
				for _, a := range in.Args {
					if a.Var == s.Var && in.Op != kernel.OpMul && in.Op != kernel.OpAdd && in.Op != kernel.OpShl && in.Op != kernel.OpSub && in.Op != kernel.OpMov {
						needCounter = true
					}
				}
			}
		})
	}
	outer := l.curLoop
	l.curLoop = lr
	body, err := l.lowerBody(s.Body, s.Var, lr)
	l.curLoop = outer
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
	lr.body = body
	return lr, nil
}

func (l *lowerer) use(r *vreg, k aie1.OperandKind) vopnd { return vopnd{r: r, kind: k} }
func (l *lowerer) def(r *vreg) vopnd                     { return vopnd{r: r} }

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
		if store {
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
			return posErr(in, fmt.Errorf("window_incr: the increment must be a compile-time constant"))
		}
		add(&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{l.def(w)}, uses: []vopnd{l.use(w, aie1.OpndPtr)}, imm: n * int64(in.Args[0].Var.Type.Elem.Bytes())})
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
		}
		ptr := p
		off, inc := 0, 0
		if c, ok := l.immOf(in.Args[1]); ok {
			off = int(c) * elem
		} else {
			aff, ok := l.affineOf(in.Args[1], lv, defs, 0)
			if !ok || l.curLoop == nil {
				return posErr(in, fmt.Errorf("%v: index must be a constant or affine in the loop counter for the AIE1 backend", op))
			}
			lp := l.curLoop
			start, _ := l.immOf(lp.src.Start)
			step, _ := l.immOf(lp.src.Step)
			// Induction pointer q = p + (a*start + b)*elem, advanced by a*step*elem per access.
			l.nTemp++
			q := l.newReg(fmt.Sprintf("%s.ind%d", p.name, l.nTemp), FilePtr, 20)
			lp.pre = append(lp.pre,
				&vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(q)}, uses: []vopnd{l.use(p, aie1.OpndPtr)}, part: -1},
				&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{l.def(q)}, uses: []vopnd{l.use(q, aie1.OpndPtr)}, imm: (aff.a*start + aff.b) * int64(elem), part: -1})
			ptr = q
			inc = int(aff.a * step * int64(elem))
		}
		o := &vop{name: "vld", alts: ldAlts, itin: &aie1.ItinLoad, part: part}
		if op == kernel.OpStore {
			v, err := argReg(2)
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
		o.uses = append(o.uses, l.use(x, aie1.OpndVecX), l.use(z, aie1.OpndVecZ), l.use(cfg, aie1.OpndScalar))
		o.defs = append(o.defs, l.def(dst))
		add(o)
		return nil
	}
	switch op {
	case kernel.OpSRS, kernel.OpLSRS, kernel.OpBSRS, kernel.OpUBSRS:
		acc, err := argReg(0)
		if err != nil {
			return err
		}
		if _, ok := l.immOf(in.Args[1]); !ok {
			return posErr(in, fmt.Errorf("%v: the shift must be a compile-time constant for the AIE1 backend", op))
		}
		add(&vop{name: op.String(), alts: stAlts, itin: &aie1.ItinSRS, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(acc, aie1.OpndAcc)}})
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
				r, err := argReg(i)
				if err != nil {
					return err
				}
				us = append(us, l.use(r, aie1.OpndVecX))
			}
		}
		if op == kernel.OpMov && len(us) == 0 {
			c, _ := l.immOf(in.Args[0])
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
		// No code: the register's contents are whatever it holds.
	case kernel.OpNull:
		add(&vop{name: "vzero", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}})
	case kernel.OpPtrAdd:
		p, err := argReg(0)
		if err != nil {
			return err
		}
		n, ok := l.immOf(in.Args[1])
		if !ok {
			return posErr(in, fmt.Errorf("pointer arithmetic with a run-time amount is not supported by the AIE1 backend"))
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
		return posErr(in, fmt.Errorf("%v is not supported by the AIE1 backend", op))
	}
	return nil
}
