package conv

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// TestBF16 runs convolutions of several shapes (1x1 direct, padded, strided, dilated,
// grouped, batched) on each bf16 path the machine has (VDPBF16PS, then the fp32 kernels on
// widened operands: AVX-512, AVX2, Go), against the float64 reference within ref.BF16Bound.
func TestBF16(t *testing.T) {
	shapes := []op.Conv2D{
		{X: 9, Y: 7, K: 40, C: 24, R: 1, S: 1, N: 1, Stride: 1, Dilation: 1, Groups: 1},
		{X: 8, Y: 8, K: 33, C: 16, R: 3, S: 3, N: 2, Stride: 1, Pad: 1, Dilation: 1, Groups: 1},
		{X: 5, Y: 6, K: 64, C: 3, R: 7, S: 7, N: 1, Stride: 2, Pad: 3, Dilation: 1, Groups: 1},
		{X: 6, Y: 5, K: 32, C: 32, R: 3, S: 3, N: 1, Stride: 1, Pad: 2, Dilation: 2, Groups: 2},
		{X: 4, Y: 4, K: 16, C: 20, R: 2, S: 3, N: 1, Stride: 2, Pad: 0, Dilation: 1, Groups: 1},
		{X: 6, Y: 5, K: 40, C: 8, R: 3, S: 2, N: 2, Stride: 1, Pad: 0, Dilation: 1, Groups: 1},
		{X: 7, Y: 7, K: 64, C: 64, R: 3, S: 3, N: 1, Stride: 1, Pad: 1, Dilation: 1, Groups: 1},
		{X: 17, Y: 5, K: 48, C: 32, R: 3, S: 3, N: 2, Stride: 1, Pad: 1, Dilation: 1, Groups: 1}, // filter rows
		{X: 16, Y: 3, K: 32, C: 16, R: 2, S: 2, N: 1, Stride: 1, Pad: 0, Dilation: 1, Groups: 1}, // filter rows, no padding
	}
	for _, limit := range []kernels.ISA{kernels.ISAAMX, kernels.ISAAVX512VNNI, kernels.ISAAVX2, kernels.ISAGo} {
		restore := kernels.LimitISA(limit)
		isa := KernelISA(&shapes[0], "bf16", false)
		t.Run(limit.String()+"->"+isa, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(limit)))
			for _, c := range shapes {
				c := c
				c.XIn = (c.X-1)*c.Stride + (c.R-1)*c.Dilation + 1 - 2*c.Pad
				c.YIn = (c.Y-1)*c.Stride + (c.S-1)*c.Dilation + 1 - 2*c.Pad
				checkBF16(t, r, &c)
			}
		})
		restore()
	}
}

func checkBF16(t *testing.T, r *rand.Rand, c *op.Conv2D) {
	t.Helper()
	in, w := make([]uint16, c.InLen()), make([]uint16, c.WLen())
	in64, w64 := make([]float64, len(in)), make([]float64, len(w))
	for i := range in {
		in[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
		in64[i] = float64(num.BF16(in[i]).Float32())
	}
	for i := range w {
		w[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
		w64[i] = float64(num.BF16(w[i]).Float32())
	}
	want, err := ref.Conv2DFloat(c, op.Types{A: op.BF16, B: op.BF16, Acc: op.AccF64, Out: op.FP64}, in64, w64)
	if err != nil {
		t.Fatal(err)
	}
	abs := ref.Conv2DAbs(c, in64, w64)
	p, err := NewBF16(c, w, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, c.OutLen())
	for i := range out {
		out[i] = float32(math.NaN()) // every output must be written
	}
	if err := p.Run(in, out); err != nil {
		t.Fatal(err)
	}
	n := c.R * c.S * c.C / c.Groups
	for j := range out {
		if d := math.Abs(float64(out[j]) - want[j]); !(d <= ref.BF16Bound(n, abs[j])) {
			t.Fatalf("%+v: out[%d] = %v, want %v (bound %.3g)", *c, j, out[j], want[j], ref.BF16Bound(n, abs[j]))
		}
	}
	if err := p.Run(in[1:], out); err == nil {
		t.Error("short input accepted")
	}
}

// TestGemmConvPaths: the lowering picks the filter-rows path for wide stride-1 layers and
// im2col for narrow ones, strided, dilated and grouped ones (TestBF16 and TestU8S8AMX run
// both on their shapes).
func TestGemmConvPaths(t *testing.T) {
	for _, tc := range []struct {
		s    op.Conv2D
		rows bool
	}{
		{op.Conv2D{X: 17, Y: 5, K: 48, C: 32, R: 3, S: 3, N: 2, Stride: 1, Pad: 1, Dilation: 1, Groups: 1}, true},
		{op.Conv2D{X: 16, Y: 3, K: 32, C: 16, R: 2, S: 2, N: 1, Stride: 1, Pad: 0, Dilation: 1, Groups: 1}, true},
		{op.Conv2D{X: 7, Y: 7, K: 64, C: 64, R: 3, S: 3, N: 1, Stride: 1, Pad: 1, Dilation: 1, Groups: 1}, false},
		{op.Conv2D{X: 6, Y: 5, K: 32, C: 32, R: 3, S: 3, N: 1, Stride: 1, Pad: 2, Dilation: 2, Groups: 2}, false},
	} {
		c := fillIn(&tc.s)
		if got := newGemmConv[uint16, uint16, float32](&c, make([]uint16, c.WLen()), 2).rows; got != tc.rows {
			t.Errorf("%+v: filter rows %v, want %v", c, got, tc.rows)
		}
		if got := newGemmConv[uint8, int8, int32](&c, make([]int8, c.WLen()), 4).rows; got != tc.rows {
			t.Errorf("%+v (AMX int8): filter rows %v, want %v", c, got, tc.rows)
		}
	}
}
