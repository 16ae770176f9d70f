package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDepthwise checks every depthwise family against the exact per-channel sums, on random
// pixel counts (every 4/2/1 split), channel counts (two- and one-vector blocks), tap tables
// and strides, with each kernel set forced in turn; nothing outside the outputs is written.
func TestDepthwise(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, cap := range caps(t) {
		restore := LimitISA(cap)
		for _, f := range []struct {
			name  string
			lanes int
			run   func(px, ch int, in []float32, taps []int, w []float32, out []float32, xstep, ostep int)
		}{{"F32", F32DepthwiseLanes, F32Depthwise}, {"F32Z", F32ZDepthwiseLanes, F32ZDepthwise}} {
			testDW(t, r, fmt.Sprintf("%s cap=%s", f.name, cap), f.lanes, f.run,
				func(r *rand.Rand) float32 { return float32(r.Float64()*2 - 1) }, func(r *rand.Rand) float32 { return float32(r.Float64()*2 - 1) },
				func(a float32, b float32) float64 { return float64(a) * float64(b) }, true)
		}
		for _, f := range []struct {
			name  string
			lanes int
			run   func(px, ch int, in []int16, taps []int, w []int32, out []int32, xstep, ostep int)
		}{{"I16", I16DepthwiseLanes, I16Depthwise}, {"I16V", I16VDepthwiseLanes, I16VDepthwise}, {"I16ZV", I16ZVDepthwiseLanes, I16ZVDepthwise}} {
			testDW(t, r, fmt.Sprintf("%s cap=%s", f.name, cap), f.lanes, f.run,
				func(r *rand.Rand) int16 { return int16(r.Uint32()) }, func(r *rand.Rand) int32 { return int32(int16(r.Uint32())) },
				func(a int16, b int32) float64 { return float64(a) * float64(b) }, false)
		}
		for _, f := range []struct {
			name  string
			lanes int
			run   func(px, ch int, in []uint8, taps []int, w []int32, out []int32, xstep, ostep int)
		}{{"U8S8", U8S8DepthwiseLanes, U8S8Depthwise}, {"U8S8V", U8S8VDepthwiseLanes, U8S8VDepthwise}, {"U8S8ZV", U8S8ZVDepthwiseLanes, U8S8ZVDepthwise}} {
			testDW(t, r, fmt.Sprintf("%s cap=%s", f.name, cap), f.lanes, f.run,
				func(r *rand.Rand) uint8 { return uint8(r.Uint32()) }, func(r *rand.Rand) int32 { return int32(int8(r.Uint32())) },
				func(a uint8, b int32) float64 { return float64(a) * float64(b) }, false)
		}
		restore()
	}
}

func testDW[A any, W any, C float32 | int32](t *testing.T, r *rand.Rand, name string, lanes int,
	run func(px, ch int, in []A, taps []int, w []W, out []C, xstep, ostep int),
	ra func(*rand.Rand) A, rw func(*rand.Rand) W, mul func(A, W) float64, float bool) {
	for _, px := range []int{1, 2, 3, 4, 5, 7, 8, 13} {
		for _, nvec := range []int{1, 2, 3, 5} {
			ch := nvec * lanes
			ntaps := r.IntN(10)
			xstep := ch + r.IntN(3)*lanes
			taps := make([]int, 2*ntaps)
			maxIn, maxW := 0, 0
			for i := 0; i < ntaps; i++ {
				taps[2*i], taps[2*i+1] = r.IntN(4*ch), r.IntN(3*ch)
				maxIn, maxW = max(maxIn, taps[2*i]), max(maxW, taps[2*i+1])
			}
			in := make([]A, (px-1)*xstep+maxIn+ch)
			for i := range in {
				in[i] = ra(r)
			}
			w := make([]W, maxW+ch)
			for i := range w {
				w[i] = rw(r)
			}
			ostep := ch + r.IntN(3)
			const sentinel = 77
			out := make([]C, (px-1)*ostep+ch+3)
			for i := range out {
				out[i] = sentinel
			}
			run(px, ch, in, taps, w, out, xstep, ostep)
			for x := 0; x < px; x++ {
				for c := 0; c < ostep && x*ostep+c < len(out); c++ {
					got := out[x*ostep+c]
					if c >= ch || x == px-1 && c >= ch {
						if got != sentinel {
							t.Fatalf("%s px=%d ch=%d: wrote outside at pixel %d channel %d", name, px, ch, x, c)
						}
						continue
					}
					var s, abs float64
					var si int32
					for k := 0; k < ntaps; k++ {
						p := mul(in[x*xstep+taps[2*k]+c], w[taps[2*k+1]+c])
						s += p
						abs += math.Abs(p)
						si += int32(int64(p))
					}
					if float {
						n := float64(ntaps + 1)
						if d := math.Abs(float64(got) - s); d > n*0x1p-24*abs*1.0001 {
							t.Fatalf("%s px=%d ch=%d taps=%d: out[%d][%d] = %v, want %v", name, px, ch, ntaps, x, c, got, s)
						}
					} else if int32(got) != si {
						t.Fatalf("%s px=%d ch=%d taps=%d: out[%d][%d] = %d, want %d", name, px, ch, ntaps, x, c, int32(got), si)
					}
				}
			}
			for _, v := range out[(px-1)*ostep+ch:] {
				if v != sentinel {
					t.Fatalf("%s: wrote past the last pixel", name)
				}
			}
		}
	}
}
