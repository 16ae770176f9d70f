package gemm

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op/ref"
)

// bf16Caps are the kernel-set caps that put the bf16 GEMM on each of its paths in turn:
// VDPBF16PS, then the float kernels on widened operands (AVX-512, AVX2, Go).
var bf16Caps = []struct {
	limit kernels.ISA
	want  string
}{{kernels.ISAAMX, "avx512-bf16"}, {kernels.ISAAVX512VNNI, "avx512"}, {kernels.ISAAVX2, "avx2"}, {kernels.ISAGo, "go"}}

// TestGemmBF16 runs random shapes, transposes and layouts on each path the machine has,
// against the float64 reference within ref.BF16Bound.
func TestGemmBF16(t *testing.T) {
	for _, cp := range bf16Caps {
		restore := kernels.LimitISA(cp.limit)
		if got := KernelISA("bf16"); got != cp.want {
			restore()
			t.Logf("cap %s: the bf16 GEMM runs %s, not %s, on this machine: path skipped", cp.limit, got, cp.want)
			continue
		}
		t.Run(cp.want, func(t *testing.T) {
			r := rand.New(rand.NewSource(int64(cp.limit) + 7))
			shapes := [][3]int{{1, 1, 1}, {6, 32, 2}, {7, 33, 3}, {13, 70, 129}, {64, 64, 64}, {100, 37, 300}, {5, 200, 1000}}
			for i := 0; i < 6; i++ {
				shapes = append(shapes, [3]int{1 + r.Intn(90), 1 + r.Intn(90), 1 + r.Intn(400)})
			}
			for si, s := range shapes {
				checkGemmBF16(t, r, s[0], s[1], s[2], si%2 == 1, si%3 == 2, []float32{0, 1, -0.5}[si%3], Options{Threads: 1 + si%2})
			}
		})
		restore()
	}
}

func checkGemmBF16(t *testing.T, r *rand.Rand, m, n, k int, transA, transB bool, beta float32, o Options) {
	t.Helper()
	af := make([]float32, m*k)
	bf := make([]float32, k*n)
	for i := range af {
		af[i] = float32(r.NormFloat64())
	}
	for i := range bf {
		bf[i] = float32(r.NormFloat64())
	}
	a, b := ref.ToBF16s(af), ref.ToBF16s(bf)
	want, abs := ref.BF16GEMM(m, n, k, a, k, b, n)
	// Store op(A) and op(B) transposed where asked.
	tA, tB, sa, sb, lda, ldb := NoTrans, NoTrans, a, b, k, n
	if transA {
		tA, lda, sa = Trans, m, transpose16(a, m, k)
	}
	if transB {
		tB, ldb, sb = Trans, k, transpose16(b, k, n)
	}
	ldc := n + 1
	c := make([]float32, m*ldc)
	c0 := make([]float32, len(c))
	for i := range c0 {
		c0[i] = float32(r.NormFloat64())
	}
	copy(c, c0)
	const alpha = 1
	if err := o.GemmBF16(tA, tB, m, n, k, alpha, sa, lda, sb, ldb, beta, c, ldc); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			w := want[i*n+j] + float64(beta)*float64(c0[i*ldc+j])
			bound := ref.BF16Bound(k+2, abs[i*n+j]+math.Abs(float64(beta)*float64(c0[i*ldc+j])))
			if d := math.Abs(float64(c[i*ldc+j]) - w); d > bound {
				t.Fatalf("%dx%dx%d tA=%v tB=%v beta=%v: C[%d,%d] = %v, want %v (error %.3g > bound %.3g)", m, n, k, transA, transB, beta, i, j, c[i*ldc+j], w, d, bound)
			}
		}
	}
}

func transpose16(a []uint16, rows, cols int) []uint16 {
	t := make([]uint16, len(a))
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			t[j*rows+i] = a[i*cols+j]
		}
	}
	return t
}

// TestGemmBF16ColMajor: the column-major layout (A and B swap roles) on the best path.
func TestGemmBF16ColMajor(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	m, n, k := 19, 45, 77
	af, bf := make([]float32, m*k), make([]float32, k*n)
	for i := range af {
		af[i] = float32(r.NormFloat64())
	}
	for i := range bf {
		bf[i] = float32(r.NormFloat64())
	}
	a, b := ref.ToBF16s(af), ref.ToBF16s(bf)
	want, abs := ref.BF16GEMM(m, n, k, a, k, b, n)
	// Column-major storage of A (m x k) is row-major A^T.
	c := make([]float32, m*n)
	if err := (Options{Layout: ColMajor}).GemmBF16(NoTrans, NoTrans, m, n, k, 1, transpose16(a, m, k), m, transpose16(b, k, n), k, 0, c, m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if d := math.Abs(float64(c[j*m+i]) - want[i*n+j]); d > ref.BF16Bound(k, abs[i*n+j]) {
				t.Fatalf("C[%d,%d] = %v, want %v", i, j, c[j*m+i], want[i*n+j])
			}
		}
	}
	if err := GemmBF16(NoTrans, NoTrans, 2, 2, 2, 1, make([]uint16, 3), 2, make([]uint16, 4), 2, 0, make([]float32, 4), 2); err == nil {
		t.Error("short A accepted")
	}
}

// BenchmarkGemmBF16 compares the bf16 GEMM with Sgemm on the same square shape, one thread.
func BenchmarkGemmBF16(b *testing.B) {
	const n = 512
	a16, f32 := make([]uint16, n*n), make([]float32, n*n)
	for i := range a16 {
		f32[i] = float32(i%7) - 3
		a16[i] = ref.ToBF16s(f32[i : i+1])[0]
	}
	c := make([]float32, n*n)
	o := Options{Threads: 1}
	b.Run("bf16", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = o.GemmBF16(NoTrans, NoTrans, n, n, n, 1, a16, n, a16, n, 0, c, n)
		}
		b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
	})
	b.Run("fp32", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_ = o.Sgemm(NoTrans, NoTrans, n, n, n, 1, f32, n, f32, n, 0, c, n)
		}
		b.ReportMetric(2*n*n*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
	})
}

// TestPackBF16: Gemm on a packed B gives the same bits as GemmBF16 on the same operands (the
// same kernels and blocks), for several m, transposes and thread counts; bad calls are errors.
func TestPackBF16(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, s := range [][4]int{{49, 512, 4608, 1}, {196, 256, 2304, 2}, {7, 33, 91, 1}, {100, 64, 147, 2}} {
		m, n, k := s[0], s[1], s[2]
		o := Options{Threads: s[3]}
		a, b := make([]uint16, m*k), make([]uint16, k*n)
		for i := range a {
			a[i] = ref.ToBF16s([]float32{float32(r.NormFloat64())})[0]
		}
		for i := range b {
			b[i] = ref.ToBF16s([]float32{float32(r.NormFloat64())})[0]
		}
		for _, tB := range []Transpose{NoTrans, Trans} {
			bs, ldb := b, n
			if tB == Trans {
				bs, ldb = transpose16(b, k, n), k
			}
			p, err := o.PackBF16(tB, n, k, bs, ldb)
			if err != nil {
				t.Fatal(err)
			}
			got, want := make([]float32, m*n), make([]float32, m*n)
			if err := p.Gemm(NoTrans, m, 1, a, k, 0, got, n); err != nil {
				t.Fatal(err)
			}
			if err := o.GemmBF16(NoTrans, tB, m, n, k, 1, a, k, bs, ldb, 0, want, n); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v tB=%v: C[%d] = %v packed, %v unpacked", s, tB, i, got[i], want[i])
				}
			}
		}
	}
	if _, err := (Options{Layout: ColMajor}).PackBF16(NoTrans, 2, 2, make([]uint16, 4), 2); err == nil {
		t.Error("column-major accepted")
	}
	if _, err := (Options{}).PackBF16(NoTrans, 2, 3, make([]uint16, 4), 2); err == nil {
		t.Error("short B accepted")
	}
}

// TestOverlapA: with Options.OverlapA, A's rows may overlap (lda < k, as a convolution's
// filter rows read in place): the result equals the GEMM on the rows copied out; without the
// option such an lda is an error.
func TestOverlapA(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	m, n, k, lda := 37, 40, 24, 8
	data := make([]uint16, (m-1)*lda+k)
	for i := range data {
		data[i] = ref.ToBF16s([]float32{float32(r.NormFloat64())})[0]
	}
	b := make([]uint16, k*n)
	for i := range b {
		b[i] = ref.ToBF16s([]float32{float32(r.NormFloat64())})[0]
	}
	full := make([]uint16, m*k)
	for i := 0; i < m; i++ {
		copy(full[i*k:][:k], data[i*lda:][:k])
	}
	got, want := make([]float32, m*n), make([]float32, m*n)
	if err := (Options{OverlapA: true}).GemmBF16(NoTrans, NoTrans, m, n, k, 1, data, lda, b, n, 0, got, n); err != nil {
		t.Fatal(err)
	}
	if err := GemmBF16(NoTrans, NoTrans, m, n, k, 1, full, k, b, n, 0, want, n); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("C[%d] = %v, want %v", i, got[i], want[i])
		}
	}
	if err := GemmBF16(NoTrans, NoTrans, m, n, k, 1, data, lda, b, n, 0, got, n); err == nil {
		t.Error("overlapping rows accepted without OverlapA")
	}
}
