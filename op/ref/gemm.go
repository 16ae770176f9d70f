package ref

import (
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
)

// GEMMInt computes C = op(A) * op(B) exactly for integer operands.
func GEMMInt(g *op.GEMM, t op.Types, a, b []int64) (IntResult, error) {
	if err := intTypes(t); err != nil {
		return IntResult{}, err
	}
	if err := checkInts("A", a, g.M*g.K, t.A); err != nil {
		return IntResult{}, err
	}
	if err := checkInts("B", b, g.K*g.N, t.B); err != nil {
		return IntResult{}, err
	}
	acc := make([]num.Acc, g.M*g.N)
	s := accumulator{bits: t.Acc.Bits()}
	for i := 0; i < g.M; i++ {
		for j := 0; j < g.N; j++ {
			s.reset()
			for p := 0; p < g.K; p++ {
				s.mac(a[g.AIndex(i, p)], b[g.BIndex(p, j)])
			}
			acc[g.CIndex(i, j)] = s.value()
		}
	}
	return narrowAll(acc, t), nil
}

// GEMMFloat computes C = op(A) * op(B) in float64, rounded once to the output type.
func GEMMFloat(g *op.GEMM, t op.Types, a, b []float64) ([]float64, error) {
	if err := floatTypes(t); err != nil {
		return nil, err
	}
	if err := checkFloats("A", a, g.M*g.K); err != nil {
		return nil, err
	}
	if err := checkFloats("B", b, g.K*g.N); err != nil {
		return nil, err
	}
	c := make([]float64, g.M*g.N)
	for i := 0; i < g.M; i++ {
		for j := 0; j < g.N; j++ {
			s := 0.0
			for p := 0; p < g.K; p++ {
				s += a[g.AIndex(i, p)] * b[g.BIndex(p, j)]
			}
			c[g.CIndex(i, j)] = s
		}
	}
	roundOut(c, t.Out)
	return c, nil
}

// GEMMUpdate computes the BLAS update C = alpha*op(A)*op(B) + beta*C in float64 for a
// row-major C with leading dimension ldc; beta = 0 ignores C's old contents (NaN included),
// as BLAS specifies.
func GEMMUpdate(g *op.GEMM, alpha float64, a, b []float64, beta float64, c []float64, ldc int) {
	for i := 0; i < g.M; i++ {
		for j := 0; j < g.N; j++ {
			s := 0.0
			for p := 0; p < g.K; p++ {
				s += a[g.AIndex(i, p)] * b[g.BIndex(p, j)]
			}
			if beta == 0 {
				c[i*ldc+j] = alpha * s
			} else {
				c[i*ldc+j] = alpha*s + beta*c[i*ldc+j]
			}
		}
	}
}
