package gonumblas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/blas/testblas"
	"gonum.org/v1/gonum/mat"
)

// gonum's own conformance test for Dgemm.
func TestDgemm(t *testing.T) { testblas.TestDgemm(t, Implementation{}) }

func TestDgemmOneThread(t *testing.T) { testblas.TestDgemm(t, Implementation{Threads: 1}) }

// panicValue runs f and returns what it panicked with (nil if it returned).
func panicValue(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// badCalls are argument sets that gonum rejects, one per check (and combinations that test
// the order of the checks). Each is run through both implementations.
type call struct {
	tA, tB        blas.Transpose
	m, n, k       int
	lda, ldb, ldc int
	la, lb, lc    int
}

var badCalls = []call{
	{tA: 'X', tB: blas.NoTrans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 4},
	{tA: blas.NoTrans, tB: 'X', m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 4},
	{tA: 'X', tB: blas.NoTrans, m: -1, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: -1, n: -1, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: -1, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: -1, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: 3, lda: 2, ldb: 2, ldc: 2, la: 6, lb: 6, lc: 4},
	{tA: blas.Trans, tB: blas.NoTrans, m: 3, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 6, lb: 4, lc: 6},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 3, k: 2, lda: 2, ldb: 2, ldc: 3, la: 4, lb: 6, lc: 6},
	{tA: blas.NoTrans, tB: blas.ConjTrans, m: 2, n: 2, k: 3, lda: 3, ldb: 2, ldc: 2, la: 6, lb: 6, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 3, k: 2, lda: 2, ldb: 3, ldc: 2, la: 4, lb: 6, lc: 6},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 3, lb: 4, lc: 4},
	{tA: blas.Trans, tB: blas.NoTrans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 3, lb: 4, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 3, lc: 4},
	{tA: blas.NoTrans, tB: blas.Trans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 3, lc: 4},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 4, lb: 4, lc: 3},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2, la: 0, lb: 0, lc: 0},
	// Valid degenerate calls: no panic from either.
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 0, n: 2, k: 2, lda: 2, ldb: 2, ldc: 2},
	{tA: blas.NoTrans, tB: blas.NoTrans, m: 2, n: 2, k: 0, lda: 1, ldb: 2, ldc: 2, la: 1, lb: 0, lc: 4},
}

// TestPanicsMatchGonum: every bad argument set panics with gonum's own message, or both
// accept it.
func TestPanicsMatchGonum(t *testing.T) {
	for i, c := range badCalls {
		want32 := panicValue(func() {
			gonum.Implementation{}.Sgemm(c.tA, c.tB, c.m, c.n, c.k, 1, make([]float32, c.la), c.lda, make([]float32, c.lb), c.ldb, 0, make([]float32, c.lc), c.ldc)
		})
		got32 := panicValue(func() {
			Implementation{}.Sgemm(c.tA, c.tB, c.m, c.n, c.k, 1, make([]float32, c.la), c.lda, make([]float32, c.lb), c.ldb, 0, make([]float32, c.lc), c.ldc)
		})
		want64 := panicValue(func() {
			gonum.Implementation{}.Dgemm(c.tA, c.tB, c.m, c.n, c.k, 1, make([]float64, c.la), c.lda, make([]float64, c.lb), c.ldb, 0, make([]float64, c.lc), c.ldc)
		})
		got64 := panicValue(func() {
			Implementation{}.Dgemm(c.tA, c.tB, c.m, c.n, c.k, 1, make([]float64, c.la), c.lda, make([]float64, c.lb), c.ldb, 0, make([]float64, c.lc), c.ldc)
		})
		if got32 != want32 || got64 != want64 {
			t.Errorf("case %d %+v: Sgemm panics %v (gonum %v), Dgemm %v (gonum %v)", i, c, got32, want32, got64, want64)
		}
	}
}

// TestSgemmConformance runs Sgemm the way testblas runs Dgemm: every transpose pair on
// random shapes with alpha/beta variations and leading dimensions with padding, checked
// against gonum's native Sgemm evaluated in float64 (an independent implementation), within
// the fp32 bound gamma_{k+2} * (|alpha| sum|a b| + |beta c|).
func TestSgemmConformance(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	sizes := []int{1, 2, 3, 5, 7, 16, 17, 33, 64, 65, 130}
	trans := []blas.Transpose{blas.NoTrans, blas.Trans, blas.ConjTrans}
	for it := 0; it < 150; it++ {
		m, n, k := sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))]
		tA, tB := trans[r.IntN(3)], trans[r.IntN(3)]
		alpha := []float32{1, 0, -2.5, 0.5}[r.IntN(4)]
		beta := []float32{0, 1, -1, 0.25}[r.IntN(4)]
		ar, ac := m, k
		if tA != blas.NoTrans {
			ar, ac = k, m
		}
		br, bc := k, n
		if tB != blas.NoTrans {
			br, bc = n, k
		}
		lda, ldb, ldc := ac+r.IntN(3), bc+r.IntN(3), n+r.IntN(3)
		a, b, c := make([]float32, (ar-1)*lda+ac), make([]float32, (br-1)*ldb+bc), make([]float32, (m-1)*ldc+n)
		fill := func(v []float32) {
			for i := range v {
				v[i] = float32(r.Float64()*2 - 1)
			}
		}
		fill(a)
		fill(b)
		fill(c)
		if beta == 0 {
			for i := range c {
				c[i] = float32(math.NaN())
			}
		}
		// The reference: gonum's Dgemm on the float64 images, and the bound from |A||B|.
		a64, b64, c64 := testutil.F64(a), testutil.F64(b), testutil.F64(c)
		abs64 := func(v []float64) []float64 {
			out := make([]float64, len(v))
			for i, x := range v {
				out[i] = math.Abs(x)
			}
			return out
		}
		absAB := make([]float64, len(c64))
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, 1, abs64(a64), lda, abs64(b64), ldb, 0, absAB, ldc)
		want := append([]float64(nil), c64...)
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, float64(alpha), a64, lda, b64, ldb, float64(beta), want, ldc)

		got := append([]float32(nil), c...)
		Implementation{}.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
		name := fmt.Sprintf("tA=%c tB=%c m=%d n=%d k=%d alpha=%v beta=%v", tA, tB, m, n, k, alpha, beta)
		for i := 0; i < m; i++ {
			for j := 0; j < ldc && i*ldc+j < len(c); j++ {
				x := i*ldc + j
				if j >= n {
					if math.Float32bits(got[x]) != math.Float32bits(c[x]) {
						t.Fatalf("%s: C[%d] outside the matrix changed", name, x)
					}
					continue
				}
				sum := math.Abs(float64(alpha)) * absAB[x]
				if beta != 0 {
					sum += math.Abs(float64(beta) * c64[x])
				}
				nu := float64(k+2) * 0x1p-24
				bound := nu / (1 - nu) * sum
				if d := math.Abs(float64(got[x]) - want[x]); math.IsNaN(float64(got[x])) || d > bound {
					t.Fatalf("%s: C[%d][%d] = %v, want %v (bound %g)", name, i, j, got[x], want[x], bound)
				}
			}
		}
	}
}

// TestUseWithGonum: the one-line switch works through gonum's blas64/blas32 and mat.
func TestUseWithGonum(t *testing.T) {
	defer blas64.Use(gonum.Implementation{})
	defer blas32.Use(gonum.Implementation{})
	blas64.Use(Implementation{})
	blas32.Use(Implementation{})

	r := rand.New(rand.NewPCG(1, 1))
	const m, n, k = 70, 45, 90
	a, b := mat.NewDense(m, k, nil), mat.NewDense(k, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < k; j++ {
			a.Set(i, j, r.Float64())
		}
	}
	for i := 0; i < k; i++ {
		for j := 0; j < n; j++ {
			b.Set(i, j, r.Float64())
		}
	}
	var c mat.Dense
	c.Mul(a, b)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				s += a.At(i, p) * b.At(p, j)
			}
			if d := math.Abs(c.At(i, j) - s); d > 1e-12*float64(k) {
				t.Fatalf("mat.Mul via blas64.Use: C[%d][%d] = %v, want %v", i, j, c.At(i, j), s)
			}
		}
	}

	x := blas32.General{Rows: 3, Cols: 2, Stride: 2, Data: []float32{1, 2, 3, 4, 5, 6}}
	y := blas32.General{Rows: 2, Cols: 2, Stride: 2, Data: []float32{1, 0, 0, 1}}
	z := blas32.General{Rows: 3, Cols: 2, Stride: 2, Data: make([]float32, 6)}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, x, y, 0, z)
	for i, v := range x.Data {
		if z.Data[i] != v {
			t.Fatalf("blas32.Gemm with identity: %v", z.Data)
		}
	}
}

func BenchmarkDgemm(b *testing.B) {
	for _, n := range []int{64, 256, 512} {
		b.Run(fmt.Sprintf("sumac/%d", n), func(b *testing.B) {
			testblas.DgemmBenchmark(b, Implementation{}, n, n, n, blas.NoTrans, blas.NoTrans)
		})
		b.Run(fmt.Sprintf("gonum/%d", n), func(b *testing.B) {
			testblas.DgemmBenchmark(b, gonum.Implementation{}, n, n, n, blas.NoTrans, blas.NoTrans)
		})
	}
}
