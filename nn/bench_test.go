package nn

import (
	"testing"

	"github.com/sumacdev/sumac/cpu/conv"
	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
	"github.com/sumacdev/sumac/op"
)

// Benchmarks of seed 003's heavy layers at batch 64, one thread; GFLOPS = 2*MACs/time.
// go test ./nn -run X -bench . -benchtime 20x

func benchConv(b *testing.B, algo Algo, ic, oc, hw int, backward bool) {
	src := rng.New(1)
	c := NewConv2D(&Config{Algo: algo, Threads: 1}, "conv", ic, oc, 3, src)
	c.NoInputGrad = ic == 1
	x := tensor.New(64, hw, hw, ic)
	randFill(x.Data(), src)
	y, _ := c.Forward(x, true)
	gy := tensor.New(y.Shape()...)
	randFill(gy.Data(), src)
	macs := float64(64 * (hw - 2) * (hw - 2) * oc * ic * 9)
	if backward {
		c.Backward(gy)
		if !c.NoInputGrad {
			macs *= 2
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if backward {
			c.Backward(gy)
		} else {
			c.Forward(x, true)
		}
	}
	b.ReportMetric(2*macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}

func benchLinear(b *testing.B, algo Algo, in, out int, backward bool) {
	src := rng.New(1)
	l := NewLinear(&Config{Algo: algo, Threads: 1}, "fc", in, out, src)
	x := tensor.New(64, in)
	randFill(x.Data(), src)
	y, _ := l.Forward(x, true)
	gy := tensor.New(y.Shape()...)
	randFill(gy.Data(), src)
	macs := float64(64 * in * out)
	if backward {
		macs *= 2
		l.Backward(gy)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if backward {
			l.Backward(gy)
		} else {
			l.Forward(x, true)
		}
	}
	b.ReportMetric(2*macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}

func BenchmarkConv1ForwardSIMD(b *testing.B)  { benchConv(b, SIMD, 1, 32, 28, false) }
func BenchmarkConv1BackwardSIMD(b *testing.B) { benchConv(b, SIMD, 1, 32, 28, true) }
func BenchmarkConv2ForwardSIMD(b *testing.B)  { benchConv(b, SIMD, 32, 64, 26, false) }
func BenchmarkConv2BackwardSIMD(b *testing.B) { benchConv(b, SIMD, 32, 64, 26, true) }
func BenchmarkFC1ForwardSIMD(b *testing.B)    { benchLinear(b, SIMD, 9216, 128, false) }
func BenchmarkFC1BackwardSIMD(b *testing.B)   { benchLinear(b, SIMD, 9216, 128, true) }
func BenchmarkFC2ForwardSIMD(b *testing.B)    { benchLinear(b, SIMD, 128, 10, false) }
func BenchmarkFC2BackwardSIMD(b *testing.B)   { benchLinear(b, SIMD, 128, 10, true) }
func BenchmarkConv2ForwardBase(b *testing.B)  { benchConv(b, Base, 32, 64, 26, false) }
func BenchmarkFC1ForwardBase(b *testing.B)    { benchLinear(b, Base, 9216, 128, false) }

// The same products through the CPU backend's general entry points (cpu/gemm's Sgemm,
// cpu/conv's plan, which packs the weights on every call as training must), for comparison
// with the layers' own drivers on cpu/kernels.

func BenchmarkFC1ForwardGemmPkg(b *testing.B)  { benchFC1Gemm(b, false) }
func BenchmarkFC1BackwardGemmPkg(b *testing.B) { benchFC1Gemm(b, true) }

func benchFC1Gemm(b *testing.B, backward bool) {
	src := rng.New(1)
	x, w := make([]float32, 64*9216), make([]float32, 128*9216)
	y, gx, gw := make([]float32, 64*128), make([]float32, 64*9216), make([]float32, 128*9216)
	randFill(x, src)
	randFill(w, src)
	randFill(y, src)
	o := gemm.Options{Threads: 1}
	macs := 64.0 * 9216 * 128
	for i := 0; i < b.N; i++ {
		if backward {
			o.Sgemm(gemm.NoTrans, gemm.NoTrans, 64, 9216, 128, 1, y, 128, w, 9216, 0, gx, 9216)
			o.Sgemm(gemm.Trans, gemm.NoTrans, 128, 9216, 64, 1, y, 128, x, 9216, 0, gw, 9216)
		} else {
			o.Sgemm(gemm.NoTrans, gemm.Trans, 64, 128, 9216, 1, x, 9216, w, 9216, 0, y, 128)
		}
	}
	if backward {
		macs *= 2
	}
	b.ReportMetric(2*macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}

func BenchmarkConv2ForwardConvPkg(b *testing.B) {
	src := rng.New(1)
	x, w, y := make([]float32, 64*26*26*32), make([]float32, 64*9*32), make([]float32, 64*24*24*64)
	randFill(x, src)
	randFill(w, src)
	spec := &op.Conv2D{X: 24, Y: 24, K: 64, C: 32, R: 3, S: 3, N: 64, Stride: 1, Dilation: 1, Groups: 1, XIn: 26, YIn: 26}
	for i := 0; i < b.N; i++ {
		p, err := conv.NewF32(spec, w, conv.Options{Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.Run(x, y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*float64(spec.MACs())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
}
