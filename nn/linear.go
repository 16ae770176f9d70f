package nn

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// Linear is a fully connected layer: y[n, o] = b[o] + sum_i w[o, i] * x[n, i], x [N, In],
// y [N, Out], w [Out, In] (PyTorch's torch.nn.Linear layout).
type Linear struct {
	name    string
	In, Out int
	W, B    *Param

	cfg   *Config
	x     *tensor.Tensor
	y, gx *tensor.Tensor
	simd  linearSIMDState
}

// NewLinear makes a linear layer initialised like torch.nn.Linear: weights and biases uniform in
// [-1/sqrt(In), 1/sqrt(In)] (PyTorch documentation, torch.nn.Linear, "Variables").
func NewLinear(cfg *Config, name string, in, out int, src *rng.Source) *Linear {
	l := &Linear{name: name, In: in, Out: out, cfg: cfg,
		W: newParam(name+".weight", out, in), B: newParam(name+".bias", out)}
	bound := 1 / math.Sqrt(float64(in))
	uniform(l.W.Value.Data(), bound, src)
	uniform(l.B.Value.Data(), bound, src)
	return l
}

func (l *Linear) Name() string     { return l.name }
func (l *Linear) Params() []*Param { return []*Param{l.W, l.B} }

// Forward computes y from x.
func (l *Linear) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	if x.Rank() != 2 || x.Dim(1) != l.In {
		return nil, shapeErr(l.name, "input", x, fmt.Sprintf("[N %d]", l.In))
	}
	l.x = x
	n := x.Dim(0)
	l.y = tensor.Ensure(l.y, n, l.Out)
	w, b, y := l.W.Value.Data(), l.B.Value.Data(), l.y.Data()
	switch l.cfg.Algo {
	case SIMD:
		l.simd.forward(l.cfg, n, l.In, l.Out, x.Data(), w, b, y, training)
	default:
		parallelFor(l.cfg.threads(), n, func(lo, hi int) { linearForwardBase(l.In, l.Out, x.Data(), w, b, y, lo, hi) })
	}
	return l.y, nil
}

// Backward computes the weight, bias and input gradients.
func (l *Linear) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if l.x == nil {
		return nil, fmt.Errorf("%s: Backward before Forward", l.name)
	}
	n := l.x.Dim(0)
	if gy.Rank() != 2 || gy.Dim(0) != n || gy.Dim(1) != l.Out {
		return nil, shapeErr(l.name, "output gradient", gy, fmt.Sprintf("[%d %d]", n, l.Out))
	}
	l.gx = tensor.Ensure(l.gx, n, l.In)
	x, w, g, gx, gw, gb := l.x.Data(), l.W.Value.Data(), gy.Data(), l.gx.Data(), l.W.Grad.Data(), l.B.Grad.Data()
	switch l.cfg.Algo {
	case SIMD:
		l.simd.backward(l.cfg, n, l.In, l.Out, x, w, g, gx, gw, gb)
	default:
		t := l.cfg.threads()
		parallelFor(t, n, func(lo, hi int) { linearInputGradBase(l.In, l.Out, g, w, gx, lo, hi) })
		parallelFor(t, l.Out, func(lo, hi int) { linearWeightGradBase(n, l.In, l.Out, x, g, gw, gb, lo, hi) })
	}
	return l.gx, nil
}

// linearForwardBase computes rows [lo, hi) of y; each output sums over i in order, plus the bias.
func linearForwardBase(in, out int, x, w, b, y []float32, lo, hi int) {
	for n := lo; n < hi; n++ {
		xr := x[n*in:][:in]
		for o := 0; o < out; o++ {
			wr := w[o*in:][:in]
			var sum float32
			for i, xv := range xr {
				sum += wr[i] * xv
			}
			y[n*out+o] = sum + b[o]
		}
	}
}

// linearInputGradBase computes rows [lo, hi) of gx[n, i] = sum_o gy[n, o] * w[o, i], summing
// over o in order into a row of accumulators.
func linearInputGradBase(in, out int, gy, w, gx []float32, lo, hi int) {
	for n := lo; n < hi; n++ {
		gr := gx[n*in:][:in]
		clear(gr)
		for o := 0; o < out; o++ {
			g := gy[n*out+o]
			wr := w[o*in:][:in]
			for i := range gr {
				gr[i] += g * wr[i]
			}
		}
	}
}

// linearWeightGradBase computes outputs [lo, hi) of gw[o, i] = sum_n gy[n, o] * x[n, i] and
// gb[o] = sum_n gy[n, o], each summing over n in order.
func linearWeightGradBase(batch, in, out int, x, gy, gw, gb []float32, lo, hi int) {
	clear(gw[lo*in : hi*in])
	clear(gb[lo:hi])
	for n := 0; n < batch; n++ {
		xr := x[n*in:][:in]
		for o := lo; o < hi; o++ {
			g := gy[n*out+o]
			gb[o] += g
			wr := gw[o*in:][:in]
			for i, xv := range xr {
				wr[i] += g * xv
			}
		}
	}
}
