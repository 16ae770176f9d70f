package vyasa

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/compiler/layout"
	"github.com/sumacdev/sumac/compiler/triplet"
	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/op"
)

// canonical returns the layout map of a tensor in op's canonical order (input NHWC, weights
// K S R C, output NHWC).
func canonical(c *op.Conv2D, t string) *layout.Map {
	var l string
	var tn layout.Tensor
	switch t {
	case triplet.In:
		l, tn = "NY'X'C", layout.Tensor{Dims: []string{"X'", "Y'", "C", "N"}, Extent: []int{c.XIn, c.YIn, c.C, c.N}}
	case triplet.W:
		l, tn = "KSRC", layout.Tensor{Dims: []string{"R", "S", "C", "K"}, Extent: []int{c.R, c.S, c.C / c.Groups, c.K}}
	default:
		l, tn = "NYXK", layout.Tensor{Dims: []string{"X", "Y", "K", "N"}, Extent: []int{c.X, c.Y, c.K, c.N}}
	}
	m, err := layout.Bind(layout.MustParse(l), tn)
	if err != nil {
		panic(err) // canonical layouts always bind
	}
	return m
}

// PackInt lays out canonical integer data (op's layouts) for the kernel: the tensor's schedule
// layout, zero padding, extended with zeros to the elements the kernel touches.
func (p *Program) PackInt(t string, data []int64) ([]int64, error) { return pack(p, t, data) }

// PackFloat is PackInt for floating-point data.
func (p *Program) PackFloat(t string, data []float64) ([]float64, error) { return pack(p, t, data) }

func pack[T any](p *Program, t string, data []T) ([]T, error) {
	src := canonical(p.Spec.Conv, t)
	if t == triplet.In {
		var err error
		if data, src, err = inputView(p, data); err != nil {
			return nil, err
		}
	}
	out, err := layout.Pack(p.Maps[t], src, data)
	if err != nil {
		return nil, err
	}
	return append(out, make([]T, p.Elems[t]-len(out))...), nil
}

// inputView builds, from the canonical input, the input tensor the kernel reads (in a
// canonical order of its dimensions): the zero padding of the convolution packed around it,
// and for a duplicated input (sched.Schedule.Dup) the copies D, copy d shifted by d output
// pixels: I'(x', y', c, n, d) = I(x' + stride*d - pad, y' - pad, c, n), zero outside; a
// grouped convolution's groups padded with zero channels to triplet.Body.CPGIn.
func inputView[T any](p *Program, data []T) ([]T, *layout.Map, error) {
	c := p.Spec.Conv
	tn := p.Maps[triplet.In].Tensor
	l := "NY'X'C"
	if len(tn.Dims) == 5 {
		l += "D"
	}
	m, err := layout.Bind(layout.MustParse(l), tn)
	if err != nil {
		return nil, nil, err
	}
	if len(data) != c.InLen() {
		return nil, nil, fmt.Errorf("input has %d elements, the convolution %d", len(data), c.InLen())
	}
	out := make([]T, m.Size())
	body := p.Fused.Plan.Body
	tn.ForEach(func(idx []int) {
		d := 0
		if len(idx) == 5 {
			d = idx[4]
		}
		x, y, ch := idx[0]+c.Stride*d-c.Pad, idx[1]-c.Pad, idx[2]
		if body.Grouped {
			// channel c' of the kernel's input is channel c' % CPGIn of group c' / CPGIn
			g, cc := ch/body.CPGIn, ch%body.CPGIn
			if cc >= body.CPG {
				return
			}
			ch = g*body.CPG + cc
		}
		if x >= 0 && x < c.XIn && y >= 0 && y < c.YIn {
			out[m.Offset(idx)] = data[c.InIndex(x, y, ch, idx[3])]
		}
	})
	return out, m, nil
}

// UnpackOut returns the output in op's canonical layout.
func unpack[T any](p *Program, mem []T) ([]T, error) {
	return layout.Pack(canonical(p.Spec.Conv, triplet.Out), p.Maps[triplet.Out], mem[:p.Maps[triplet.Out].Size()])
}

// IntInputs draws seeded random canonical input and weights whose products, summed over the
// n = R*S*C/G taps of an output, stay within the output type in all but a few cases: values
// are uniform in [-a, a] with a^2 * sqrt(n) / 3 <= max/4 (four standard deviations of the sum).
// The caller checks the saturated fraction on the reference result.
func IntInputs(c *op.Conv2D, t op.Types, seed uint64, scale float64) (in, w []int64) {
	n := float64(c.R * c.S * c.C / c.Groups)
	lo, hi := t.Out.Range()
	limit := float64(hi) * float64(uint64(1)<<t.Shift)
	a := math.Sqrt(limit * 3 / (4 * math.Sqrt(n)) * scale)
	alo, ahi := t.A.Range()
	a = math.Max(1, math.Min(a, float64(ahi)))
	_ = lo
	_ = alo
	r := rng.New(seed)
	draw := func(k int) []int64 {
		v := make([]int64, k)
		for i := range v {
			if t.A.Signed() {
				v[i] = int64(r.Intn(2*int(a)+1)) - int64(a)
			} else {
				v[i] = int64(r.Intn(int(a) + 1)) // unsigned operands: [0, a]
			}
		}
		return v
	}
	return draw(c.InLen()), draw(c.WLen())
}

// FloatInputs draws seeded random fp32-representable values in [-1, 1).
func FloatInputs(c *op.Conv2D, seed uint64) (in, w []float64) {
	r := rng.New(seed)
	draw := func(k int) []float64 {
		v := make([]float64, k)
		for i := range v {
			v[i] = float64(float32(r.Float64()*2 - 1))
		}
		return v
	}
	return draw(c.InLen()), draw(c.WLen())
}

func checkLen(name string, got, want int) error {
	if got != want {
		return fmt.Errorf("%s: %d elements, the kernel needs %d", name, got, want)
	}
	return nil
}
