package ref

import (
	"math"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
)

// bf16 x bf16 -> fp32 contractions (cpu/gemm.GemmBF16, the host's bf16 convolutions).
//
// A bf16 value has an 8-bit significand, so the product of two is exact in fp32 (16 bits)
// whenever it lies in fp32's normal range, and exactly representable in float64 always: the
// reference below sums the exact products in float64 (each addition rounded to 53 bits,
// which is far below the fp32 bound). A target that accumulates the n products in fp32, one
// rounding per addition in any order (VDPBF16PS adds a pair's odd then even product, AMX's
// TDPBF16PS as the SDM orders it, the widened fallbacks one FMA per k), differs from the exact
// sum by at most gamma(n) * sum|a*b| (Higham eq. 3.5, as FloatBound); the hardware's
// flush of denormal results to zero (FTZ, SDM "VDPBF16PS", "TDPBF16PS") adds at most 2^-126
// per addition. BF16Bound is that bound plus one rounding of the result. Denormal bf16 inputs
// are read as zero by the same instructions (DAZ): the bound holds for inputs that are
// normal or zero (num.ToBF16 of a float32 of magnitude >= 2^-126 is).

// BF16Bound is the largest error of one output of a bf16 contraction of length n with fp32
// accumulation against BF16GEMM's exact value, absSum the output's sum |a*b| (the second
// result of BF16GEMM). An update C = alpha*A*B + beta*C adds two roundings: pass n+2 and add
// |beta*C| to absSum.
func BF16Bound(n int, absSum float64) float64 {
	return FloatBound(n, absSum, op.AccF32) + float64(n)*math.Ldexp(1, -126)
}

// BF16GEMM returns the exact (float64) row-major m x n product of bf16 matrices A (m x k,
// row i at a[i*lda:]) and B (k x n, row p at b[p*ldb:]), and per output sum |a*b|.
func BF16GEMM(m, n, k int, a []uint16, lda int, b []uint16, ldb int) (c, absSum []float64) {
	c, absSum = make([]float64, m*n), make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, sa float64
			for p := 0; p < k; p++ {
				x := float64(num.BF16(a[i*lda+p]).Float32()) * float64(num.BF16(b[p*ldb+j]).Float32())
				s += x
				sa += math.Abs(x)
			}
			c[i*n+j], absSum[i*n+j] = s, sa
		}
	}
	return c, absSum
}

// ToBF16s rounds float32 values to bf16 (num.ToBF16: nearest, ties to even), as uint16.
func ToBF16s(f []float32) []uint16 {
	h := make([]uint16, len(f))
	for i, v := range f {
		h[i] = uint16(num.ToBF16(v))
	}
	return h
}
