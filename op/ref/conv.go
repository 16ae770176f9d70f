package ref

import (
	"math"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
)

// convTaps calls f(inIndex, wIndex) for every in-bounds tap of output (x, y, k, n); taps that
// fall into the zero padding contribute nothing and are skipped.
func convTaps(c *op.Conv2D, x, y, k, n int, f func(in, w int)) {
	cpg := c.C / c.Groups
	g := k / (c.K / c.Groups)
	for s := 0; s < c.S; s++ {
		iy := y*c.Stride + s*c.Dilation - c.Pad
		if iy < 0 || iy >= c.YIn {
			continue
		}
		for r := 0; r < c.R; r++ {
			ix := x*c.Stride + r*c.Dilation - c.Pad
			if ix < 0 || ix >= c.XIn {
				continue
			}
			for cg := 0; cg < cpg; cg++ {
				f(c.InIndex(ix, iy, g*cpg+cg, n), c.WIndex(r, s, cg, k))
			}
		}
	}
}

// forEachOut visits every output position in canonical order.
func forEachOut(c *op.Conv2D, f func(x, y, k, n, o int)) {
	for n := 0; n < c.N; n++ {
		for y := 0; y < c.Y; y++ {
			for x := 0; x < c.X; x++ {
				for k := 0; k < c.K; k++ {
					f(x, y, k, n, c.OutIndex(x, y, k, n))
				}
			}
		}
	}
}

// Conv2DInt computes an integer convolution exactly.
func Conv2DInt(c *op.Conv2D, t op.Types, in, w []int64) (IntResult, error) {
	if err := intTypes(t); err != nil {
		return IntResult{}, err
	}
	if err := checkInts("input", in, c.InLen(), t.A); err != nil {
		return IntResult{}, err
	}
	if err := checkInts("weights", w, c.WLen(), t.B); err != nil {
		return IntResult{}, err
	}
	acc := make([]num.Acc, c.OutLen())
	a := accumulator{bits: t.Acc.Bits()}
	forEachOut(c, func(x, y, k, n, o int) {
		a.reset()
		convTaps(c, x, y, k, n, func(i, j int) { a.mac(in[i], w[j]) })
		acc[o] = a.value()
	})
	return narrowAll(acc, t), nil
}

// Conv2DFloat computes a floating-point convolution (float64 sums, one final rounding).
func Conv2DFloat(c *op.Conv2D, t op.Types, in, w []float64) ([]float64, error) {
	if err := floatTypes(t); err != nil {
		return nil, err
	}
	if err := checkFloats("input", in, c.InLen()); err != nil {
		return nil, err
	}
	if err := checkFloats("weights", w, c.WLen()); err != nil {
		return nil, err
	}
	out := make([]float64, c.OutLen())
	forEachOut(c, func(x, y, k, n, o int) {
		s := 0.0
		convTaps(c, x, y, k, n, func(i, j int) { s += in[i] * w[j] })
		out[o] = s
	})
	roundOut(out, t.Out)
	return out, nil
}

// Conv2DAbs returns, per output, sum |in*w| over its taps: the scale of FloatBound.
func Conv2DAbs(c *op.Conv2D, in, w []float64) []float64 {
	out := make([]float64, c.OutLen())
	forEachOut(c, func(x, y, k, n, o int) {
		s := 0.0
		convTaps(c, x, y, k, n, func(i, j int) { s += math.Abs(in[i] * w[j]) })
		out[o] = s
	})
	return out
}

// MaxPool computes max pooling over canonical NHWC data.
func MaxPool(m *op.MaxPool, in []float64) ([]float64, error) {
	if err := checkFloats("input", in, m.N*m.YIn*m.XIn*m.C); err != nil {
		return nil, err
	}
	out := make([]float64, m.N*m.Y*m.X*m.C)
	for n := 0; n < m.N; n++ {
		for y := 0; y < m.Y; y++ {
			for x := 0; x < m.X; x++ {
				for c := 0; c < m.C; c++ {
					best := math.Inf(-1)
					for dy := 0; dy < m.Size; dy++ {
						for dx := 0; dx < m.Size; dx++ {
							v := in[((n*m.YIn+y*m.Stride+dy)*m.XIn+x*m.Stride+dx)*m.C+c]
							if v > best || math.IsNaN(v) {
								best = v
							}
						}
					}
					out[((n*m.Y+y)*m.X+x)*m.C+c] = best
				}
			}
		}
	}
	return out, nil
}

// FloatBound is the largest error a correct fp32-accumulating target may show against the
// reference for one output: gamma(n) * absSum + one rounding of the result, with u the unit
// roundoff of the accumulator (2^-24 for fp32, 2^-53 for fp64).
func FloatBound(n int, absSum float64, acc op.AccType) float64 {
	u := math.Ldexp(1, -24)
	if acc == op.AccF64 {
		u = math.Ldexp(1, -53)
	}
	nu := float64(n+1) * u
	return nu/(1-nu)*absSum + u*absSum
}
