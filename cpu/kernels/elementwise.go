package kernels

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/sumacdev/sumac/internal/rng"
)

// Element-wise kernels of the nn layers: ReLU and its gradient, 2x2 max-pooling with the
// index of each window's first maximum. They give the plain loops' results bit for bit.

// elemCallMax bounds the elements of one element-wise assembly call (a few microseconds).
const elemCallMax = 1 << 15

// ReLUF32 sets y[i] to x[i] with negative values (and -0) cleared to +0, for every i < len(x);
// y must be at least as long as x. NaN with the sign bit clear passes, as in relu's bit trick.
func ReLUF32(x, y []float32) {
	check("y", len(y), len(x))
	n8 := len(x) / 8
	for done := 0; done < n8; {
		n := min(n8-done, elemCallMax/8)
		reluF32(n, &x[8*done], &y[8*done])
		done += n
	}
	for i := 8 * n8; i < len(x); i++ {
		b := math.Float32bits(x[i])
		y[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}

// ReLUGradF32 sets gx[i] to g[i] where y[i]'s bits are nonzero (a ReLU output: positive), else
// to +0, for every i < len(g); y and gx must be at least as long as g.
func ReLUGradF32(g, y, gx []float32) {
	check("y", len(y), len(g))
	check("gx", len(gx), len(g))
	n8 := len(g) / 8
	for done := 0; done < n8; {
		n := min(n8-done, elemCallMax/8)
		reluGradF32(n, &g[8*done], &y[8*done], &gx[8*done])
		done += n
	}
	for i := 8 * n8; i < len(g); i++ {
		if math.Float32bits(y[i]) == 0 {
			gx[i] = 0
		} else {
			gx[i] = g[i]
		}
	}
}

// MaxPool2F32 pools px output pixels of one output row of an NHWC tensor with c channels (a
// multiple of 8) over 2x2 windows of stride 2: output pixel j's channel ch is the maximum of
// x[2j*c + ch], x[(2j+1)*c + ch], x[xrow + 2j*c + ch], x[xrow + (2j+1)*c + ch] (compared in
// that order, the first maximum kept, a NaN never greater), written to y[j*c + ch], and its
// index in x plus base to arg[j*c + ch].
func MaxPool2F32(px, c int, x []float32, xrow int, y []float32, arg []int32, base int) {
	if px < 0 || c < 0 || c%8 != 0 || xrow < 0 || base < 0 || base > math.MaxInt32-len(x) {
		panic(fmt.Sprintf("kernels: MaxPool2F32 px=%d c=%d xrow=%d base=%d", px, c, xrow, base))
	}
	if px == 0 || c == 0 {
		return
	}
	check("x", len(x), xrow+2*px*c)
	check("y", len(y), px*c)
	check("arg", len(arg), px*c)
	step := max(1, elemCallMax/(4*c))
	for j := 0; j < px; j += step {
		n := min(step, px-j)
		maxPool2F32(n, c/8, &x[2*j*c], xrow, &y[j*c], &arg[j*c], base+2*j*c)
	}
}

func goReLUF32(n8 int, x, y *float32) {
	xs, ys := unsafe.Slice(x, 8*n8), unsafe.Slice(y, 8*n8)
	for i, v := range xs {
		b := math.Float32bits(v)
		ys[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}

func goReLUGradF32(n8 int, g, y, gx *float32) {
	gs, ys, gxs := unsafe.Slice(g, 8*n8), unsafe.Slice(y, 8*n8), unsafe.Slice(gx, 8*n8)
	for i, v := range gs {
		if math.Float32bits(ys[i]) == 0 {
			gxs[i] = 0
		} else {
			gxs[i] = v
		}
	}
}

func goMaxPool2F32(px, c8 int, x *float32, xrow int, y *float32, arg *int32, base int) {
	c := 8 * c8
	xs := unsafe.Slice(x, xrow+2*px*c)
	ys, as := unsafe.Slice(y, px*c), unsafe.Slice(arg, px*c)
	for j := 0; j < px; j++ {
		for ch := 0; ch < c; ch++ {
			best, at := xs[2*j*c+ch], 2*j*c+ch
			for _, o := range [3]int{c, xrow, xrow + c} {
				if v := xs[2*j*c+o+ch]; v > best {
					best, at = v, 2*j*c+o+ch
				}
			}
			ys[j*c+ch], as[j*c+ch] = best, int32(base+at)
		}
	}
}

// AdadeltaF32 runs one Adadelta step (Zeiler 2012 with a learning rate, as torch.optim.Adadelta)
// on the parameters v with gradients g and the running averages sq (of g^2) and acc (of the
// updates squared), all of one length, in float32 with each operation rounded (no fused
// multiply-add), omr = 1 - rho:
//
//	sq = rho*sq + (omr*g)*g;  d = sqrt(acc+eps)/sqrt(sq+eps)*g;  acc = rho*acc + (omr*d)*d;  v -= lr*d
func AdadeltaF32(v, g, sq, acc []float32, rho, omr, eps, lr float32) {
	n := len(v)
	check("g", len(g), n)
	check("sq", len(sq), n)
	check("acc", len(acc), n)
	n8 := n / 8
	for done := 0; done < n8; {
		k := min(n8-done, elemCallMax/8)
		adadeltaF32(k, &v[8*done], &g[8*done], &sq[8*done], &acc[8*done], rho, omr, eps, lr)
		done += k
	}
	if t := 8 * n8; t < n {
		adadeltaGo(v[t:], g[t:], sq[t:], acc[t:], rho, omr, eps, lr)
	}
}

func goAdadeltaF32(n8 int, v, g, sq, acc *float32, rho, omr, eps, lr float32) {
	n := 8 * n8
	adadeltaGo(unsafe.Slice(v, n), unsafe.Slice(g, n), unsafe.Slice(sq, n), unsafe.Slice(acc, n), rho, omr, eps, lr)
}

// adadeltaGo is the plain loop (float32 square roots: the double root of a float32, rounded,
// is the float32 root). The explicit conversions round every product, so that no compiler
// fuses a multiply and an add (the Go specification allows it without them).
func adadeltaGo(v, g, sq, acc []float32, rho, omr, eps, lr float32) {
	for i := range v {
		gi := g[i]
		s := float32(rho*sq[i]) + float32(float32(omr*gi)*gi)
		sq[i] = s
		d := float32(float32(math.Sqrt(float64(acc[i]+eps)))/float32(math.Sqrt(float64(s+eps)))) * gi
		acc[i] = float32(rho*acc[i]) + float32(float32(omr*d)*d)
		v[i] -= float32(lr * d)
	}
}

// DropoutF32 runs inverted dropout on x (y and mask at least as long): element k keeps
// its value, scaled, when rng.Mix(h0 + k*hstep) >> 40 >= threshold (threshold >= 1): mask[k]
// is scale then, else 0, and y[k] = x[k]*mask[k], as the plain loop of nn's Dropout.
func DropoutF32(x, y, mask []float32, h0, hstep, threshold uint64, scale float32) {
	if threshold < 1 {
		panic("kernels: DropoutF32 threshold below 1")
	}
	check("y", len(y), len(x))
	check("mask", len(mask), len(x))
	n8 := len(x) / 8
	var h [8]uint64
	for done := 0; done < n8; {
		k := min(n8-done, elemCallMax/8)
		for l := range h {
			h[l] = h0 + uint64(8*done+l)*hstep
		}
		dropoutF32(k, &x[8*done], &y[8*done], &mask[8*done], &h[0], 8*hstep, threshold-1, scale)
		done += k
	}
	for i := 8 * n8; i < len(x); i++ {
		dropoutOne(x, y, mask, i, h0+uint64(i)*hstep, threshold, scale)
	}
}

func dropoutOne(x, y, mask []float32, i int, h, threshold uint64, scale float32) {
	var m float32
	if rng.Mix(h)>>40 >= threshold {
		m = scale
	}
	mask[i] = m
	y[i] = x[i] * m
}

func goDropoutF32(n8 int, x, y, mask *float32, h *uint64, hstep, thr uint64, scale float32) {
	n := 8 * n8
	xs, ys, ms, hs := unsafe.Slice(x, n), unsafe.Slice(y, n), unsafe.Slice(mask, n), unsafe.Slice(h, 8)
	for i := 0; i < n; i++ {
		dropoutOne(xs, ys, ms, i, hs[i%8]+uint64(i/8)*hstep, thr+1, scale)
	}
}
