package nn

import (
	"math"
	"testing"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// probe is one tensor whose gradient the finite-difference check verifies.
type probe struct {
	name string
	v    []float32        // the values to perturb
	grad func() []float32 // the analytic gradient after Backward
}

// gradCheck compares analytic gradients with central differences of f = sum_i r_i * y_i, r a
// fixed random vector, at up to 40 elements of each probe. The tolerance covers fp32 rounding of
// f's terms divided by the step: tol * (1 + |analytic|).
func gradCheck(t *testing.T, what string, forward func() *tensor.Tensor, backward func(gy *tensor.Tensor), probes []probe, h, tol float64) {
	t.Helper()
	y := forward()
	src := rng.New(99)
	r := tensor.New(y.Shape()...)
	for i := range r.Data() {
		r.Data()[i] = float32(2*src.Float64() - 1)
	}
	f := func() float64 {
		var s float64
		for i, v := range forward().Data() {
			s += float64(r.Data()[i]) * float64(v)
		}
		return s
	}
	forward()
	backward(r)
	analytic := make([][]float32, len(probes))
	for i, p := range probes {
		analytic[i] = append([]float32(nil), p.grad()...)
	}
	for pi, p := range probes {
		step := max(1, len(p.v)/40)
		for i := 0; i < len(p.v); i += step {
			v0 := p.v[i]
			plus, minus := v0+float32(h), v0-float32(h)
			p.v[i] = plus
			fp := f()
			p.v[i] = minus
			fm := f()
			p.v[i] = v0
			num := (fp - fm) / (float64(plus) - float64(minus))
			a := float64(analytic[pi][i])
			if math.Abs(num-a) > tol*(1+math.Abs(a)) {
				t.Errorf("%s: d/d%s[%d]: analytic %.6g, finite difference %.6g", what, p.name, i, a, num)
			}
		}
	}
}

func randFill(v []float32, src *rng.Source) {
	for i := range v {
		v[i] = float32(2*src.Float64() - 1)
	}
}

func TestConv2DGradients(t *testing.T) {
	for _, algo := range []Algo{Base, SIMD} {
		src := rng.New(1)
		cfg := &Config{Algo: algo, Threads: 2}
		c := NewConv2D(cfg, "conv", 3, 4, 3, src)
		x := tensor.New(2, 6, 7, 3)
		randFill(x.Data(), src)
		var gx *tensor.Tensor
		gradCheck(t, "conv2d "+algo.String(),
			func() *tensor.Tensor { y, _ := c.Forward(x, true); return y },
			func(gy *tensor.Tensor) {
				var err error
				if gx, err = c.Backward(gy); err != nil {
					t.Fatal(err)
				}
			},
			[]probe{
				{"x", x.Data(), func() []float32 { return gx.Data() }},
				{"w", c.W.Value.Data(), func() []float32 { return c.W.Grad.Data() }},
				{"b", c.B.Value.Data(), func() []float32 { return c.B.Grad.Data() }},
			}, 1e-2, 2e-3)
	}
}

func TestLinearGradients(t *testing.T) {
	for _, algo := range []Algo{Base, SIMD} {
		src := rng.New(2)
		cfg := &Config{Algo: algo, Threads: 2}
		l := NewLinear(cfg, "fc", 13, 5, src)
		x := tensor.New(3, 13)
		randFill(x.Data(), src)
		var gx *tensor.Tensor
		gradCheck(t, "linear "+algo.String(),
			func() *tensor.Tensor { y, _ := l.Forward(x, true); return y },
			func(gy *tensor.Tensor) { gx, _ = l.Backward(gy) },
			[]probe{
				{"x", x.Data(), func() []float32 { return gx.Data() }},
				{"w", l.W.Value.Data(), func() []float32 { return l.W.Grad.Data() }},
				{"b", l.B.Value.Data(), func() []float32 { return l.B.Grad.Data() }},
			}, 1e-2, 1e-3)
	}
}

// distinct fills v with a shuffled ramp of values at least 0.01 apart and 0.005 away from 0,
// so a step of 1e-3 changes no maximum and crosses no ReLU kink.
func distinct(v []float32, src *rng.Source) {
	for i := range v {
		v[i] = float32(i-len(v)/2)*0.01 + 0.005
	}
	src.Shuffle(len(v), func(i, j int) { v[i], v[j] = v[j], v[i] })
}

func TestReLUGradient(t *testing.T) {
	r := NewReLU(&Config{Threads: 2}, "relu")
	x := tensor.New(2, 3, 4, 5)
	distinct(x.Data(), rng.New(3))
	var gx *tensor.Tensor
	gradCheck(t, "relu", func() *tensor.Tensor { y, _ := r.Forward(x, true); return y },
		func(gy *tensor.Tensor) { gx, _ = r.Backward(gy) },
		[]probe{{"x", x.Data(), func() []float32 { return gx.Data() }}}, 1e-3, 1e-3)
}

func TestMaxPoolGradient(t *testing.T) {
	m := NewMaxPool2D(&Config{Threads: 2}, "pool", 2)
	x := tensor.New(2, 5, 4, 3) // odd height: the last row is dropped
	distinct(x.Data(), rng.New(4))
	var gx *tensor.Tensor
	gradCheck(t, "maxpool", func() *tensor.Tensor { y, _ := m.Forward(x, true); return y },
		func(gy *tensor.Tensor) { gx, _ = m.Backward(gy) },
		[]probe{{"x", x.Data(), func() []float32 { return gx.Data() }}}, 1e-3, 1e-3)
	y, _ := m.Forward(x, false)
	if y.Dim(1) != 2 || y.Dim(2) != 2 {
		t.Fatalf("pooled shape %v", y.Shape())
	}
	// Exact values: each output is the maximum of its window.
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			want := float32(math.Inf(-1))
			for di := 0; di < 2; di++ {
				for dj := 0; dj < 2; dj++ {
					want = max(want, x.At(1, 2*i+di, 2*j+dj, 2))
				}
			}
			if y.At(1, i, j, 2) != want {
				t.Fatalf("pool(%d,%d) = %v, want %v", i, j, y.At(1, i, j, 2), want)
			}
		}
	}
}

func TestDropoutGradientAndRate(t *testing.T) {
	d := NewDropout(&Config{Threads: 2}, "drop", 0.25, 7)
	x := tensor.New(4, 1000)
	randFill(x.Data(), rng.New(5))
	var gx *tensor.Tensor
	gradCheck(t, "dropout", func() *tensor.Tensor {
		d.calls = 0 // the same mask on every evaluation
		y, _ := d.Forward(x, true)
		return y
	}, func(gy *tensor.Tensor) { gx, _ = d.Backward(gy) },
		[]probe{{"x", x.Data(), func() []float32 { return gx.Data() }}}, 1e-2, 1e-3)
	kept := 0
	for _, k := range d.mask {
		if k != 0 {
			kept++
		}
	}
	// 4000 draws with p = 0.75: standard deviation 27.
	if kept < 3000-150 || kept > 3000+150 {
		t.Errorf("kept %d of 4000, want about 3000", kept)
	}
	// A new call draws a new mask; evaluation is the identity.
	m1 := append([]float32(nil), d.mask...)
	d.Forward(x, true)
	same := 0
	for i := range m1 {
		if m1[i] == d.mask[i] {
			same++
		}
	}
	if same > 3500 {
		t.Errorf("second mask equals the first in %d of 4000 places", same)
	}
	if y, _ := d.Forward(x, false); y != x {
		t.Error("dropout is not the identity in evaluation")
	}
}

func TestLogSoftmaxNLLGradient(t *testing.T) {
	ls := NewLogSoftmax("logsoftmax")
	x := tensor.New(3, 10)
	randFill(x.Data(), rng.New(6))
	var gx *tensor.Tensor
	gradCheck(t, "logsoftmax", func() *tensor.Tensor { y, _ := ls.Forward(x, true); return y },
		func(gy *tensor.Tensor) { gx, _ = ls.Backward(gy) },
		[]probe{{"x", x.Data(), func() []float32 { return gx.Data() }}}, 1e-3, 2e-3)

	// NLL: loss and gradient by finite differences on the log-probabilities.
	labels := []int{3, 0, 9}
	logp, _ := ls.Forward(x, true)
	g := tensor.New(3, 10)
	NLLLossGrad(logp, labels, g)
	base, _ := NLLLoss(logp, labels)
	for i := range logp.Data() {
		v0 := logp.Data()[i]
		logp.Data()[i] = v0 + 0.01
		lp, _ := NLLLoss(logp, labels)
		logp.Data()[i] = v0
		num := (lp - base) / float64(float32(v0+0.01)-v0)
		if math.Abs(num-float64(g.Data()[i])) > 1e-4 {
			t.Errorf("nll gradient [%d]: %v vs %v", i, g.Data()[i], num)
		}
	}
	// Exact value: -mean of the picked log-probabilities; probabilities sum to 1.
	want := -(float64(logp.At(0, 3)) + float64(logp.At(1, 0)) + float64(logp.At(2, 9))) / 3
	if base != want {
		t.Errorf("loss %v, want %v", base, want)
	}
	var s float64
	for j := 0; j < 10; j++ {
		s += math.Exp(float64(logp.At(1, j)))
	}
	if math.Abs(s-1) > 1e-6 {
		t.Errorf("probabilities sum to %v", s)
	}
	if _, err := NLLLoss(logp, []int{3, 10, 0}); err == nil {
		t.Error("label 10 accepted")
	}
}

func TestFlattenRoundTrip(t *testing.T) {
	f := NewFlatten("flatten")
	x := tensor.New(2, 3, 4, 5)
	y, err := f.Forward(x, true)
	if err != nil || y.Dim(0) != 2 || y.Dim(1) != 60 {
		t.Fatalf("%v %v", y, err)
	}
	gx, err := f.Backward(y)
	if err != nil || !gx.SameShape(x) {
		t.Fatalf("%v %v", gx, err)
	}
}

func TestBadShapesAreErrors(t *testing.T) {
	cfg := &Config{}
	src := rng.New(1)
	c := NewConv2D(cfg, "conv", 3, 4, 3, src)
	if _, err := c.Forward(tensor.New(1, 5, 5, 2), true); err == nil {
		t.Error("conv accepted 2 channels for 3")
	}
	if _, err := c.Backward(tensor.New(1, 3, 3, 4)); err == nil {
		t.Error("conv Backward before Forward")
	}
	l := NewLinear(cfg, "fc", 4, 2, src)
	if _, err := l.Forward(tensor.New(2, 5), true); err == nil {
		t.Error("linear accepted 5 inputs for 4")
	}
	l.Forward(tensor.New(2, 4), true)
	if _, err := l.Backward(tensor.New(3, 2)); err == nil {
		t.Error("linear accepted a gradient for 3 items")
	}
	if _, err := NewMaxPool2D(cfg, "p", 2).Forward(tensor.New(1, 1, 4, 1), true); err == nil {
		t.Error("pool accepted height 1")
	}
	if _, err := NewLogSoftmax("l").Forward(tensor.New(3), true); err == nil {
		t.Error("logsoftmax accepted rank 1")
	}
	if _, err := NewReLU(cfg, "r").Backward(tensor.New(2)); err == nil {
		t.Error("relu Backward before Forward")
	}
}

func TestBranchlessReLU(t *testing.T) {
	inf := float32(math.Inf(1))
	for _, c := range []struct{ in, want float32 }{{-1, 0}, {2.5, 2.5}, {0, 0}, {float32(math.Copysign(0, -1)), 0}, {inf, inf}, {-inf, 0}, {1e-45, 1e-45}} {
		if got := relu(c.in); got != c.want || math.Signbit(float64(got)) {
			t.Errorf("relu(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	if passIfPositive(3, 0) != 0 || passIfPositive(3, 1e-45) != 3 || passIfPositive(-2, 7) != -2 {
		t.Error("passIfPositive")
	}
}
