//go:build amd64 && !noasm

package conv

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// widenAVX2 zero-extends n uint8 values (n a multiple of 16) to int16 with VPMOVZXBW.
//
//go:noescape
func widenAVX2(dst *int16, src *uint8, n int)

// widenRange zero-extends src into dst: 16 values per instruction with AVX2 (a plain Go
// loop measured 0.9 ns per value here, a third of the exact path's time on 1x1 layers),
// in calls of at most 64 Ki values so the goroutine stays preemptible.
func widenRange(dst []int16, src []uint8) {
	dst = dst[:len(src)]
	i := 0
	if hasAVX2 {
		for len(src)-i >= 16 {
			n := min(len(src)-i, 1<<16) &^ 15
			widenAVX2(&dst[i], &src[i], n)
			i += n
		}
	}
	for ; i < len(src); i++ {
		dst[i] = int16(src[i])
	}
}
