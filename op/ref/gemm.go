package ref

import (
	"math"

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

// GEMMIntC computes a GEMM with beta = 1 exactly: C_out = C + narrow(op(A)*op(B)), the sum
// wrapping modulo 2^bits of the output type (op.GEMM: the seeds' micro-kernels add after
// narrowing with the vector add, which does not saturate). c holds C's old values, row-major
// m x n. Acc and Saturated describe the narrowing of the product; Out is the sum.
func GEMMIntC(g *op.GEMM, t op.Types, a, b, c []int64) (IntResult, error) {
	if err := checkInts("C", c, g.M*g.N, t.Out); err != nil {
		return IntResult{}, err
	}
	r, err := GEMMInt(g, t, a, b)
	if err != nil {
		return r, err
	}
	for i := range r.Out {
		r.Out[i] = WrapInt(r.Out[i]+c[i], t.Out)
	}
	return r, nil
}

// GEMMFloatC computes a GEMM with beta = 1 in float64: C + op(A)*op(B), rounded once to the
// output type. c holds C's old values, row-major m x n.
func GEMMFloatC(g *op.GEMM, t op.Types, a, b, c []float64) ([]float64, error) {
	if err := checkFloats("C", c, g.M*g.N); err != nil {
		return nil, err
	}
	if err := floatTypes(t); err != nil {
		return nil, err
	}
	if err := checkFloats("A", a, g.M*g.K); err != nil {
		return nil, err
	}
	if err := checkFloats("B", b, g.K*g.N); err != nil {
		return nil, err
	}
	out := make([]float64, g.M*g.N)
	for i := 0; i < g.M; i++ {
		for j := 0; j < g.N; j++ {
			s := c[g.CIndex(i, j)]
			for p := 0; p < g.K; p++ {
				s += a[g.AIndex(i, p)] * b[g.BIndex(p, j)]
			}
			out[g.CIndex(i, j)] = s
		}
	}
	roundOut(out, t.Out)
	return out, nil
}

// GEMMAbs returns, per output, sum |a*b| over k (plus |c| with beta = 1): the scale of
// FloatBound for a GEMM.
func GEMMAbs(g *op.GEMM, a, b, c []float64) []float64 {
	out := make([]float64, g.M*g.N)
	for i := 0; i < g.M; i++ {
		for j := 0; j < g.N; j++ {
			s := 0.0
			if g.Beta == 1 && c != nil {
				s = math.Abs(c[g.CIndex(i, j)])
			}
			for p := 0; p < g.K; p++ {
				s += math.Abs(a[g.AIndex(i, p)] * b[g.BIndex(p, j)])
			}
			out[g.CIndex(i, j)] = s
		}
	}
	return out
}

// WrapInt reduces v modulo 2^bits of integer type d into d's range (two's complement for
// signed types).
func WrapInt(v int64, d op.DType) int64 {
	bits := uint(d.Bits())
	v &= 1<<bits - 1
	if d.Signed() && v >= 1<<(bits-1) {
		v -= 1 << bits
	}
	return v
}
