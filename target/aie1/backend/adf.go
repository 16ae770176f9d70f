package backend

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// What ADF kernels need beyond the intrinsic kernels the backend was written for: arrays with
// storage of their own, stream ports, the float lane operations, element-wise max/min,
// broadcast, select, the cycle counter, separators, run-time window increments. Each op takes
// the slot and itinerary of the AIE1 instruction it becomes (aie1/timing.go).

// checkADF rejects, with a clear error, the kernel IR constructs this backend does not compile.
func checkADF(k *kernel.Kernel) error {
	var err error
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		if x, ok := s.(*kernel.If); ok && err == nil {
			err = fmt.Errorf("%v: a run-time if is not supported by the AIE1 backend yet", x.Pos)
		}
		if x, ok := s.(*kernel.Instr); ok && err == nil && x.Op.IsScalarArith() && x.Dst != nil && x.Dst.Type.IsScalar() && x.Dst.Type.Elem == kernel.Float32 {
			// UG1079 "Scalar Programming": float is emulated, the scalar unit has no FPU (the
			// softfloat library's routines); sumac has no cost for them
			err = fmt.Errorf("%v: scalar float arithmetic (%v) is a softfloat library routine on AIE1 (no scalar FPU, UG1079 \"Scalar Programming\"), which the timing model does not cost", x.Pos, x.Op)
		}
	})
	if err == nil {
		err = checkFloatCompares(k)
	}
	ins, outs := 0, 0
	for _, p := range k.Params {
		if p.Type.IsStream() && !p.Type.IsCascade() {
			if p.Type.Out {
				outs++
			} else {
				ins++
			}
		}
	}
	// AM009 "AI Engine Interfaces": two 32-bit input and two output stream ports per tile
	if (ins > aie1.StreamPorts || outs > aie1.StreamPorts) && err == nil {
		err = fmt.Errorf("%d input and %d output streams: an AIE1 tile has %d of each", ins, outs, aie1.StreamPorts)
	}
	return err
}

// withArrays returns the parameters and the arrays with storage of their own: the regions the
// layout places.
func withArrays(k *kernel.Kernel) []*kernel.Var {
	vs := append([]*kernel.Var(nil), k.Params...)
	for _, v := range k.Vars {
		if v.Storage != nil {
			vs = append(vs, v)
		}
	}
	return vs
}

// arraySizes adds the arrays' sizes to the parameters' (a fresh map).
func arraySizes(k *kernel.Kernel, sizes map[string]int) map[string]int {
	out := map[string]int{}
	for n, s := range sizes {
		out[n] = s
	}
	for _, v := range k.Vars {
		if v.Storage != nil {
			out[v.Name] = v.Storage.Bytes
		}
	}
	return out
}

// arrays gives each array with storage a pointer register holding its address, set at kernel
// entry by a long-immediate move (the address is known when the program is linked).
func (c *compiler) arrays() error {
	for _, v := range c.k.Vars {
		if v.Storage == nil {
			continue
		}
		r, err := c.l.reg(v)
		if err != nil {
			return err
		}
		c.arrayEntry = append(c.arrayEntry, &vop{name: "mov.u20", alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{{r: r}}, imm: int64(c.prog.Layout.Base[v.Name])})
	}
	return nil
}

// winIncrReg lowers window_incr(w, n) by a run-time amount: the byte count n * sizeof(T) is
// computed on the scalar unit (a multiply, II_MUL) and added to the position by a padd with a
// register operand (II_PADDA reads its modifier in cycle 1).
func (l *lowerer) winIncrReg(cur *region, in *kernel.Instr, w *vreg, add func(*vop), argReg func(int) (*vreg, error)) error {
	n, err := argReg(1)
	if err != nil {
		return err
	}
	eb := int64(in.Args[0].Var.Type.Elem.Bytes())
	amt := n
	if eb != 1 {
		l.nTemp++
		amt = l.newReg(fmt.Sprintf("incr%d", l.nTemp), FileScalar, 32)
		add(&vop{name: "mul", alts: aluAlts, itin: &aie1.ItinMUL, defs: []vopnd{{r: amt}}, uses: []vopnd{{r: n, kind: aie1.OpndScalar}}, imm: eb})
	}
	add(&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{{r: w}}, uses: []vopnd{{r: w, kind: aie1.OpndPtr}, {r: amt, kind: aie1.OpndMod}}, wrap: in.Args[0].Var.Name})
	return nil
}

// ptrAddReg lowers p + n with n a run-time value: the byte offset on the scalar unit (a shift
// for a power-of-two element size, else a multiply), then a pointer add with it as the
// modifier (padd p, m).
func (l *lowerer) ptrAddReg(cur *region, in *kernel.Instr, p, dst *vreg, add func(*vop), argReg func(int) (*vreg, error)) error {
	n, err := argReg(1)
	if err != nil {
		return err
	}
	eb := int64(in.Args[0].Var.Type.Pointee().Bytes())
	amt := n
	if eb != 1 {
		l.nTemp++
		amt = l.newReg(fmt.Sprintf("off%d", l.nTemp), FileScalar, 32)
		if eb&(eb-1) == 0 {
			sh := int64(0)
			for 1<<sh < eb {
				sh++
			}
			add(&vop{name: "lsl", alts: aluAlts, itin: &aie1.ItinALU, defs: []vopnd{{r: amt}}, uses: []vopnd{{r: n, kind: aie1.OpndScalar}}, imm: sh})
		} else {
			add(&vop{name: "mul", alts: aluAlts, itin: &aie1.ItinMUL, defs: []vopnd{{r: amt}}, uses: []vopnd{{r: n, kind: aie1.OpndScalar}}, imm: eb})
		}
	}
	if p != dst {
		o := &vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}, uses: []vopnd{l.use(p, aie1.OpndPtr)}}
		add(o)
		o.src = nil
	}
	add(&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{{r: dst}}, uses: []vopnd{{r: dst, kind: aie1.OpndPtr}, {r: amt, kind: aie1.OpndMod}}})
	return nil
}

// counterUse is an enclosing loop's counter and whether code in a nested loop reads it (it
// must then be materialized: the nested loop's addresses computed from it, as in
// A + (z * colA + i) * size in a loop nest).
type counterUse struct {
	v    *kernel.Var
	used bool
}

// markIndexCounter marks v as read when it is the counter of the current or an enclosing
// loop (a run-time load or store index computed from it).
func (l *lowerer) markIndexCounter(v *kernel.Var) {
	if l.curLoop != nil && l.curLoop.src.Var == v {
		l.counterUsed = true
	}
	for _, c := range l.outerCounters {
		if c.v == v {
			c.used = true
		}
	}
}

// markOuterCounters marks the enclosing loops' counters that instruction s reads.
func (l *lowerer) markOuterCounters(s *kernel.Instr) {
	if s.Op == kernel.OpLoad || s.Op == kernel.OpStore {
		return // an index: induction pointers (as for the innermost counter)
	}
	for _, a := range s.Args {
		if a.Var == nil {
			continue
		}
		for _, c := range l.outerCounters {
			if c.v == a.Var {
				c.used = true
			}
		}
	}
}

var (
	mv1Alts = []uint16{SlotMask(aie1.SlotMV1)}
	mvAny   = []uint16{SlotMask(aie1.SlotMV0), SlotMask(aie1.SlotMV1)}
	// The 32-bit stream moves come in two encodings each ([Instr] II_SS2SCL / II_SCL2MS
	// instructions, their formats in [Fmt]): a stream word into a scalar register as
	// MV_SSA2SCL ("mov0", AIE_mv_ssa2scl, an AIE_mv0_base: the MV0 slot) or MV_SSB2SCL
	// ("mov1", AIE_mv_ssb2scl, an AIE_mv1ssb_base: the MV1 slot's stream sub-slot), and a
	// register onto a stream as MV_SCL2MSA ("movs", AIE_mv_scl2msa, an AIE_st_base: the ST
	// slot) or MV_SCL2MSB ("mov1", AIE_mv_scl2msb, an AIE_mv1_base: the MV1 slot). A read and
	// a write can thus share a bundle (mov0 + mov1, or mov1 + movs), as can two reads (of the
	// two input ports); [Sched]'s composite format I128_..._MV0_MV1SSB_... holds both reads.
	ssAlts = []uint16{SlotMask(aie1.SlotMV1), SlotMask(aie1.SlotMV0)}
	msAlts = []uint16{SlotMask(aie1.SlotMV1), SlotMask(aie1.SlotST)}
)

// lowerADF lowers the ops ADF kernels add; it reports false for an op it does not know.
func (l *lowerer) lowerADF(cur *region, in *kernel.Instr, dst *vreg, add func(*vop), argReg func(int) (*vreg, error)) (bool, error) {
	uses := func(kind aie1.OperandKind, idx ...int) ([]vopnd, error) {
		var us []vopnd
		for _, i := range idx {
			if in.Args[i].Var == nil {
				continue // an immediate: encoded in the instruction
			}
			if _, c := l.consts[in.Args[i].Var]; c {
				continue
			}
			r, err := argReg(i)
			if err != nil {
				return nil, err
			}
			us = append(us, vopnd{r: r, kind: kind})
		}
		return us, nil
	}
	op := in.Op
	switch {
	case op.IsFPLane():
		// fpadd/fpsub/fpmax/fpmin are fpmac_conf on the floating-point vector unit
		// (intrinsics reference, "Advanced Float Vector Arithmetic Operations"): the VFPMAC
		// itinerary, the first operand in the accumulator's place
		acc, err := uses(aie1.OpndAcc, 0)
		if err != nil {
			return true, err
		}
		x, err := uses(aie1.OpndVecX, 1, 2)
		if err != nil {
			return true, err
		}
		add(&vop{name: op.String(), alts: vecAlts, itin: &aie1.ItinVFMAC, defs: []vopnd{l.def(dst)}, uses: append(acc, x...)})
	case op == kernel.OpUnpack:
		// 8-bit lanes widened to 16 bits: [Sched] has no itinerary of its own for it; sumac
		// issues it as a lane permutation through the permute network on the vector slot,
		// as broadcast (II_VSEL)
		x, err := uses(aie1.OpndVecX, 0)
		if err != nil {
			return true, err
		}
		add(&vop{name: "vunpack", alts: vecAlts, itin: &aie1.ItinVSEL, defs: []vopnd{l.def(dst)}, uses: x})
	case op == kernel.OpFPShuffle:
		// a lane selection on the floating-point vector unit (intrinsics reference, "Simple
		// Float Vector Lane Selection", with fpsel, the fpmac_conf wrappers): the VFPMAC
		// itinerary with the buffer in the X place and xstart a register; xoffs is encoded
		if _, ok := l.immOf(in.Args[2]); !ok {
			return true, posErr(in, fmt.Errorf("fpshuffle: xoffs must be a compile-time constant for the AIE1 backend"))
		}
		x, err := uses(aie1.OpndVecX, 0)
		if err != nil {
			return true, err
		}
		xs, err := uses(aie1.OpndScalar, 1)
		if err != nil {
			return true, err
		}
		add(&vop{name: op.String(), alts: vecAlts, itin: &aie1.ItinVFMAC, defs: []vopnd{l.def(dst)}, uses: append(x, xs...)})
	case op == kernel.OpVMax || op == kernel.OpVMin:
		// integer max/min go through the pre-adder (II_VCMP); float ones are fpmax/fpmin
		us, err := uses(aie1.OpndVecX, 0, 1)
		if err != nil {
			return true, err
		}
		itin := &aie1.ItinVCMP
		if in.Args[0].Type().Elem == kernel.Float32 {
			itin = &aie1.ItinVFMAC
		}
		add(&vop{name: map[kernel.Op]string{kernel.OpVMax: "vmax", kernel.OpVMin: "vmin"}[op], alts: vecAlts, itin: itin, defs: []vopnd{l.def(dst)}, uses: us})
	case op == kernel.OpBroadcast:
		// a scalar into every lane: a shuffle through the permute network (API
		// "broadcast.hpp": shuffle8/16/32), II_VSEL
		us, err := uses(aie1.OpndScalar, 0)
		if err != nil {
			return true, err
		}
		add(&vop{name: "vbcst", alts: vecAlts, itin: &aie1.ItinVSEL, defs: []vopnd{l.def(dst)}, uses: us, imm: immOrZero(in.Args[0])})
	case op == kernel.OpSelect:
		if !in.Dst.Type.IsScalar() && !in.Dst.Type.IsPointer() {
			return true, posErr(in, fmt.Errorf("a select of %v is not supported by the AIE1 backend", in.Dst.Type))
		}
		// ite_nez / ite_eqz on the ALU (II_ALU)
		us, err := uses(aie1.OpndScalar, 0, 1, 2)
		if err != nil {
			return true, err
		}
		add(&vop{name: "ite", alts: aluAlts, itin: &aie1.ItinALU, defs: []vopnd{l.def(dst)}, uses: us})
	case op == kernel.OpCycles:
		// mov r, the cycle counter (a special-register move, II_MOV)
		add(&vop{name: "mov.cycles", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}})
	case op == kernel.OpBarrier:
		// no instruction: the region boundary keeps the order (lowerBody)
	case op == kernel.OpWinPtr:
		w, err := argReg(0)
		if err != nil {
			return true, err
		}
		add(&vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(dst)}, uses: []vopnd{{r: w, kind: aie1.OpndPtr}}})
	case op == kernel.OpStreamRead:
		// a stream word into a register: II_SS2SCL, on MV0 or MV1 (ssAlts); wider reads
		// (128-bit vectors, cascades) have no instruction in [Instr] and stay on MV1
		alts := mv1Alts
		if in.Dst.Type.IsScalar() {
			alts = ssAlts
		}
		add(&vop{name: "mov.ss", alts: alts, itin: &aie1.ItinSS2SCL, defs: []vopnd{l.def(dst)}, stream: in.Args[0].Var.Name})
	case op == kernel.OpStreamWrite:
		us, err := uses(aie1.OpndStoreData, 1)
		if err != nil {
			return true, err
		}
		// a value known at compile time (an immediate, or a constant variable the lowering
		// folds into its users) is encoded in the move: the bits the value has in the written
		// type (an int constant written to an output_stream<float> is the float's bits)
		var imm int64
		if len(us) == 0 {
			a := in.Args[1]
			if c, ok := l.consts[a.Var]; ok && a.Var != nil {
				a = kernel.Imm(c)
			}
			imm, _ = movImm(a, in.Args[1].Type())
		}
		// II_SCL2MS on MV1 or ST (msAlts) for a 32-bit word; wider writes stay on MV1
		alts := mv1Alts
		if in.Args[1].Type().IsScalar() {
			alts = msAlts
		}
		add(&vop{name: "mov.ms", alts: alts, itin: &aie1.ItinSCL2MS, uses: us, imm: imm, stream: in.Args[0].Var.Name})
	default:
		return false, nil
	}
	return true, nil
}

func immOrZero(o kernel.Operand) int64 {
	if o.IsIntImm() {
		return o.Imm
	}
	return 0
}

// streamEdges keeps the ops on one stream in program order (and, in a loop, an iteration's
// after the previous one's): a stream is a queue.
func streamEdges(ops []*vop, carried bool) []Edge {
	var edges []Edge
	for i, a := range ops {
		if a.stream == "" {
			continue
		}
		for j := i + 1; j < len(ops); j++ {
			if ops[j].stream == a.stream {
				edges = append(edges, Edge{i, j, 1, 0})
				if carried {
					edges = append(edges, Edge{j, i, 1, 1})
				}
			}
		}
		if carried {
			edges = append(edges, Edge{i, i, 1, 1})
		}
	}
	return edges
}

// streamReady is the first cycle a stream op may issue after the earlier ops on its stream.
func (c *compiler) streamReady(o *vop) int {
	if o.stream == "" || c.streams == nil {
		return 0
	}
	if t, ok := c.streams[o.stream]; ok {
		return t + 1
	}
	return 0
}

func (c *compiler) streamCommit(o *vop, t int) {
	if o.stream == "" {
		return
	}
	if c.streams == nil {
		c.streams = map[string]int{}
	}
	if prev, ok := c.streams[o.stream]; !ok || t > prev {
		c.streams[o.stream] = t
	}
}

// immReg puts an immediate operand into a fresh scalar register (a long-immediate move) for
// an instruction that takes a register there.
func (l *lowerer) immReg(in *kernel.Instr, a kernel.Operand, add func(*vop)) (*vreg, error) {
	v := a.Imm
	if a.IsFloat {
		v = int64(math.Float32bits(a.F))
	}
	r := l.newReg(fmt.Sprintf("imm%d", len(l.all)), FileScalar, 32)
	add(&vop{name: "mov", alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{l.def(r)}, imm: v})
	return r, nil
}

// macOperandCopies gives a MAC's X and Z buffers registers of their own classes: a value used
// as both (aie::mul(v, v)), or as X here and Z elsewhere, is copied (a vmov) for the use that
// would need the other class, as no register is in both.
func (l *lowerer) macOperandCopies(x, z *vreg, add func(*vop)) (*vreg, *vreg) {
	cp := func(r *vreg) *vreg {
		c := l.newReg(r.name+"_copy", r.file, r.bits)
		o := &vop{name: "vmov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{l.def(c)}, uses: []vopnd{l.use(r, aie1.OpndVecX)}}
		add(o)
		o.src = nil // a plain copy, not the MAC
		return c
	}
	if x.needZ {
		x = cp(x)
	}
	if z == x || z.needX {
		z = cp(z)
	}
	return x, z
}

// zPlacement reports whether a 256-bit vector placement is wc0 or wc1 (units 8..11), the Z
// buffers.
func zPlacement(pl []int) bool { return len(pl) == 2 && pl[0] >= 8 && pl[0] <= 11 }

// hasFPMAC reports floating-point MACs among ops: their dependent MACs must be
// FPAccChainCycles apart, so chains into different accumulators are kept interleaved as the
// source writes them (clusterMACs would put each chain's MACs together, and the two Z buffers
// would then serialize the chains).
func hasFPMAC(ops []*vop) bool {
	for _, o := range ops {
		if o.itin == &aie1.ItinVFMAC && o.macs > 0 {
			return true
		}
	}
	return false
}

// inlineTrivialLoops replaces the loops that run once by their body with the counter a
// constant, and drops those that never run, as a compiler does: a loop of one iteration costs a
// hardware loop's setup and a drained schedule for nothing (the loop nests of an
// aie::mmul blocking, `for (j = 0; j < colB; j++)` with colB = 1). The counter keeps its
// final value when code outside the loop reads it.
func (l *lowerer) inlineTrivialLoops(body []kernel.Stmt) []kernel.Stmt {
	var out []kernel.Stmt
	changed := false
	for _, st := range body {
		lp, ok := st.(*kernel.Loop)
		trip, known := int64(0), false
		if ok {
			trip, known = lp.TripCount()
		}
		if !ok || !known || trip > 1 || lp.Var == nil || !lp.Start.IsIntImm() || !lp.Step.IsIntImm() ||
			trip == 1 && indexedAccess(lp.Body) {
			// a one-trip loop whose loads or stores index through computed values stays a
			// loop: its addresses are affine in the counter there, while inlined they would
			// be temporaries the lowering does not fold (seed 004's kernel at cib = 16)
			out = append(out, st)
			continue
		}
		changed = true
		if trip == 1 {
			out = append(out, substVar(lp.Body, lp.Var, lp.Start.Imm)...)
		}
		if l.readOutside(lp) {
			final := lp.Start.Imm + trip*lp.Step.Imm
			out = append(out, &kernel.Instr{Op: kernel.OpMov, Dst: lp.Var, Args: []kernel.Operand{kernel.Imm(final)}, Pos: lp.Pos})
		}
	}
	if !changed {
		return body
	}
	return l.inlineTrivialLoops(out)
}

// indexedAccess reports whether a loop body loads or stores through an index that is not an
// immediate (nested loops included).
func indexedAccess(body []kernel.Stmt) bool {
	found := false
	kernel.Walk(body, func(st kernel.Stmt, _ int) {
		if in, ok := st.(*kernel.Instr); ok && (in.Op == kernel.OpLoad || in.Op == kernel.OpStore) && len(in.Args) > 1 && !in.Args[1].IsIntImm() {
			found = true
		}
	})
	return found
}

// readOutside reports whether the kernel reads loop lp's counter anywhere but inside a loop
// over that counter.
func (l *lowerer) readOutside(lp *kernel.Loop) bool {
	v := lp.Var
	var walk func(body []kernel.Stmt, in bool) bool
	walk = func(body []kernel.Stmt, in bool) bool {
		reads := func(o kernel.Operand) bool { return !in && o.Var == v }
		for _, st := range body {
			switch s := st.(type) {
			case *kernel.Instr:
				for _, a := range s.Args {
					if reads(a) {
						return true
					}
				}
			case *kernel.Loop:
				if reads(s.Start) || reads(s.Limit) || reads(s.Step) || walk(s.Body, in || s.Var == v) {
					return true
				}
			case *kernel.If:
				if reads(s.Cond) || walk(s.Then, in) || walk(s.Else, in) {
					return true
				}
			}
		}
		return false
	}
	return walk(l.k.Body, false)
}

// substVar copies statements with variable v replaced by the constant c (the originals stay
// as they are: the kernel is shared).
func substVar(body []kernel.Stmt, v *kernel.Var, c int64) []kernel.Stmt {
	sub := func(o kernel.Operand) kernel.Operand {
		if o.Var == v {
			return kernel.Imm(c)
		}
		return o
	}
	var out []kernel.Stmt
	for _, st := range body {
		switch s := st.(type) {
		case *kernel.Instr:
			n := *s
			n.Args = make([]kernel.Operand, len(s.Args))
			for i, a := range s.Args {
				n.Args[i] = sub(a)
			}
			out = append(out, &n)
		case *kernel.Loop:
			n := *s
			n.Start, n.Limit, n.Step = sub(s.Start), sub(s.Limit), sub(s.Step)
			n.Body = substVar(s.Body, v, c)
			out = append(out, &n)
		case *kernel.If:
			n := *s
			n.Cond = sub(s.Cond)
			n.Then, n.Else = substVar(s.Then, v, c), substVar(s.Else, v, c)
			out = append(out, &n)
		default:
			out = append(out, st)
		}
	}
	return out
}

// checkFloatCompares rejects scalar float compares the timing model cannot cost. The AIE
// intrinsics guide ("Scalar Operations") says scalar float add, subtract, multiply and compare
// are softfloat library calls by default (or one-lane vector FP operations with
// AIE_OPTION_SCALAR_FLOAT_ON_VECTOR), neither of which sumac models; UG1079 "Floating-Point
// Operations" lists float minimum and maximum among the scalar unit's hardware. So a float
// compare is accepted only where it picks the larger or smaller of its own two operands
// (c = a > b; d = c ? a : b, every use of c such a select), costed as the compare and the
// select (two ALU operations), and rejected with a clear error elsewhere.
func checkFloatCompares(k *kernel.Kernel) error {
	cmps := map[*kernel.Var]*kernel.Instr{}
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		in, ok := s.(*kernel.Instr)
		if !ok || !in.Op.IsCompare() || in.Dst == nil {
			return
		}
		for _, a := range in.Args {
			if a.IsFloat || a.Var != nil && a.Var.Type.IsScalar() && a.Var.Type.Elem == kernel.Float32 {
				cmps[in.Dst] = in
				return
			}
		}
	})
	if len(cmps) == 0 {
		return nil
	}
	same := func(x, y kernel.Operand) bool {
		return x.Var == y.Var && x.Imm == y.Imm && x.IsFloat == y.IsFloat && x.F == y.F
	}
	var bad *kernel.Instr
	fail := func(v *kernel.Var) {
		if c := cmps[v]; c != nil && bad == nil {
			bad = c
		}
	}
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		switch s := s.(type) {
		case *kernel.Instr:
			for i, a := range s.Args {
				c := cmps[a.Var]
				if a.Var == nil || c == nil {
					continue
				}
				minmax := s.Op == kernel.OpSelect && i == 0 &&
					(same(s.Args[1], c.Args[0]) && same(s.Args[2], c.Args[1]) || same(s.Args[1], c.Args[1]) && same(s.Args[2], c.Args[0]))
				if !minmax {
					fail(a.Var)
				}
			}
		case *kernel.If:
			fail(s.Cond.Var)
		case *kernel.Loop:
			fail(s.Limit.Var)
		}
	})
	if bad != nil {
		return fmt.Errorf("%v: scalar float compare (%v) is a softfloat library routine on AIE1 by default (AIE intrinsics guide \"Scalar Operations\"), which the timing model does not cost; only a select of the larger or smaller of its two operands is (UG1079: float min/max are scalar-unit hardware)", bad.Pos, bad.Op)
	}
	return nil
}
