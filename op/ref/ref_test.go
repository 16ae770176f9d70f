package ref

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/op"
)

func randInts(rng *rand.Rand, n int, d op.DType) []int64 {
	lo, hi := d.Range()
	v := make([]int64, n)
	for i := range v {
		v[i] = lo + rng.Int64N(hi-lo+1)
	}
	return v
}

func randFloats(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(float32(rng.NormFloat64()))
	}
	return v
}

// TestConvHandWorked checks a 1D-like convolution computed by hand.
func TestConvHandWorked(t *testing.T) {
	s := op.MustParse("conv2d x=3 y=1 r=2 s=1 dtype=int16")
	in := []int64{1, 2, 3, 4}
	w := []int64{10, -1}
	r, err := Conv2DInt(s.Conv, s.Types, in, w)
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{10*1 - 2, 10*2 - 3, 10*3 - 4}
	for i := range want {
		if r.Out[i] != want[i] {
			t.Fatalf("out %v, want %v", r.Out, want)
		}
	}
	// Padding: a 3x3 box filter of ones over a 2x2 image of ones with pad 1: every output sees
	// all 4 inputs.
	s = op.MustParse("conv2d x=2 y=2 r=3 s=3 pad=1 dtype=int8")
	r, err = Conv2DInt(s.Conv, s.Types, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1, 1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Out {
		if v != 4 {
			t.Fatalf("padded box filter %v", r.Out)
		}
	}
}

// TestPointwiseIsGEMM: a 1x1 convolution over NHWC data is the GEMM in[X*Y x C] * w^T.
func TestPointwiseIsGEMM(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := op.MustParse("conv2d x=5 y=3 c=7 k=4 r=1 s=1 dtype=int16")
	g := op.MustParse("gemm m=15 n=4 k=7 tb=1 dtype=int16")
	in, w := randInts(rng, s.Conv.InLen(), op.Int16), randInts(rng, s.Conv.WLen(), op.Int16)
	rc, err := Conv2DInt(s.Conv, s.Types, in, w)
	if err != nil {
		t.Fatal(err)
	}
	rg, err := GEMMInt(g.GEMM, g.Types, in, w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rc.Acc {
		if rc.Acc[i] != rg.Acc[i] {
			t.Fatalf("conv %v != gemm %v at %d", rc.Acc[i], rg.Acc[i], i)
		}
	}
}

// TestGroupsAreIndependentConvs: a grouped convolution equals one convolution per group.
func TestGroupsAreIndependentConvs(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	s := op.MustParse("conv2d x=4 y=3 c=6 k=4 groups=2 r=3 s=2 stride=2 dilation=2 pad=1 dtype=fp32")
	c := s.Conv
	in, w := randFloats(rng, c.InLen()), randFloats(rng, c.WLen())
	full, err := Conv2DFloat(c, s.Types, in, w)
	if err != nil {
		t.Fatal(err)
	}
	one := op.MustParse("conv2d x=4 y=3 c=3 k=2 r=3 s=2 stride=2 dilation=2 pad=1 dtype=fp32").Conv
	one.XIn, one.YIn = c.XIn, c.YIn
	for g := 0; g < 2; g++ {
		gin := make([]float64, one.InLen())
		for i := 0; i < c.XIn*c.YIn; i++ {
			copy(gin[i*3:i*3+3], in[i*6+g*3:i*6+g*3+3])
		}
		gw := w[g*2*one.WLen()/2 : (g+1)*2*one.WLen()/2]
		part, err := Conv2DFloat(one, s.Types, gin, gw)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < c.X*c.Y; i++ {
			for k := 0; k < 2; k++ {
				if part[i*2+k] != full[i*4+g*2+k] {
					t.Fatalf("group %d pixel %d k %d: %v != %v", g, i, k, part[i*2+k], full[i*4+g*2+k])
				}
			}
		}
	}
}

// TestEinsumIsGEMM: the einsum [m,k],[k,n]->[m,n] equals the GEMM, and a tiled einsum equals
// the GEMM on the untiled matrices.
func TestEinsumIsGEMM(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	e := op.MustParse("einsum [m,k],[k,n]->[m,n] m=5 k=6 n=7 dtype=int8")
	g := op.MustParse("gemm m=5 n=7 k=6 dtype=int8")
	a, b := randInts(rng, 30, op.Int8), randInts(rng, 42, op.Int8)
	re, err := EinsumInt(e.Einsum, e.Types, a, b)
	if err != nil {
		t.Fatal(err)
	}
	rg, _ := GEMMInt(g.GEMM, g.Types, a, b)
	for i := range re.Out {
		if re.Out[i] != rg.Out[i] || re.Acc[i] != rg.Acc[i] {
			t.Fatalf("einsum != gemm at %d", i)
		}
	}
	// Tiled: [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] with m=8, k=16, n=8.
	te := op.MustParse("einsum [m1,k1,m0,k0],[k1,n1,k0,n0]->[m1,n1,m0,n0] m1=2 k1=2 m0=4 k0=8 n1=2 n0=4 dtype=fp32")
	tg := op.MustParse("gemm m=8 n=8 k=16 dtype=fp32")
	A, B := randFloats(rng, 128), randFloats(rng, 128)
	ta, tb := make([]float64, 128), make([]float64, 128)
	for i := 0; i < 8; i++ {
		for p := 0; p < 16; p++ {
			ta[((i/4*2+p/8)*4+i%4)*8+p%8] = A[i*16+p]
		}
	}
	for p := 0; p < 16; p++ {
		for j := 0; j < 8; j++ {
			tb[((p/8*2+j/4)*8+p%8)*4+j%4] = B[p*8+j]
		}
	}
	rt, err := EinsumFloat(te.Einsum, te.Types, ta, tb)
	if err != nil {
		t.Fatal(err)
	}
	rgf, _ := GEMMFloat(tg.GEMM, tg.Types, A, B)
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			got := rt[((i/4*2+j/4)*4+i%4)*4+j%4]
			if math.Abs(got-rgf[i*8+j]) > 1e-5*(1+math.Abs(got)) {
				t.Fatalf("tiled einsum (%d,%d) = %v, gemm %v", i, j, got, rgf[i*8+j])
			}
		}
	}
}

// TestAcc80Exact: int32 x int32 sums beyond 64 bits are exact modulo 2^80 (checked with big.Int),
// and acc48 sums wrap modulo 2^48.
func TestAcc80Exact(t *testing.T) {
	const k = 300
	g := op.MustParse("gemm m=1 n=1 k=300 dtype=int32 shift=30")
	a, b := make([]int64, k), make([]int64, k)
	ref := new(big.Int)
	for i := range a {
		a[i], b[i] = math.MinInt32, math.MinInt32+int64(i%2) // products near 2^62
		ref.Add(ref, new(big.Int).Mul(big.NewInt(a[i]), big.NewInt(b[i])))
	}
	r, err := GEMMInt(g.GEMM, g.Types, a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := new(big.Int).Lsh(big.NewInt(r.Acc[0].Hi), 64)
	got.Add(got, new(big.Int).SetUint64(r.Acc[0].Lo))
	if got.Cmp(ref) != 0 { // 300 * 2^62 < 2^71: no wrap at 80 bits
		t.Fatalf("acc80 %v, want %v", got, ref)
	}
	if r.Saturated != 1 || r.Out[0] != math.MaxInt32 {
		t.Fatalf("narrowing ~2^70 >> 30 to int32: %d (saturated %d)", r.Out[0], r.Saturated)
	}
	g16 := op.MustParse("gemm m=1 n=1 k=512 dtype=int16")
	a16, b16 := make([]int64, 512), make([]int64, 512)
	for i := range a16 {
		a16[i], b16[i] = -32768, -32768 // 2^30 each; 512 of them = 2^39: no wrap
	}
	r16, _ := GEMMInt(g16.GEMM, g16.Types, a16, b16)
	if r16.Acc[0].Int64() != 1<<39 {
		t.Fatalf("acc48 %v", r16.Acc[0])
	}
	g8 := op.MustParse("gemm m=1 n=1 k=1 dtype=int16 acc=int32 out=int16")
	w8, _ := GEMMInt(g8.GEMM, g8.Types, []int64{-32768}, []int64{-32768})
	if w8.Acc[0].Int64() != 1<<30 {
		t.Fatalf("int32 acc %v", w8.Acc[0])
	}
	_ = num.Acc48
}

func TestFloatOutputsRound(t *testing.T) {
	g := op.MustParse("gemm m=1 n=1 k=2 dtype=bf16 out=bf16")
	c, err := GEMMFloat(g.GEMM, g.Types, []float64{1, 1}, []float64{1, 1.0 / 512})
	if err != nil {
		t.Fatal(err)
	}
	if c[0] != 1 { // 1 + 2^-9 rounds to 1 in bf16 (7 fraction bits)
		t.Fatalf("bf16 output %v", c[0])
	}
	if FloatBound(100, 1, op.AccF32) <= 100*math.Ldexp(1, -24) {
		t.Fatal("bound too small")
	}
}

func TestBadOperands(t *testing.T) {
	s := op.MustParse("conv2d x=2 y=2 r=2 s=2 dtype=int8")
	if _, err := Conv2DInt(s.Conv, s.Types, make([]int64, 3), make([]int64, 4)); err == nil {
		t.Fatal("short input accepted")
	}
	in := make([]int64, 9)
	in[4] = 200
	if _, err := Conv2DInt(s.Conv, s.Types, in, make([]int64, 4)); err == nil {
		t.Fatal("int8 value 200 accepted")
	}
	if _, err := Conv2DFloat(s.Conv, s.Types, nil, nil); err == nil {
		t.Fatal("float reference ran an int spec")
	}
	if _, err := Run(op.MustParse("maxpool x=2 y=2 dtype=int8"), nil, nil); err == nil {
		t.Fatal("Run accepted maxpool")
	}
}

func TestMaxPool(t *testing.T) {
	m := op.MustParse("maxpool x=1 y=1 c=2 size=2 dtype=fp32").Pool
	out, err := MaxPool(m, []float64{1, -1, 5, -2, 3, -3, 2, -4})
	if err != nil || out[0] != 5 || out[1] != -1 {
		t.Fatalf("maxpool %v %v", out, err)
	}
}
