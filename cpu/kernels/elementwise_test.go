package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestElementwise: the ReLU, ReLU-gradient and 2x2 max-pool kernels equal their plain loops
// bit for bit, on values with both zeros, NaNs of both signs and ties, every tail length.
func TestElementwise(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), -float32(math.NaN()), 1, -1, float32(math.Inf(1))}
	val := func() float32 {
		if r.IntN(4) == 0 {
			return special[r.IntN(len(special))]
		}
		return float32(r.IntN(9) - 4) // ties
	}
	for _, impl := range implementations() {
		restore := use(impl)
		for _, n := range []int{0, 1, 7, 8, 9, 64, 1000, 3*elemCallMax + 5} {
			x, g := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], g[i] = val(), val()
			}
			y, gx := make([]float32, n), make([]float32, n)
			ReLUF32(x, y)
			ReLUGradF32(g, y, gx)
			for i, v := range x {
				b := math.Float32bits(v)
				want := math.Float32frombits(b &^ uint32(int32(b)>>31))
				if math.Float32bits(y[i]) != math.Float32bits(want) {
					t.Fatalf("%s ReLU n=%d: y[%d] = %v (%x), want %v", impl, n, i, y[i], math.Float32bits(y[i]), want)
				}
				wg := g[i]
				if math.Float32bits(y[i]) == 0 {
					wg = 0
				}
				if math.Float32bits(gx[i]) != math.Float32bits(wg) {
					t.Fatalf("%s ReLU grad n=%d: gx[%d] = %v, want %v", impl, n, i, gx[i], wg)
				}
			}
		}
		for _, c := range []int{8, 16, 64} {
			for _, px := range []int{1, 3, 12} {
				xrow := 2*px*c + 8*r.IntN(3)
				x := make([]float32, xrow+2*px*c+3)
				for i := range x {
					x[i] = val()
				}
				y, arg := make([]float32, px*c+1), make([]int32, px*c+1)
				base := 100 + r.IntN(50)
				MaxPool2F32(px, c, x, xrow, y, arg, base)
				wy, wa := make([]float32, px*c), make([]int32, px*c)
				goMaxPool2F32(px, c/8, &x[0], xrow, &wy[0], &wa[0], base)
				for i := range wy {
					if math.Float32bits(y[i]) != math.Float32bits(wy[i]) || arg[i] != wa[i] {
						t.Fatalf("%s pool c=%d px=%d: [%d] = %v at %d, want %v at %d", impl, c, px, i, y[i], arg[i], wy[i], wa[i])
					}
				}
				if y[px*c] != 0 || arg[px*c] != 0 {
					t.Fatalf("%s pool: wrote past the row", impl)
				}
			}
		}
		restore()
	}
}

// TestAdadelta: the vector Adadelta step equals the plain loop bit for bit over several
// steps, every tail length.
func TestAdadelta(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, n := range []int{1, 8, 13, 100, elemCallMax + 3} {
			v, g, sq, acc := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
			wv, wsq, wacc := append([]float32(nil), v...), make([]float32, n), make([]float32, n)
			for step := 0; step < 3; step++ {
				for i := range g {
					g[i] = float32(r.NormFloat64() * 0.1)
				}
				AdadeltaF32(v, g, sq, acc, 0.9, 1-float32(0.9), 1e-6, 0.7)
				adadeltaGo(wv, g, wsq, wacc, 0.9, 1-float32(0.9), 1e-6, 0.7)
				for i := range v {
					if math.Float32bits(v[i]) != math.Float32bits(wv[i]) || sq[i] != wsq[i] || acc[i] != wacc[i] {
						t.Fatalf("%s n=%d step %d: [%d] v %v sq %v acc %v, want %v %v %v", impl, n, step, i, v[i], sq[i], acc[i], wv[i], wsq[i], wacc[i])
					}
				}
			}
		}
		restore()
	}
}

// TestDropout: the vector dropout kernel equals the plain loop (masks and products) bit for
// bit, for several thresholds and tails.
func TestDropout(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, n := range []int{1, 8, 9, 77, elemCallMax + 13} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			x[0] = float32(math.NaN())
			for _, thr := range []uint64{1, 1 << 22, 1<<23 + 5, 1<<24 - 1} {
				h0, hstep := r.Uint64(), uint64(0xd1b54a32d192ed03)
				y, m := make([]float32, n), make([]float32, n)
				DropoutF32(x, y, m, h0, hstep, thr, 1.25)
				wy, wm := make([]float32, n), make([]float32, n)
				for i := range x {
					dropoutOne(x, wy, wm, i, h0+uint64(i)*hstep, thr, 1.25)
				}
				for i := range x {
					if math.Float32bits(y[i]) != math.Float32bits(wy[i]) || m[i] != wm[i] {
						t.Fatalf("%s n=%d thr=%d: [%d] y %v mask %v, want %v %v", impl, n, thr, i, y[i], m[i], wy[i], wm[i])
					}
				}
			}
		}
		restore()
	}
}
