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
func (p *Program) PackInt(t string, data []int64) ([]int64, error) {
	out, err := layout.Pack(p.Maps[t], canonical(p.Spec.Conv, t), data)
	if err != nil {
		return nil, err
	}
	return append(out, make([]int64, p.Elems[t]-len(out))...), nil
}

// PackFloat is PackInt for floating-point data.
func (p *Program) PackFloat(t string, data []float64) ([]float64, error) {
	out, err := layout.Pack(p.Maps[t], canonical(p.Spec.Conv, t), data)
	if err != nil {
		return nil, err
	}
	return append(out, make([]float64, p.Elems[t]-len(out))...), nil
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
			v[i] = int64(r.Intn(2*int(a)+1)) - int64(a)
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
