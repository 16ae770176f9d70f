package nn

import (
	"fmt"
	"math"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// ReLU is y = max(x, 0), elementwise; its gradient passes where x > 0.
type ReLU struct {
	name  string
	cfg   *Config
	y, gx *tensor.Tensor
}

func NewReLU(cfg *Config, name string) *ReLU { return &ReLU{name: name, cfg: cfg} }
func (r *ReLU) Name() string                 { return r.name }
func (r *ReLU) Params() []*Param             { return nil }

func (r *ReLU) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	r.y = tensor.Ensure(r.y, x.Shape()...)
	y, xd := r.y.Data(), x.Data()
	simd := r.cfg != nil && r.cfg.Algo == SIMD
	parallelFor(r.cfg.threads(), chunks(len(y)), func(lo, hi int) {
		lo, hi = chunkRange(lo, hi, len(y))
		if simd { // the CPU backend's vector kernel, the same bits
			kernels.ReLUF32(xd[lo:hi], y[lo:hi])
			return
		}
		for i, v := range xd[lo:hi] {
			y[lo+i] = relu(v)
		}
	})
	return r.y, nil
}

func (r *ReLU) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if r.y == nil || !gy.SameShape(r.y) {
		return nil, fmt.Errorf("%s: output gradient %v does not match the last output", r.name, gy)
	}
	r.gx = tensor.Ensure(r.gx, gy.Shape()...)
	gx, y, g := r.gx.Data(), r.y.Data(), gy.Data()
	simd := r.cfg != nil && r.cfg.Algo == SIMD
	parallelFor(r.cfg.threads(), chunks(len(y)), func(lo, hi int) {
		lo, hi = chunkRange(lo, hi, len(y))
		if simd {
			kernels.ReLUGradF32(g[lo:hi], y[lo:hi], gx[lo:hi])
			return
		}
		for i := lo; i < hi; i++ {
			gx[i] = passIfPositive(g[i], y[i])
		}
	})
	return r.gx, nil
}

// relu is max(v, 0) without a branch (signs are random: a branch mispredicts half the time):
// the sign bit, spread over the word, clears negative values (and -0).
func relu(v float32) float32 {
	b := math.Float32bits(v)
	return math.Float32frombits(b &^ uint32(int32(b)>>31))
}

// passIfPositive returns g where y (a ReLU output, never negative) is positive, else 0, without
// a branch: y's bits are nonzero exactly when y > 0.
func passIfPositive(g, y float32) float32 {
	b := int32(math.Float32bits(y))
	return math.Float32frombits(math.Float32bits(g) & uint32((b|-b)>>31))
}

// MaxPool2D takes the maximum over non-overlapping Size x Size windows of an NHWC tensor
// (stride = Size, no padding; rows and columns that do not fill a window are dropped, as in
// PyTorch's max_pool2d). The gradient goes to the first maximum of each window.
type MaxPool2D struct {
	name  string
	cfg   *Config
	Size  int
	arg   []int32 // input offset of each output's maximum
	inDim []int
	y, gx *tensor.Tensor
}

func NewMaxPool2D(cfg *Config, name string, size int) *MaxPool2D {
	return &MaxPool2D{name: name, cfg: cfg, Size: size}
}
func (m *MaxPool2D) Name() string     { return m.name }
func (m *MaxPool2D) Params() []*Param { return nil }

func (m *MaxPool2D) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	k := m.Size
	if x.Rank() != 4 || x.Dim(1) < k || x.Dim(2) < k {
		return nil, shapeErr(m.name, "input", x, fmt.Sprintf("[N H W C] with H, W >= %d", k))
	}
	n, h, w, c := x.Dim(0), x.Dim(1), x.Dim(2), x.Dim(3)
	oh, ow := h/k, w/k
	m.inDim = append(m.inDim[:0], x.Shape()...)
	m.y = tensor.Ensure(m.y, n, oh, ow, c)
	if cap(m.arg) < m.y.Len() {
		m.arg = make([]int32, m.y.Len())
	}
	m.arg = m.arg[:m.y.Len()]
	xd, y := x.Data(), m.y.Data()
	// Channel runs are contiguous in NHWC: start each output pixel from the window's first
	// input pixel and compare the others channel by channel (the first maximum wins).
	parallelFor(m.cfg.threads(), n, func(lo, hi int) { m.forward(xd, y, lo, hi, h, w, c, oh, ow) })
	return m.y, nil
}

// forward pools images [lo, hi).
func (m *MaxPool2D) forward(xd, y []float32, lo, hi, h, w, c, oh, ow int) {
	k := m.Size
	if k == 2 && c%8 == 0 && m.cfg != nil && m.cfg.Algo == SIMD && len(xd) <= math.MaxInt32 {
		// The CPU backend's vector kernel: the same maxima and first-maximum indices.
		for b := lo; b < hi; b++ {
			for i := 0; i < oh; i++ {
				first := (b*h + i*k) * w * c
				o := (b*oh + i) * ow * c
				kernels.MaxPool2F32(ow, c, xd[first:], w*c, y[o:], m.arg[o:], first)
			}
		}
		return
	}
	for b := lo; b < hi; b++ {
		for i := 0; i < oh; i++ {
			for j := 0; j < ow; j++ {
				o := ((b*oh+i)*ow + j) * c
				yr, ar := y[o:][:c], m.arg[o:][:c]
				first := ((b*h+i*k)*w + j*k) * c
				copy(yr, xd[first:][:c])
				for ch := range ar {
					ar[ch] = int32(first + ch)
				}
				for di := 0; di < k; di++ {
					for dj := 0; dj < k; dj++ {
						at := ((b*h+i*k+di)*w + j*k + dj) * c
						if at == first {
							continue
						}
						xr := xd[at:][:c]
						for ch, v := range xr {
							if v > yr[ch] {
								yr[ch] = v
								ar[ch] = int32(at + ch)
							}
						}
					}
				}
			}
		}
	}
}

func (m *MaxPool2D) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if m.y == nil || !gy.SameShape(m.y) {
		return nil, fmt.Errorf("%s: output gradient %v does not match the last output", m.name, gy)
	}
	m.gx = tensor.Ensure(m.gx, m.inDim...)
	gx := m.gx.Data()
	clear(gx)
	for o, g := range gy.Data() {
		gx[m.arg[o]] += g
	}
	return m.gx, nil
}

// Dropout zeroes each element with probability P during training and scales the others by
// 1/(1-P) (inverted dropout, as torch.nn.Dropout). Whether element i of the c-th training call
// is kept is a function of (Seed, c, i) alone (a SplitMix64 hash), so masks do not depend on the
// algorithm or the number of threads. Outside training it is the identity.
type Dropout struct {
	name  string
	cfg   *Config
	P     float64
	Seed  uint64
	calls uint64
	mask  []float32 // 0 or 1/(1-P) per element: multiplying avoids a mispredicted branch
	y, gx *tensor.Tensor
	train bool
}

func NewDropout(cfg *Config, name string, p float64, seed uint64) *Dropout {
	return &Dropout{name: name, cfg: cfg, P: p, Seed: seed}
}
func (d *Dropout) Name() string     { return d.name }
func (d *Dropout) Params() []*Param { return nil }

func (d *Dropout) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	d.train = training
	if !training || d.P == 0 {
		return x, nil
	}
	if d.P < 0 || d.P >= 1 {
		return nil, fmt.Errorf("%s: drop probability %v outside [0, 1)", d.name, d.P)
	}
	d.calls++
	d.y = tensor.Ensure(d.y, x.Shape()...)
	if cap(d.mask) < x.Len() {
		d.mask = make([]float32, x.Len())
	}
	d.mask = d.mask[:x.Len()]
	scale := float32(1 / (1 - d.P))
	// Keep when the top 24 bits of the hash, as a fraction, are >= P.
	threshold := uint64(math.Ceil(d.P * (1 << 24)))
	base := rng.Mix(d.Seed^0x6a09e667f3bcc909) + d.calls*0x9e3779b97f4a7c15
	y, xd := d.y.Data(), x.Data()
	simd := d.cfg != nil && d.cfg.Algo == SIMD && threshold >= 1
	parallelFor(d.cfg.threads(), chunks(len(y)), func(lo, hi int) {
		lo, hi = chunkRange(lo, hi, len(y))
		if simd { // the CPU backend's vector hash and mask, the same bits
			kernels.DropoutF32(xd[lo:hi], y[lo:hi], d.mask[lo:hi], base+uint64(lo)*0xd1b54a32d192ed03, 0xd1b54a32d192ed03, threshold, scale)
			return
		}
		for i := lo; i < hi; i++ {
			var m float32
			if rng.Mix(base+uint64(i)*0xd1b54a32d192ed03)>>40 >= threshold {
				m = scale
			}
			d.mask[i] = m
			y[i] = xd[i] * m
		}
	})
	return d.y, nil
}

func (d *Dropout) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if !d.train || d.P == 0 {
		return gy, nil
	}
	if !gy.SameShape(d.y) {
		return nil, fmt.Errorf("%s: output gradient %v does not match the last output", d.name, gy)
	}
	d.gx = tensor.Ensure(d.gx, gy.Shape()...)
	gx, g := d.gx.Data(), gy.Data()
	parallelFor(d.cfg.threads(), chunks(len(gx)), func(lo, hi int) {
		lo, hi = chunkRange(lo, hi, len(gx))
		for i := lo; i < hi; i++ {
			gx[i] = g[i] * d.mask[i]
		}
	})
	return d.gx, nil
}

// Flatten reshapes [N, d1, d2, ...] to [N, d1*d2*...] (a view, no copy).
type Flatten struct {
	name  string
	inDim []int
}

func NewFlatten(name string) *Flatten { return &Flatten{name: name} }
func (f *Flatten) Name() string       { return f.name }
func (f *Flatten) Params() []*Param   { return nil }

func (f *Flatten) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	if x.Rank() < 1 {
		return nil, shapeErr(f.name, "input", x, "[N ...]")
	}
	f.inDim = append(f.inDim[:0], x.Shape()...)
	n := x.Dim(0)
	rest := 1
	for _, d := range x.Shape()[1:] {
		rest *= d
	}
	return x.MustReshape(n, rest), nil
}

func (f *Flatten) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if f.inDim == nil {
		return nil, fmt.Errorf("%s: Backward before Forward", f.name)
	}
	return gy.Reshape(f.inDim...)
}

// LogSoftmax is y[n, j] = x[n, j] - log sum_k exp(x[n, k]) over the last dimension of [N, C]
// (computed with the row maximum subtracted first, for range). Its gradient is
// gx = gy - exp(y) * sum_j gy[n, j].
type LogSoftmax struct {
	name  string
	y, gx *tensor.Tensor
}

func NewLogSoftmax(name string) *LogSoftmax { return &LogSoftmax{name: name} }
func (l *LogSoftmax) Name() string          { return l.name }
func (l *LogSoftmax) Params() []*Param      { return nil }

func (l *LogSoftmax) Forward(x *tensor.Tensor, training bool) (*tensor.Tensor, error) {
	if x.Rank() != 2 || x.Dim(1) == 0 {
		return nil, shapeErr(l.name, "input", x, "[N C] with C > 0")
	}
	n, c := x.Dim(0), x.Dim(1)
	l.y = tensor.Ensure(l.y, n, c)
	for b := 0; b < n; b++ {
		xr, yr := x.Data()[b*c:][:c], l.y.Data()[b*c:][:c]
		m := xr[0]
		for _, v := range xr {
			m = max(m, v)
		}
		var s float64
		for _, v := range xr {
			s += math.Exp(float64(v - m))
		}
		lse := m + float32(math.Log(s))
		for j, v := range xr {
			yr[j] = v - lse
		}
	}
	return l.y, nil
}

func (l *LogSoftmax) Backward(gy *tensor.Tensor) (*tensor.Tensor, error) {
	if l.y == nil || !gy.SameShape(l.y) {
		return nil, fmt.Errorf("%s: output gradient %v does not match the last output", l.name, gy)
	}
	n, c := gy.Dim(0), gy.Dim(1)
	l.gx = tensor.Ensure(l.gx, n, c)
	for b := 0; b < n; b++ {
		gr, yr, gxr := gy.Data()[b*c:][:c], l.y.Data()[b*c:][:c], l.gx.Data()[b*c:][:c]
		var s float64
		for _, g := range gr {
			s += float64(g)
		}
		for j, g := range gr {
			gxr[j] = g - float32(math.Exp(float64(yr[j]))*s)
		}
	}
	return l.gx, nil
}

// NLLLoss is the mean negative log-likelihood of log-probabilities logp [N, C] for labels:
// loss = -(1/N) sum_n logp[n, label[n]] (torch.nn.functional.nll_loss, reduction "mean").
func NLLLoss(logp *tensor.Tensor, labels []int) (float64, error) {
	if logp.Rank() != 2 || logp.Dim(0) != len(labels) || len(labels) == 0 {
		return 0, fmt.Errorf("nll loss: log-probabilities %v for %d labels", logp, len(labels))
	}
	c := logp.Dim(1)
	var s float64
	for n, l := range labels {
		if l < 0 || l >= c {
			return 0, fmt.Errorf("nll loss: label %d of item %d outside [0, %d)", l, n, c)
		}
		s -= float64(logp.Data()[n*c+l])
	}
	return s / float64(len(labels)), nil
}

// NLLLossGrad writes the gradient of NLLLoss with respect to logp into g (same shape).
func NLLLossGrad(logp *tensor.Tensor, labels []int, g *tensor.Tensor) {
	c := logp.Dim(1)
	gd := g.Data()
	clear(gd)
	inv := float32(1 / float64(len(labels)))
	for n, l := range labels {
		gd[n*c+l] = -inv
	}
}

// Elementwise layers split their data into chunks of elemChunk for the threads; small tensors
// stay on one goroutine.
const elemChunk = 1 << 15

func chunks(n int) int { return (n + elemChunk - 1) / elemChunk }

func chunkRange(lo, hi, n int) (int, int) { return lo * elemChunk, min(hi*elemChunk, n) }
