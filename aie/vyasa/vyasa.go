// Package vyasa generates AIE1 kernels for CONV2D the way seed 000's compiler does: the
// convolution and a schedule become Triplet IR (package triplet), reuse graphs turn vector
// loads into aligned register loads, 2D fusion packs the 1D MACs into the datapath's columns
// under the shuffle-network rules, and this package lowers the fused operations to the AIE1
// kernel IR (package aie/kernel): pointer loads interleaved with the MACs that use them,
// software-pipelined innermost loop annotated with its exact trip count.
package vyasa

import (
	"fmt"

	"github.com/sumacdev/sumac/aie/kernel"
	"github.com/sumacdev/sumac/layout"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/sched"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/triplet"
)

// Datapath describes how one operand type maps onto the AIE1 MAC unit.
type Datapath struct {
	DType    op.DType
	Elem     kernel.Elem
	Shape    sched.Shape
	Sel      triplet.Kind
	Mul, Mac kernel.Op
	Acc      kernel.Type
	Peak     int // MACs per cycle (target/aie1)
}

// DatapathFor returns the datapath of a spec's types. Both operands must have the same type.
func DatapathFor(t op.Types) (Datapath, error) {
	if t.A != t.B {
		return Datapath{}, fmt.Errorf("aie1 conv2d: operands %v x %v: only equal operand types are supported", t.A, t.B)
	}
	var d Datapath
	var shapeX string
	switch t.A {
	case op.Int16:
		d = Datapath{DType: t.A, Elem: kernel.Int16, Sel: triplet.Sel16, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16)}
		shapeX = "int16"
		if t.Acc != op.Acc48 {
			return d, fmt.Errorf("aie1 int16 MACs accumulate in acc48, spec asks for %v", t.Acc)
		}
	case op.Int32:
		d = Datapath{DType: t.A, Elem: kernel.Int32, Sel: triplet.Sel32, Mul: kernel.OpLMul8, Mac: kernel.OpLMac8, Acc: kernel.AccOf(kernel.Acc80, 8)}
		shapeX = "int32"
		if t.Acc != op.Acc80 {
			return d, fmt.Errorf("aie1 int32 MACs accumulate in acc80, spec asks for %v", t.Acc)
		}
	case op.FP32:
		d = Datapath{DType: t.A, Elem: kernel.Float32, Sel: triplet.Sel32, Mul: kernel.OpFPMul, Mac: kernel.OpFPMac, Acc: kernel.VecOf(kernel.Float32, 8)}
		shapeX = "float"
		if t.Acc != op.AccF32 || t.Out != op.FP32 {
			return d, fmt.Errorf("aie1 fpmac accumulates and stores fp32, spec asks for acc=%v out=%v", t.Acc, t.Out)
		}
	default:
		return d, fmt.Errorf("aie1 conv2d: %v operands are not supported (int16, int32, fp32)", t.A)
	}
	if t.A.IsInt() && t.Out != t.A {
		return d, fmt.Errorf("aie1 conv2d: the output is narrowed back to the operand type %v (srs), spec asks for %v", t.A, t.Out)
	}
	for _, s := range aie1.MACShapes {
		if s.X == shapeX && s.Z == shapeX && (s.Cols > 1 || shapeX != "int16") && (shapeX != "int16" || s.Intrinsic == "mac16") {
			d.Shape = sched.Shape{Lanes: s.Lanes, Cols: s.Cols, ElemBits: t.A.Bits()}
			d.Peak = s.MACsPerCycle()
		}
	}
	if d.Shape.Lanes == 0 {
		return d, fmt.Errorf("aie1: no MAC shape for %v", t.A)
	}
	return d, nil
}

// Program is a generated kernel with what its caller needs to run it.
type Program struct {
	Spec     *op.Spec
	Sched    sched.Schedule
	Datapath Datapath
	Fused    *triplet.Result
	Kernel   *kernel.Kernel
	// Tensors: the layout map of each tensor (triplet.In, W, Out) and the number of elements
	// the kernel may touch (the layout's size, or more where an aligned load reads past it).
	Maps  map[string]*layout.Map
	Elems map[string]int
	// VectorMACs is the number of MAC intrinsic calls executed; IssuedMACs = VectorMACs x
	// lanes x columns (padding columns included).
	VectorMACs int64
	IssuedMACs int64
	Hoisted    int // register loads hoisted out of the software-pipelined loop
	// Loops are the emitted loops, outermost first (loops of one iteration are left out);
	// SRSOrder gives the update operand of each narrowing in one body, in program order.
	Loops    []string
	SRSOrder []int

	interpret bool // Verify also runs the kernel IR on the interpreter
}

// Generate compiles a convolution with a schedule.
func Generate(spec *op.Spec, s sched.Schedule) (*Program, error) {
	if spec.Conv == nil {
		return nil, fmt.Errorf("vyasa compiles conv2d, not %s", spec.Op())
	}
	d, err := DatapathFor(spec.Types)
	if err != nil {
		return nil, err
	}
	if d.Shape.Cols == 1 && s.Fusion != sched.FuseNone {
		return nil, fmt.Errorf("%v has one column: fusion %q does not apply", spec.Types.A, s.Fusion)
	}
	body, err := triplet.Build(spec.Conv, s, d.Shape)
	if err != nil {
		return nil, err
	}
	plan, err := triplet.NewPlan(body, d.Shape)
	if err != nil {
		return nil, err
	}
	fr, err := triplet.Fuse(plan, d.Sel)
	if err != nil {
		return nil, err
	}
	p := &Program{Spec: spec, Sched: s, Datapath: d, Fused: fr, Maps: plan.Maps, Elems: map[string]int{}, interpret: true}
	if err := p.sizes(); err != nil {
		return nil, err
	}
	if err := p.lower(); err != nil {
		return nil, err
	}
	return p, nil
}

// sizes computes how many elements of each tensor the kernel touches: the largest relative
// offset read or written in one iteration plus the pointer's largest advance.
func (p *Program) sizes() error {
	plan := p.Fused.Plan
	maxRel := map[string]int{}
	note := func(t string, hi int) { maxRel[t] = max(maxRel[t], hi) }
	for _, b := range append(append([]*triplet.Buffer(nil), p.Fused.XBufs...), p.Fused.ZBufs...) {
		for _, s := range b.Starts {
			if s != triplet.NoPart {
				note(b.Tensor, s+b.LoadElems-1)
			}
		}
	}
	for _, u := range plan.Body.Updates {
		for _, o := range plan.Offsets(u) {
			note(triplet.Out, o)
		}
	}
	for t, m := range p.Maps {
		adv := 0
		for v, st := range plan.Strides[t] {
			adv += st * (plan.Trips[v] - 1)
		}
		p.Elems[t] = max(m.Size(), maxRel[t]+adv+1)
	}
	return nil
}

// lower emits the kernel IR.
func (p *Program) lower() error {
	d := p.Datapath
	plan := p.Fused.Plan
	s := p.Sched
	k := kernel.New("vyasa_conv2d")
	b := kernel.NewBuilder(k)
	ptrT := kernel.PtrTo(d.Elem, 1)
	params := map[string]*kernel.Var{}
	for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
		v := b.Param(map[string]string{triplet.In: "in", triplet.W: "w", triplet.Out: "out"}[t], ptrT)
		v.Restrict = true
		params[t] = v
	}
	loadLanes := 256 / d.Elem.Bits()
	loadT := kernel.VecOf(d.Elem, loadLanes)
	xLanes := func(parts int) int { // the X buffer type: v32int16/v64int16, v16int32/v32int32
		n := loadLanes * max(parts, 2)
		if parts == 3 {
			n = loadLanes * 4
		}
		return n
	}
	undef256 := b.Decl("undef_w", loadT)
	b.Set(undef256, kernel.OpUndef)
	undefX := map[int]*kernel.Var{}
	for _, xb := range p.Fused.XBufs {
		n := xLanes(len(xb.Starts))
		if _, ok := undefX[n]; !ok && len(xb.Starts) == 1 {
			v := b.Decl(fmt.Sprintf("undef_x%d", n), kernel.VecOf(d.Elem, n))
			b.Set(v, kernel.OpUndef)
			undefX[n] = v
		}
	}
	// Loop nest: n (if any), then the schedule's order; loops of one iteration are omitted.
	order := s.Order
	if p.Spec.Conv.N > 1 {
		order = "n" + order
	}
	var loops []string
	for _, v := range order {
		if plan.Trips[string(v)] > 1 {
			loops = append(loops, string(v))
		}
	}
	sw := ""
	if n := len(loops); n > 0 && loops[n-1] == s.SW() {
		sw = loops[n-1]
	}
	cur := map[string]*kernel.Var{}
	for t, v := range params {
		cur[t] = v
	}
	level := 0
	var emitLevel func(b *kernel.Builder, depth int) error
	emitLevel = func(b *kernel.Builder, depth int) error {
		if depth == len(loops) {
			return p.body(b, cur, loadT, xLanes, undef256, undefX, "")
		}
		v := loops[depth]
		level++
		ptrs := map[string]*kernel.Var{}
		for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
			if plan.Strides[t][v] == 0 {
				continue
			}
			pv := b.Decl(fmt.Sprintf("p%s%d", map[string]string{triplet.In: "i", triplet.W: "w", triplet.Out: "o"}[t], level), ptrT)
			b.Mov(pv, kernel.V(cur[t]))
			ptrs[t] = pv
		}
		var hoisted func(b *kernel.Builder) (map[*triplet.Buffer]*kernel.Var, error)
		if depth == len(loops)-1 && v == sw {
			hoisted = func(b *kernel.Builder) (map[*triplet.Buffer]*kernel.Var, error) {
				return p.hoist(b, cur, v, loadT, xLanes, undef256, undefX)
			}
		}
		saved := map[string]*kernel.Var{}
		for t, pv := range ptrs {
			saved[t] = cur[t]
			cur[t] = pv
		}
		var pre map[*triplet.Buffer]*kernel.Var
		if hoisted != nil {
			var err error
			if pre, err = hoisted(b); err != nil {
				return err
			}
		}
		trips := plan.Trips[v]
		l, lb := b.For(nil, kernel.Imm(0), kernel.Imm(int64(trips)), 1)
		if v == sw {
			l.Pipelined = true // chess_prepare_for_pipelining
			l.HasRange, l.RangeMin, l.RangeMax = true, int64(trips), int64(trips)
		}
		var err error
		if depth+1 == len(loops) {
			err = p.bodyWith(lb, cur, loadT, xLanes, undef256, undefX, pre)
		} else {
			err = emitLevel(lb, depth+1)
		}
		if err != nil {
			return err
		}
		for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
			if pv, ok := ptrs[t]; ok {
				lb.Set(pv, kernel.OpPtrAdd, kernel.V(pv), kernel.Imm(int64(plan.Strides[t][v])))
			}
		}
		for t, pv := range saved {
			cur[t] = pv
		}
		return nil
	}
	if err := emitLevel(b, 0); err != nil {
		return err
	}
	if err := b.Err(); err != nil {
		return fmt.Errorf("internal: generated kernel does not type-check: %v", err)
	}
	p.Kernel = k
	p.Loops = loops
	iters := int64(1)
	for _, v := range loops {
		iters *= int64(plan.Trips[v])
	}
	p.VectorMACs = int64(len(p.Fused.Ops)) * iters
	p.IssuedMACs = p.VectorMACs * int64(d.Shape.Lanes*d.Shape.Cols)
	return nil
}

func (p *Program) body(b *kernel.Builder, cur map[string]*kernel.Var, loadT kernel.Type, xLanes func(int) int, undef256 *kernel.Var, undefX map[int]*kernel.Var, _ string) error {
	return p.bodyWith(b, cur, loadT, xLanes, undef256, undefX, nil)
}

// hoist loads, before the software-pipelined loop over v, the registers that do not depend on
// v (weights when x is vectorized and pipelined), within a budget of 512 bits so that the
// pipelined body keeps registers for its own loads.
func (p *Program) hoist(b *kernel.Builder, cur map[string]*kernel.Var, v string, loadT kernel.Type, xLanes func(int) int, undef256 *kernel.Var, undefX map[int]*kernel.Var) (map[*triplet.Buffer]*kernel.Var, error) {
	plan := p.Fused.Plan
	out := map[*triplet.Buffer]*kernel.Var{}
	budget := 512
	for si, set := range [][]*triplet.Buffer{p.Fused.ZBufs, p.Fused.XBufs} {
		for _, buf := range set {
			if plan.Strides[buf.Tensor][v] != 0 {
				continue
			}
			bits := len(buf.Starts) * 256
			if bits > budget {
				continue
			}
			budget -= bits
			out[buf] = p.loadBuffer(b, cur, buf, si == 1, loadT, xLanes, undef256, undefX)
			p.Hoisted++
		}
	}
	return out, nil
}

// loadBuffer emits the loads of a register: one 256-bit load for a Z register; for an X
// register its parts joined by concat (or placed into an undefined register with upd_w).
func (p *Program) loadBuffer(b *kernel.Builder, cur map[string]*kernel.Var, buf *triplet.Buffer, x bool, loadT kernel.Type, xLanes func(int) int, undef256 *kernel.Var, undefX map[int]*kernel.Var) *kernel.Var {
	ptr := cur[buf.Tensor]
	ld := func(start int) *kernel.Var {
		if start == triplet.NoPart {
			return undef256
		}
		return b.OpT(kernel.OpLoad, loadT, kernel.V(ptr), kernel.Imm(int64(start)))
	}
	if !x {
		return ld(buf.Starts[0])
	}
	n := xLanes(len(buf.Starts))
	xt := kernel.VecOf(p.Datapath.Elem, n)
	switch len(buf.Starts) {
	case 1:
		return b.Op(kernel.OpUpdW, kernel.V(undefX[n]), kernel.Imm(0), kernel.V(ld(buf.Starts[0])))
	case 2:
		return b.Op(kernel.OpConcat, kernel.V(ld(buf.Starts[0])), kernel.V(ld(buf.Starts[1])))
	default:
		var parts []kernel.Operand
		for i := 0; i < 4; i++ {
			if i < len(buf.Starts) {
				parts = append(parts, kernel.V(ld(buf.Starts[i])))
			} else {
				parts = append(parts, kernel.V(undef256))
			}
		}
		v := b.Op(kernel.OpConcat, parts...)
		_ = xt
		return v
	}
}

// bodyWith emits one iteration: for every fused operation in order, the loads of its registers
// (first use in the iteration), then the MAC; after the last MAC of an output vector its
// shift-round-saturate and store.
func (p *Program) bodyWith(b *kernel.Builder, cur map[string]*kernel.Var, loadT kernel.Type, xLanes func(int) int, undef256 *kernel.Var, undefX map[int]*kernel.Var, pre map[*triplet.Buffer]*kernel.Var) error {
	d := p.Datapath
	plan := p.Fused.Plan
	ops := p.Fused.Ops
	last := map[int]int{}
	for i, o := range ops {
		last[o.U] = i
	}
	regs := map[*triplet.Buffer]*kernel.Var{}
	for k, v := range pre {
		regs[k] = v
	}
	acc := map[int]*kernel.Var{}
	for i, o := range ops {
		xv, ok := regs[o.X]
		if !ok {
			xv = p.loadBuffer(b, cur, o.X, true, loadT, xLanes, undef256, undefX)
			regs[o.X] = xv
		}
		zv, ok := regs[o.Z]
		if !ok {
			zv = p.loadBuffer(b, cur, o.Z, false, loadT, xLanes, undef256, undefX)
			regs[o.Z] = zv
		}
		args := kernel.MACArgs{
			XStart: kernel.Imm(o.Params.XStart), XOffs: kernel.Imm(o.Params.XOffs), XOffsHi: kernel.Imm(o.Params.XOffsHi),
			XSquare: kernel.Imm(o.Params.XSquare),
			ZStart:  kernel.Imm(o.Params.ZStart), ZOffs: kernel.Imm(o.Params.ZOffs), ZOffsHi: kernel.Imm(o.Params.ZOffsHi),
			ZStep: kernel.Imm(o.Params.ZStep),
		}
		a, started := acc[o.U]
		if !started {
			a = b.Kernel().NewTemp(d.Acc)
			b.MAC(a, d.Mul, nil, xv, zv, args)
			acc[o.U] = a
		} else {
			b.MAC(a, d.Mac, a, xv, zv, args)
		}
		if last[o.U] == i {
			if pre == nil || len(p.SRSOrder) < len(plan.Body.Updates) {
				p.SRSOrder = append(p.SRSOrder, o.U)
			}
			offs := plan.Offsets(plan.Body.Updates[o.U])
			for l := 1; l < len(offs); l++ {
				if offs[l] != offs[0]+l {
					return fmt.Errorf("output layout %s: the lanes of %v are not contiguous", p.Sched.Out, plan.Body.Updates[o.U])
				}
			}
			var vec *kernel.Var
			if d.Elem == kernel.Float32 {
				vec = a
			} else {
				vec = b.Op(kernel.OpSRS, kernel.V(a), kernel.Imm(int64(p.Spec.Types.Shift)))
			}
			b.Emit(kernel.OpStore, nil, kernel.V(cur[triplet.Out]), kernel.Imm(int64(offs[0])), kernel.V(vec))
		}
	}
	return nil
}

// DefaultSchedule is the schedule `sumac compile` uses when none is given: seed 000's running
// example (Fig. 3b) generalized - x vectorized when the output width is a multiple of the
// lanes (else k), filter loops unrolled, no unroll-and-jam, adjacent taps (int16) or channels
// (k vectorized) in the columns.
func DefaultSchedule(spec *op.Spec) (sched.Schedule, error) {
	if spec.Conv == nil {
		return sched.Schedule{}, fmt.Errorf("vyasa compiles conv2d, not %s", spec.Op())
	}
	d, err := DatapathFor(spec.Types)
	if err != nil {
		return sched.Schedule{}, err
	}
	c := spec.Conv
	vec, order := "x", "kyx"
	if c.X%d.Shape.Lanes != 0 {
		vec, order = "k", "yxk"
	}
	f := sched.FuseNone
	if d.Shape.Cols > 1 {
		f = sched.FuseTaps
		if vec == "k" {
			f = sched.FuseChannels
		}
	}
	o, w, in, padR := sched.Layouts(c, vec, f, d.Shape)
	return sched.Schedule{Vec: vec, Order: order, UX: 1, UY: 1, UK: 1, Fusion: f, Out: o, W: w, In: in, PadR: padR}, nil
}

// Pruning bounds of the schedule space (seed 000 section III-E, strategy 2): at most
// MaxVectors output vectors per loop body (unroll-and-jam product) and MaxBodyMACs vector MACs
// in it, so that body, prologue and epilogue fit the 16 KB program memory (target/aie1
// ProgMemInstrs = 1024 instructions of 128 bits; a pipelined body appears about twice).
const (
	MaxVectors  = 8
	MaxBodyMACs = aie1.ProgMemInstrs / 2
)
