package gemm

import (
	"fmt"

	"github.com/sumacdev/sumac/compiler/sched"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"github.com/sumacdev/sumac/target/aie1/shuffle"
)

// Program is a generated contraction kernel with what its caller needs to run it.
type Program struct {
	Spec  *op.Spec
	Prob  *Problem
	Sched sched.GEMM // with the register orders and layouts resolved
	Plan  *Plan
	// Lay holds the layouts of "A", "B" and "C".
	Lay    map[string]*Layout
	Kernel *kernel.Kernel
	// TM, TN are the tile counts, Iters the trip count of the pipelined loop.
	TM, TN, Iters int
	// Loops are the emitted loops, outermost first (loops of one iteration left out).
	Loops      []string
	VectorMACs int64
	IssuedMACs int64

	xAcc, zAcc [][]access // per register, per 256-bit part
	cAcc       []access   // per accumulator
	strides    map[string][3]int
}

// Operand names of the kernel's buffer parameters.
const (
	ParamA = "A"
	ParamB = "B"
	ParamC = "C"
)

// Generate compiles a gemm or einsum spec with a schedule.
func Generate(spec *op.Spec, s sched.GEMM) (*Program, error) {
	prob, err := NewProblem(spec)
	if err != nil {
		return nil, err
	}
	d, err := DatapathFor(spec.Types)
	if err != nil {
		return nil, err
	}
	plan, err := NewPlan(s, d, prob.C)
	if err != nil {
		return nil, err
	}
	p := &Program{Spec: spec, Prob: prob, Sched: plan.S, Plan: plan}
	p.TM, p.TN, p.Iters = p.Sched.Tiles(prob.C)
	if err := p.layouts(); err != nil {
		return nil, err
	}
	if err := p.lower(); err != nil {
		return nil, err
	}
	return p, nil
}

// operands: which of A and B is in the X register.
func (p *Program) operands() (x, z string) {
	if p.Sched.X == "A" {
		return "A", "B"
	}
	return "B", "A"
}

// packedOperand lays out A or B as micro-panels: per (batch, tile along its free index,
// iteration) the elements of its registers in the order one iteration fills them.
func (p *Program) packedOperand(regs []Reg, blockFree, tiles int) *Layout {
	chunk := 0
	where := map[FK]int{}
	for _, r := range regs {
		for e, fk := range r.Elems {
			where[fk] = chunk + e
		}
		chunk += len(r.Elems)
	}
	kb, iters := p.Sched.KB, p.Iters
	return &Layout{Packed: true, Size: p.Prob.C.Batch * tiles * iters * chunk,
		Off: func(b, f, k int) int {
			t, fr := f/blockFree, f%blockFree
			it, kr := k/kb, k%kb
			return ((b*tiles+t)*iters+it)*chunk + where[FK{fr, kr}]
		}}
}

func (p *Program) canonOperand(name string) *Layout {
	c := p.Prob.C
	fdim := c.M
	if name == "B" {
		fdim = c.N
	}
	canon := p.Prob.Canon[name]
	return &Layout{Size: p.Prob.Len[name], Off: func(b, f, k int) int {
		if f >= fdim || k >= c.K {
			return -1
		}
		return canon(b, f, k)
	}}
}

func (p *Program) packedC() *Layout {
	pl := p.Plan
	lanes := pl.D.Shape.Lanes
	where := map[[2]int]int{}
	for a := 0; a < pl.Accs(); a++ {
		for l := 0; l < lanes; l++ {
			i, j := pl.Out(a, l)
			where[[2]int{i, j}] = a*lanes + l
		}
	}
	tile := pl.Accs() * lanes
	mr, nr, tm, tn := p.Sched.MR, p.Sched.NR, p.TM, p.TN
	return &Layout{Packed: true, Size: p.Prob.C.Batch * tm * tn * tile, Off: func(b, i, j int) int {
		return ((b*tm+i/mr)*tn+j/nr)*tile + where[[2]int{i % mr, j % nr}]
	}}
}

func (p *Program) canonC() *Layout {
	c := p.Prob.C
	canon := p.Prob.Canon["C"]
	return &Layout{Size: p.Prob.Len["C"], Off: func(b, i, j int) int {
		if i >= c.M || j >= c.N {
			return -1
		}
		return canon(b, i, j)
	}}
}

// layouts decides the layout of each operand (canon where asked or, when not said, where
// the block reads it in place; else packed) and checks and records every access.
func (p *Program) layouts() error {
	s := &p.Sched
	pl := p.Plan
	xop, zop := p.operands()
	tiles := [3]int{p.TM, p.TN, p.Iters}
	eb := pl.D.Elem.Bytes()
	le := pl.D.LoadElems()
	p.Lay = map[string]*Layout{}
	choice := map[string]*string{"A": &s.LA, "B": &s.LB, "C": &s.LC}
	// operand accesses: register r part q at a point
	regAccess := func(name string, regs []Reg, lay *Layout, blockFree int, x bool) ([][]access, error) {
		out := make([][]access, len(regs))
		for ri, r := range regs {
			parts := (len(r.Elems) + le - 1) / le
			out[ri] = make([]access, parts)
			for q := 0; q < parts; q++ {
				elems := r.Elems[q*le : min(len(r.Elems), (q+1)*le)]
				fn := func(b, tm, tn, it int) []int {
					t := tm
					if name == "B" {
						t = tn
					}
					v := make([]int, len(elems))
					for i, fk := range elems {
						v[i] = lay.Off(b, t*blockFree+fk.F, it*s.KB+fk.K)
					}
					return v
				}
				what := fmt.Sprintf("%s load %d of %s register %d", name, q, map[bool]string{true: "X", false: "Z"}[x], ri)
				a := &out[ri][q]
				if err := checkAccess(a, fn, p.Prob.C, tiles, eb, what); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	for _, name := range []string{"A", "B"} {
		regs, blockFree := pl.XRegs, pl.MX
		x := name == xop
		if !x {
			regs, blockFree = pl.ZRegs, pl.MZ
		}
		tilesFree := p.TM
		if name == "B" {
			tilesFree = p.TN
		}
		want := *choice[name]
		var acc [][]access
		var err error
		if want != "packed" {
			lay := p.canonOperand(name)
			acc, err = regAccess(name, regs, lay, blockFree, x)
			if err == nil {
				p.Lay[name] = lay
				*choice[name] = "canon"
			} else if want == "canon" {
				return fmt.Errorf("layout canon for %s: %v", name, err)
			}
		}
		if p.Lay[name] == nil {
			lay := p.packedOperand(regs, blockFree, tilesFree)
			if acc, err = regAccess(name, regs, lay, blockFree, x); err != nil {
				return fmt.Errorf("internal: packed %s: %v", name, err)
			}
			p.Lay[name] = lay
			*choice[name] = "packed"
		}
		if x {
			p.xAcc = acc
		} else {
			p.zAcc = acc
		}
	}
	_ = zop
	// C: one store (and with beta one load) per accumulator
	lanes := pl.D.Shape.Lanes
	cAccess := func(lay *Layout) ([]access, error) {
		out := make([]access, pl.Accs())
		for a := range out {
			a := a
			fn := func(b, tm, tn, _ int) []int {
				v := make([]int, lanes)
				for l := range v {
					i, j := pl.Out(a, l)
					v[l] = lay.Off(b, tm*s.MR+i, tn*s.NR+j)
				}
				return v
			}
			ct := tiles
			ct[2] = 1
			if err := checkAccess(&out[a], fn, p.Prob.C, ct, pl.D.Out.Elem.Bytes(), fmt.Sprintf("C store of accumulator %d", a)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if s.LC != "packed" {
		lay := p.canonC()
		acc, err := cAccess(lay)
		if err == nil {
			p.Lay["C"], p.cAcc, s.LC = lay, acc, "canon"
		} else if s.LC == "canon" {
			return fmt.Errorf("layout canon for C: %v", err)
		}
	}
	if p.Lay["C"] == nil {
		lay := p.packedC()
		acc, err := cAccess(lay)
		if err != nil {
			return fmt.Errorf("internal: packed C: %v", err)
		}
		p.Lay["C"], p.cAcc, s.LC = lay, acc, "packed"
	}
	// one pointer per buffer per loop level: every access of a buffer must move alike
	p.strides = map[string][3]int{}
	all := map[string][]access{"C": p.cAcc}
	for _, rs := range p.xAcc {
		all[xop] = append(all[xop], rs...)
	}
	for _, rs := range p.zAcc {
		all[zop] = append(all[zop], rs...)
	}
	for name, as := range all {
		st := [3]int{as[0].SB, as[0].SM, as[0].SN}
		for _, a := range as {
			if [3]int{a.SB, a.SM, a.SN} != st {
				return fmt.Errorf("layout of %s: its accesses move by different amounts from tile to tile", name)
			}
		}
		p.strides[name] = st
	}
	return nil
}

// lower emits the kernel IR.
func (p *Program) lower() error {
	pl := p.Plan
	d := pl.D
	s := p.Sched
	c := p.Prob.C
	name := fmt.Sprintf("gemm_%v_%dx%d", p.Spec.Types.A, s.MR, s.NR)
	k := kernel.New(name)
	b := kernel.NewBuilder(k)
	ptrT := kernel.PtrTo(d.Elem, 1)
	cur := map[string]*kernel.Var{}
	for _, n := range []string{ParamA, ParamB, ParamC} {
		v := b.Param(n, ptrT)
		v.Restrict = true
		cur[n] = v
	}
	xs := make([]*kernel.Var, len(pl.XRegs))
	for i := range xs {
		xs[i] = b.Decl(fmt.Sprintf("x%d", i), pl.XType)
		b.Set(xs[i], kernel.OpUndef)
	}
	zs := make([]*kernel.Var, len(pl.ZRegs))
	for i := range zs {
		zs[i] = b.Decl(fmt.Sprintf("z%d", i), pl.ZType)
	}
	accs := make([]*kernel.Var, pl.Accs())
	for i := range accs {
		accs[i] = b.Decl(fmt.Sprintf("acc%d", i), d.Acc)
	}
	xop, zop := p.operands()
	// the loops around the pipelined one: batch, then the tiles in the schedule's order
	type level struct {
		name  string
		trips int
		dim   int // index into strides
	}
	var levels []level
	if c.Batch > 1 {
		levels = append(levels, level{"b", c.Batch, 0})
	}
	tl := []level{{"m", p.TM, 1}, {"n", p.TN, 2}}
	if s.Order == "nm" {
		tl[0], tl[1] = tl[1], tl[0]
	}
	for _, l := range tl {
		if l.trips > 1 {
			levels = append(levels, l)
		}
	}
	for _, l := range levels {
		p.Loops = append(p.Loops, l.name)
	}
	p.Loops = append(p.Loops, "k")
	var emitLevel func(b *kernel.Builder, depth int)
	emitLevel = func(b *kernel.Builder, depth int) {
		if depth == len(levels) {
			p.tile(b, cur, xs, zs, accs, xop, zop)
			return
		}
		l := levels[depth]
		saved := map[string]*kernel.Var{}
		ptrs := map[string]*kernel.Var{}
		for _, n := range []string{ParamA, ParamB, ParamC} {
			if p.strides[n][l.dim] == 0 {
				continue
			}
			pv := b.Decl(fmt.Sprintf("p%s%d", n, depth+1), ptrT)
			b.Mov(pv, kernel.V(cur[n]))
			saved[n], ptrs[n] = cur[n], pv
			cur[n] = pv
		}
		_, lb := b.For(nil, kernel.Imm(0), kernel.Imm(int64(l.trips)), 1)
		emitLevel(lb, depth+1)
		for _, n := range []string{ParamA, ParamB, ParamC} {
			if pv, ok := ptrs[n]; ok {
				lb.Set(pv, kernel.OpPtrAdd, kernel.V(pv), kernel.Imm(int64(p.strides[n][l.dim])))
			}
		}
		for n, v := range saved {
			cur[n] = v
		}
	}
	emitLevel(b, 0)
	if err := b.Err(); err != nil {
		return fmt.Errorf("internal: generated kernel does not type-check: %v", err)
	}
	p.Kernel = k
	calls := int64(c.Batch) * int64(p.TM) * int64(p.TN) * int64(p.Iters)
	p.VectorMACs = int64(len(pl.MACs)) * calls
	p.IssuedMACs = p.VectorMACs * int64(d.Shape.Lanes*d.Shape.Cols)
	return nil
}

// index returns the operand it*sk + base of an access inside the pipelined loop.
func index(b *kernel.Builder, it *kernel.Var, a access) kernel.Operand {
	if a.SK == 0 {
		return kernel.Imm(int64(a.Base))
	}
	t := b.Op(kernel.OpMul, kernel.V(it), kernel.Imm(int64(a.SK)))
	if a.Base == 0 {
		return kernel.V(t)
	}
	return kernel.V(b.Op(kernel.OpAdd, kernel.V(t), kernel.Imm(int64(a.Base))))
}

// tile emits one block: accumulators cleared (or, for fp32 with beta, loaded from C), the
// pipelined loop over k, and the epilogue.
func (p *Program) tile(b *kernel.Builder, cur map[string]*kernel.Var, xs, zs, accs []*kernel.Var, xop, zop string) {
	pl := p.Plan
	d := pl.D
	fpBeta := d.Narrow == kernel.OpInvalid && p.Prob.Beta == 1
	for a, v := range accs {
		if fpBeta {
			b.Emit(kernel.OpLoad, v, kernel.V(cur[ParamC]), kernel.Imm(int64(p.cAcc[a].Base)))
		} else {
			b.Set(v, kernel.OpNull)
		}
	}
	it := b.Decl(fmt.Sprintf("k%d", len(b.Kernel().Vars)), kernel.ScalarOf(kernel.Int32))
	l, lb := b.For(it, kernel.Imm(0), kernel.Imm(int64(p.Iters)), 1)
	l.Pipelined = true // chess_prepare_for_pipelining
	l.HasRange, l.RangeMin, l.RangeMax = true, int64(p.Iters), int64(p.Iters)
	loadT := kernel.VecOf(d.Elem, d.LoadElems())
	xDone := make([]bool, len(xs))
	zDone := make([]bool, len(zs))
	for _, m := range pl.MACs {
		if !xDone[m.X] {
			xDone[m.X] = true
			for q, a := range p.xAcc[m.X] {
				v := lb.OpT(kernel.OpLoad, loadT, kernel.V(cur[xop]), index(lb, it, a))
				lb.Set(xs[m.X], kernel.OpUpdW, kernel.V(xs[m.X]), kernel.Imm(int64(q)), kernel.V(v))
			}
		}
		if !zDone[m.Z] {
			zDone[m.Z] = true
			lb.Emit(kernel.OpLoad, zs[m.Z], kernel.V(cur[zop]), index(lb, it, p.zAcc[m.Z][0]))
		}
		prm := m.P
		args := kernel.MACArgs{
			XStart: kernel.Imm(prm.XStart), XOffs: kernel.Imm(prm.XOffs), XOffsHi: kernel.Imm(prm.XOffsHi), XSquare: kernel.Imm(prm.XSquare),
			ZStart: kernel.Imm(prm.ZStart), ZOffs: kernel.Imm(prm.ZOffs), ZOffsHi: kernel.Imm(prm.ZOffsHi), ZStep: kernel.Imm(prm.ZStep),
		}
		if d.Sel == shuffle.Sel8 {
			args.XStep, args.ZSquare = kernel.Imm(prm.XStep), kernel.Imm(prm.ZSquare)
		}
		lb.MAC(accs[m.Acc], d.Mac, accs[m.Acc], xs[m.X], zs[m.Z], args)
	}
	// epilogue: C's old values loaded first (loads and stores of one buffer keep their
	// order, so a load after a store would wait for it), then narrow, add and store
	shift := int64(p.Spec.Types.Shift)
	olds := make([]*kernel.Var, len(accs))
	if d.Narrow != kernel.OpInvalid && p.Prob.Beta == 1 {
		for a := range accs {
			olds[a] = b.OpT(kernel.OpLoad, d.Out, kernel.V(cur[ParamC]), kernel.Imm(int64(p.cAcc[a].Base)))
		}
	}
	for a, v := range accs {
		out := v
		if d.Narrow != kernel.OpInvalid {
			out = b.Op(d.Narrow, kernel.V(v), kernel.Imm(shift))
			if olds[a] != nil {
				out = b.Op(kernel.OpVAdd, kernel.V(out), kernel.V(olds[a]))
			}
		}
		b.Emit(kernel.OpStore, nil, kernel.V(cur[ParamC]), kernel.Imm(int64(p.cAcc[a].Base)), kernel.V(out))
	}
}

// Resolved is the schedule with the register orders and layouts filled in.
func (p *Program) Resolved() sched.GEMM { return p.Sched }

// Middle is nil: a contraction is not lowered through Triplet IR.
func (p *Program) Middle() *triplet.Result { return nil }

// LoopNest lists the emitted loops, outermost first ("b" batch, "m" and "n" tiles, "k" the
// pipelined one).
func (p *Program) LoopNest() []string { return p.Loops }

// OuterIterations is how often the pipelined loop is entered.
func (p *Program) OuterIterations() int { return p.Prob.C.Batch * p.TM * p.TN }

// Name is the kernel's name.
func (p *Program) Name() string { return p.Kernel.Name }

// MACCounts returns the MAC intrinsic calls executed and the MACs they issue.
func (p *Program) MACCounts() (vector, issued int64) { return p.VectorMACs, p.IssuedMACs }
