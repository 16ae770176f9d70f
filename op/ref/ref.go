// Package ref holds the exact reference implementations of sumac's operations: plain loops,
// written to be obviously correct, the oracle every target is checked against.
//
// Integers: products are exact and accumulate modulo 2^bits of the spec's accumulator
// (num.Acc semantics: the AI Engine's 48/80-bit lanes wrap, they do not saturate), then narrow
// with num.SRS. Accumulators with at most 64 bits sum in int64, whose wrap-around arithmetic is
// exact modulo 2^64 and so modulo any smaller power of two; acc80 sums in 128 bits.
//
// Floating point: products and sums in float64 (exact products for fp32, bf16 and bfp16
// operands; one rounding per addition), rounded once to the output type. A target that
// accumulates in fp32 in another order differs from this by at most
// |err| <= gamma(n) * sum|a*b| with gamma(n) = n*u/(1-n*u), u = 2^-24, n the reduction length
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 3.5); FloatBound
// computes that bound.
//
// Data are passed in the canonical layouts documented in package op, as int64 (integer
// types) or float64 (floating-point types) so that one implementation serves every type.
package ref

import (
	"fmt"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
)

// IntResult is the exact result of an integer operation.
type IntResult struct {
	Acc       []num.Acc // accumulators before narrowing, wrapped to the accumulator width
	Out       []int64   // narrowed outputs (Types.Narrow)
	Saturated int       // outputs changed by saturation (or wrapping, for sat=none)
}

// checkInts verifies that every value fits its declared type.
func checkInts(name string, v []int64, want int, d op.DType) error {
	if len(v) != want {
		return fmt.Errorf("%s has %d elements, the spec needs %d", name, len(v), want)
	}
	lo, hi := d.Range()
	for i, x := range v {
		if x < lo || x > hi {
			return fmt.Errorf("%s[%d] = %d is outside %v's range %d..%d", name, i, x, d, lo, hi)
		}
	}
	return nil
}

func checkFloats(name string, v []float64, want int) error {
	if len(v) != want {
		return fmt.Errorf("%s has %d elements, the spec needs %d", name, len(v), want)
	}
	return nil
}

// accumulator sums exact integer products modulo 2^bits.
type accumulator struct {
	bits int
	s64  int64   // used when bits <= 64
	wide num.Acc // used when bits > 64
}

func (a *accumulator) reset() { a.s64, a.wide = 0, num.Acc{} }
func (a *accumulator) mac(x, y int64) {
	if a.bits <= 64 {
		a.s64 += x * y // operands are at most 32-bit: the product is exact; the sum wraps mod 2^64
	} else {
		a.wide = a.wide.MulAdd(x, y, a.bits)
	}
}

func (a *accumulator) value() num.Acc {
	if a.bits <= 64 {
		return num.AccFrom(a.s64).Wrap(a.bits)
	}
	return a.wide
}

func narrowAll(acc []num.Acc, t op.Types) IntResult {
	r := IntResult{Acc: acc, Out: make([]int64, len(acc))}
	n := t.Narrow()
	for i, a := range acc {
		v, sat := num.SRS(a, n)
		r.Out[i] = v
		if sat {
			r.Saturated++
		}
	}
	return r
}

// roundOut rounds float64 results to the spec's output type.
func roundOut(v []float64, out op.DType) {
	for i, x := range v {
		switch out {
		case op.FP32:
			v[i] = float64(float32(x))
		case op.BF16:
			v[i] = float64(num.ToBF16(float32(x)).Float32())
		}
	}
}

// Run computes any integer spec from canonical operands (conv2d: input, weights; gemm and
// einsum: A, B).
func Run(s *op.Spec, a, b []int64) (IntResult, error) {
	switch {
	case s.Conv != nil:
		return Conv2DInt(s.Conv, s.Types, a, b)
	case s.GEMM != nil && s.GEMM.Beta != 0:
		return IntResult{}, fmt.Errorf("%s: beta=1 needs C's old values (GEMMIntC)", s)
	case s.GEMM != nil:
		return GEMMInt(s.GEMM, s.Types, a, b)
	case s.Einsum != nil:
		return EinsumInt(s.Einsum, s.Types, a, b)
	}
	return IntResult{}, fmt.Errorf("%s has no integer reference with two operands", s.Op())
}

// RunFloat computes any floating-point spec from canonical operands.
func RunFloat(s *op.Spec, a, b []float64) ([]float64, error) {
	switch {
	case s.Conv != nil:
		return Conv2DFloat(s.Conv, s.Types, a, b)
	case s.GEMM != nil && s.GEMM.Beta != 0:
		return nil, fmt.Errorf("%s: beta=1 needs C's old values (GEMMFloatC)", s)
	case s.GEMM != nil:
		return GEMMFloat(s.GEMM, s.Types, a, b)
	case s.Einsum != nil:
		return EinsumFloat(s.Einsum, s.Types, a, b)
	}
	return nil, fmt.Errorf("%s has no floating-point reference with two operands", s.Op())
}

func intTypes(t op.Types) error {
	if !t.A.IsInt() || !t.Acc.IsInt() {
		return fmt.Errorf("integer reference called with %v", t)
	}
	return nil
}

func floatTypes(t op.Types) error {
	if t.A.IsInt() || t.Acc.IsInt() {
		return fmt.Errorf("floating-point reference called with %v", t)
	}
	return nil
}
