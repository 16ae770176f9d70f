package nn

import (
	"math"
	"testing"

	"github.com/sumacdev/sumac/internal/rng"
)

// naiveAB returns A*B in float64 (A m x k with row stride lda, B k x n row-major) and the
// sums of |products| for the error bound.
func naiveAB(m, n, k int, a func(i, p int) float32, b func(p, j int) float32) ([]float64, []float64) {
	c := make([]float64, m*n)
	abs := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for p := 0; p < k; p++ {
				v := float64(a(i, p)) * float64(b(p, j))
				c[i*n+j] += v
				abs[i*n+j] += math.Abs(v)
			}
		}
	}
	return c, abs
}

func TestGemmStridedAndTN(t *testing.T) {
	src := rng.New(21)
	for _, sh := range []struct{ m, n, k int }{
		{1, 1, 1}, {5, 17, 3}, {6, 16, 384}, {10, 33, 400}, {13, 64, 800}, {64, 10, 128},
	} {
		for _, threads := range []int{1, 2} {
			m, n, k := sh.m, sh.n, sh.k
			// Strided: A with row stride lda > k, C with a wider row stride and beta = 1.
			lda, ldc := k+3, n+5
			a := make([]float32, m*lda)
			bm := make([]float32, k*n)
			c := make([]float32, m*ldc)
			randFill(a, src)
			randFill(bm, src)
			randFill(c, src)
			c0 := append([]float32(nil), c...)
			bp := packB(k, n, bm, n, nil)
			gemmStrided(threads, m, n, k, a, lda, bp, 1, c, ldc)
			want, abs := naiveAB(m, n, k, func(i, p int) float32 { return a[i*lda+p] }, func(p, j int) float32 { return bm[p*n+j] })
			for i := 0; i < m; i++ {
				for j := 0; j < ldc; j++ {
					got := float64(c[i*ldc+j])
					if j >= n {
						if c[i*ldc+j] != c0[i*ldc+j] {
							t.Fatalf("strided %v: wrote outside C at (%d,%d)", sh, i, j)
						}
						continue
					}
					w := want[i*n+j] + float64(c0[i*ldc+j])
					if math.Abs(got-w) > 1e-6+ablBound(k+1, abs[i*n+j]+math.Abs(float64(c0[i*ldc+j]))) {
						t.Fatalf("strided %v threads %d: C(%d,%d) = %v, want %v", sh, threads, i, j, got, w)
					}
				}
			}
			// B given transposed (packBT) and beta = 0 over garbage.
			bt := make([]float32, n*k)
			for p := 0; p < k; p++ {
				for j := 0; j < n; j++ {
					bt[j*k+p] = bm[p*n+j]
				}
			}
			bp2 := packBT(k, n, bt, k, nil)
			for i := range c {
				c[i] = float32(math.NaN())
			}
			gemmStrided(threads, m, n, k, a, lda, bp2, 0, c, ldc)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if d := math.Abs(float64(c[i*ldc+j]) - want[i*n+j]); !(d <= 1e-6+ablBound(k, abs[i*n+j])) {
						t.Fatalf("strided/packBT %v: C(%d,%d) = %v, want %v", sh, i, j, c[i*ldc+j], want[i*n+j])
					}
				}
			}
			// TN: C = at^T * b with at k x m.
			at := make([]float32, k*(m+2))
			randFill(at, src)
			for i := range c {
				c[i] = float32(math.NaN())
			}
			gemmTN(threads, m, n, k, at, m+2, bm, n, c, ldc)
			want, abs = naiveAB(m, n, k, func(i, p int) float32 { return at[p*(m+2)+i] }, func(p, j int) float32 { return bm[p*n+j] })
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					if d := math.Abs(float64(c[i*ldc+j]) - want[i*n+j]); !(d <= 1e-6+ablBound(k, abs[i*n+j])) {
						t.Fatalf("TN %v threads %d: C(%d,%d) = %v, want %v", sh, threads, i, j, c[i*ldc+j], want[i*n+j])
					}
				}
				for j := n; j < ldc; j++ {
					if !math.IsNaN(float64(c[i*ldc+j])) {
						t.Fatalf("TN %v: wrote outside C at (%d,%d)", sh, i, j)
					}
				}
			}
		}
	}
}

// ablBound is Higham's bound gamma(n)*abs for an fp32 sum of n terms in any order.
func ablBound(n int, abs float64) float64 {
	u := math.Ldexp(1, -24)
	nu := float64(n+1) * u
	return nu/(1-nu)*abs + u*abs
}
