// Package gonumblas plugs sumac's GEMM into gonum.
//
// Implementation is gonum's native BLAS (gonum.org/v1/gonum/blas/gonum) with Sgemm and Dgemm
// replaced by cpu/gemm's blocked, packed, AVX2/FMA, multi-threaded GEMM. A gonum program
// switches with one line each:
//
//	blas64.Use(gonumblas.Implementation{}) // gonum/mat's Dense.Mul and friends
//	blas32.Use(gonumblas.Implementation{})
//
// The two methods keep the gonum BLAS contract exactly: the same argument checks in the same
// order, panicking with the same messages (blas/testblas relies on them), the same quick
// returns, and beta == 0 overwriting C without reading it.
package gonumblas

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/sumacdev/sumac/cpu/gemm"
)

// Implementation is gonum's BLAS with sumac's Sgemm and Dgemm. The zero value uses every
// core (GOMAXPROCS); set Threads to limit it.
type Implementation struct {
	gonum.Implementation
	Threads int // goroutines per GEMM; 0 means runtime.GOMAXPROCS(0)
}

var (
	_ blas.Float32 = Implementation{}
	_ blas.Float64 = Implementation{}
)

// The panic messages of gonum's BLAS (blas/gonum/errors.go), which callers and blas/testblas
// match against.
const (
	badTranspose = "blas: illegal transpose"
	mLT0         = "blas: m < 0"
	nLT0         = "blas: n < 0"
	kLT0         = "blas: k < 0"
	badLdA       = "blas: bad leading dimension of A"
	badLdB       = "blas: bad leading dimension of B"
	badLdC       = "blas: bad leading dimension of C"
	shortA       = "blas: insufficient length of a"
	shortB       = "blas: insufficient length of b"
	shortC       = "blas: insufficient length of c"
)

// checkGemm validates like gonum's Sgemm/Dgemm and reports whether there is work to do.
// gonum checks, in order: both transposes, m, n, k, the three leading dimensions, then
// (only when m and n are positive) the three slice lengths; alpha == 0 or k == 0 with
// beta == 1 is a quick return after the checks.
func checkGemm(tA, tB blas.Transpose, m, n, k, lda, ldb, ldc, lenA, lenB, lenC int) (aTrans, bTrans, work bool) {
	for _, t := range []blas.Transpose{tA, tB} {
		switch t {
		case blas.NoTrans, blas.Trans, blas.ConjTrans:
		default:
			panic(badTranspose)
		}
	}
	switch {
	case m < 0:
		panic(mLT0)
	case n < 0:
		panic(nLT0)
	case k < 0:
		panic(kLT0)
	}
	aTrans = tA != blas.NoTrans
	bTrans = tB != blas.NoTrans
	if (aTrans && lda < max(1, m)) || (!aTrans && lda < max(1, k)) {
		panic(badLdA)
	}
	if (bTrans && ldb < max(1, k)) || (!bTrans && ldb < max(1, n)) {
		panic(badLdB)
	}
	if ldc < max(1, n) {
		panic(badLdC)
	}
	if m == 0 || n == 0 {
		return aTrans, bTrans, false
	}
	if (aTrans && lenA < (k-1)*lda+m) || (!aTrans && lenA < (m-1)*lda+k) {
		panic(shortA)
	}
	if (bTrans && lenB < (n-1)*ldb+k) || (!bTrans && lenB < (k-1)*ldb+n) {
		panic(shortB)
	}
	if lenC < (m-1)*ldc+n {
		panic(shortC)
	}
	return aTrans, bTrans, true
}

func trans(t bool) gemm.Transpose {
	if t {
		return gemm.Trans
	}
	return gemm.NoTrans
}

// Sgemm computes C = alpha * op(A) * op(B) + beta * C for row-major float32 matrices.
func (impl Implementation) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	aT, bT, work := checkGemm(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if !work || ((alpha == 0 || k == 0) && beta == 1) {
		return
	}
	if err := (gemm.Options{Threads: impl.Threads}).Sgemm(trans(aT), trans(bT), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(err) // unreachable: checkGemm accepted the arguments
	}
}

// Dgemm computes C = alpha * op(A) * op(B) + beta * C for row-major float64 matrices.
func (impl Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	aT, bT, work := checkGemm(tA, tB, m, n, k, lda, ldb, ldc, len(a), len(b), len(c))
	if !work || ((alpha == 0 || k == 0) && beta == 1) {
		return
	}
	if err := (gemm.Options{Threads: impl.Threads}).Dgemm(trans(aT), trans(bT), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); err != nil {
		panic(err)
	}
}
