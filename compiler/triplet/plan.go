package triplet

import (
	"fmt"

	"github.com/sumacdev/sumac/compiler/layout"
	"github.com/sumacdev/sumac/compiler/sched"
)

// Plan binds the schedule's layouts to the three tensors and gives every access concrete
// element offsets, relative to the tensor's address at the current loop iteration.
type Plan struct {
	Body     *Body
	Shape    sched.Shape
	Maps     map[string]*layout.Map // by tensor name: O, W, I
	Steps    map[string]int         // loop variable -> its step per iteration (x, y, k)
	Trips    map[string]int         // loop variable -> trip count
	Strides  map[string]map[string]int
	Pads     []Triplet // the zero-weight statements that may fill a column (padded filter or channel)
	ElemBits int
}

// tensors returns the dimensions and extents of O, W and I for binding. The input's extents
// are the zero-padded ones (padding is packed into the layout), with the copies D of a
// duplicated input.
func tensors(b *Body, padR, padS int) map[string]layout.Tensor {
	c := b.Conv
	// the padded width; for a duplicated input whose registers hold two rows or whose last
	// vector runs past the width, and for the 8-bit xk tiles, more where the last vector's extra lanes (sched.Ragged) and the padded
	// filter's zero taps read further, so that rows stay apart
	xin := c.XIn + 2*c.Pad
	if b.Sched.Dup > 1 && (b.Sched.Fusion == sched.FuseRows || outWidth(b) != c.X) || b.Sched.Vec == "xk" {
		xin = max(xin, (outWidth(b)-1)*c.Stride+(padR-1)*c.Dilation+1)
	}
	in := layout.Tensor{Dims: []string{"X'", "Y'", "C", "N"}, Extent: []int{xin, c.YIn + 2*c.Pad, c.C, c.N}}
	if b.Grouped {
		in.Extent[2] = c.Groups * b.CPGIn
	}
	if b.Sched.Dup > 1 {
		in.Dims = append(in.Dims, "D")
		in.Extent = append(in.Extent, b.Sched.Dup)
	}
	return map[string]layout.Tensor{
		Out: {Dims: []string{"X", "Y", "K", "N"}, Extent: []int{outWidth(b), c.Y, c.K, c.N}},
		W:   {Dims: []string{"R", "S", "C", "K"}, Extent: []int{padR, padS, c.C / c.Groups, c.K}},
		In:  in,
	}
}

// outWidth is the output width the loops cover: the width rounded up to the x positions of
// one iteration (sched.Ragged: the last vector's extra lanes write the layout's padding).
func outWidth(b *Body) int {
	s := b.Sched
	step := s.UX
	switch s.Vec {
	case "x":
		step *= b.Lanes
	case "xk":
		step *= XKX
	}
	return (b.Conv.X + step - 1) / step * step
}

// NewPlan binds layouts and checks that every access's address is affine in the loop
// variables (so that a pointer per tensor, advanced by a constant per iteration, plus an
// immediate offset reaches it). Only the datapath's shape and alignment are used.
func NewPlan(b *Body, dp Datapath) (*Plan, error) {
	sh := dp.Shape
	if dp.AlignBits <= 0 || dp.AlignBits%sh.ElemBits != 0 {
		return nil, fmt.Errorf("internal: datapath alignment %d bits for %d-bit elements", dp.AlignBits, sh.ElemBits)
	}
	s := b.Sched
	c := b.Conv
	p := &Plan{Body: b, Shape: sh, Maps: map[string]*layout.Map{}, ElemBits: sh.ElemBits}
	padR := max(s.PadR, c.R)
	padS := max(s.PadS, c.S)
	ts := tensors(b, padR, padS)
	for name, l := range map[string]string{Out: s.Out, W: s.W, In: s.In} {
		lay, err := layout.Parse(l)
		if err != nil {
			return nil, err
		}
		if name != W && c.N > 1 && lay.Block("N") == 1 && !hasDim(lay, "N") {
			// The batch is the outermost dimension unless the layout places it.
			lay.Factors = append([]layout.Factor{{Dim: "N"}}, lay.Factors...)
		}
		m, err := layout.Bind(lay, ts[name])
		if err != nil {
			return nil, fmt.Errorf("tensor %s: %v", name, err)
		}
		p.Maps[name] = m
	}
	// Keep every load and store aligned as the target requires as loops advance the tensors'
	// pointers and as unrolled rows and channels offset them.
	align := dp.AlignBits / sh.ElemBits
	moved := map[string][]string{Out: {"X", "Y", "K", "N"}, W: {"K"}, In: {"X'", "Y'", "N"}}
	if c.Groups > 1 || s.CB > 0 {
		moved[In] = append(moved[In], "C")
	}
	if s.CB > 0 {
		moved[W] = append(moved[W], "C")
	}
	for _, d := range []string{"X'", "Y'"} {
		if err := p.Maps[In].AlignPhase(d, align); err != nil {
			return nil, fmt.Errorf("tensor %s: %v", In, err)
		}
	}
	st := c.Stride
	trips := map[string]int{"X": c.X / s.UX, "Y": c.Y / s.UY, "K": c.K / s.UK, "N": c.N, "C": 2}
	trips["X'"], trips["Y'"] = trips["X"], trips["Y"]
	for name, dims := range moved {
		for _, d := range dims {
			if trips[d] == 1 && name == In && s.Vec != "x" {
				continue // no loop moves the input pointer along d
			}
			step := 1
			switch {
			case d == "X" && s.Vec == "x":
				step = b.Lanes
			case d == "X'" && s.Vec == "x":
				step = b.Lanes * st
			case d == "X" && s.Vec == "xk":
				step = XKX
			case d == "X'" && s.Vec == "xk":
				step = XKX * st
			case d == "X'" && s.Vec == "k":
				// the input's scalars are loaded from aligned starts relative to the pointer,
				// so only the pointer's move per iteration must keep the alignment (a
				// filter row's (tap, channel) run stays unpadded)
				step = s.UX * st
			case d == "K" && s.Vec == "k" && name != In:
				step = b.Lanes
			case d == "K" && s.Vec == "xk" && name != In:
				step = XKK
			case d == "C" && s.CB > 0:
				step = s.CB // the reduction loop (Check keeps it a multiple of 128 bits)
			case d == "C" && b.Grouped:
				step = b.CPGIn
			}
			if err := p.Maps[name].AlignStride(d, step, align); err != nil {
				return nil, fmt.Errorf("tensor %s: %v", name, err)
			}
		}
	}
	p.Steps = map[string]int{"x": s.UX, "y": s.UY, "k": s.UK, "n": 1, "g": 1, "c": max(s.CB, 1)}
	switch s.Vec {
	case "x":
		p.Steps["x"] *= b.Lanes
	case "xk":
		p.Steps["x"] *= XKX
		p.Steps["k"] *= XKK
	default:
		p.Steps["k"] *= b.Lanes
	}
	groups := 1
	if b.Grouped {
		groups = c.Groups
	}
	p.Trips = map[string]int{"x": outWidth(b) / p.Steps["x"], "y": c.Y / p.Steps["y"], "k": b.KPG / p.Steps["k"], "n": c.N, "g": groups, "c": 1}
	if s.CB > 0 {
		p.Trips["c"] = b.CPG / s.CB
	}
	p.makePads()
	// Per tensor and loop variable: the address stride of one iteration, checked on every
	// access at the first, second and last iteration.
	p.Strides = map[string]map[string]int{}
	all := append(append([]Triplet(nil), b.Triplets...), p.Pads...)
	for _, v := range []string{"x", "y", "k", "n", "c"} {
		for _, t := range all {
			for _, a := range []Access{t.Update, t.Op1, t.Op2} {
				if err := p.affine(a, v); err != nil {
					return nil, err
				}
			}
		}
	}
	if b.Grouped {
		if err := p.groupStrides(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// groupStrides sets the address stride of the loop over groups: one group moves the output
// and the weights by KPG output channels and the input by CPG channels; every group must
// move them by the same amount.
func (p *Plan) groupStrides() error {
	b := p.Body
	for t, m := range p.Maps {
		dim, by := "K", b.KPG
		if t == In {
			dim, by = "C", b.CPGIn
		}
		at := func(g int) int {
			idx := make([]int, len(m.Tensor.Dims))
			for i, d := range m.Tensor.Dims {
				if d == dim {
					idx[i] = g * by
				}
			}
			return m.Offset(idx)
		}
		d := at(1) - at(0)
		for _, g := range []int{2, b.Conv.Groups - 1} {
			if g > 1 && g < b.Conv.Groups && at(g)-at(0) != g*d {
				return fmt.Errorf("layout %v of %s: the groups are not evenly spaced", m.Layout, t)
			}
		}
		if p.Strides[t] == nil {
			p.Strides[t] = map[string]int{}
		}
		p.Strides[t]["g"] = d
	}
	return nil
}

func (p *Plan) affine(a Access, v string) error {
	m := p.Maps[a.Tensor]
	base := m.Offset(a.At(0, nil))
	st := p.Strides[a.Tensor]
	if st == nil {
		st = map[string]int{}
		p.Strides[a.Tensor] = st
	}
	trips := p.Trips[v]
	for _, it := range []int{1, 2, trips - 1} {
		if it < 1 || it >= trips {
			continue
		}
		off := m.Offset(a.At(0, map[string]int{v: it * p.Steps[v]}))
		d := off - base
		if d%it != 0 {
			return fmt.Errorf("layout %v of %s: address of %v is not affine in %s", m.Layout, a.Tensor, a, v)
		}
		if old, ok := st[v]; ok && old != d/it {
			return fmt.Errorf("layout %v of %s: %s advances %v by %d elements but another access by %d", m.Layout, a.Tensor, v, a, d/it, old)
		}
		st[v] = d / it
	}
	return nil
}

// makePads creates the zero-weight statements a fusion may use to fill a column: the taps
// r >= R of a padded filter row, the rows s >= S of a padded filter (sched.Schedule.PadS), or
// the channel c = C of an odd channel count (the (C/n) block of the layout pads it with zeros).
func (p *Plan) makePads() {
	b := p.Body
	c := b.Conv
	s := b.Sched
	if s.PadS > c.S || s.Fusion == sched.FuseTapsChannels || s.Dup > 1 {
		p.makeGridPads()
		return
	}
	cpg := c.C / c.Groups
	seen := map[string]bool{}
	for _, t := range b.Triplets {
		var pads []Triplet
		switch s.Fusion {
		case sched.FuseTaps, sched.FuseRows:
			if t.R == c.R-1 {
				for r := c.R; r < max(s.PadR, c.R); r++ {
					pads = append(pads, p.shiftTap(t, r-t.R, 0, 0, r, t.S, t.C))
				}
			}
		case sched.FuseChannels:
			if t.C == cpg-1 && cpg%p.Shape.Cols != 0 {
				for cc := cpg; cc%p.Shape.Cols != 0; cc++ {
					pads = append(pads, p.shiftTap(t, 0, 0, cc-t.C, t.R, t.S, cc))
				}
			}
		}
		for _, pd := range pads {
			k := pd.String()
			if !seen[k] {
				seen[k] = true
				pd.Pad = true
				p.Pads = append(p.Pads, pd)
			}
		}
	}
}

// makeGridPads pads every update's filter to PadR x PadS taps: each missing (r, s) of every
// channel is the statement of tap (0, 0) moved there.
func (p *Plan) makeGridPads() {
	b := p.Body
	c := b.Conv
	padR, padS := max(b.Sched.PadR, c.R), max(b.Sched.PadS, c.S)
	for _, t := range b.Triplets {
		if t.R != 0 || t.S != 0 {
			continue
		}
		for fs := 0; fs < padS; fs++ {
			for fr := 0; fr < padR; fr++ {
				if fr < c.R && fs < c.S {
					continue
				}
				pd := p.shiftTap(t, fr, fs, 0, fr, fs, t.C)
				pd.Pad = true
				p.Pads = append(p.Pads, pd)
			}
		}
	}
}

// shiftTap returns t moved by dr filter taps, ds filter rows and dc channels.
func (p *Plan) shiftTap(t Triplet, dr, ds, dc, r, fs, cc int) Triplet {
	dl := p.Body.Conv.Dilation
	t.Op1 = shiftAccess(t.Op1, dr, ds, dc, 1)
	t.Op2 = shiftAccess(t.Op2, dr, ds, dc, dl)
	t.R, t.S, t.C = r, fs, cc
	return t
}

// shiftAccess moves a weight or input access by dr taps, ds rows (the input by dl elements
// per tap: its dilation) and dc channels (not the channel a depth-wise input takes from k).
func shiftAccess(a Access, dr, ds, dc, dl int) Access {
	if a.Tensor != In {
		dl = 1
	}
	a.Idx = append([]Index(nil), a.Idx...)
	a.Idx[0].Off += dr * dl
	a.Idx[1].Off += ds * dl
	if a.Idx[2].Var == "" || a.Tensor == In {
		a.Idx[2].Off += dc
	}
	return a
}

// Offsets returns the element offset of every lane of an access (one for a scalar),
// relative to the tensor's address at the current iteration.
func (p *Plan) Offsets(a Access) []int {
	m := p.Maps[a.Tensor]
	out := make([]int, a.Len)
	for i := range out {
		out[i] = m.Offset(a.At(i, nil))
	}
	return out
}

func hasDim(l layout.Layout, d string) bool {
	for _, x := range l.Dims() {
		if x == d {
			return true
		}
	}
	return false
}
