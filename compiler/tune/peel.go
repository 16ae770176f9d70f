package tune

import (
	"fmt"

	"github.com/sumacdev/sumac/op"
)

// Zero padding is packed into the input's layout (the kernel reads a zero border written with
// the data) or peeled: the outputs whose windows reach into the padding are computed by code
// of their own that leaves the padding's taps out. Peel builds the peeled form of a padded
// convolution as regions, each an unpadded convolution of its own (the interior with the
// whole filter; every run of border rows or columns with the same taps in the padding, with
// those taps removed), so that both forms can be generated, verified and simulated and
// compared: cycles (a region is one kernel call, its entry and exit counted) and bytes (the
// packed form holds the zero border).

// Region is one part of a peeled convolution: its name (the output columns and rows it covers)
// and its unpadded convolution.
type Region struct {
	Name string
	Spec *op.Spec
}

// span is a run of output positions along one dimension that read the same filter taps
// [t0, t1) inside the input.
type span struct{ o0, o1, t0, t1 int }

// spans splits out output positions of a dimension (input in, filter taps taps, stride st,
// dilation dl, padding pad) into runs with equal in-range taps.
func spans(out, in, taps, st, dl, pad int) []span {
	var sp []span
	for o := 0; o < out; o++ {
		t0, t1 := taps, 0
		for t := 0; t < taps; t++ {
			if i := o*st + t*dl - pad; i >= 0 && i < in {
				t0, t1 = min(t0, t), max(t1, t+1)
			}
		}
		if n := len(sp); n > 0 && sp[n-1].t0 == t0 && sp[n-1].t1 == t1 && sp[n-1].o1 == o {
			sp[n-1].o1++
			continue
		}
		sp = append(sp, span{o, o + 1, t0, t1})
	}
	return sp
}

// Peel returns the regions of a padded convolution's peeled form (nil without padding). A
// region whose taps all lie in the padding computes zeros and is left out.
func Peel(s *op.Spec) ([]Region, error) {
	c := s.Conv
	if c == nil || c.Pad == 0 {
		return nil, nil
	}
	xs := spans(c.X, c.XIn, c.R, c.Stride, c.Dilation, c.Pad)
	ys := spans(c.Y, c.YIn, c.S, c.Stride, c.Dilation, c.Pad)
	var out []Region
	for _, y := range ys {
		for _, x := range xs {
			if x.t0 >= x.t1 || y.t0 >= y.t1 {
				continue
			}
			r := *c
			r.X, r.Y, r.Pad = x.o1-x.o0, y.o1-y.o0, 0
			r.R, r.S = x.t1-x.t0, y.t1-y.t0
			r.XIn = (r.X-1)*c.Stride + (r.R-1)*c.Dilation + 1
			r.YIn = (r.Y-1)*c.Stride + (r.S-1)*c.Dilation + 1
			text := fmt.Sprintf("%s %s", r.String(), s.Types.String())
			spec, err := op.Parse(text)
			if err != nil {
				return nil, fmt.Errorf("peeled region x=%d..%d y=%d..%d: %v", x.o0, x.o1-1, y.o0, y.o1-1, err)
			}
			out = append(out, Region{Name: fmt.Sprintf("x%d-%d,y%d-%d", x.o0, x.o1-1, y.o0, y.o1-1), Spec: spec})
		}
	}
	return out, nil
}

// ComparePeel tunes the peeled form of every padded workload computed in one call and records
// in its result the peeled form's cycles (the regions' sum), its region count, whether every
// region verified, and the bytes of the packed form's zero border (PadBytes).
func ComparePeel(ws []Workload, rs []Result, opt Options) error {
	for i, w := range ws {
		if w.Spec.Conv == nil || w.Spec.Conv.Pad == 0 || rs[i].Calls != 1 {
			continue
		}
		regions, err := Peel(w.Spec)
		if err != nil {
			return fmt.Errorf("%s: %v", w.Name, err)
		}
		var sub []Workload
		for _, r := range regions {
			sub = append(sub, Workload{Name: w.Name + "/" + r.Name, Spec: r.Spec})
		}
		prs, err := Run(sub, opt)
		if err != nil {
			return fmt.Errorf("%s peeled: %v", w.Name, err)
		}
		r := &rs[i]
		r.PeelRegions, r.PeelVerified = len(prs), true
		for _, pr := range prs {
			r.PeelCycles += pr.Cycles
			r.PeelVerified = r.PeelVerified && pr.Verified
		}
		c := w.Spec.Conv
		r.PadBytes = w.Spec.Types.A.Bits() / 8 * c.N * c.C * ((c.XIn+2*c.Pad)*(c.YIn+2*c.Pad) - c.XIn*c.YIn)
	}
	return nil
}
