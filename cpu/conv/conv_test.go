package conv

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/internal/testutil"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// fixedShapes cover the paths by name: the 1x1 GEMM path, fused filter rows with padding on
// every side, the window path for short filter rows (3 input channels, as ResNet-50's C1;
// 1 channel as MNIST's conv1) with its gathered border tiles, dilation,
// groups, depth-wise, batches, channel counts that are not multiples of the panel width,
// and pixel counts that are not multiples of the tile height.
var fixedShapes = []string{
	"conv2d x=13 y=5 k=40 c=24 r=1 s=1",                                       // 1x1 fast path, tails in pixels and channels
	"conv2d x=9 y=9 k=32 c=16 r=3 s=3 pad=1",                                  // ResNet-like 3x3
	"conv2d x=8 y=8 k=16 c=3 r=7 s=7 stride=2 pad=3",                          // C1-like short rows, all tiles gathered
	"conv2d x=20 y=6 k=24 c=3 r=7 s=7 stride=2 pad=3",                         // C1-like: window tiles in place, borders gathered
	"conv2d x=16 y=4 k=16 c=1 r=3 s=3",                                        // MNIST-like: 1 channel, rows padded to kgroup
	"conv2d x=18 y=5 k=16 c=2 r=5 s=5 n=2 pad=1",                              // windows over a batch
	"conv2d x=7 y=6 k=17 c=5 r=3 s=3 stride=2 pad=2",                          // stride, wide padding, odd channels
	"conv2d x=6 y=7 k=24 c=8 r=3 s=3 pad=2 dilation=2",                        // dilation: one tap per block
	"conv2d x=5 y=5 k=32 c=16 r=3 s=3 pad=1 groups=2",                         // groups
	"conv2d x=6 y=4 k=8 c=8 r=3 s=3 pad=1 groups=8",                           // depth-wise (channel-wise kernels)
	"conv2d x=9 y=7 k=32 c=32 r=3 s=3 pad=1 groups=32",                        // depth-wise, two vectors
	"conv2d x=5 y=6 k=48 c=48 r=3 s=3 pad=1 stride=2 groups=48 xin=10 yin=11", // depth-wise stride 2, two and one vectors
	"conv2d x=7 y=5 k=20 c=20 r=5 s=3 pad=2 dilation=2 groups=20",             // dilation, channels past the last vector
	"conv2d x=6 y=6 k=24 c=12 r=3 s=3 pad=1 groups=12",                        // depth multiplier 2 (expanded input)
	"conv2d x=5 y=4 k=24 c=48 r=3 s=3 pad=1 groups=8 n=2",                     // narrow groups, 6 in and 3 out channels
	"conv2d x=3 y=3 k=16 c=16 r=3 s=3 pad=3 groups=16 xin=2 yin=2",            // taps wholly outside for border rows and columns
	"conv2d x=4 y=3 k=16 c=7 r=2 s=3 n=3 pad=1",                               // batch, rectangular filter
	"conv2d x=3 y=3 k=20 c=40 r=1 s=1 stride=2 xin=6 yin=6",                   // strided 1x1 (not linear)
	"conv2d x=1 y=1 k=9 c=2 r=3 s=3 pad=4 xin=1 yin=1",                        // all taps but one in padding
	"conv2d x=2 y=3 k=16 c=2 r=3 s=3 pad=4 xin=1 yin=1",                       // padded window path, wider padding than the windows reach
	"conv2d x=7 y=7 k=64 c=4500 r=1 s=1",                                      // several k blocks of a few-tile layer (blockLimit)
	"conv2d x=20 y=15 k=32 c=1100 r=1 s=1",                                    // several k blocks of the kernel's kc
	"conv2d x=12 y=2 k=20 c=5 r=1 s=1",                                        // 1x1, odd channels: the last tiles' kgroup padding would read past the input
	"conv2d x=5 y=5 k=16 c=1400 r=3 s=3 pad=1",                                // fused rows split into k blocks
	"conv2d x=20 y=15 k=16 c=100 r=3 s=3 pad=1",                               // the same with the kernel's kc
	"conv2d x=20 y=16 k=64 c=24 r=3 s=3 pad=1",                                // AVX-512 float32: the wide window layout
}

func parse(t *testing.T, s string) *op.Conv2D {
	t.Helper()
	sp, err := op.Parse(s + " dtype=fp32")
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return sp.Conv
}

// randomShape draws a valid convolution with small sizes.
func randomShape(rng *rand.Rand) *op.Conv2D {
	for {
		c := &op.Conv2D{
			X: 1 + rng.IntN(12), Y: 1 + rng.IntN(6), N: 1 + rng.IntN(2),
			R: 1 + rng.IntN(4), S: 1 + rng.IntN(4),
			Stride: 1 + rng.IntN(3), Pad: rng.IntN(3), Dilation: 1 + rng.IntN(2),
		}
		c.Groups = []int{1, 1, 1, 2, 3}[rng.IntN(5)]
		c.C = c.Groups * (1 + rng.IntN(20))
		c.K = c.Groups * (1 + rng.IntN(40))
		c.XIn = max(1, (c.X-1)*c.Stride+(c.R-1)*c.Dilation+1-2*c.Pad) + rng.IntN(2)
		c.YIn = max(1, (c.Y-1)*c.Stride+(c.S-1)*c.Dilation+1-2*c.Pad) + rng.IntN(2)
		if validate(c) == nil {
			return c
		}
	}
}

func shapes(t *testing.T, nRandom int) []*op.Conv2D {
	var out []*op.Conv2D
	for _, s := range fixedShapes {
		out = append(out, parse(t, s))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < nRandom; i++ {
		out = append(out, randomShape(rng))
	}
	return out
}

// forEachSet runs f with each kernel set the CPU has forced in turn (kernels.LimitISA): the
// Go fallbacks, AVX2, AVX-VNNI, AVX-512, AVX-512 VNNI, the 32-channel families on every
// shape (wideMin 0); sets the CPU lacks are skipped with a log line.
func forEachSet(t *testing.T, f func(set kernels.ISA)) {
	top = kernels.ForDType("u8s8")
	for _, s := range []kernels.ISA{kernels.ISAGo, kernels.ISAAVX2, kernels.ISAAVX2VNNI, kernels.ISAAVX512, kernels.ISAAVX512VNNI} {
		if !kernels.CPUHas(s) {
			t.Logf("the CPU lacks %s (or this build has no assembly): not tested here", s)
			continue
		}
		restore := kernels.LimitISA(s)
		old := wideMin
		wideMin = 0
		f(s)
		wideMin = old
		restore()
	}
}

// top is the best integer set of the machine (the float one is the same or below); it gets
// the most random shapes.
var top kernels.ISA

// randomShapes is the number of random shapes per type under a forced set: 60 for the
// machine's best, 15 for the others (go test ./cpu/conv stays a few seconds).
func randomShapes(set kernels.ISA) int {
	if set == top {
		return 60
	}
	return 15
}

func TestF32MatchesReference(t *testing.T) {
	forEachSet(t, func(set kernels.ISA) { testF32MatchesReference(t, set) })
}

func testF32MatchesReference(t *testing.T, set kernels.ISA) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i, c := range shapes(t, randomShapes(set)) {
		// Each set draws the same shapes and operands in the same order (one seed), so the
		// references are computed once.
		type fc struct {
			in, w     []float32
			want, abs []float64
		}
		k := memo(fmt.Sprint("f32 ", i), func() fc {
			in, w, want, abs := f32Case(t, rng, c)
			return fc{in, w, want, abs}
		})
		in, w, want, abs := k.in, k.w, k.want, k.abs
		n := c.R * c.S * c.C / c.Groups
		for _, threads := range []int{1, 3} {
			p, err := NewF32(c, w, Options{Threads: threads})
			if err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			out := make([]float32, c.OutLen())
			for j := range out {
				out[j] = float32(math.NaN()) // every output must be written
			}
			if err := p.Run(in, out); err != nil {
				t.Fatal(err)
			}
			for j := range out {
				if d := math.Abs(float64(out[j]) - want[j]); !(d <= ref.FloatBound(n, abs[j], op.AccF32)) {
					t.Fatalf("%s (%s) shape %d %v threads %d: output %d = %v, want %v (bound %g)", set, p.ISA(), i, c, threads, j, out[j], want[j],
						ref.FloatBound(n, abs[j], op.AccF32))
				}
			}
		}
	}
}

// memos holds the test cases memo computed, by key.
var memos = map[string]any{}

// memo returns f's value for key, computing it on the first call only.
func memo[T any](key string, f func() T) T {
	if v, ok := memos[key]; ok {
		return v.(T)
	}
	v := f()
	memos[key] = v
	return v
}

// f32Case draws an input and weights in [-1, 1) for c and returns them with the float64
// reference output and its bound's magnitudes (ref.Conv2DAbs).
func f32Case(t *testing.T, rng *rand.Rand, c *op.Conv2D) (in, w []float32, want, abs []float64) {
	t.Helper()
	in, w = make([]float32, c.InLen()), make([]float32, c.WLen())
	for j := range in {
		in[j] = rng.Float32()*2 - 1
	}
	for j := range w {
		w[j] = rng.Float32()*2 - 1
	}
	in64, w64 := testutil.F64(in), testutil.F64(w)
	want, err := ref.Conv2DFloat(c, op.Types{A: op.FP32, B: op.FP32, Acc: op.AccF64, Out: op.FP64}, in64, w64)
	if err != nil {
		t.Fatal(err)
	}
	return in, w, want, ref.Conv2DAbs(c, in64, w64)
}

// intWant is the exact result with int32 accumulation, wrapping modulo 2^32 as the kernels do.
func intWant(t *testing.T, c *op.Conv2D, a, b op.DType, in, w []int64) []int64 {
	t.Helper()
	res, err := ref.Conv2DInt(c, op.Types{A: a, B: b, Acc: op.AccI32, Out: op.Int32}, in, w)
	if err != nil {
		t.Fatal(err)
	}
	return res.Out
}

func checkInt(t *testing.T, what string, c *op.Conv2D, got []int32, want []int64) {
	t.Helper()
	for j := range got {
		if int64(got[j]) != want[j] {
			t.Fatalf("%s %v: output %d = %d, want %d", what, c, j, got[j], want[j])
		}
	}
}

func TestI16MatchesReference(t *testing.T) {
	forEachSet(t, func(set kernels.ISA) { testI16MatchesReference(t, set) })
}

func testI16MatchesReference(t *testing.T, set kernels.ISA) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i, c := range shapes(t, randomShapes(set)) {
		type ic struct {
			in, w []int16
			want  []int64
		}
		k := memo(fmt.Sprint("i16 ", i), func() ic {
			in := make([]int16, c.InLen())
			w := make([]int16, c.WLen())
			for j := range in {
				in[j] = int16(rng.Uint32())
			}
			for j := range w {
				w[j] = int16(rng.Uint32())
			}
			return ic{in, w, intWant(t, c, op.Int16, op.Int16, i64(in), i64(w))}
		})
		in, w, want := k.in, k.w, k.want
		for _, threads := range []int{1, 2} {
			p, err := NewI16(c, w, Options{Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]int32, c.OutLen())
			for j := range out {
				out[j] = -7
			}
			if err := p.Run(in, out); err != nil {
				t.Fatal(err)
			}
			checkInt(t, fmt.Sprintf("%s (%s) int16 threads %d", set, p.ISA(), threads), c, out, want)
		}
	}
}

func i64[T int16 | int8 | uint8](v []T) []int64 {
	o := make([]int64, len(v))
	for i, x := range v {
		o[i] = int64(x)
	}
	return o
}

func TestU8S8MatchesReference(t *testing.T) {
	forEachSet(t, func(set kernels.ISA) { testU8S8MatchesReference(t, set) })
}

func testU8S8MatchesReference(t *testing.T, set kernels.ISA) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i, c := range shapes(t, randomShapes(set)) {
		w := memo(fmt.Sprint("u8 w ", i), func() []int8 {
			w := make([]int8, c.WLen())
			for j := range w {
				w[j] = int8(rng.Uint32())
			}
			return w
		})
		for _, path := range []kernels.U8Path{kernels.U8Fast, kernels.U8Exact} {
			// The fast path is exact for activations in 0..127 (for all on VNNI), the exact
			// path for all.
			maxAct := uint32(127)
			if path == kernels.U8Exact || exactBytes(kernelSet("u8s8", c.K/c.Groups)) {
				maxAct = 255
			}
			type uc struct {
				in   []uint8
				want []int64
			}
			k := memo(fmt.Sprint("u8 ", i, path, maxAct), func() uc {
				in := make([]uint8, c.InLen())
				for j := range in {
					in[j] = uint8(rng.Uint32N(maxAct + 1))
				}
				// Extremes make VPMADDUBSW's pair sums as large as they get.
				if len(in) > 2 {
					in[0], in[1] = uint8(maxAct), uint8(maxAct)
				}
				return uc{in, intWant(t, c, op.UInt8, op.Int8, i64(in), i64(w))}
			})
			in, want := k.in, k.want
			p, err := NewU8S8(c, w, Options{Threads: 2, U8Path: path})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]int32, c.OutLen())
			if err := p.Run(in, out); err != nil {
				t.Fatal(err)
			}
			checkInt(t, fmt.Sprintf("%s (%s) u8s8 %s", set, p.ISA(), path), c, out, want)
		}
	}
}

// TestU8ExactFullRange uses the worst case for VPMADDUBSW (255 x -128 in every pair), where
// the fast path would saturate: the exact path must still match the reference.
func TestU8ExactFullRange(t *testing.T) {
	c := parse(t, "conv2d x=8 y=4 k=32 c=16 r=3 s=3 pad=1")
	in := make([]uint8, c.InLen())
	w := make([]int8, c.WLen())
	for j := range in {
		in[j] = 255
	}
	for j := range w {
		w[j] = -128
	}
	want := intWant(t, c, op.UInt8, op.Int8, i64(in), i64(w))
	p, err := NewU8S8(c, w, Options{U8Path: kernels.U8Exact, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int32, c.OutLen())
	if err := p.Run(in, out); err != nil {
		t.Fatal(err)
	}
	checkInt(t, "exact", c, out, want)
}

// TestU8DefaultIsExact sets no path: with activations of 200 (above VPMADDUBSW's 0..127)
// the zero Options must still give the exact product, bit for bit, for full-range weights
// (the exact path) and for weights in -64..64 (the fast path, exact for them). The fast path
// forced on the full-range weights shows the input does saturate it.
func TestU8DefaultIsExact(t *testing.T) {
	forEachSet(t, func(set kernels.ISA) { testU8DefaultIsExact(t, set) })
}

func testU8DefaultIsExact(t *testing.T, set kernels.ISA) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i, c := range shapes(t, 10) {
		in := make([]uint8, c.InLen())
		for j := range in {
			in[j] = 200
		}
		type ws struct{ full, small []int8 }
		k := memo(fmt.Sprint("default w ", i), func() ws {
			full, small := make([]int8, c.WLen()), make([]int8, c.WLen())
			for j := range full {
				full[j] = int8(-128 + rng.IntN(8)) // large negative weights: pair sums below -32768
				small[j] = int8(rng.IntN(129) - 64)
			}
			return ws{full, small}
		})
		full, small := k.full, k.small
		for _, w := range []struct {
			name string
			w    []int8
			path kernels.U8Path
		}{{"full-range weights", full, kernels.U8Exact}, {"weights -64..64", small, kernels.U8Fast}} {
			if exactBytes(kernelSet("u8s8", c.K/c.Groups)) {
				w.path = kernels.U8Fast // VPDPBUSD: the byte kernels are exact
			}
			want := memo(fmt.Sprint("default ", i, w.name), func() []int64 { return intWant(t, c, op.UInt8, op.Int8, i64(in), i64(w.w)) })
			p, err := NewU8S8(c, w.w, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if p.Path() != w.path {
				t.Errorf("%v, %s: default path %v, want %v", c, w.name, p.Path(), w.path)
			}
			out := make([]int32, c.OutLen())
			if err := p.Run(in, out); err != nil {
				t.Fatal(err)
			}
			checkInt(t, "default path, "+w.name, c, out, want)
		}
	}
	// the same input saturates the fast path (a shape with a 16-channel panel, so the
	// VPMADDUBSW kernel runs rather than the plain loop)
	c := parse(t, "conv2d x=9 y=9 k=32 c=16 r=3 s=3 pad=1")
	in, w := make([]uint8, c.InLen()), make([]int8, c.WLen())
	for j := range in {
		in[j] = 200
	}
	for j := range w {
		w[j] = -128
	}
	p, err := NewU8S8(c, w, Options{U8Path: kernels.U8Fast})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int32, c.OutLen())
	if err := p.Run(in, out); err != nil {
		t.Fatal(err)
	}
	want := intWant(t, c, op.UInt8, op.Int8, i64(in), i64(w))
	same := true
	for j := range out {
		same = same && int64(out[j]) == want[j]
	}
	switch vnni := exactBytes(kernelSet("u8s8", c.K/c.Groups)); {
	case vnni && !same:
		t.Errorf("%s: the VNNI byte kernels saturated", set)
	case !vnni && same:
		t.Errorf("%s: the fast path gave the exact result on saturating input: the test above proves nothing", set)
	}
}

func TestBadInput(t *testing.T) {
	c := parse(t, "conv2d x=4 y=4 k=16 c=8 r=3 s=3 pad=1")
	if _, err := NewF32(c, make([]float32, 5), Options{}); err == nil {
		t.Error("short weights accepted")
	}
	if _, err := NewF32(nil, nil, Options{}); err == nil {
		t.Error("nil shape accepted")
	}
	bad := *c
	bad.Groups = 3
	if _, err := NewF32(&bad, make([]float32, c.WLen()), Options{}); err == nil {
		t.Error("groups not dividing channels accepted")
	}
	bad = *c
	bad.X = 9
	if _, err := NewI16(&bad, make([]int16, c.WLen()), Options{}); err == nil {
		t.Error("output larger than the input allows accepted")
	}
	if _, err := NewU8S8(c, make([]int8, c.WLen()), Options{U8Path: 7}); err == nil {
		t.Error("unknown uint8 path accepted")
	}
	p, err := NewF32(c, make([]float32, c.WLen()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Run(make([]float32, 3), make([]float32, c.OutLen())); err == nil {
		t.Error("short input accepted")
	}
	if err := p.Run(make([]float32, c.InLen()), make([]float32, 3)); err == nil {
		t.Error("short output accepted")
	}
}

func TestWiden(t *testing.T) {
	testWiden(t)
	if withAVX2(false) {
		defer withAVX2(true)
		testWiden(t) // the plain loop on a machine that has AVX2
	}
}

func testWiden(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 64, 1000, 1<<16 + 5, 1 << 18} {
		src := make([]uint8, n)
		for i := range src {
			src[i] = uint8(i*37 + i>>8)
		}
		for _, threads := range []int{1, 3} {
			dst := make([]int16, n)
			for i := range dst {
				dst[i] = -1
			}
			widen(dst, src, threads)
			for i := range src {
				if dst[i] != int16(src[i]) {
					t.Fatalf("n=%d threads=%d: dst[%d] = %d, want %d", n, threads, i, dst[i], src[i])
				}
			}
		}
	}
}

// TestWindowPathUsed: the short-row shapes of fixedShapes take the window layout for every
// type; those with padding and full panels read a padded copy of the input (every tile in
// place, the short last tile of a row through the window kernels of fewer rows), the others
// run some tiles in place and gather the rest (so the reference tests above cover both), and
// shapes whose row taps are not adjacent keep the gather layout.
func TestWindowPathUsed(t *testing.T) {
	for _, sh := range []struct {
		spec   string
		padded bool
	}{
		{"conv2d x=20 y=6 k=24 c=3 r=7 s=7 stride=2 pad=3", false}, // a partial panel: not padded
		{"conv2d x=16 y=4 k=16 c=1 r=3 s=3", false},                // no padding
		{"conv2d x=18 y=5 k=16 c=2 r=5 s=5 n=2 pad=1", true},
		{"conv2d x=112 y=112 k=64 c=3 r=7 s=7 stride=2 pad=3 xin=224 yin=224", true}, // ResNet-50's C1
	} {
		spec := sh.spec
		c := parse(t, spec)
		f, err := NewF32(c, make([]float32, c.WLen()), Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		i, err := NewI16(c, make([]int16, c.WLen()), Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		u, err := NewU8S8(c, make([]int8, c.WLen()), Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if f.e.padded != sh.padded || i.e.padded != sh.padded || u.fast.padded != sh.padded {
			t.Errorf("%s: padded path %v %v %v, want %v", spec, f.e.padded, i.e.padded, u.fast.padded, sh.padded)
		}
		if sh.padded {
			continue // every tile read in place from the padded input
		}
		for name, n := range map[string][2]int{
			"float32": windowTiles(f.e, make([]float32, c.InLen())),
			"int16":   windowTiles(i.e, make([]int16, c.InLen())),
			"u8s8":    windowTiles(u.fast, make([]uint8, c.InLen())),
		} {
			if n[0] == 0 || n[1] == 0 {
				t.Errorf("%s %s: %d window tiles in place, %d gathered; want some of each", spec, name, n[0], n[1])
			}
			t.Logf("%s %s: %d tiles in place, %d gathered", spec, name, n[0], n[1])
		}
	}
	c := parse(t, "conv2d x=6 y=7 k=24 c=2 r=3 s=3 pad=2 dilation=2")
	f, err := NewF32(c, make([]float32, c.WLen()), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f.e.segs[0].window {
		t.Errorf("dilated short rows took the window layout")
	}
}

// windowTiles counts the tiles of e's window block read in place and gathered (zero, zero
// when e has no window block).
func windowTiles[A, B, C elem](e *engine[A, B, C], in []A) (direct [2]int) {
	if len(e.segs) != 1 || !e.segs[0].window {
		return
	}
	for t := 0; t < e.tiles; t++ {
		if a, _, _ := e.direct(in, 0, &e.blocks[0], t*e.k.mr); a != nil {
			direct[0]++
		} else {
			direct[1]++
		}
	}
	return
}

// TestTailSplit: a short last tile of an fp32 plan is merged with the tiles before it into
// pieces of MR-1 rows (49 pixels: 4 tiles of 6, then 5 of 5); the integer kernels, as fast
// per row on short tiles, keep the partial last tile. TestF32MatchesReference covers the
// results (its fixed shapes of 49, 81 and 25 pixels take the split).
func TestTailSplit(t *testing.T) {
	for _, c := range []struct {
		spec        string
		tail, piece int
	}{
		{"conv2d x=7 y=7 k=64 c=600 r=1 s=1", 4, 5},       // 8x6 + 1
		{"conv2d x=9 y=9 k=32 c=16 r=3 s=3 pad=1", 11, 5}, // 13x6 + 3
		{"conv2d x=14 y=14 k=32 c=16 r=1 s=1", 32, 6},     // 32x6 + 4: fast enough
		{"conv2d x=13 y=5 k=40 c=24 r=1 s=1", 10, 6},      // a partial panel: no split
		{"conv2d x=6 y=6 k=32 c=16 r=3 s=3 pad=1", 6, 6},  // no partial tile
	} {
		p, err := NewF32(parse(t, c.spec), make([]float32, parse(t, c.spec).WLen()), Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.e.tailTile != c.tail || p.e.piece != c.piece {
			t.Errorf("%s: tail from tile %d in pieces of %d, want %d and %d", c.spec, p.e.tailTile, p.e.piece, c.tail, c.piece)
		}
	}
	c := parse(t, "conv2d x=7 y=7 k=64 c=600 r=1 s=1")
	i, err := NewI16(c, make([]int16, c.WLen()), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if i.e.tailTile != 8 || i.e.piece != 6 {
		t.Errorf("int16: tail from tile %d in pieces of %d, want the last tile", i.e.tailTile, i.e.piece)
	}
}

// TestBlockLimit: a layer of few pixel tiles takes k blocks of up to four times the kernel's
// kc, a larger one blocks of up to kc, and both run as many blocks as that needs.
func TestBlockLimit(t *testing.T) {
	for _, c := range []struct {
		spec   string
		blocks int
	}{
		{"conv2d x=7 y=7 k=64 c=4500 r=1 s=1", 5},   // 9 tiles: 4500 in blocks of at most 1024
		{"conv2d x=20 y=15 k=32 c=1100 r=1 s=1", 5}, // 50 tiles: blocks of at most 256
	} {
		sh := parse(t, c.spec)
		p, err := NewF32(sh, make([]float32, sh.WLen()), Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(p.e.blocks); n != c.blocks {
			t.Errorf("%s: %d k blocks (%d tiles), want %d", c.spec, n, p.e.tiles, c.blocks)
		}
	}
}

// TestWithoutTailKernels: a kernel family without tail kernels runs a partial last tile as a
// whole one (the indirect path's rows past the last pixel are the zero row; the window and
// 1x1 paths gather it), into a scratch slot, and still matches the reference.
func TestWithoutTailKernels(t *testing.T) {
	k := f32Kernel(kernels.ISAAVX2, &op.Conv2D{K: 16, Groups: 1})
	k.rows = nil
	rng := rand.New(rand.NewPCG(5, 6))
	for _, spec := range []string{"conv2d x=5 y=5 k=16 c=40 r=3 s=3 pad=1", "conv2d x=13 y=5 k=40 c=24 r=1 s=1",
		"conv2d x=7 y=3 k=32 c=3 r=7 s=7 stride=2 pad=3", "conv2d x=7 y=7 k=20 c=600 r=3 s=3 pad=1 n=2"} {
		c := parse(t, spec)
		in, w, want, abs := f32Case(t, rng, c)
		e := newEngine(c, k, w, 1)
		if e.tailTile != e.tiles {
			t.Fatalf("%s: a tail without tail kernels", spec)
		}
		out := make([]float32, c.OutLen())
		for j := range out {
			out[j] = float32(math.NaN())
		}
		e.run(in, out)
		n := c.R * c.S * c.C / c.Groups
		for j := range out {
			if d := math.Abs(float64(out[j]) - want[j]); !(d <= ref.FloatBound(n, abs[j], op.AccF32)) {
				t.Fatalf("%s: output %d = %v, want %v", spec, j, out[j], want[j])
			}
		}
	}
}

// TestPaddedInputSize: the padded window path copies only the part of the padded image the
// windows cover, however wide the padding (pad 3000 around one pixel: 16 outputs).
func TestPaddedInputSize(t *testing.T) {
	c := parse(t, "conv2d x=1 y=1 k=16 c=3 r=3 s=3 pad=3000 xin=1 yin=1")
	p, err := NewF32(c, make([]float32, c.WLen()), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !p.e.padded || p.e.padIn > 3*3*3+p.e.segs[0].segLen {
		t.Fatalf("padded %v, %d elements of padded input", p.e.padded, p.e.padIn)
	}
	out := make([]float32, c.OutLen())
	if err := p.Run(make([]float32, c.InLen()), out); err != nil {
		t.Fatal(err)
	}
}

// TestWideWindow: a padded 3x3 layer of whole 32-channel panels and more than fewTiles tiles
// takes the window layout on the AVX-512 float32 family (wideWindow) and the fused filter
// rows elsewhere; fixedShapes checks its results under every set.
func TestWideWindow(t *testing.T) {
	forEachSet(t, func(set kernels.ISA) {
		for _, sh := range []struct {
			spec string
			wide bool
		}{
			{"conv2d x=20 y=16 k=64 c=24 r=3 s=3 pad=1", true},
			{"conv2d x=56 y=56 k=64 c=64 r=3 s=3 pad=1", true},    // ResNet-50's C4
			{"conv2d x=14 y=14 k=256 c=256 r=3 s=3 pad=1", false}, // C13: few tiles
			{"conv2d x=20 y=16 k=64 c=24 r=3 s=3", false},         // no padding
			{"conv2d x=20 y=16 k=40 c=24 r=3 s=3 pad=1", false},   // a partial panel
		} {
			c := parse(t, sh.spec)
			f, err := NewF32(c, make([]float32, c.WLen()), Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := sh.wide && f.e.k.isa == kernels.ISAAVX512
			if got := f.e.segs[0].window && f.e.padded; got != want {
				t.Errorf("%s on %s (family %s): window layout %v, want %v", sh.spec, set, f.e.k.isa, got, want)
			}
		}
	})
}

// TestW64: the 6 x 64 float32 family (few tiles, groups a multiple of 64 wide) on the 1x1,
// indirect, window and gathered paths, tails and several k blocks, 1 and 3 threads, within
// ref.FloatBound (its Go fallbacks where the CPU lacks AVX-512).
func TestW64(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 64))
	for _, spec := range []string{"conv2d x=7 y=7 k=128 c=300 r=1 s=1", "conv2d x=7 y=7 k=64 c=1100 r=1 s=1",
		"conv2d x=7 y=7 k=64 c=40 r=3 s=3 pad=1 n=2", "conv2d x=5 y=3 k=192 c=600 r=3 s=3 pad=1",
		"conv2d x=7 y=3 k=64 c=3 r=7 s=7 stride=2 pad=3", "conv2d x=6 y=2 k=64 c=8 r=3 s=3 stride=2",
		"conv2d x=7 y=7 k=128 c=96 groups=2 r=3 s=3 pad=1", "conv2d x=9 y=4 k=64 c=16 r=3 s=3 pad=1 dilation=2"} {
		c := parse(t, spec)
		if k := f32Kernel(kernels.ISAAVX512, c); k.nr != kernels.F32Z64NR {
			t.Fatalf("%s: %d-column kernels, want %d", spec, k.nr, kernels.F32Z64NR)
		}
		in, w, want, abs := f32Case(t, rng, c)
		for _, threads := range []int{1, 3} {
			e := newEngine(c, f32Kernel(kernels.ISAAVX512, c), w, threads)
			out := make([]float32, c.OutLen())
			for j := range out {
				out[j] = float32(math.NaN())
			}
			e.run(in, out)
			n := c.R * c.S * c.C / c.Groups
			for j := range out {
				if d := math.Abs(float64(out[j]) - want[j]); !(d <= ref.FloatBound(n, abs[j], op.AccF32)) {
					t.Fatalf("%s, %d threads: output %d = %v, want %v", spec, threads, j, out[j], want[j])
				}
			}
		}
	}
}
