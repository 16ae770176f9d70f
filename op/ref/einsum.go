package ref

import (
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
)

// einsumVisit calls f(outIndex, aIndex, bIndex) for every point of the iteration space, in
// row-major order of the output's indices followed by the contracted ones (so each output's
// terms come consecutively).
func einsumVisit(e *op.Einsum, f func(o, ia, ib int)) {
	loops := append(append([]string(nil), e.Out...), e.Contracted()...)
	sa, sb, so := e.Strides(e.In[0]), e.Strides(e.In[1]), e.Strides(e.Out)
	n := len(loops)
	ctr := make([]int, n)
	var o, ia, ib int
	for {
		f(o, ia, ib)
		d := n - 1
		for ; d >= 0; d-- {
			ix := loops[d]
			ctr[d]++
			o, ia, ib = o+so[ix], ia+sa[ix], ib+sb[ix]
			if ctr[d] < e.Sizes[ix] {
				break
			}
			o, ia, ib = o-so[ix]*ctr[d], ia-sa[ix]*ctr[d], ib-sb[ix]*ctr[d]
			ctr[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// EinsumInt computes an integer contraction exactly.
func EinsumInt(e *op.Einsum, t op.Types, a, b []int64) (IntResult, error) {
	if err := intTypes(t); err != nil {
		return IntResult{}, err
	}
	if err := checkInts("A", a, e.Len(e.In[0]), t.A); err != nil {
		return IntResult{}, err
	}
	if err := checkInts("B", b, e.Len(e.In[1]), t.B); err != nil {
		return IntResult{}, err
	}
	bits := t.Acc.Bits()
	acc := make([]num.Acc, e.Len(e.Out))
	einsumVisit(e, func(o, ia, ib int) { acc[o] = acc[o].MulAdd(a[ia], b[ib], bits) })
	return narrowAll(acc, t), nil
}

// EinsumFloat computes a floating-point contraction in float64, rounded once to the output
// type. bf16 and bfp16 operands are passed as the exact values they represent
// (num.BF16.Float32, num.BFP16.Float32s).
func EinsumFloat(e *op.Einsum, t op.Types, a, b []float64) ([]float64, error) {
	if err := floatTypes(t); err != nil {
		return nil, err
	}
	if err := checkFloats("A", a, e.Len(e.In[0])); err != nil {
		return nil, err
	}
	if err := checkFloats("B", b, e.Len(e.In[1])); err != nil {
		return nil, err
	}
	out := make([]float64, e.Len(e.Out))
	einsumVisit(e, func(o, ia, ib int) { out[o] += a[ia] * b[ib] })
	roundOut(out, t.Out)
	return out, nil
}
