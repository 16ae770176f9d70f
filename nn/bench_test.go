package nn

import (
	"testing"

	"github.com/sumacdev/sumac/nn/rng"
	"github.com/sumacdev/sumac/nn/tensor"
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
