package interp

import (
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
)

// BenchmarkLeiGEMM interprets seed 001 Fig. 4 at Kc=256 (64 iterations, 512 mac16).
func BenchmarkLeiGEMM(b *testing.B) {
	k := kerneltest.Parse(b, "lei_gemm_16x4.cc", "Kc=256")
	p, err := Compile(k)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	a, bb, c := gemmInputs(rng, 256, 8)
	cfg := Config{Data: map[string][]byte{"PL_IN": i16bytes(a), "Br": i16bytes(bb), "DDR_IN": i16bytes(c)}, Sizes: map[string]int{"out": 128}}
	b.ResetTimer()
	var steps int64
	for i := 0; i < b.N; i++ {
		r, err := p.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		steps = r.Steps
	}
	b.ReportMetric(float64(steps)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minstr/s")
}

// BenchmarkLeiConv interprets seed 004 Fig. 5 at cib=256 (16 iterations, 128 8-bit mac16).
func BenchmarkLeiConv(b *testing.B) {
	k := kerneltest.Parse(b, "lei_conv_8x8_u8.cc", "cib=256")
	p, err := Compile(k)
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Data: map[string][]byte{"FPGA_IN": make([]byte, 2048), "Fr": make([]byte, 2048), "DDR_IN": make([]byte, 64)}, Sizes: map[string]int{"DDR_OUT": 64}}
	b.ResetTimer()
	var steps int64
	for i := 0; i < b.N; i++ {
		r, err := p.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		steps = r.Steps
	}
	b.ReportMetric(float64(steps)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minstr/s")
}
