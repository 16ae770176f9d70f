package conv

import (
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/cpu/gemm"
	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
)

// amxShapes cover the lowering's cases: 1x1 in place, padded, strided, dilated, grouped,
// batched, and edges of the 32 x 32 tile blocks in pixels and channels.
var amxShapes = []op.Conv2D{
	{X: 9, Y: 7, K: 40, C: 24, R: 1, S: 1, N: 1, Stride: 1, Dilation: 1, Groups: 1},
	{X: 8, Y: 8, K: 33, C: 16, R: 3, S: 3, N: 2, Stride: 1, Pad: 1, Dilation: 1, Groups: 1},
	{X: 5, Y: 6, K: 64, C: 3, R: 7, S: 7, N: 1, Stride: 2, Pad: 3, Dilation: 1, Groups: 1},
	{X: 6, Y: 5, K: 32, C: 32, R: 3, S: 3, N: 1, Stride: 1, Pad: 2, Dilation: 2, Groups: 2},
	{X: 7, Y: 7, K: 16, C: 130, R: 1, S: 1, N: 1, Stride: 1, Dilation: 1, Groups: 1},
	{X: 6, Y: 5, K: 40, C: 8, R: 3, S: 2, N: 2, Stride: 1, Pad: 0, Dilation: 1, Groups: 1},
	{X: 9, Y: 8, K: 64, C: 64, R: 3, S: 3, N: 1, Stride: 1, Pad: 1, Dilation: 1, Groups: 1},
	{X: 17, Y: 5, K: 48, C: 32, R: 3, S: 3, N: 2, Stride: 1, Pad: 1, Dilation: 1, Groups: 1}, // filter rows
	{X: 16, Y: 3, K: 32, C: 16, R: 2, S: 2, N: 1, Stride: 1, Pad: 0, Dilation: 1, Groups: 1}, // filter rows, no padding
}

func fillIn(c *op.Conv2D) op.Conv2D {
	s := *c
	s.XIn = (s.X-1)*s.Stride + (s.R-1)*s.Dilation + 1 - 2*s.Pad
	s.YIn = (s.Y-1)*s.Stride + (s.S-1)*s.Dilation + 1 - 2*s.Pad
	return s
}

// TestU8S8AMX: the uint8 x int8 convolution lowered to the AMX GEMM, full-range activations,
// bit for bit against op/ref (on the Go model of the tile instructions where the CPU has no
// AMX), whatever path the options ask for (AMX is exact for every input).
func TestU8S8AMX(t *testing.T) {
	if !kernels.AMX() {
		t.Logf("AMX kernels not in use (%v): the Go model of the tile instructions runs", kernels.AMXStatus())
	}
	defer gemm.ForceAMXModel()()
	rng := rand.New(rand.NewSource(9))
	for i, s := range amxShapes {
		c := fillIn(&s)
		in, w := make([]int64, c.InLen()), make([]int64, c.WLen())
		in8, w8 := make([]uint8, len(in)), make([]int8, len(w))
		for j := range in {
			in8[j] = uint8(rng.Intn(256))
			in[j] = int64(in8[j])
		}
		for j := range w {
			w8[j] = int8(rng.Intn(256) - 128)
			w[j] = int64(w8[j])
		}
		want := intWant(t, &c, op.UInt8, op.Int8, in, w)
		path := []kernels.U8Path{kernels.U8Auto, kernels.U8Exact, kernels.U8Fast}[i%3]
		p, err := NewU8S8(&c, w8, Options{Threads: 1 + i%2, U8Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if p.ISA() != "amx" || KernelISA(&c, "u8s8", false) != "amx" {
			t.Fatalf("%+v: plan runs %s, KernelISA %s, want amx", c, p.ISA(), KernelISA(&c, "u8s8", false))
		}
		out := make([]int32, c.OutLen())
		if err := p.Run(in8, out); err != nil {
			t.Fatal(err)
		}
		checkInt(t, "amx", &c, out, want)
	}
}

// TestBF16AMX: the bf16 convolution on the AMX GEMM (TDPBF16PS) within ref.BF16Bound.
func TestBF16AMX(t *testing.T) {
	defer gemm.ForceAMXModel()()
	r := rand.New(rand.NewSource(10))
	for _, s := range amxShapes {
		c := fillIn(&s)
		if KernelISA(&c, "bf16", false) != "amx" {
			t.Fatalf("bf16 KernelISA %s, want amx", KernelISA(&c, "bf16", false))
		}
		checkBF16(t, r, &c)
	}
}

// TestAMXDirect: the direct tile convolution (A loaded in place from the padded input, no
// im2col, no A packing), uint8 x int8 and int8 x int8 with full-range operands, bit for bit
// against op/ref on the Go model of the tile instructions, over stride-1 shapes that cross
// its edges: channel runs shorter than, equal to and longer than a 64-byte step and not a
// multiple of it, more steps than one kernel call's k block (16), output channels past one
// and between 32-column panels, pixels past one and between 32-pixel blocks and chunks,
// padding wider than the filter needs, batches, and several threads; strided 1x1 layers
// (gathered), strided layers 24-32 or 48-64 pixels wide (a call per output row). Narrow strided,
// dilated and grouped layers must take the AMX GEMM lowering instead.
func TestAMXDirect(t *testing.T) {
	defer gemm.ForceAMXModel()()
	rng := rand.New(rand.NewSource(17))
	shapes := []op.Conv2D{
		{X: 9, Y: 7, K: 40, C: 24, R: 1, S: 1, N: 1},
		{X: 8, Y: 8, K: 33, C: 16, R: 3, S: 3, N: 2, Pad: 1},
		{X: 7, Y: 7, K: 16, C: 130, R: 1, S: 1, N: 1},
		{X: 6, Y: 5, K: 64, C: 130, R: 3, S: 3, N: 1, Pad: 1},           // 7 steps a row, 21 in all
		{X: 17, Y: 5, K: 48, C: 64, R: 3, S: 3, N: 2, Pad: 1},           // whole steps
		{X: 16, Y: 3, K: 32, C: 16, R: 2, S: 2, N: 1},                   // no padding, X < XIn
		{X: 10, Y: 4, K: 8, C: 3, R: 7, S: 7, N: 1, Pad: 3},             // C1-like, stride 1
		{X: 40, Y: 9, K: 96, C: 32, R: 3, S: 3, N: 1, Pad: 2},           // wide padding, 12 blocks
		{X: 23, Y: 21, K: 72, C: 8, R: 5, S: 3, N: 1, Pad: 1},           // R != S
		{X: 9, Y: 7, K: 40, C: 70, R: 1, S: 1, N: 2, Stride: 2},         // 1x1 strided: gathered
		{X: 6, Y: 5, K: 32, C: 24, R: 1, S: 1, N: 1, Stride: 2, Pad: 1}, // and padded
		{X: 4, Y: 4, K: 16, C: 8, R: 1, S: 1, N: 1, Stride: 3, Dilation: 2},
		{X: 5, Y: 6, K: 64, C: 3, R: 7, S: 7, N: 1, Stride: 2, Pad: 3},               // strided, narrow: GEMM
		{X: 28, Y: 3, K: 40, C: 16, R: 3, S: 3, N: 2, Stride: 2, Pad: 1},             // strided: per row
		{X: 32, Y: 2, K: 8, C: 3, R: 7, S: 7, N: 1, Stride: 2, Pad: 3},               // C1-like, per row
		{X: 25, Y: 3, K: 33, C: 70, R: 2, S: 3, N: 1, Stride: 3, Pad: 2},             // per row, 2 blocks
		{X: 30, Y: 2, K: 16, C: 8, R: 3, S: 3, N: 1, Stride: 2, Dilation: 2, Pad: 2}, // dilated: GEMM
		{X: 5, Y: 5, K: 32, C: 16, R: 1, S: 1, N: 1, Stride: 2, Groups: 2},           // grouped: GEMM
		{X: 6, Y: 5, K: 32, C: 32, R: 3, S: 3, N: 1, Pad: 2, Dilation: 2, Groups: 2},
	}
	for i, s := range shapes {
		s.Stride, s.Dilation, s.Groups = max(1, s.Stride), max(1, s.Dilation), max(1, s.Groups)
		c := fillIn(&s)
		if err := validate(&c); err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		in8, w8 := make([]int8, c.InLen()), make([]int8, c.WLen())
		for j := range in8 {
			in8[j] = int8(rng.Intn(256))
		}
		for j := range w8 {
			w8[j] = int8(rng.Intn(256))
		}
		inU := make([]uint8, len(in8))
		for j, v := range in8 {
			inU[j] = uint8(v)
		}
		threads := 1 + i%3
		if c.X == 23 {
			threads = 1 // 18 blocks: more than one chunk of a thread
		}
		u, err := NewU8S8(&c, w8, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := NewS8S8(&c, w8, Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		_, du := u.amx.(*amxDirect[uint8, int8, int32])
		_, ds := sp.amx.(*amxDirect[int8, int8, int32])
		if du != amxDirectFits(&c, 1) || ds != du {
			t.Fatalf("%+v: direct u8s8 %v s8s8 %v, want %v", c, du, ds, amxDirectFits(&c, 1))
		}
		out := make([]int32, c.OutLen())
		for j := range out {
			out[j] = -1 << 31
		}
		if err := u.Run(inU, out); err != nil {
			t.Fatal(err)
		}
		checkInt(t, "amx direct u8s8", &c, out, intWant(t, &c, op.UInt8, op.Int8, i64(inU), i64(w8)))
		for j := range out {
			out[j] = -1 << 31
		}
		if err := sp.Run(in8, out); err != nil {
			t.Fatal(err)
		}
		checkInt(t, "amx direct s8s8", &c, out, intWant(t, &c, op.Int8, op.Int8, i64(in8), i64(w8)))
		// a second run on the reused buffers gives the same
		again := make([]int32, c.OutLen())
		if err := sp.Run(in8, again); err != nil {
			t.Fatal(err)
		}
		checkInt(t, "amx direct s8s8 again", &c, again, intWant(t, &c, op.Int8, op.Int8, i64(in8), i64(w8)))
	}
}

// TestAMXDirectBF16: the bf16 convolution's direct tile path (TDPBF16PS on A tiles loaded in
// place) within ref.BF16Bound on the tile model, for stride-1 (and strided) ungrouped
// layers of a multiple of 32 channels (one or several 32-value steps per filter row, more
// than one k block, edges of the 32 x 32 blocks, batches); a channel count that is not a
// multiple of 32 takes the GEMM lowering.
func TestAMXDirectBF16(t *testing.T) {
	defer gemm.ForceAMXModel()()
	r := rand.New(rand.NewSource(18))
	for _, s := range []op.Conv2D{
		{X: 8, Y: 8, K: 33, C: 32, R: 3, S: 3, N: 2, Pad: 1},
		{X: 9, Y: 7, K: 40, C: 64, R: 1, S: 1, N: 1},
		{X: 6, Y: 5, K: 64, C: 96, R: 3, S: 3, N: 1, Pad: 1}, // 9 steps a row, 27 in all
		{X: 19, Y: 4, K: 16, C: 32, R: 2, S: 3, N: 1, Pad: 2},
		{X: 8, Y: 8, K: 32, C: 48, R: 3, S: 3, N: 1, Pad: 1},             // C % 32 != 0: GEMM
		{X: 7, Y: 6, K: 40, C: 64, R: 1, S: 1, N: 2, Stride: 2},          // 1x1 strided: gathered
		{X: 28, Y: 2, K: 32, C: 32, R: 3, S: 3, N: 1, Stride: 2, Pad: 1}, // strided: per row
	} {
		s.Stride, s.Dilation, s.Groups = max(1, s.Stride), 1, 1
		c := fillIn(&s)
		p, err := NewBF16(&c, make([]uint16, c.WLen()), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if (p.amx != nil) != (c.C%32 == 0) {
			t.Fatalf("%+v: direct %v", c, p.amx != nil)
		}
		checkBF16(t, r, &c)
	}
}
