package nn

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// Conv2D is a 2D convolution with stride 1 and no padding (seed 003's network):
//
//	y[n, oh, ow, oc] = b[oc] + sum_{kh, kw, ic} w[oc, kh, kw, ic] * x[n, oh+kh, ow+kw, ic]
//
// x is [N, H, W, IC] and y is [N, H-K+1, W-K+1, OC] (NHWC).
type Conv2D struct {
	name      string
	IC, OC, K int
	W, B      *Param // W: [OC, K, K, IC]; B: [OC]
	// NoInputGrad skips the input gradient (the first layer's input is data, as PyTorch's
	// autograd also skips it); Backward then returns nil.
	NoInputGrad bool

	cfg   *Config
	x     *tensor.Tensor // input of the last Forward
	y, gx *tensor.Tensor
	simd  convSIMDState
}

// NewConv2D makes a convolution initialised like PyTorch's torch.nn.Conv2d: weights and biases
// uniform in [-1/sqrt(fan_in), 1/sqrt(fan_in)] with fan_in = IC*K*K (PyTorch documentation,
// torch.nn.Conv2d, "Variables": U(-sqrt(k), sqrt(k)), k = groups / (C_in * prod(kernel_size))).
func NewConv2D(cfg *Config, name string, ic, oc, k int, src *rng.Source) *Conv2D {
	c := &Conv2D{name: name, IC: ic, OC: oc, K: k, cfg: cfg,
		W: newParam(name+".weight", oc, k, k, ic), B: newParam(name+".bias", oc)}
	bound := 1 / math.Sqrt(float64(ic*k*k))
	uniform(c.W.Value.Data(), bound, src)
	uniform(c.B.Value.Data(), bound, src)
	return c
}

// uniform fills v with values uniform in [-bound, bound).
func uniform(v []float32, bound float64, src *rng.Source) {
	for i := range v {
		v[i] = float32((2*src.Float64() - 1) * bound)
	}
}

func (c *Conv2D) Name() string     { return c.name }
func (c *Conv2D) Params() []*Param { return []*Param{c.W, c.B} }
func (c *Conv2D) shape() convShape { return c.shapeOf(c.x) }

// convShape holds the sizes of one convolution call.
type convShape struct{ N, H, W, IC, OC, K, OH, OW int }

func (c *Conv2D) shapeOf(x *tensor.Tensor) convShape {
	return convShape{N: x.Dim(0), H: x.Dim(1), W: x.Dim(2), IC: c.IC, OC: c.OC, K: c.K,
		OH: x.Dim(1) - c.K + 1, OW: x.Dim(2) - c.K + 1}
}

// Forward computes y from x.
func (c *Conv2D) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	if x.Rank() != 4 || x.Dim(3) != c.IC || x.Dim(1) < c.K || x.Dim(2) < c.K {
		return nil, shapeErr(c.name, "input", x, fmt.Sprintf("[N H W %d] with H, W >= %d", c.IC, c.K))
	}
	c.x = x
	s := c.shape()
	c.y = tensor.Ensure(c.y, s.N, s.OH, s.OW, s.OC)
	w, b, y := c.W.Value.Data(), c.B.Value.Data(), c.y.Data()
	switch c.cfg.Algo {
	case SIMD:
		c.simd.forward(c.cfg, s, x.Data(), w, b, y)
	default:
		parallelFor(c.cfg.threads(), s.N, func(lo, hi int) { convForwardBase(s, x.Data(), w, b, y, lo, hi) })
	}
	return c.y, nil
}

// Backward computes the weight, bias and (unless NoInputGrad) input gradients.
func (c *Conv2D) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if c.x == nil {
		return nil, fmt.Errorf("%s: Backward before Forward", c.name)
	}
	s := c.shape()
	if gy.Rank() != 4 || gy.Dim(0) != s.N || gy.Dim(1) != s.OH || gy.Dim(2) != s.OW || gy.Dim(3) != s.OC {
		return nil, shapeErr(c.name, "output gradient", gy, fmt.Sprint(c.y.Shape()))
	}
	var gx []float32
	if !c.NoInputGrad {
		c.gx = tensor.Ensure(c.gx, s.N, s.H, s.W, s.IC)
		gx = c.gx.Data()
	}
	x, w, gw, gb := c.x.Data(), c.W.Value.Data(), c.W.Grad.Data(), c.B.Grad.Data()
	switch c.cfg.Algo {
	case SIMD:
		c.simd.backward(c.cfg, s, x, w, gy.Data(), gx, gw, gb)
	default:
		t := c.cfg.threads()
		if gx != nil {
			parallelFor(t, s.N, func(lo, hi int) { convInputGradBase(s, gy.Data(), w, gx, lo, hi) })
		}
		parallelFor(t, s.OC, func(lo, hi int) { convWeightGradBase(s, x, gy.Data(), gw, gb, lo, hi) })
	}
	if c.NoInputGrad {
		return nil, nil
	}
	return c.gx, nil
}

// convForwardBase computes images [lo, hi) of y. Each output is the sum over (kh, kw, ic) in
// that order, plus the bias; for a fixed kh the (kw, ic) run is contiguous in x and w.
func convForwardBase(s convShape, x, w, bias, y []float32, lo, hi int) {
	kc := s.K * s.IC // one filter row: (kw, ic)
	for n := lo; n < hi; n++ {
		for oh := 0; oh < s.OH; oh++ {
			for ow := 0; ow < s.OW; ow++ {
				yr := y[((n*s.OH+oh)*s.OW+ow)*s.OC:][:s.OC]
				for oc := range yr {
					var sum float32
					for kh := 0; kh < s.K; kh++ {
						xr := x[((n*s.H+oh+kh)*s.W+ow)*s.IC:][:kc]
						wr := w[(oc*s.K+kh)*kc:][:kc]
						for i, xv := range xr {
							sum += wr[i] * xv
						}
					}
					yr[oc] = sum + bias[oc]
				}
			}
		}
	}
}

// convInputGradBase computes images [lo, hi) of
//
//	gx[n, ih, iw, ic] = sum_{kh, kw, oc} gy[n, ih-kh, iw-kw, oc] * w[oc, kh, kw, ic]
//
// over the valid (kh, kw), summing in (kh, kw, oc) order into a row of IC accumulators.
func convInputGradBase(s convShape, gy, w, gx []float32, lo, hi int) {
	for n := lo; n < hi; n++ {
		for ih := 0; ih < s.H; ih++ {
			for iw := 0; iw < s.W; iw++ {
				gr := gx[((n*s.H+ih)*s.W+iw)*s.IC:][:s.IC]
				clear(gr)
				for kh := 0; kh < s.K; kh++ {
					oh := ih - kh
					if oh < 0 || oh >= s.OH {
						continue
					}
					for kw := 0; kw < s.K; kw++ {
						ow := iw - kw
						if ow < 0 || ow >= s.OW {
							continue
						}
						gyr := gy[((n*s.OH+oh)*s.OW+ow)*s.OC:][:s.OC]
						for oc, g := range gyr {
							wr := w[((oc*s.K+kh)*s.K+kw)*s.IC:][:s.IC]
							for ic := range gr {
								gr[ic] += g * wr[ic]
							}
						}
					}
				}
			}
		}
	}
}

// convWeightGradBase computes output channels [lo, hi) of
//
//	gw[oc, kh, kw, ic] = sum_{n, oh, ow} gy[n, oh, ow, oc] * x[n, oh+kh, ow+kw, ic]
//	gb[oc]             = sum_{n, oh, ow} gy[n, oh, ow, oc]
//
// Every element sums over (n, oh, ow) in that order; running that loop outermost keeps the
// order and reads x and gw contiguously.
func convWeightGradBase(s convShape, x, gy, gw, gb []float32, lo, hi int) {
	kc := s.K * s.IC
	kkc := s.K * kc
	clear(gw[lo*kkc : hi*kkc])
	clear(gb[lo:hi])
	for n := 0; n < s.N; n++ {
		for oh := 0; oh < s.OH; oh++ {
			for ow := 0; ow < s.OW; ow++ {
				gyr := gy[((n*s.OH+oh)*s.OW+ow)*s.OC:][:s.OC]
				for oc := lo; oc < hi; oc++ {
					g := gyr[oc]
					gb[oc] += g
					for kh := 0; kh < s.K; kh++ {
						xr := x[((n*s.H+oh+kh)*s.W+ow)*s.IC:][:kc]
						wr := gw[(oc*s.K+kh)*kc:][:kc]
						for i, xv := range xr {
							wr[i] += g * xv
						}
					}
				}
			}
		}
	}
}
