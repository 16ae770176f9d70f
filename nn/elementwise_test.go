package nn

import (
	"math"
	"testing"

	"github.com/sumacdev/sumac/internal/rng"
	"github.com/sumacdev/sumac/nn/tensor"
)

// TestElementwiseSIMDMatchesBase: the simd ReLU, max-pool and dropout (the CPU backend's vector
// kernels) give base's plain loops' outputs, gradients and pooling indices bit for bit, with
// ties, zeros of both signs and odd sizes.
func TestElementwiseSIMDMatchesBase(t *testing.T) {
	src := rng.New(7)
	for _, shape := range [][]int{{2, 6, 8, 16}, {3, 5, 7, 64}, {1, 4, 4, 8}, {2, 3, 3, 5}} {
		x := tensor.New(shape...)
		gy := tensor.New(shape...)
		for i := range x.Data() {
			x.Data()[i] = float32(int(src.Uint64()%9) - 4)
			gy.Data()[i] = float32(src.Float64())
		}
		x.Data()[0] = float32(math.Copysign(0, -1))
		var outs [2][]uint32
		for a, algo := range []Algo{Base, SIMD} {
			cfg := &Config{Algo: algo, Threads: 2}
			r := NewReLU(cfg, "relu")
			y, _ := r.Forward(x, true)
			gx, _ := r.Backward(gy)
			p := NewMaxPool2D(cfg, "pool", 2)
			py, _ := p.Forward(y, true)
			pg := tensor.New(py.Shape()...)
			for i := range pg.Data() {
				pg.Data()[i] = float32(i + 1)
			}
			pgx, _ := p.Backward(pg)
			dr := NewDropout(cfg, "dropout", 0.3, 5)
			dy, _ := dr.Forward(x, true)
			dg, _ := dr.Backward(gy)
			for _, d := range [][]float32{y.Data(), gx.Data(), py.Data(), pgx.Data(), dy.Data(), dg.Data(), dr.mask} {
				for _, v := range d {
					outs[a] = append(outs[a], math.Float32bits(v))
				}
			}
			for _, v := range p.arg {
				outs[a] = append(outs[a], uint32(v))
			}
		}
		for i := range outs[0] {
			if outs[0][i] != outs[1][i] {
				t.Fatalf("%v: value %d differs: base %x simd %x", shape, i, outs[0][i], outs[1][i])
			}
		}
	}
}
