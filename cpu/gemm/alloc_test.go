//go:build !race

package gemm

import "testing"

// TestSmallCallsDoNotAllocate: workspaces are pooled, so a single-threaded small GEMM in
// steady state allocates at most the plan (the race detector's sync.Pool drops items, hence
// the build tag).
func TestSmallCallsDoNotAllocate(t *testing.T) {
	for _, n := range []int{4, 33} {
		a, b, c := randF32(n*n), randF32(n*n), make([]float32, n*n)
		o := Options{Threads: 1}
		if allocs := testing.AllocsPerRun(50, func() { o.Sgemm(NoTrans, Trans, n, n, n, 1, a, n, b, n, 0, c, n) }); allocs > 2 {
			t.Errorf("n=%d: %.1f allocations per call", n, allocs)
		}
	}
}
