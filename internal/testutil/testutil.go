// Package testutil holds the helpers that tests of several packages share (conversions,
// random operands, a garbage-collection stress), so that each is written once. Only tests
// import it.
package testutil

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// F64 widens float32 values to float64 (for exact references and bounds).
func F64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// Abs64 returns the absolute values of v.
func Abs64(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// Uniform returns n values drawn uniformly from [-1, 1).
func Uniform[T float32 | float64](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(r.Float64()*2 - 1)
	}
	return v
}

// Ints returns n integers over T's whole range (the low bits of r.Uint32()).
func Ints[T int8 | uint8 | int16 | int32](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(r.Uint32())
	}
	return v
}

// GCStress runs the garbage collector in a loop on another goroutine until stop is called
// (stop waits for it): a test of code that hands Go memory to assembly runs under it, so a
// moved or freed buffer would show.
func GCStress() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
				runtime.GC()
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
