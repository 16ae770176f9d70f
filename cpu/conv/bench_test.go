package conv

import (
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op/suite"
)

// BenchmarkResNet50 times every layer of op/suite's resnet50 suite (seed 004 Table 1) for
// each type, one thread; the metric gflops counts 2 operations per nominal MAC (padding taps
// included, as op.Conv2D.MACs). Run one layer with e.g. -bench 'ResNet50/C4/'.
func BenchmarkResNet50(b *testing.B) {
	s, err := suite.Get("resnet50")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, wl := range s.Workloads {
		c := wl.Spec.Conv
		flop := 2 * float64(c.MACs())
		b.Run(wl.Name+"/fp32", func(b *testing.B) {
			in, w := make([]float32, c.InLen()), make([]float32, c.WLen())
			for i := range in {
				in[i] = rng.Float32()
			}
			for i := range w {
				w[i] = rng.Float32() - 0.5
			}
			p, err := NewF32(c, w, Options{Threads: 1})
			if err != nil {
				b.Fatal(err)
			}
			out := make([]float32, c.OutLen())
			for b.Loop() {
				_ = p.Run(in, out)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "gflops")
		})
		b.Run(wl.Name+"/int16", func(b *testing.B) {
			in, w := make([]int16, c.InLen()), make([]int16, c.WLen())
			for i := range in {
				in[i] = int16(rng.Uint32())
			}
			for i := range w {
				w[i] = int16(rng.Uint32())
			}
			p, err := NewI16(c, w, Options{Threads: 1})
			if err != nil {
				b.Fatal(err)
			}
			out := make([]int32, c.OutLen())
			for b.Loop() {
				_ = p.Run(in, out)
			}
			b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "gops")
		})
		for _, path := range []kernels.U8Path{kernels.U8Fast, kernels.U8Exact} {
			b.Run(wl.Name+"/u8s8-"+path.String(), func(b *testing.B) {
				in, w := make([]uint8, c.InLen()), make([]int8, c.WLen())
				for i := range in {
					in[i] = uint8(rng.Uint32N(128))
				}
				for i := range w {
					w[i] = int8(rng.Uint32())
				}
				p, err := NewU8S8(c, w, Options{Threads: 1, U8Path: path})
				if err != nil {
					b.Fatal(err)
				}
				out := make([]int32, c.OutLen())
				for b.Loop() {
					_ = p.Run(in, out)
				}
				b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "gops")
			})
		}
	}
}
