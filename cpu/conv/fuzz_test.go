package conv

import (
	"math"
	"testing"

	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/internal/testutil"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// FuzzShape builds plans from arbitrary shape parameters: invalid shapes must be rejected
// with an error (never a panic), valid small ones must match the reference.
// go test -fuzz FuzzShape ./cpu/conv
func FuzzShape(f *testing.F) {
	f.Add(5, 4, 16, 8, 3, 3, 1, 1, 1, 1, 1, 0, 0)
	f.Add(7, 7, 24, 6, 3, 3, 2, 2, 2, 2, 1, 1, 1)
	f.Add(1, 1, 9, 2, 3, 3, 1, 1, 4, 1, 1, 0, 0)
	f.Add(3, 2, 4, 4, 1, 1, 1, 1, 0, 1, 4, 0, 0)
	f.Fuzz(func(t *testing.T, x, y, k, c, r, s, n, stride, pad, dil, groups, xinExtra, yinExtra int) {
		shape := &op.Conv2D{X: x, Y: y, K: k, C: c, R: r, S: s, N: n, Stride: stride, Pad: pad,
			Dilation: dil, Groups: groups}
		if dil >= 1 && stride >= 1 && r >= 1 && s >= 1 {
			shape.XIn = (x-1)*stride + (r-1)*dil + 1 - 2*pad + xinExtra
			shape.YIn = (y-1)*stride + (s-1)*dil + 1 - 2*pad + yinExtra
		}
		err := validate(shape)
		// Keep the reference cheap: skip valid shapes that are too big to check quickly.
		if err == nil && (shape.MACs() > 1<<18 || shape.InLen() > 1<<16 || shape.OutLen() > 1<<16 || shape.WLen() > 1<<16) {
			return
		}
		wlen := 0
		if err == nil {
			wlen = shape.WLen()
		}
		w := make([]float32, wlen)
		for i := range w {
			w[i] = float32(i%7) - 3
		}
		p, perr := NewF32(shape, w, Options{Threads: 2})
		if (err == nil) != (perr == nil) {
			t.Fatalf("validate says %v, NewF32 says %v", err, perr)
		}
		if perr != nil {
			return
		}
		in := make([]float32, shape.InLen())
		for i := range in {
			in[i] = float32(i%5) - 2
		}
		out := make([]float32, shape.OutLen())
		if err := p.Run(in, out); err != nil {
			t.Fatal(err)
		}
		want, err := ref.Conv2DFloat(shape, op.Types{A: op.FP32, B: op.FP32, Acc: op.AccF64, Out: op.FP64}, testutil.F64(in), testutil.F64(w))
		if err != nil {
			t.Fatal(err)
		}
		for i := range out {
			// Small integers: every partial sum is exact in float32.
			if float64(out[i]) != want[i] || math.IsNaN(float64(out[i])) {
				t.Fatalf("%v: output %d = %v, want %v", shape, i, out[i], want[i])
			}
		}
	})
}

// FuzzS8S8Shape is FuzzShape for the int8 x int8 plan, on this machine's kernels and on the
// AMX paths (the tile model: the direct kernels for stride 1, else the GEMM lowering), with
// full-range operands, bit for bit.
// go test -fuzz FuzzS8S8Shape ./cpu/conv
func FuzzS8S8Shape(f *testing.F) {
	f.Add(5, 4, 16, 8, 3, 3, 1, 1, 1, 1, 1, 0, 0)
	f.Add(7, 7, 24, 6, 3, 3, 2, 2, 2, 2, 1, 1, 1)
	f.Add(9, 3, 40, 70, 2, 3, 1, 1, 2, 1, 1, 0, 0)
	f.Add(3, 2, 8, 4, 1, 1, 1, 1, 0, 1, 4, 0, 0)
	f.Fuzz(func(t *testing.T, x, y, k, c, r, s, n, stride, pad, dil, groups, xinExtra, yinExtra int) {
		shape := &op.Conv2D{X: x, Y: y, K: k, C: c, R: r, S: s, N: n, Stride: stride, Pad: pad,
			Dilation: dil, Groups: groups}
		if dil >= 1 && stride >= 1 && r >= 1 && s >= 1 {
			shape.XIn = (x-1)*stride + (r-1)*dil + 1 - 2*pad + xinExtra
			shape.YIn = (y-1)*stride + (s-1)*dil + 1 - 2*pad + yinExtra
		}
		err := validate(shape)
		if err == nil && (shape.MACs() > 1<<17 || shape.InLen() > 1<<15 || shape.OutLen() > 1<<15 || shape.WLen() > 1<<15) {
			return
		}
		wlen := 0
		if err == nil {
			wlen = shape.WLen()
		}
		w := make([]int8, wlen)
		for i := range w {
			w[i] = int8(i*37 + 11)
		}
		var want []int64
		for _, amx := range []bool{false, true} {
			restore := func() {}
			if amx {
				restore = gemm.ForceAMXModel()
			}
			p, perr := NewS8S8(shape, w, Options{Threads: 2})
			if (err == nil) != (perr == nil) {
				restore()
				t.Fatalf("validate says %v, NewS8S8 says %v", err, perr)
			}
			if perr != nil {
				restore()
				return
			}
			in := make([]int8, shape.InLen())
			for i := range in {
				in[i] = int8(i*53 + 7)
			}
			if want == nil {
				res, err := ref.Conv2DInt(shape, op.Types{A: op.Int8, B: op.Int8, Acc: op.AccI32, Out: op.Int32}, i64(in), i64(w))
				if err != nil {
					t.Fatal(err)
				}
				want = res.Out
			}
			out := make([]int32, shape.OutLen())
			rerr := p.Run(in, out)
			restore()
			if rerr != nil {
				t.Fatal(rerr)
			}
			for i := range out {
				if int64(out[i]) != want[i] {
					t.Fatalf("%v amx %v (%s): output %d = %d, want %d", shape, amx, p.Path(), i, out[i], want[i])
				}
			}
		}
	})
}
