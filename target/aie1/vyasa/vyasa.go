// Package vyasa generates AIE1 kernels for CONV2D the way seed 000's compiler does: the
// convolution and a schedule become Triplet IR (package triplet), reuse graphs turn vector
// loads into aligned register loads, 2D fusion packs the 1D MACs into the datapath's columns
// under the shuffle-network rules, and this package lowers the fused operations to the AIE1
// kernel IR (package target/aie1/kernel): pointer loads interleaved with the MACs that use them,
// software-pipelined innermost loop annotated with its exact trip count.
package vyasa

import (
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/compiler/layout"
	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

// Datapath describes how one operand type maps onto the AIE1 MAC unit.
type Datapath struct {
	DType    op.DType
	Elem     kernel.Elem
	Shape    sched.Shape
	Sel      shuffle.Kind
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
		d = Datapath{DType: t.A, Elem: kernel.Int16, Sel: shuffle.Sel16, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16)}
		shapeX = "int16"
		if t.Acc != op.Acc48 {
			return d, fmt.Errorf("aie1 int16 MACs accumulate in acc48, spec asks for %v", t.Acc)
		}
	case op.Int8:
		// 8-bit mac16, 16 lanes x 8 columns, acc48 (UG1079 "MAC on 8x8 bits"); the result is
		// narrowed with bsrs (v16acc48 -> v16int8)
		d = Datapath{DType: t.A, Elem: kernel.Int8, Sel: shuffle.Sel8, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16)}
		shapeX = "int8"
		if t.Acc != op.Acc48 {
			return d, fmt.Errorf("aie1 8-bit MACs accumulate in acc48, spec asks for %v", t.Acc)
		}
	case op.UInt8:
		// the same 8-bit mac16 on unsigned bytes (UG1079 "MAC on 8x8 bits": v128uint8 x
		// v32uint8), narrowed with ubsrs (v16acc48 -> v16uint8)
		d = Datapath{DType: t.A, Elem: kernel.UInt8, Sel: shuffle.Sel8, Mul: kernel.OpMul16, Mac: kernel.OpMac16, Acc: kernel.AccOf(kernel.Acc48, 16)}
		shapeX = "uint8"
		if t.Acc != op.Acc48 {
			return d, fmt.Errorf("aie1 8-bit MACs accumulate in acc48, spec asks for %v", t.Acc)
		}
	case op.Int32:
		d = Datapath{DType: t.A, Elem: kernel.Int32, Sel: shuffle.Sel32, Mul: kernel.OpLMul8, Mac: kernel.OpLMac8, Acc: kernel.AccOf(kernel.Acc80, 8)}
		shapeX = "int32"
		if t.Acc != op.Acc80 {
			return d, fmt.Errorf("aie1 int32 MACs accumulate in acc80, spec asks for %v", t.Acc)
		}
	case op.FP32:
		d = Datapath{DType: t.A, Elem: kernel.Float32, Sel: shuffle.Sel32, Mul: kernel.OpFPMul, Mac: kernel.OpFPMac, Acc: kernel.VecOf(kernel.Float32, 8)}
		shapeX = "float"
		if t.Acc != op.AccF32 || t.Out != op.FP32 {
			return d, fmt.Errorf("aie1 fpmac accumulates and stores fp32, spec asks for acc=%v out=%v", t.Acc, t.Out)
		}
	default:
		return d, fmt.Errorf("aie1 conv2d: %v operands are not supported (int8, uint8, int16, int32, fp32)", t.A)
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

// Middle is what the target-neutral middle (package triplet) asks of this datapath: widths
// and the shuffle network (package shuffle).
func (d Datapath) Middle() triplet.Datapath { return shuffle.Datapath(d.Sel, d.Shape) }

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
	Flat     bool // outer loops unrolled into straight-line code

	interpret bool // Verify also runs the kernel IR on the interpreter
}

// Generate compiles a convolution with a schedule.
func Generate(spec *op.Spec, s sched.Schedule) (*Program, error) { return GenerateOpt(spec, s, s.Flat) }

// GenerateOpt is Generate; flatten unrolls the loops around the software-pipelined one into
// straight-line code (one copy of the pipelined loop per outer iteration).
func GenerateOpt(spec *op.Spec, s sched.Schedule, flatten bool) (*Program, error) {
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
	mid := d.Middle()
	plan, err := triplet.NewPlan(body, mid)
	if err != nil {
		return nil, err
	}
	fr, err := triplet.Fuse(plan, mid)
	if err != nil {
		return nil, err
	}
	p := &Program{Spec: spec, Sched: s, Datapath: d, Fused: fr, Maps: plan.Maps, Elems: map[string]int{}, interpret: true}
	if err := p.sizes(); err != nil {
		return nil, err
	}
	p.Flat = flatten
	if err := p.lower(flatten); err != nil {
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

// gen holds the state of lowering one program.
type gen struct {
	p       *Program
	k       *kernel.Kernel
	loadT   kernel.Type                     // one 256-bit load
	pool    map[int][]*kernel.Var           // X register variables by lane count
	owner   map[*kernel.Var]*triplet.Buffer // the buffer an X variable holds
	next    map[int]int                     // round-robin position in each pool
	cur     map[string]*kernel.Var          // the pointer of each tensor at the current loop level
	loops   []string
	flatten bool
}

// lower emits the kernel IR: pointer parameters in, w, out; one pointer per tensor and loop
// level, advanced at the end of each iteration; the software-pipelined innermost loop with
// its exact trip count; with flatten, the outer loops are unrolled into straight-line copies
// of the innermost loop (for back ends without nested loops; bounded by program memory).
func (p *Program) lower(flatten bool) error {
	d := p.Datapath
	plan := p.Fused.Plan
	s := p.Sched
	k := kernel.New("vyasa_conv2d")
	b := kernel.NewBuilder(k)
	g := &gen{p: p, k: k, loadT: kernel.VecOf(d.Elem, 256/d.Elem.Bits()), next: map[int]int{},
		cur: map[string]*kernel.Var{}, flatten: flatten}
	ptrT := kernel.PtrTo(d.Elem, 1)
	for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
		v := b.Param(paramName[t], ptrT)
		v.Restrict = true
		g.cur[t] = v
	}
	// X registers are a small pool of variables (two 512-bit, or one 1024-bit and one
	// 512-bit: the 2048-bit register file less room for Z operands), filled part by part with
	// upd_w (a load folded into the sub-register write, as seed 001 Fig. 4 does); they start
	// undefined (no code). A buffer evicted from the pool is loaded again when next used.
	g.pool = map[int][]*kernel.Var{}
	g.owner = map[*kernel.Var]*triplet.Buffer{}
	sizes := map[int]bool{}
	for _, xb := range p.Fused.XBufs {
		sizes[xLanes(g.loadT.Lanes, len(xb.Starts))] = true
	}
	for _, n := range []int{2 * g.loadT.Lanes, 4 * g.loadT.Lanes} {
		if !sizes[n] {
			continue
		}
		count := 2
		if n == 4*g.loadT.Lanes || len(sizes) == 2 {
			count = 1
		}
		for i := 0; i < count; i++ {
			v := b.Decl(fmt.Sprintf("x%d_%d", n*d.Elem.Bits(), i), kernel.VecOf(d.Elem, n))
			b.Set(v, kernel.OpUndef)
			g.pool[n] = append(g.pool[n], v)
		}
	}
	// Loop nest: n (if any), then the schedule's order; loops of one iteration are left out.
	order := s.Order
	if plan.Body.Grouped {
		order = "g" + order
	}
	if p.Spec.Conv.N > 1 {
		order = "n" + order
	}
	if s.CB > 0 {
		order += "c" // the reduction loop, innermost
	}
	for _, v := range order {
		if plan.Trips[string(v)] > 1 {
			g.loops = append(g.loops, string(v))
		}
	}
	if err := g.level(b, 0); err != nil {
		return err
	}
	if err := b.Err(); err != nil {
		return fmt.Errorf("internal: generated kernel does not type-check: %v", err)
	}
	p.Kernel = k
	p.Loops = g.loops
	iters := int64(1)
	for _, v := range g.loops {
		iters *= int64(plan.Trips[v])
	}
	p.VectorMACs = int64(len(p.Fused.Ops)) * iters
	p.IssuedMACs = p.VectorMACs * int64(d.Shape.Lanes*d.Shape.Cols)
	return nil
}

// xLanes is the lane count of an X register of parts 256-bit parts: at least 512 bits (the
// smallest X buffer of the MAC intrinsics), 3 parts use the 1024-bit view.
func xLanes(loadLanes, parts int) int {
	switch {
	case parts <= 2:
		return 2 * loadLanes
	default:
		return 4 * loadLanes
	}
}

var ptrPrefix = map[string]string{triplet.In: "pi", triplet.W: "pw", triplet.Out: "po"}

// level emits loop depth (and, inside, the deeper ones).
func (g *gen) level(b *kernel.Builder, depth int) error {
	p := g.p
	plan := p.Fused.Plan
	if len(g.loops) == 0 {
		return g.body(b, nil, nil)
	}
	v := g.loops[depth]
	innermost := depth == len(g.loops)-1
	ptrT := kernel.PtrTo(p.Datapath.Elem, 1)
	ptrs := map[string]*kernel.Var{}
	saved := map[string]*kernel.Var{}
	rewind := v == "c" // the reduction loop moves the enclosing pointers and moves them back
	for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
		if plan.Strides[t][v] == 0 {
			continue
		}
		if rewind {
			// no pointer of its own (pointer registers are few; a reduction loop is a
			// fourth loop level)
			ptrs[t] = g.cur[t]
			continue
		}
		name := fmt.Sprintf("%s%d", ptrPrefix[t], depth+1)
		pv := g.k.Lookup(name)
		if pv == nil {
			pv = b.Decl(name, ptrT)
		}
		b.Mov(pv, kernel.V(g.cur[t]))
		ptrs[t], saved[t] = pv, g.cur[t]
		g.cur[t] = pv
	}
	defer func() {
		for t, pv := range saved {
			g.cur[t] = pv
		}
	}()
	trips := plan.Trips[v]
	incr := func(lb *kernel.Builder) {
		for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
			if pv, ok := ptrs[t]; ok {
				lb.Set(pv, kernel.OpPtrAdd, kernel.V(pv), kernel.Imm(int64(plan.Strides[t][v])))
			}
		}
	}
	if !innermost {
		if g.flatten {
			for it := 0; it < trips; it++ {
				if err := g.level(b, depth+1); err != nil {
					return err
				}
				if it+1 < trips {
					incr(b)
				}
			}
			return nil
		}
		_, lb := b.For(nil, kernel.Imm(0), kernel.Imm(int64(trips)), 1)
		if err := g.level(lb, depth+1); err != nil {
			return err
		}
		incr(lb)
		return nil
	}
	// The innermost loop is software pipelined; registers it does not advance are loaded
	// before it. A reduction loop (c) carries the output vectors' accumulators: zero before
	// it, narrowed and stored after it.
	var carried map[int]*kernel.Var
	if v == "c" {
		carried = map[int]*kernel.Var{}
		for u := range plan.Body.Updates {
			name := fmt.Sprintf("acc%d", u)
			a := g.k.Lookup(name)
			if a == nil {
				a = b.Decl(name, p.Datapath.Acc)
			}
			b.Set(a, kernel.OpNull)
			carried[u] = a
		}
	}
	pre := g.hoist(b, v)
	l, lb := b.For(nil, kernel.Imm(0), kernel.Imm(int64(trips)), 1)
	l.Pipelined = true // chess_prepare_for_pipelining
	l.HasRange, l.RangeMin, l.RangeMax = true, int64(trips), int64(trips)
	if err := g.body(lb, pre, carried); err != nil {
		return err
	}
	incr(lb)
	if rewind {
		for _, t := range []string{triplet.In, triplet.W, triplet.Out} {
			if pv, ok := ptrs[t]; ok {
				b.Set(pv, kernel.OpPtrAdd, kernel.V(pv), kernel.Imm(-int64(trips*plan.Strides[t][v])))
			}
		}
	}
	if carried != nil {
		record := p.SRSOrder == nil
		for u := range plan.Body.Updates {
			if record {
				p.SRSOrder = append(p.SRSOrder, u)
			}
			if err := g.store(b, u, carried[u]); err != nil {
				return err
			}
		}
	}
	return nil
}

// hoist loads, before the software-pipelined loop over v, the Z registers that do not depend
// on v (weights when x is vectorized), within a budget of 512 bits so that the pipelined body
// keeps registers for its own loads.
func (g *gen) hoist(b *kernel.Builder, v string) map[*triplet.Buffer]*kernel.Var {
	plan := g.p.Fused.Plan
	out := map[*triplet.Buffer]*kernel.Var{}
	budget := 512
	for _, buf := range g.p.Fused.ZBufs {
		if plan.Strides[buf.Tensor][v] != 0 || budget < 256 {
			continue
		}
		budget -= 256
		out[buf] = g.load(b, buf)
		g.p.Hoisted++
	}
	return out
}

// load emits a Z register's 256-bit load.
func (g *gen) load(b *kernel.Builder, buf *triplet.Buffer) *kernel.Var {
	return b.OpT(kernel.OpLoad, g.loadT, kernel.V(g.cur[buf.Tensor]), kernel.Imm(int64(buf.Starts[0])))
}

// fillX takes the next X variable of the pool (evicting its buffer from regs) and emits the
// buffer's loads, each folded into an upd_w of its part.
func (g *gen) fillX(b *kernel.Builder, buf *triplet.Buffer, regs map[*triplet.Buffer]*kernel.Var) *kernel.Var {
	n := xLanes(g.loadT.Lanes, len(buf.Starts))
	pool := g.pool[n]
	x := pool[g.next[n]%len(pool)]
	g.next[n]++
	if old := g.owner[x]; old != nil {
		delete(regs, old)
	}
	g.owner[x] = buf
	regs[buf] = x
	for i, s := range buf.Starts {
		if s == triplet.NoPart {
			continue
		}
		l := b.OpT(kernel.OpLoad, g.loadT, kernel.V(g.cur[buf.Tensor]), kernel.Imm(int64(s)))
		b.Set(x, kernel.OpUpdW, kernel.V(x), kernel.Imm(int64(i)), kernel.V(l))
	}
	return x
}

// body emits one iteration: for every fused operation in order, the loads of its registers
// (at their first use in the iteration), then the MAC; after the last MAC of an output vector
// its shift-round-saturate and store.
//
// With carried accumulators (the body of a reduction loop, sched.Schedule.CB) every MAC
// accumulates into the update's carried accumulator and nothing is narrowed.
func (g *gen) body(b *kernel.Builder, pre map[*triplet.Buffer]*kernel.Var, carried map[int]*kernel.Var) error {
	p := g.p
	d := p.Datapath
	ops := orderOps(p.Fused.Ops, p.Sched.Interleave)
	last := map[int]int{}
	for i, o := range ops {
		last[o.U] = i
	}
	for k := range g.owner {
		g.owner[k] = nil // registers do not survive into a new iteration's numbering
	}
	regs := map[*triplet.Buffer]*kernel.Var{}
	for k, v := range pre {
		regs[k] = v
	}
	acc := map[int]*kernel.Var{}
	record := p.SRSOrder == nil
	for i, o := range ops {
		xv, ok := regs[o.X]
		if !ok {
			xv = g.fillX(b, o.X, regs)
		}
		zv, ok := regs[o.Z]
		if !ok {
			zv = g.load(b, o.Z)
			regs[o.Z] = zv
		}
		prm := shuffle.Of(o.Params)
		args := kernel.MACArgs{
			XStart: kernel.Imm(prm.XStart), XOffs: kernel.Imm(prm.XOffs), XOffsHi: kernel.Imm(prm.XOffsHi),
			XSquare: kernel.Imm(prm.XSquare),
			ZStart:  kernel.Imm(prm.ZStart), ZOffs: kernel.Imm(prm.ZOffs), ZOffsHi: kernel.Imm(prm.ZOffsHi),
			ZStep: kernel.Imm(prm.ZStep),
		}
		if d.Sel == shuffle.Sel8 {
			args.XStep, args.ZSquare = kernel.Imm(prm.XStep), kernel.Imm(prm.ZSquare)
		}
		if carried != nil {
			// the reduction loop's body: accumulate into the carried accumulators
			b.MAC(carried[o.U], d.Mac, carried[o.U], xv, zv, args)
			continue
		}
		a, started := acc[o.U]
		if !started {
			a = g.k.NewTemp(d.Acc)
			b.MAC(a, d.Mul, nil, xv, zv, args)
			acc[o.U] = a
		} else {
			b.MAC(a, d.Mac, a, xv, zv, args)
		}
		if last[o.U] == i {
			if record {
				p.SRSOrder = append(p.SRSOrder, o.U)
			}
			if err := g.store(b, o.U, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// store narrows update u's accumulator (srs and its 8-bit forms; fp32 as is) and stores it.
func (g *gen) store(b *kernel.Builder, u int, a *kernel.Var) error {
	p := g.p
	plan := p.Fused.Plan
	offs := plan.Offsets(plan.Body.Updates[u])
	for l := 1; l < len(offs); l++ {
		if offs[l] != offs[0]+l {
			return fmt.Errorf("output layout %s: the lanes of %v are not contiguous", p.Sched.Out, plan.Body.Updates[u])
		}
	}
	vec := a
	shift := kernel.Imm(int64(p.Spec.Types.Shift))
	switch p.Datapath.Elem {
	case kernel.Float32:
	case kernel.Int8:
		vec = b.Op(kernel.OpBSRS, kernel.V(a), shift)
	case kernel.UInt8:
		vec = b.Op(kernel.OpUBSRS, kernel.V(a), shift)
	default:
		vec = b.Op(kernel.OpSRS, kernel.V(a), shift)
	}
	b.Emit(kernel.OpStore, nil, kernel.V(g.cur[triplet.Out]), kernel.Imm(int64(offs[0])), kernel.V(vec))
	return nil
}

// orderOps returns the fused operations in emission order: by output vector ("update", seed
// 000's order, each accumulator finished before the next starts) or by X register ("operand":
// every operation reading one register back to back, accumulators of the body live together).
func orderOps(ops []triplet.Fused, how string) []triplet.Fused {
	switch how {
	case sched.InterleaveOperand, sched.InterleaveTap:
	default:
		return ops
	}
	out := append([]triplet.Fused(nil), ops...)
	if how == sched.InterleaveTap {
		// filter tap by filter tap (the body's first member's row and tap): a tap's scalar
		// registers are live only while its operations run
		tap := func(o triplet.Fused) [2]int { return [2]int{o.Members[0].S, o.Members[0].R} }
		sort.SliceStable(out, func(i, j int) bool {
			a, b := tap(out[i]), tap(out[j])
			return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
		})
	}
	first := map[*triplet.Buffer]int{}
	for i, o := range out {
		if _, ok := first[o.X]; !ok {
			first[o.X] = i
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return first[out[i].X] < first[out[j].X] })
	return out
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

// OuterIterations is the number of times the innermost loop is entered (the product of the
// trip counts of the loops around it): the copies flat=1 makes of it.
func (p *Program) OuterIterations() int {
	n := 1
	for i, v := range p.Loops {
		if i < len(p.Loops)-1 {
			n *= p.Fused.Plan.Trips[v]
		}
	}
	return n
}

// Footprint returns the bytes of the kernel's three buffers and how many of them duplicate input
// data (the copies of an input duplicated along D beyond the first).
func (p *Program) Footprint() (bytes, dup int) {
	eb := p.Datapath.DType.Bits() / 8
	for _, n := range p.Elems {
		bytes += n * eb
	}
	if d := p.Sched.Dup; d > 1 {
		dup = p.Elems[triplet.In] * eb * (d - 1) / d
	}
	return bytes, dup
}

// Middle is the result of reuse analysis and fusion the kernel was lowered from.
func (p *Program) Middle() *triplet.Result { return p.Fused }

// LoopNest lists the emitted loops, outermost first.
func (p *Program) LoopNest() []string { return p.Loops }

// Name is the kernel's name.
func (p *Program) Name() string { return p.Kernel.Name }

// MACCounts returns the MAC intrinsic calls executed and the MACs they issue (lanes x columns
// each, padding columns included).
func (p *Program) MACCounts() (vector, issued int64) { return p.VectorMACs, p.IssuedMACs }
