package nn

// gemmKernel is the part of the CPU backend the SIMD algorithm uses: single-precision GEMM on
// row-major matrices, C = alpha*op(A)*op(B) + beta*C, op(X) = X or X^T, op(A) m x k, op(B)
// k x n, with leading dimensions lda, ldb, ldc. Implementations run on the calling goroutine
// (the layers split work across threads themselves).
type gemmKernel interface {
	Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int,
		b []float32, ldb int, beta float32, c []float32, ldc int)
}

// kern is the kernel set in use.
var kern gemmKernel = tempGEMM{}

// sgemmRows runs C = alpha*op(A)*op(B) + beta*C with the rows of C split across threads
// (each row of C depends only on its own row of op(A), so results do not depend on threads).
func sgemmRows(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int,
	b []float32, ldb int, beta float32, c []float32, ldc int) {
	parallelFor(threads, (m+7)/8, func(lo, hi int) {
		lo, hi = lo*8, min(hi*8, m)
		var ao int
		if transA {
			ao = lo
		} else {
			ao = lo * lda
		}
		kern.Sgemm(transA, transB, hi-lo, n, k, alpha, a[ao:], lda, b, ldb, beta, c[lo*ldc:], ldc)
	})
}

// sgemmCols is sgemmRows with the columns of C split across threads.
func sgemmCols(threads int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int,
	b []float32, ldb int, beta float32, c []float32, ldc int) {
	parallelFor(threads, (n+7)/8, func(lo, hi int) {
		lo, hi = lo*8, min(hi*8, n)
		var bo int
		if transB {
			bo = lo * ldb
		} else {
			bo = lo
		}
		kern.Sgemm(transA, transB, m, hi-lo, k, alpha, a, lda, b[bo:], ldb, beta, c[lo:], ldc)
	})
}

// tempGEMM is a TEMPORARY pure-Go blocked GEMM that stands in for the CPU backend's SGEMM
// (package cpu/gemm) until it lands; it will be removed then. It packs op(A) and op(B) into
// row-major blocks and runs an i-p-j loop.
type tempGEMM struct{}

func (tempGEMM) Sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int,
	b []float32, ldb int, beta float32, c []float32, ldc int) {
	const kb = 256
	for i := 0; i < m; i++ {
		cr := c[i*ldc:][:n]
		if beta == 0 {
			clear(cr)
		} else if beta != 1 {
			for j := range cr {
				cr[j] *= beta
			}
		}
	}
	ap := make([]float32, kb)
	bp := make([]float32, kb*n)
	for p0 := 0; p0 < k; p0 += kb {
		pk := min(kb, k-p0)
		for p := 0; p < pk; p++ {
			row := bp[p*n:][:n]
			for j := range row {
				if transB {
					row[j] = b[j*ldb+p0+p]
				} else {
					row[j] = b[(p0+p)*ldb+j]
				}
			}
		}
		for i := 0; i < m; i++ {
			for p := 0; p < pk; p++ {
				if transA {
					ap[p] = alpha * a[(p0+p)*lda+i]
				} else {
					ap[p] = alpha * a[i*lda+p0+p]
				}
			}
			cr := c[i*ldc:][:n]
			for p := 0; p < pk; p++ {
				av := ap[p]
				row := bp[p*n:][:n]
				for j := range cr {
					cr[j] += av * row[j]
				}
			}
		}
	}
}
