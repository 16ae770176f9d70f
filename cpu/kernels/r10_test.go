package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestF32ZTilesR10: the 10-row AVX-512 tile against a float64 product, within a few ulps
// of the sums' magnitude, under each kernel set the CPU has and the Go fallback, for short,
// unrolled and chunked k; C outside the tiles is never written.
func TestF32ZTilesR10(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, cp := range caps(t) {
		restore := LimitISA(cp)
		for _, kg := range []int{0, 1, 3, 10, 64, maxChunk + 5} {
			tiles := 1 + r.IntN(3)
			ldc := F32ZNR + r.IntN(7)
			a, b := randF32(r, tiles*kg*10), randF32(r, kg*F32ZNR)
			const sentinel = 12345
			cLen := (tiles*10-1)*ldc + F32ZNR
			c := fill[float32](cLen+5, sentinel)
			c0 := make([]float32, len(c))
			for i := 0; i < cLen; i++ {
				if i%ldc < F32ZNR {
					c[i] = float32(i%5) - 2
				}
			}
			copy(c0, c)
			F32ZTilesR10(tiles, kg, a, b, c, ldc, 1.5, 0.5)
			for i := range c {
				row, col := i/ldc, i%ldc
				if i >= cLen || col >= F32ZNR {
					if c[i] != c0[i] {
						t.Fatalf("%s kg=%d: C[%d] written outside the tiles", cp, kg, i)
					}
					continue
				}
				tt, ri := row/10, row%10
				var sum, mag float64
				for p := 0; p < kg; p++ {
					v := float64(a[(tt*kg+p)*10+ri]) * float64(b[p*F32ZNR+col])
					sum += v
					mag += math.Abs(v)
				}
				want := 1.5*sum + 0.5*float64(c0[i])
				if d := math.Abs(float64(c[i]) - want); d > 1e-5*(mag+1) {
					t.Fatalf("%s kg=%d: C[%d] = %v, want %v", cp, kg, i, c[i], want)
				}
			}
		}
		restore()
	}
}
