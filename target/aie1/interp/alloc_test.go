package interp

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
)

// TestRunAllocsIndependentOfTripCount: the interpreter's hot path does not allocate, so a
// run's allocations do not grow with the number of executed instructions.
func TestRunAllocsIndependentOfTripCount(t *testing.T) {
	allocs := func(kc int) float64 {
		k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc="+strconv.Itoa(kc))
		p, err := Compile(k)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 1))
		a, b, c := gemmInputs(rng, kc, 8)
		cfg := Config{Data: map[string][]byte{"PL_IN": i16bytes(a), "Br": i16bytes(b), "DDR_IN": i16bytes(c)}, Sizes: map[string]int{"out": 128}}
		return testing.AllocsPerRun(5, func() {
			if _, err := p.Run(cfg); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(8), allocs(256); a != b {
		t.Errorf("allocations per run: %v at Kc=8, %v at Kc=256", a, b)
	}
}
