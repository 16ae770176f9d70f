//go:build amd64 && !noasm

package conv

// subVecAVX2 subtracts v (k int32, k a multiple of 8) from each of count consecutive
// k-vectors of dst.
//
//go:noescape
func subVecAVX2(dst, v *int32, k, count int)

// subVec subtracts v from each of the len(dst)/len(v) consecutive vectors of dst (wrapping).
// AVX2 (8 lanes an instruction) where the CPU has it and len(v) is a multiple of 8, in calls
// of at most 64 Ki values so the goroutine stays preemptible.
func subVec(dst, v []int32) {
	k := len(v)
	n := len(dst) / k
	if !hasAVX2 || k%8 != 0 {
		subVecGo(dst, v)
		return
	}
	per := max(1, (1<<16)/k)
	for i := 0; i < n; i += per {
		subVecAVX2(&dst[i*k], &v[0], k, min(per, n-i))
	}
}
