package nn

import (
	"fmt"
	"math"
	"testing"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/internal/testutil"
	"github.com/sumacdev/sumac/nn/tensor"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

var fp32 = op.Types{A: op.FP32, B: op.FP32, Acc: op.AccF32, Out: op.FP32}

// within checks got against an exact float64 result: |got - want| <= FloatBound(n, absSum)
// per element (Higham's bound for an fp32 sum of n products in any order).
func within(t *testing.T, what string, got []float32, want, absSum []float64, n int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		b := ref.FloatBound(n, absSum[i], op.AccF32)
		if d := math.Abs(float64(got[i]) - want[i]); d > b {
			if bad < 5 {
				t.Errorf("%s[%d] = %v, exact %v, error %.3g > bound %.3g", what, i, got[i], want[i], d, b)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d outside the bound", what, bad, len(got))
	}
}

// TestConvAgainstReference checks forward, input and weight gradients of both algorithms
// against op/ref's exact convolution (the gradients are convolutions too: the input gradient is
// the gradient padded by K-1 convolved with the flipped, transposed filters).
func TestConvAgainstReference(t *testing.T) {
	// Shapes cover the im2col path (K*IC < 16) and the direct path with partial channel panels,
	// output widths below and above one 6-row tile, and K = 2.
	for _, sh := range []struct{ N, H, W, IC, OC, K int }{
		{3, 9, 8, 5, 7, 3}, {4, 12, 12, 1, 9, 3}, {2, 7, 11, 6, 7, 3}, {2, 6, 5, 32, 17, 3}, {1, 5, 13, 17, 4, 2}, {2, 8, 9, 16, 32, 3}, {2, 7, 6, 64, 8, 3}, {1, 6, 7, 48, 5, 3}, {2, 5, 8, 8, 64, 3}, {1, 4, 14, 32, 32, 3},
	} {
		testConvAgainstReference(t, sh.N, sh.H, sh.W, sh.IC, sh.OC, sh.K)
	}
}

func testConvAgainstReference(t *testing.T, N, H, W, IC, OC, K int) {
	OH, OW := H-K+1, W-K+1
	for _, algo := range []Algo{Base, SIMD} {
		for _, threads := range []int{1, 2} {
			src := rng.New(11)
			c := NewConv2D(&Config{Algo: algo, Threads: threads}, "conv", IC, OC, K, src)
			x := tensor.New(N, H, W, IC)
			randFill(x.Data(), src)
			gy := tensor.New(N, OH, OW, OC)
			randFill(gy.Data(), src)
			y, err := c.Forward(x, true)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s threads=%d N=%d H=%d W=%d IC=%d OC=%d K=%d", algo, threads, N, H, W, IC, OC, K)

			// Forward: ref without bias, then the bias added in float64.
			spec := &op.Conv2D{X: OW, Y: OH, K: OC, C: IC, R: K, S: K, N: N, Stride: 1, Dilation: 1, Groups: 1, XIn: W, YIn: H}
			want, err := ref.Conv2DFloat(spec, fp32, testutil.F64(x.Data()), testutil.F64(c.W.Value.Data()))
			if err != nil {
				t.Fatal(err)
			}
			absSum, _ := ref.Conv2DFloat(spec, fp32, testutil.Abs64(testutil.F64(x.Data())), testutil.Abs64(testutil.F64(c.W.Value.Data())))
			for i := range want {
				b := float64(c.B.Value.Data()[i%OC])
				want[i] += b
				absSum[i] += math.Abs(b)
			}
			within(t, name+" forward", y.Data(), want, absSum, K*K*IC+1)

			gx, err := c.Backward(gy)
			if err != nil {
				t.Fatal(err)
			}
			// Input gradient: gy padded by K-1, filters flipped and with in/out channels swapped.
			bspec := &op.Conv2D{X: W, Y: H, K: IC, C: OC, R: K, S: K, N: N, Stride: 1, Pad: K - 1, Dilation: 1, Groups: 1, XIn: OW, YIn: OH}
			wf := make([]float64, IC*K*K*OC)
			for oc := 0; oc < OC; oc++ {
				for kh := 0; kh < K; kh++ {
					for kw := 0; kw < K; kw++ {
						for ic := 0; ic < IC; ic++ {
							wf[((ic*K+(K-1-kh))*K+(K-1-kw))*OC+oc] = float64(c.W.Value.At(oc, kh, kw, ic))
						}
					}
				}
			}
			wantGx, err := ref.Conv2DFloat(bspec, fp32, testutil.F64(gy.Data()), wf)
			if err != nil {
				t.Fatal(err)
			}
			absGx, _ := ref.Conv2DFloat(bspec, fp32, testutil.Abs64(testutil.F64(gy.Data())), testutil.Abs64(wf))
			within(t, name+" input grad", gx.Data(), wantGx, absGx, K*K*OC)

			// Weight and bias gradients by their definition, in float64.
			wantGw := make([]float64, OC*K*K*IC)
			absGw := make([]float64, len(wantGw))
			wantGb := make([]float64, OC)
			absGb := make([]float64, OC)
			for n := 0; n < N; n++ {
				for oh := 0; oh < OH; oh++ {
					for ow := 0; ow < OW; ow++ {
						for oc := 0; oc < OC; oc++ {
							g := float64(gy.At(n, oh, ow, oc))
							wantGb[oc] += g
							absGb[oc] += math.Abs(g)
							for kh := 0; kh < K; kh++ {
								for kw := 0; kw < K; kw++ {
									for ic := 0; ic < IC; ic++ {
										v := float64(x.At(n, oh+kh, ow+kw, ic))
										i := ((oc*K+kh)*K+kw)*IC + ic
										wantGw[i] += g * v
										absGw[i] += math.Abs(g * v)
									}
								}
							}
						}
					}
				}
			}
			within(t, name+" weight grad", c.W.Grad.Data(), wantGw, absGw, N*OH*OW)
			within(t, name+" bias grad", c.B.Grad.Data(), wantGb, absGb, N*OH*OW)
		}
	}
}

// TestLinearAgainstReference checks the three products of Linear against op/ref's exact GEMM.
func TestLinearAgainstReference(t *testing.T) {
	for _, sh := range [][3]int{{5, 37, 11}, {300, 20, 7}, {3, 17, 40}} {
		testLinearAgainstReference(t, sh[0], sh[1], sh[2])
	}
}

func testLinearAgainstReference(t *testing.T, N, In, Out int) {
	for _, algo := range []Algo{Base, SIMD} {
		src := rng.New(12)
		l := NewLinear(&Config{Algo: algo, Threads: 2}, "fc", In, Out, src)
		x := tensor.New(N, In)
		randFill(x.Data(), src)
		gy := tensor.New(N, Out)
		randFill(gy.Data(), src)
		y, _ := l.Forward(x, true)
		gx, _ := l.Backward(gy)
		w := testutil.F64(l.W.Value.Data())
		gemm := func(g *op.GEMM, a, b []float64) ([]float64, []float64) {
			v, err := ref.GEMMFloat(g, fp32, a, b)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := ref.GEMMFloat(g, fp32, testutil.Abs64(a), testutil.Abs64(b))
			return v, s
		}
		name := fmt.Sprintf("%s N=%d In=%d Out=%d", algo, N, In, Out)
		want, abs := gemm(&op.GEMM{M: N, N: Out, K: In, TB: true}, testutil.F64(x.Data()), w)
		for i := range want {
			b := float64(l.B.Value.Data()[i%Out])
			want[i] += b
			abs[i] += math.Abs(b)
		}
		within(t, name+" forward", y.Data(), want, abs, In+1)
		want, abs = gemm(&op.GEMM{M: N, N: In, K: Out}, testutil.F64(gy.Data()), w)
		within(t, name+" input grad", gx.Data(), want, abs, Out)
		want, abs = gemm(&op.GEMM{M: Out, N: In, K: N, TA: true}, testutil.F64(gy.Data()), testutil.F64(x.Data()))
		within(t, name+" weight grad", l.W.Grad.Data(), want, abs, N)
	}
}

// TestBaseSumOrderIsCanonical: base's forward equals, bit for bit, a sum over (kh, kw, ic) in
// that order in float32 followed by the bias, whatever the number of threads.
func TestBaseSumOrderIsCanonical(t *testing.T) {
	const N, H, W, IC, OC, K = 2, 6, 6, 3, 4, 3
	src := rng.New(13)
	c := NewConv2D(&Config{Algo: Base, Threads: 2}, "conv", IC, OC, K, src)
	x := tensor.New(N, H, W, IC)
	randFill(x.Data(), src)
	y, _ := c.Forward(x, false)
	for n := 0; n < N; n++ {
		for oh := 0; oh < H-K+1; oh++ {
			for ow := 0; ow < W-K+1; ow++ {
				for oc := 0; oc < OC; oc++ {
					var s float32
					for kh := 0; kh < K; kh++ {
						for kw := 0; kw < K; kw++ {
							for ic := 0; ic < IC; ic++ {
								s += c.W.Value.At(oc, kh, kw, ic) * x.At(n, oh+kh, ow+kw, ic)
							}
						}
					}
					if got := y.At(n, oh, ow, oc); got != s+c.B.Value.At(oc) {
						t.Fatalf("y(%d,%d,%d,%d) = %v, canonical sum %v", n, oh, ow, oc, got, s+c.B.Value.At(oc))
					}
				}
			}
		}
	}
}
