package triplet

import (
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/compiler/sched"
)

// Fused is one 2D-datapath operation: Cols logical 1D MACs of one update operand whose vector
// operands come from one X register and whose scalar operands come from one Z register.
type Fused struct {
	U       int       // update operand (output vector) index in Body.Updates
	Members []Triplet // one per column; Pad members multiply a zero weight
	X, Z    *Buffer
	Params  Params // the target's selection parameters (Datapath.Net)
}

// Result is the outcome of reuse analysis and 2D fusion for one schedule.
type Result struct {
	Plan           *Plan
	Datapath       Datapath
	XGraph, ZGraph *Graph
	XBufs, ZBufs   []*Buffer
	Ops            []Fused
	Explain        []string // what was fused and padded, for --explain
}

// vector and scalar operands of a statement: with x vectorized the input is the vector and the
// weight the scalar (seed 000 Table I); with k vectorized it is the other way round.
func vecOp(t Triplet) Access {
	if t.Op2.Scalar() {
		return t.Op1
	}
	return t.Op2
}

func sclOp(t Triplet) Access {
	if t.Op2.Scalar() {
		return t.Op2
	}
	return t.Op1
}

// Fuse builds the two reuse graphs, turns their components into aligned register loads, and
// fuses the statements into 2D operations, checking each operand selection against the
// target's selection network (dp.Net). An illegal candidate returns the rule it breaks.
func Fuse(p *Plan, dp Datapath) (*Result, error) {
	b := p.Body
	sh := p.Shape
	r := &Result{Plan: p, Datapath: dp}
	all := append(append([]Triplet(nil), b.Triplets...), p.Pads...)
	var vecs, scls []Access
	for _, t := range all {
		vecs = append(vecs, vecOp(t))
		scls = append(scls, sclOp(t))
	}
	vt, st := vecs[0].Tensor, scls[0].Tensor
	r.XGraph = NewGraph(p, vt, vecs)
	r.ZGraph = NewGraph(p, st, scls)
	if dp.JoinAdjacent && (b.Sched.Dup <= 1 || b.Sched.Vec == "xk") || b.Sched.Fusion == sched.FuseTapsChannels {
		// (rc: the weight vectors of consecutive (tap, channel) pairs touch end to end and
		// share a register; a duplicated input's rows stay one per register half)
		r.XGraph.JoinAdjacent()
	}
	if dp.Net == nil || dp.LoadBits <= 0 || dp.AlignBits <= 0 || dp.XBits < dp.LoadBits || dp.ZBits < dp.LoadBits {
		return nil, fmt.Errorf("internal: incomplete datapath %+v", dp)
	}
	loadElems := dp.LoadBits / sh.ElemBits
	align := dp.AlignBits / sh.ElemBits
	xParts := dp.XBits / dp.LoadBits // loads that fill the widest X register
	var err error
	if r.XBufs, err = r.XGraph.Buffers(loadElems, align, xParts); err != nil {
		return nil, fmt.Errorf("reuse graph of %s: %v", vt, err)
	}
	if r.ZBufs, err = r.ZGraph.Buffers(loadElems, align, dp.ZBits/dp.LoadBits); err != nil {
		return nil, fmt.Errorf("reuse graph of %s: %v", st, err)
	}
	if b.Sched.Fusion == sched.FuseRows {
		r.XBufs = pairBuffers(r.XBufs, xParts)
	}
	// A duplicated 8-bit input gives each output vector registers of its own: the vectors'
	// windows overlap a little, and a register shared at the seam would split a vector's
	// taps over two registers.
	// Registers of equal contents are one register: output vectors that read the same input
	// window (a strided filter's rows shared by adjacent output rows, or output channels
	// unrolled over one input) then share it, and the operand-major body order
	// (sched.InterleaveOperand) runs their MACs back to back on one load.
	ownX := map[int][]*Buffer{}
	if b.Sched.Dup > 1 && b.Sched.Vec == "x" && len(b.Updates) > 1 {
		r.XBufs = nil
		same := map[string]*Buffer{}
		for u := range b.Updates {
			var uv []Access
			for _, t := range all {
				if t.U == u {
					uv = append(uv, vecOp(t))
				}
			}
			g := NewGraph(p, vt, uv)
			bufs, err := g.Buffers(loadElems, align, xParts)
			if err != nil {
				return nil, fmt.Errorf("reuse graph of %s: %v", vt, err)
			}
			if b.Sched.Fusion == sched.FuseRows {
				bufs = pairBuffers(bufs, xParts)
			}
			for i, bf := range bufs {
				key := fmt.Sprint(bf.Tensor, bf.LoadElems, bf.Starts)
				if old, ok := same[key]; ok {
					bufs[i] = old
					continue
				}
				same[key] = bf
				bf.ID = len(r.XBufs)
				r.XBufs = append(r.XBufs, bf)
			}
			ownX[u] = bufs
		}
	}
	findBuf := func(bufs []*Buffer, offs []int) *Buffer {
		for _, bf := range bufs {
			if bf.Holds(offs) {
				return bf
			}
		}
		return nil
	}
	type placed struct {
		t    Triplet
		x, z *Buffer
	}
	place := func(t Triplet) (placed, error) {
		xbufs := r.XBufs
		if own, ok := ownX[t.U]; ok {
			xbufs = own
		}
		x := findBuf(xbufs, p.Offsets(vecOp(t)))
		z := findBuf(r.ZBufs, p.Offsets(sclOp(t)))
		if x == nil || z == nil {
			return placed{}, fmt.Errorf("internal: %v has no register", t)
		}
		return placed{t, x, z}, nil
	}
	padOf := map[string]Triplet{}
	for _, t := range p.Pads {
		padOf[padKey(t.U, t.R, t.S, t.C)] = t
	}
	c := b.Conv
	cols := sh.Cols
	leftover := func(t Triplet) bool { return t.R == c.R-1 && c.R%cols != 0 }
	grid := gridFusion(b)
	for u := range b.Updates {
		var members []placed
		for _, t := range b.Triplets {
			if t.U == u {
				pl, err := place(t)
				if err != nil {
					return nil, err
				}
				members = append(members, pl)
			}
		}
		if grid {
			// The padded filter's zero statements take part in the grouping like real ones
			// (groups of zeros only are dropped).
			for _, t := range p.Pads {
				if t.U == u {
					pl, err := place(t)
					if err != nil {
						return nil, err
					}
					members = append(members, pl)
				}
			}
		}
		// Buckets: statements sharing the X and Z registers (seed 000 section III-C).
		type key struct{ x, z int }
		var keys []key
		buckets := map[key][]placed{}
		zScalar := len(members) > 0 && sclOp(members[0].t).Scalar()
		for _, m := range members {
			k := key{m.x.ID, m.z.ID}
			if grid && zScalar {
				k.z = -1 // each group finds a Z register that holds all its scalars
			}
			if _, ok := buckets[k]; !ok {
				keys = append(keys, k)
			}
			buckets[k] = append(buckets[k], m)
		}
		for _, k := range keys {
			ms := buckets[k]
			sort.SliceStable(ms, func(i, j int) bool {
				a, bb := ms[i].t, ms[j].t
				if grid {
					return lessInts(gridKey(b.Sched, a), gridKey(b.Sched, bb))
				}
				switch b.Sched.Fusion {
				case sched.FuseChannels:
					return lessInts([]int{a.S, a.R, a.C}, []int{bb.S, bb.R, bb.C})
				case sched.FuseRows:
					return lessInts([]int{b2i(leftover(a)), a.C, a.S, a.R}, []int{b2i(leftover(bb)), bb.C, bb.S, bb.R})
				}
				return lessInts([]int{a.C, a.S, a.R}, []int{bb.C, bb.S, bb.R})
			})
			for i := 0; i < len(ms); i += cols {
				grp := ms[i:min(i+cols, len(ms))]
				op := Fused{U: u, X: grp[0].x, Z: grp[0].z}
				real := false
				for _, m := range grp {
					op.Members = append(op.Members, m.t)
					real = real || !m.t.Pad
				}
				if !real {
					continue
				}
				if grid && len(op.Members) < cols {
					return nil, fmt.Errorf("padding: %v fills %d of %d columns and the padded filter has no zero in its registers", op.Members[len(op.Members)-1], len(op.Members), cols)
				}
				if grid && zScalar {
					z, err := r.groupZ(op.Members, loadElems, align, dp.ZBits/dp.LoadBits)
					if err != nil {
						return nil, err
					}
					op.Z = z
				}
				for len(op.Members) < cols {
					last := op.Members[len(op.Members)-1]
					var pk string
					if b.Sched.Fusion == sched.FuseChannels {
						pk = padKey(u, last.R, last.S, last.C+1)
					} else {
						pk = padKey(u, last.R+1, last.S, last.C)
					}
					pad, ok := padOf[pk]
					if !ok {
						return nil, fmt.Errorf("padding: %v fills %d of %d columns and its neighbour is not a zero of the padded filter", last, len(op.Members), cols)
					}
					pl, err := place(pad)
					if err != nil {
						return nil, err
					}
					if pl.x != op.X || pl.z != op.Z {
						return nil, fmt.Errorf("padding: the zero tap next to %v lies outside its registers", last)
					}
					op.Members = append(op.Members, pad)
					r.Explain = append(r.Explain, fmt.Sprintf("update %d: %v padded with %v", u, last.Op1, pad.Op1))
				}
				sel := Selection{Lanes: sh.Lanes, Cols: cols, XElems: op.X.Elems(), ZElems: op.Z.Elems()}
				for l := 0; l < sh.Lanes; l++ {
					xs := make([]int, cols)
					zs := make([]int, cols)
					for j, m := range op.Members {
						xs[j] = op.X.Pos(p.Offsets(vecOp(m))[l])
						zo := p.Offsets(sclOp(m))
						zs[j] = op.Z.Pos(zo[min(l, len(zo)-1)])
					}
					sel.X = append(sel.X, xs)
					sel.Z = append(sel.Z, zs)
				}
				prm, err := dp.Net.Solve(sel)
				if err != nil {
					return nil, fmt.Errorf("fusing %s: %v", describe(op.Members), err)
				}
				op.Params = prm
				r.Ops = append(r.Ops, op)
			}
		}
	}
	if grid {
		r.XBufs, r.ZBufs = used(r.Ops, r.XBufs, true), used(r.Ops, r.ZBufs, false)
	}
	return r, nil
}

// used keeps the registers some operation reads (numbered again in order).
func used(ops []Fused, bufs []*Buffer, x bool) []*Buffer {
	in := map[*Buffer]bool{}
	for _, o := range ops {
		if x {
			in[o.X] = true
		} else {
			in[o.Z] = true
		}
	}
	var out []*Buffer
	for _, b := range bufs {
		if in[b] {
			b.ID = len(out)
			out = append(out, b)
		}
	}
	return out
}

// groupZ returns a Z register holding the scalar operands of every member of a group: an
// existing one, or a new aligned load covering them.
func (r *Result) groupZ(ms []Triplet, loadElems, align, maxParts int) (*Buffer, error) {
	var offs []int
	for _, m := range ms {
		offs = append(offs, r.Plan.Offsets(sclOp(m))...)
	}
	for _, bf := range r.ZBufs {
		if bf.Holds(offs) {
			return bf, nil
		}
	}
	lo, hi := offs[0], offs[0]
	for _, o := range offs {
		lo, hi = min(lo, o), max(hi, o)
	}
	start := floorDiv(lo, align) * align
	if hi-start >= maxParts*loadElems {
		return nil, fmt.Errorf("the scalars of %s span %d elements from an aligned start, more than a %d-element register", describe(ms), hi-start+1, maxParts*loadElems)
	}
	bf := &Buffer{Tensor: ms[0].sclTensor(), Starts: []int{start}, LoadElems: loadElems, ID: len(r.ZBufs)}
	for bf.Starts[len(bf.Starts)-1]+loadElems <= hi {
		bf.Starts = append(bf.Starts, bf.Starts[len(bf.Starts)-1]+loadElems)
	}
	r.ZBufs = append(r.ZBufs, bf)
	return bf, nil
}

func (t Triplet) sclTensor() string { return sclOp(t).Tensor }

// gridFusion reports whether the padded filter's zeros are grouped with the real statements
// (strided, duplicated-input, row-padded and tap-channel fusions) instead of filling only the
// short groups with the zero next to their last member (seed 000's unit-stride fusions).
func gridFusion(b *Body) bool {
	s := b.Sched
	return s.PadS > b.Conv.S || s.Fusion == sched.FuseTapsChannels || s.Dup > 1 || b.Conv.Stride > 1 || b.Conv.Dilation > 1
}

// gridKey orders the statements of one register pair for grouping into columns: taps of a row
// (taps, strided rows by phase through their registers), (tap, channel) runs of a row (rc),
// channels (channels), or the two filter rows of a register tap by tap (rows with a
// duplicated 8-bit input).
func gridKey(s sched.Schedule, t Triplet) []int {
	switch {
	case s.Fusion == sched.FuseChannels:
		return []int{t.S, t.R, t.C}
	case s.Fusion == sched.FuseTapsChannels:
		return []int{t.S, t.R, t.C}
	case s.Fusion == sched.FuseRows && s.Dup > 1:
		return []int{t.C, t.R, t.S}
	}
	return []int{t.C, t.S, t.R}
}

func padKey(u, rr, s, c int) string { return fmt.Sprint(u, rr, s, c) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func lessInts(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func describe(ms []Triplet) string {
	s := ms[0].Update.String() + " +="
	for i, m := range ms {
		if i > 0 {
			s += " +"
		}
		s += " " + m.Op1.String() + "*" + m.Op2.String()
	}
	return s
}

// pairBuffers merges consecutive X registers two by two when together they fit the widest X
// register (maxParts loads), so that statements of two input rows can share one 2D operation
// (FuseRows).
func pairBuffers(bufs []*Buffer, maxParts int) []*Buffer {
	var out []*Buffer
	for i := 0; i < len(bufs); i++ {
		a := bufs[i]
		if i+1 < len(bufs) && len(a.Starts)+len(bufs[i+1].Starts) <= maxParts {
			bb := bufs[i+1]
			// Pad a to half the register so the second row starts at its middle.
			starts := append([]int(nil), a.Starts...)
			for len(starts) < maxParts/2 && len(bb.Starts) <= maxParts/2 {
				starts = append(starts, NoPart)
			}
			m := &Buffer{Tensor: a.Tensor, LoadElems: a.LoadElems, Starts: append(starts, bb.Starts...), Nodes: append(append([]int(nil), a.Nodes...), bb.Nodes...)}
			out = append(out, m)
			i++
			continue
		}
		out = append(out, a)
	}
	for i, b := range out {
		b.ID = i
	}
	return out
}
