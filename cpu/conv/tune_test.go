package conv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sumacdev/sumac/op/suite"
)

// TestTuneReplay separates the engine's own cost on ResNet-50's fp32 layers: it records the
// kernel calls of one Run (same operands, same order) and times their replay alone against
// the engine, alternately, 15 times each. The gap is the Go code between the calls and the
// copying of tiles that are not read in place (docs/cpu-conv.md). Opt-in:
// SUMAC_TUNE=1 go test -run TuneReplay -v ./cpu/conv (SUMAC_TUNE_MATCH=C13 for one layer).
func TestTuneReplay(t *testing.T) {
	if os.Getenv("SUMAC_TUNE") == "" {
		t.Skip("set SUMAC_TUNE=1")
	}
	s, err := suite.Get("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, wl := range s.Workloads {
		if m := os.Getenv("SUMAC_TUNE_MATCH"); m != "" && !strings.Contains(wl.Name, m) {
			continue
		}
		c := wl.Spec.Conv
		in, w, out := make([]float32, c.InLen()), make([]float32, c.WLen()), make([]float32, c.OutLen())
		for i := range in {
			in[i] = float32(rng.NormFloat64())
		}
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		p, err := NewF32(c, w, Options{Threads: 1})
		if err != nil || p.e == nil {
			t.Fatalf("%s: %v (or no engine)", wl.Name, err)
		}
		k0 := p.e.k
		var calls []func()
		p.e.k.run = func(n, kg int, a []float32, lda int, b, cc []float32, ldc int, beta float32) {
			calls = append(calls, func() { k0.run(n, kg, a, lda, b, cc, ldc, beta) })
			k0.run(n, kg, a, lda, b, cc, ldc, beta)
		}
		p.e.k.window = func(tiles, kg, segs, segStride int, a []float32, lda int, b, cc []float32, ldc int, beta float32) {
			calls = append(calls, func() { k0.window(tiles, kg, segs, segStride, a, lda, b, cc, ldc, beta) })
			k0.window(tiles, kg, segs, segStride, a, lda, b, cc, ldc, beta)
		}
		p.e.k.rows = func(rows, tiles, kg int, a []float32, lda int, b, cc []float32, ldc int, beta float32) {
			calls = append(calls, func() { k0.rows(rows, tiles, kg, a, lda, b, cc, ldc, beta) })
			k0.rows(rows, tiles, kg, a, lda, b, cc, ldc, beta)
		}
		p.e.k.windowRows = func(rows, tiles, kg, segs, segStride int, a []float32, lda int, b, cc []float32, ldc int, beta float32) {
			calls = append(calls, func() { k0.windowRows(rows, tiles, kg, segs, segStride, a, lda, b, cc, ldc, beta) })
			k0.windowRows(rows, tiles, kg, segs, segStride, a, lda, b, cc, ldc, beta)
		}
		p.e.k.indirect = func(rows, tiles, kg int, a, alt []float32, offs []int, b, cc []float32, ldc int, beta float32) {
			// The batch's table and copied rows are scratch the engine reuses: keep copies.
			offs, alt = append([]int(nil), offs[:rows*tiles]...), append([]float32(nil), alt...)
			calls = append(calls, func() { k0.indirect(rows, tiles, kg, a, alt, offs, b, cc, ldc, beta) })
			k0.indirect(rows, tiles, kg, a, alt, offs, b, cc, ldc, beta)
		}
		if err := p.Run(in, out); err != nil {
			t.Fatal(err)
		}
		p.e.k = k0
		// The replay reads the gather buffer as the last copied tile left it: the same
		// amount of arithmetic on other values.
		replay := func() {
			for _, f := range calls {
				f()
			}
		}
		engine := func() { _ = p.Run(in, out) }
		flop := 2 * float64(c.MACs())
		var rates [2][]float64
		for range 15 {
			for i, f := range []func(){engine, replay} {
				t0 := time.Now()
				for range 10 {
					f()
				}
				rates[i] = append(rates[i], flop*10/time.Since(t0).Seconds()/1e9)
			}
		}
		sort.Float64s(rates[0])
		sort.Float64s(rates[1])
		fmt.Printf("%s: %d kernel calls; engine %.1f, replay %.1f GFLOPS (medians)\n", wl.Name, len(calls), rates[0][7], rates[1][7])
	}
}
