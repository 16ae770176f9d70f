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

// tensors returns the dimensions and extents of O, W and I for binding.
func tensors(b *Body, padR, xinPad int) map[string]layout.Tensor {
	c := b.Conv
	return map[string]layout.Tensor{
		Out: {Dims: []string{"X", "Y", "K", "N"}, Extent: []int{c.X, c.Y, c.K, c.N}},
		W:   {Dims: []string{"R", "S", "C", "K"}, Extent: []int{padR, c.S, c.C / c.Groups, c.K}},
		In:  {Dims: []string{"X'", "Y'", "C", "N"}, Extent: []int{xinPad, c.YIn, c.C, c.N}},
	}
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
	ts := tensors(b, padR, c.XIn)
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
	if c.Groups > 1 {
		moved[In] = append(moved[In], "C")
	}
	for name, dims := range moved {
		for _, d := range dims {
			step := 1
			if (d == "X" || d == "X'") && s.Vec == "x" || d == "K" && s.Vec == "k" && name != In {
				step = b.Lanes
			}
			if err := p.Maps[name].AlignStride(d, step, align); err != nil {
				return nil, fmt.Errorf("tensor %s: %v", name, err)
			}
		}
	}
	p.Steps = map[string]int{"x": s.UX, "y": s.UY, "k": s.UK, "n": 1}
	if s.Vec == "x" {
		p.Steps["x"] *= b.Lanes
	} else {
		p.Steps["k"] *= b.Lanes
	}
	p.Trips = map[string]int{"x": c.X / p.Steps["x"], "y": c.Y / p.Steps["y"], "k": c.K / p.Steps["k"], "n": c.N}
	p.makePads()
	// Per tensor and loop variable: the address stride of one iteration, checked on every
	// access at the first, second and last iteration.
	p.Strides = map[string]map[string]int{}
	all := append(append([]Triplet(nil), b.Triplets...), p.Pads...)
	for _, v := range []string{"x", "y", "k", "n"} {
		for _, t := range all {
			for _, a := range []Access{t.Update, t.Op1, t.Op2} {
				if err := p.affine(a, v); err != nil {
					return nil, err
				}
			}
		}
	}
	return p, nil
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
// r >= R of a padded filter row, or the channel c = C of an odd channel count (the (C/n)
// block of the layout pads it with zeros).
func (p *Plan) makePads() {
	b := p.Body
	c := b.Conv
	s := b.Sched
	cpg := c.C / c.Groups
	seen := map[string]bool{}
	for _, t := range b.Triplets {
		var pads []Triplet
		switch s.Fusion {
		case sched.FuseTaps, sched.FuseRows:
			if t.R == c.R-1 {
				for r := c.R; r < max(s.PadR, c.R); r++ {
					pads = append(pads, shiftTap(t, r-t.R, 0, r, t.C))
				}
			}
		case sched.FuseChannels:
			if t.C == cpg-1 && cpg%p.Shape.Cols != 0 {
				for cc := cpg; cc%p.Shape.Cols != 0; cc++ {
					pads = append(pads, shiftTap(t, 0, cc-t.C, t.R, cc))
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

// shiftTap returns t moved by dr filter taps and dc channels.
func shiftTap(t Triplet, dr, dc, r, cc int) Triplet {
	t.Op1 = shiftAccess(t.Op1, 0, dr, 2, dc)
	t.Op2 = shiftAccess(t.Op2, 0, dr, 2, dc)
	t.R, t.C = r, cc
	return t
}

func shiftAccess(a Access, d0, by0, d1, by1 int) Access {
	a.Idx = append([]Index(nil), a.Idx...)
	a.Idx[d0].Off += by0
	if a.Idx[d1].Var == "" || a.Tensor == In {
		a.Idx[d1].Off += by1
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
