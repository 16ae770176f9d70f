package nn

import (
	"slices"
	"testing"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// Shapes of the few-outputs path (Out < N): fc2 itself (y^T forward); y^T forward with
// overlapping tiles of w and a long k; a batch that is not a multiple of 6 (row forward,
// overlapping last tile); fewer than 6 outputs (gemmTN fallback); fewer than 6 rows; In not a
// multiple of 16 (fallback); In > kc (k-blocked row forward); Out over one panel.
var fewShapes = [][3]int{{64, 128, 10}, {32, 40, 7}, {48, 400, 12}, {61, 32, 7}, {20, 400, 3}, {5, 16, 2}, {40, 20, 9}, {50, 48, 20}}

func TestLinearFewOutputsAgainstReference(t *testing.T) {
	for _, sh := range fewShapes {
		testLinearAgainstReference(t, sh[0], sh[1], sh[2])
	}
}

func TestLinearFewOutputsGradients(t *testing.T) {
	src := rng.New(5)
	l := NewLinear(&Config{Algo: SIMD, Threads: 2}, "fc", 16, 3, src)
	x := tensor.New(8, 16)
	randFill(x.Data(), src)
	var gx *tensor.Tensor
	// The probes change w in place between calls: the weight cache must notice.
	gradCheck(t, "linear few outputs",
		func() *tensor.Tensor { y, _ := l.Forward(x, true); return y },
		func(gy *tensor.Tensor) { gx, _ = l.Backward(gy) },
		[]probe{
			{"x", x.Data(), func() []float32 { return gx.Data() }},
			{"w", l.W.Value.Data(), func() []float32 { return l.W.Grad.Data() }},
			{"b", l.B.Value.Data(), func() []float32 { return l.B.Grad.Data() }},
		}, 1e-2, 1e-3)
}

// run returns y, gx, gw and gb of one forward and backward pass.
func runLinear(l *Linear, x, gy *tensor.Tensor) [4][]float32 {
	y, _ := l.Forward(x, true)
	yc := slices.Clone(y.Data())
	gx, _ := l.Backward(gy)
	return [4][]float32{yc, slices.Clone(gx.Data()), slices.Clone(l.W.Grad.Data()), slices.Clone(l.B.Grad.Data())}
}

// TestLinearWeightCacheFollowsUpdates: after the weights change (one bit of one weight, or an
// optimizer step), a layer that has cached the old packed weights gives exactly what a fresh
// layer with the new weights gives; and any thread count gives the same bits.
func TestLinearWeightCacheFollowsUpdates(t *testing.T) {
	for _, sh := range fewShapes {
		n, in, out := sh[0], sh[1], sh[2]
		src := rng.New(9)
		l := NewLinear(&Config{Algo: SIMD, Threads: 1}, "fc", in, out, src)
		x, gy := tensor.New(n, in), tensor.New(n, out)
		randFill(x.Data(), src)
		randFill(gy.Data(), src)
		runLinear(l, x, gy)
		w := l.W.Value.Data()
		w[len(w)/2] = -w[len(w)/2] * 1.5
		NewSGD(0.1, 0.9).Step(l.Params())
		got := runLinear(l, x, gy)
		for _, threads := range []int{1, 2} {
			fresh := NewLinear(&Config{Algo: SIMD, Threads: threads}, "fc", in, out, rng.New(1))
			copy(fresh.W.Value.Data(), w)
			copy(fresh.B.Value.Data(), l.B.Value.Data())
			want := runLinear(fresh, x, gy)
			for i, name := range []string{"y", "gx", "gw", "gb"} {
				if !slices.Equal(got[i], want[i]) {
					t.Errorf("N=%d In=%d Out=%d threads=%d: %s differs from a fresh layer's", n, in, out, threads, name)
				}
			}
		}
	}
}

// TestTenRowsPacking: the ten-output weight gradient is the same, bit for bit, whether the
// training forward packed x or the backward packs it (after an inference forward), and after
// a second training forward on other inputs.
func TestTenRowsPacking(t *testing.T) {
	src := rng.New(21)
	l := NewLinear(&Config{Algo: SIMD, Threads: 1}, "fc", 64, 10, src)
	x1, x2 := tensor.New(16, 64), tensor.New(16, 64)
	randFill(x1.Data(), src)
	randFill(x2.Data(), src)
	gy := tensor.New(16, 10)
	randFill(gy.Data(), src)
	grad := func(x *tensor.Tensor, training bool) []float32 {
		if _, err := l.Forward(x, training); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Backward(gy); err != nil {
			t.Fatal(err)
		}
		return append([]float32(nil), l.W.Grad.Data()...)
	}
	want1, want2 := grad(x1, false), grad(x2, false)
	for _, c := range []struct {
		x    *tensor.Tensor
		want []float32
	}{{x1, want1}, {x2, want2}, {x1, want1}} {
		got := grad(c.x, true)
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("gw[%d] = %v, want %v", i, got[i], c.want[i])
			}
		}
	}
}
