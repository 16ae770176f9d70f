package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/sumacdev/sumac/cpu/kernels"
	"github.com/sumacdev/sumac/op"
	"github.com/sumacdev/sumac/op/ref"
)

// problem is one randomly shaped GEMM call; the matrices are stored with leading dimensions
// larger than needed so that writes outside the matrix would be seen.
type problem struct {
	layout        Layout
	tA, tB        Transpose
	m, n, k       int
	lda, ldb, ldc int
	opts          Options
	alphaF, betaF float64
	alphaI, betaI int32
}

func (p problem) String() string {
	l := "row"
	if p.layout == ColMajor {
		l = "col"
	}
	return fmt.Sprintf("%s-major tA=%d tB=%d m=%d n=%d k=%d lda=%d ldb=%d ldc=%d threads=%d blocking=%v",
		l, p.tA, p.tB, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, p.opts.Threads, p.opts.Blocking)
}

// stored returns the storage rows x cols of an operand (row-major sense) and its index fn.
func storedIndex(l Layout, ld int) func(i, j int) int {
	if l == ColMajor {
		return func(i, j int) int { return j*ld + i }
	}
	return func(i, j int) int { return i*ld + j }
}

// idxA returns the storage offset of op(A)[i][p]; idxB of op(B)[p][j]; idxC of C[i][j].
func (p problem) idxA(i, q int) int {
	if p.tA == Trans {
		return storedIndex(p.layout, p.lda)(q, i)
	}
	return storedIndex(p.layout, p.lda)(i, q)
}

func (p problem) idxB(q, j int) int {
	if p.tB == Trans {
		return storedIndex(p.layout, p.ldb)(j, q)
	}
	return storedIndex(p.layout, p.ldb)(q, j)
}

func (p problem) idxC(i, j int) int { return storedIndex(p.layout, p.ldc)(i, j) }

func extent(rows, cols, ld int, l Layout) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	if l == ColMajor {
		rows, cols = cols, rows
	}
	return (rows-1)*ld + cols
}

func (p problem) lens() (la, lb, lc int) {
	ar, ac := p.m, p.k
	if p.tA == Trans {
		ar, ac = p.k, p.m
	}
	br, bc := p.k, p.n
	if p.tB == Trans {
		br, bc = p.n, p.k
	}
	return extent(ar, ac, p.lda, p.layout), extent(br, bc, p.ldb, p.layout), extent(p.m, p.n, p.ldc, p.layout)
}

var dims = []int{1, 2, 3, 5, 6, 7, 8, 13, 16, 17, 23, 31, 37, 47, 64, 97}

var floatScalars = [][2]float64{{1, 0}, {1, 1}, {-1.5, 0.5}, {0, 2}, {2, 0}, {0.5, -1}}
var intScalars = [][2]int32{{1, 0}, {1, 1}, {-3, 2}, {0, 5}, {7, 0}, {1 << 20, -1}}

// randomProblem draws a shape; small blockings force several blocks along every loop.
func randomProblem(r *rand.Rand, group int) problem {
	p := problem{
		layout: Layout(r.IntN(2)), tA: Transpose(r.IntN(2)), tB: Transpose(r.IntN(2)),
		m: dims[r.IntN(len(dims))], n: dims[r.IntN(len(dims))], k: dims[r.IntN(len(dims))],
	}
	if r.IntN(16) == 0 {
		p.m, p.n, p.k = 100+r.IntN(100), 100+r.IntN(100), 100+r.IntN(300)
	}
	ld := func(rows, cols int) int {
		if p.layout == ColMajor {
			cols = rows
		}
		return max(1, cols) + r.IntN(3)
	}
	ar, ac := p.m, p.k
	if p.tA == Trans {
		ar, ac = p.k, p.m
	}
	br, bc := p.k, p.n
	if p.tB == Trans {
		br, bc = p.n, p.k
	}
	p.lda, p.ldb, p.ldc = ld(ar, ac), ld(br, bc), ld(p.m, p.n)
	p.opts = Options{Layout: p.layout, Threads: 1 + r.IntN(3)}
	if r.IntN(2) == 0 {
		p.opts.Blocking = &Blocking{MC: 6 * (1 + r.IntN(3)), KC: group * 4 * (1 + r.IntN(3)), NC: 16 * (1 + r.IntN(3))}
	}
	s := floatScalars[r.IntN(len(floatScalars))]
	p.alphaF, p.betaF = s[0], s[1]
	si := intScalars[r.IntN(len(intScalars))]
	p.alphaI, p.betaI = si[0], si[1]
	return p
}

// untouched checks that elements of C outside the m x n matrix kept their value.
func untouched[T comparable](t *testing.T, p problem, c0, c []T) {
	t.Helper()
	inside := make([]bool, len(c))
	for i := 0; i < p.m; i++ {
		for j := 0; j < p.n; j++ {
			inside[p.idxC(i, j)] = true
		}
	}
	for x := range c {
		if !inside[x] && c[x] != c0[x] {
			t.Fatalf("%v: C[%d] outside the matrix changed", p, x)
		}
	}
}

// floatRef computes the expected C in float64 with op/ref and the error bound per element.
func floatRef(p problem, a, b func(int) float64, c0 func(int) float64) (want, bound []float64) {
	g := &op.GEMM{M: p.m, N: p.n, K: p.k}
	da, db := make([]float64, p.m*p.k), make([]float64, p.k*p.n)
	abs := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = math.Abs(x)
		}
		return out
	}
	for i := 0; i < p.m; i++ {
		for q := 0; q < p.k; q++ {
			da[g.AIndex(i, q)] = a(p.idxA(i, q))
		}
	}
	for q := 0; q < p.k; q++ {
		for j := 0; j < p.n; j++ {
			db[g.BIndex(q, j)] = b(p.idxB(q, j))
		}
	}
	want = make([]float64, p.m*p.n)
	absC := make([]float64, p.m*p.n)
	for i := 0; i < p.m; i++ {
		for j := 0; j < p.n; j++ {
			want[i*p.n+j] = c0(p.idxC(i, j))
			absC[i*p.n+j] = math.Abs(want[i*p.n+j])
		}
	}
	absAB := make([]float64, p.m*p.n)
	ref.GEMMUpdate(g, 1, abs(da), abs(db), 0, absAB, p.n)
	ref.GEMMUpdate(g, p.alphaF, da, db, p.betaF, want, p.n)
	bound = make([]float64, len(want))
	for x := range bound {
		s := math.Abs(p.alphaF) * absAB[x]
		if p.betaF != 0 {
			s += math.Abs(p.betaF) * absC[x]
		}
		bound[x] = s
	}
	return want, bound
}

func testFloat[T float32 | float64](t *testing.T, seed uint64, n int, call func(p problem, a, b, c []T) error, acc op.AccType) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for it := 0; it < n; it++ {
		p := randomProblem(r, 1)
		la, lb, lc := p.lens()
		a, b, c := make([]T, la), make([]T, lb), make([]T, lc+r.IntN(3))
		for i := range a {
			a[i] = T(r.Float64()*2 - 1)
		}
		for i := range b {
			b[i] = T(r.Float64()*2 - 1)
		}
		for i := range c {
			c[i] = T(r.Float64()*2 - 1)
			if p.betaF == 0 {
				c[i] = T(math.NaN()) // must not be read
			}
		}
		c0 := append([]T(nil), c...)
		want, bound := floatRef(p, func(x int) float64 { return float64(a[x]) }, func(x int) float64 { return float64(b[x]) },
			func(x int) float64 { return float64(c0[x]) })
		if err := call(p, a, b, c); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		for i := 0; i < p.m; i++ {
			for j := 0; j < p.n; j++ {
				got := float64(c[p.idxC(i, j)])
				w, bd := want[i*p.n+j], ref.FloatBound(p.k+2, bound[i*p.n+j], acc)
				if math.IsNaN(got) || math.Abs(got-w) > bd {
					t.Fatalf("%v alpha=%v beta=%v: C[%d][%d] = %v, want %v (bound %g)", p, p.alphaF, p.betaF, i, j, got, w, bd)
				}
			}
		}
		if p.betaF != 0 {
			untouched(t, p, c0, c)
		}
	}
}

// iters is the number of random problems of a test: a quick default for CI, more with
// SUMAC_GEMM_LONG=1 (and fewer still with -short).
func iters(short, long int) int {
	switch {
	case os.Getenv("SUMAC_GEMM_LONG") != "":
		return long * 4
	case testing.Short():
		return short / 2
	}
	return short
}

// TestMain runs every threaded path even on the small random problems.
func TestMain(m *testing.M) {
	minParallelMACs = 0
	os.Exit(m.Run())
}

// TestThreadSplits covers both work splits (rows of C, or micro-panels of B when C has
// few rows) with more threads than work, exactly.
func TestThreadSplits(t *testing.T) {
	for _, s := range [][3]int{{6, 1000, 37}, {13, 70, 5}, {200, 33, 64}, {1, 17, 3}, {30, 30, 30}} {
		m, n, k := s[0], s[1], s[2]
		a, b := make([]float32, m*k), make([]float32, k*n)
		for i := range a {
			a[i] = float32(i%5 - 2)
		}
		for i := range b {
			b[i] = float32(i%3 - 1)
		}
		want := make([]float32, m*n)
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				for p := 0; p < k; p++ {
					want[i*n+j] += a[i*k+p] * b[p*n+j]
				}
			}
		}
		for _, th := range []int{1, 2, 3, 7} {
			c := make([]float32, m*n)
			if err := (Options{Threads: th}).Sgemm(NoTrans, NoTrans, m, n, k, 1, a, k, b, n, 0, c, n); err != nil {
				t.Fatal(err)
			}
			for i := range c {
				if c[i] != want[i] {
					t.Fatalf("%v threads=%d: C[%d] = %v, want %v", s, th, i, c[i], want[i])
				}
			}
		}
	}
}

// withFloatKernels runs f with Sgemm and Dgemm on the AVX-512 kernel set (avx512) or the
// AVX2 one, so both are tested on every machine (where the CPU lacks an instruction set,
// its kernels' Go fallbacks run the same packing and blocking).
func withFloatKernels(avx512 bool, f func()) {
	old := forceFloats
	k := floatKernelSet(avx512)
	forceFloats = &k
	defer func() { forceFloats = old }()
	f()
}

// withIntKernels runs f with the integer GEMMs on the kernel set isa (AVX2, AVX-VNNI or
// AVX-512 VNNI), tested on every machine the same way.
func withIntKernels(isa kernels.ISA, f func()) {
	old := forceInts
	k := intKernelSet(isa)
	forceInts = &k
	defer func() { forceInts = old }()
	f()
}

// intSets are the integer kernel sets the tests run in turn.
var intSets = []kernels.ISA{kernels.ISAAVX2, kernels.ISAAVX2VNNI, kernels.ISAAVX512VNNI}

func TestSgemm(t *testing.T) {
	for _, avx512 := range []bool{false, true} {
		withFloatKernels(avx512, func() {
			testFloat(t, 1, iters(150, 600), func(p problem, a, b, c []float32) error {
				return p.opts.Sgemm(p.tA, p.tB, p.m, p.n, p.k, float32(p.alphaF), a, p.lda, b, p.ldb, float32(p.betaF), c, p.ldc)
			}, op.AccF32)
		})
	}
}

func TestDgemm(t *testing.T) {
	for _, avx512 := range []bool{false, true} {
		withFloatKernels(avx512, func() {
			testFloat(t, 2, iters(100, 400), func(p problem, a, b, c []float64) error {
				return p.opts.Dgemm(p.tA, p.tB, p.m, p.n, p.k, p.alphaF, a, p.lda, b, p.ldb, p.betaF, c, p.ldc)
			}, op.AccF64)
		})
	}
}

// testInt checks an integer GEMM bit for bit against op/ref's exact product (int32 wrap).
func testInt[TA, TB int8 | uint8 | int16](t *testing.T, seed uint64, n, group int, ta, tb op.DType, genA func(*rand.Rand) TA, genB func(*rand.Rand) TB,
	call func(p problem, a []TA, b []TB, c []int32) error) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for it := 0; it < n; it++ {
		p := randomProblem(r, group)
		la, lb, lc := p.lens()
		a, b, c := make([]TA, la), make([]TB, lb), make([]int32, lc+r.IntN(3))
		for i := range a {
			a[i] = genA(r)
		}
		for i := range b {
			b[i] = genB(r)
		}
		for i := range c {
			c[i] = int32(r.Uint32())
		}
		c0 := append([]int32(nil), c...)
		g := &op.GEMM{M: p.m, N: p.n, K: p.k}
		da, db := make([]int64, p.m*p.k), make([]int64, p.k*p.n)
		for i := 0; i < p.m; i++ {
			for q := 0; q < p.k; q++ {
				da[g.AIndex(i, q)] = int64(a[p.idxA(i, q)])
			}
		}
		for q := 0; q < p.k; q++ {
			for j := 0; j < p.n; j++ {
				db[g.BIndex(q, j)] = int64(b[p.idxB(q, j)])
			}
		}
		res, err := ref.GEMMInt(g, op.Types{A: ta, B: tb, Acc: op.AccI32, Out: op.Int32}, da, db)
		if err != nil {
			t.Fatal(err)
		}
		if err := call(p, a, b, c); err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		for i := 0; i < p.m; i++ {
			for j := 0; j < p.n; j++ {
				ab := int32(uint32(res.Acc[g.CIndex(i, j)].Lo))
				want := p.alphaI*ab + p.betaI*c0[p.idxC(i, j)]
				if got := c[p.idxC(i, j)]; got != want {
					t.Fatalf("%v alpha=%d beta=%d: C[%d][%d] = %d, want %d", p, p.alphaI, p.betaI, i, j, got, want)
				}
			}
		}
		untouched(t, p, c0, c)
	}
}

func TestGemmI16(t *testing.T) {
	for _, isa := range intSets {
		withIntKernels(isa, func() {
			testInt(t, 3, iters(60, 400), 2, op.Int16, op.Int16,
				func(r *rand.Rand) int16 { return int16(r.Uint32()) }, func(r *rand.Rand) int16 { return int16(r.Uint32()) },
				func(p problem, a, b []int16, c []int32) error {
					return p.opts.GemmI16(p.tA, p.tB, p.m, p.n, p.k, p.alphaI, a, p.lda, b, p.ldb, p.betaI, c, p.ldc)
				})
		})
	}
}

func TestGemmU8S8(t *testing.T) {
	full := func(r *rand.Rand) uint8 { return uint8(r.Uint32()) }
	small := func(r *rand.Rand) uint8 { return uint8(r.IntN(128)) }
	s8 := func(r *rand.Rand) int8 { return int8(r.Uint32()) }
	s8small := func(r *rand.Rand) int8 { return int8(r.IntN(129) - 64) }
	for _, tc := range []struct {
		name string
		path kernels.U8Path
		genA func(*rand.Rand) uint8
		genB func(*rand.Rand) int8
	}{
		{"exact/full-range", kernels.U8Exact, full, s8},
		{"auto/full-range", kernels.U8Auto, full, s8},
		{"auto/small-weights", kernels.U8Auto, full, s8small},
		{"fast/activations<128", kernels.U8Fast, small, s8},
		{"fast/weights-64..64", kernels.U8Fast, full, s8small},
	} {
		for _, isa := range intSets {
			t.Run(tc.name+"/"+isa.String(), func(t *testing.T) {
				withIntKernels(isa, func() {
					testInt(t, 4, iters(30, 250), 4, op.UInt8, op.Int8, tc.genA, tc.genB,
						func(p problem, a []uint8, b []int8, c []int32) error {
							o := p.opts
							o.U8Path = tc.path
							return o.GemmU8S8(p.tA, p.tB, p.m, p.n, p.k, p.alphaI, a, p.lda, b, p.ldb, p.betaI, c, p.ldc)
						})
				})
			})
		}
	}
	// VNNI: the fast path is exact for full-range activations too.
	for _, isa := range []kernels.ISA{kernels.ISAAVX2VNNI, kernels.ISAAVX512VNNI} {
		t.Run("fast/full-range/"+isa.String(), func(t *testing.T) {
			withIntKernels(isa, func() {
				testInt(t, 4, iters(30, 250), 4, op.UInt8, op.Int8, full, s8,
					func(p problem, a []uint8, b []int8, c []int32) error {
						o := p.opts
						o.U8Path = kernels.U8Fast
						return o.GemmU8S8(p.tA, p.tB, p.m, p.n, p.k, p.alphaI, a, p.lda, b, p.ldb, p.betaI, c, p.ldc)
					})
			})
		})
	}
}

// TestU8FastSaturates documents the contract: with activations above 127 and large weights
// the fast path differs from the exact product where its kernels saturate (amd64's
// VPMADDUBSW, the Go model; not the NEON kernels: kernels.ExactBytes), and kernels.U8Auto
// does not.
func TestU8FastSaturates(t *testing.T) {
	const m, n, k = 6, 16, 8
	a := make([]uint8, m*k)
	b := make([]int8, k*n)
	for i := range a {
		a[i] = 255
	}
	for i := range b {
		b[i] = -128
	}
	exact := int32(k * 255 * -128)
	old := forceInts
	avx2 := intKernelSet(kernels.ISAAVX2) // the VNNI kernels do not saturate; on arm64 these functions run NEON, which does not either
	forceInts = &avx2
	defer func() { forceInts = old }()
	for _, tc := range []struct {
		path  kernels.U8Path
		exact bool
	}{{kernels.U8Fast, kernels.ExactBytes(kernels.ForDType(""))}, {kernels.U8Exact, true}, {kernels.U8Auto, true}} {
		c := make([]int32, m*n)
		if err := (Options{U8Path: tc.path}).GemmU8S8(NoTrans, NoTrans, m, n, k, 1, a, k, b, n, 0, c, n); err != nil {
			t.Fatal(err)
		}
		if (c[0] == exact) != tc.exact {
			t.Errorf("path %d: C[0] = %d, exact product %d", tc.path, c[0], exact)
		}
	}
}

func TestBadArguments(t *testing.T) {
	a, b, c := make([]float32, 100), make([]float32, 100), make([]float32, 100)
	cases := map[string]func() error{
		"negative m": func() error { return Sgemm(NoTrans, NoTrans, -1, 2, 2, 1, a, 2, b, 2, 0, c, 2) },
		"lda":        func() error { return Sgemm(NoTrans, NoTrans, 2, 2, 3, 1, a, 2, b, 2, 0, c, 2) },
		"ldb trans":  func() error { return Sgemm(NoTrans, Trans, 2, 4, 3, 1, a, 3, b, 2, 0, c, 4) },
		"ldc":        func() error { return Sgemm(NoTrans, NoTrans, 2, 5, 2, 1, a, 2, b, 5, 0, c, 4) },
		"short A":    func() error { return Sgemm(NoTrans, NoTrans, 20, 2, 6, 1, a, 6, b, 2, 0, c, 2) },
		"short C col": func() error {
			return Options{Layout: ColMajor}.Sgemm(NoTrans, NoTrans, 11, 10, 1, 1, a, 11, b, 1, 0, c, 11)
		},
		"transpose": func() error { return Sgemm(Transpose(7), NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) },
		"layout":    func() error { return Options{Layout: 9}.Sgemm(NoTrans, NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) },
		"threads":   func() error { return Options{Threads: -1}.Sgemm(NoTrans, NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) },
		"blocking": func() error {
			return Options{Blocking: &Blocking{MC: 6, KC: 0, NC: 16}}.Sgemm(NoTrans, NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2)
		},
		"u8 path": func() error {
			return Options{U8Path: 9}.GemmU8S8(NoTrans, NoTrans, 2, 2, 2, 1, make([]uint8, 4), 2, make([]int8, 4), 2, 0, make([]int32, 4), 2)
		},
		"huge": func() error { return Sgemm(NoTrans, NoTrans, math.MaxInt/2, 2, 2, 1, a, 2, b, 2, 0, c, 2) },
	}
	for name, f := range cases {
		before := append([]float32(nil), c...)
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
		for i := range c {
			if c[i] != before[i] {
				t.Errorf("%s: C written despite the error", name)
				break
			}
		}
	}
	// Empty problems are valid and touch nothing; nil slices are fine then.
	if err := Sgemm(NoTrans, NoTrans, 0, 0, 0, 1, nil, 1, nil, 1, 0, nil, 1); err != nil {
		t.Errorf("empty: %v", err)
	}
}

// TestAlphaZeroDoesNotReadAB: BLAS says A and B are not referenced when alpha is zero.
func TestAlphaZeroDoesNotReadAB(t *testing.T) {
	a := []float64{math.NaN(), math.Inf(1), 1, 2}
	c := []float64{1, 2, 3, 4}
	if err := Dgemm(NoTrans, NoTrans, 2, 2, 2, 0, a, 2, a, 2, 3, c, 2); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{3, 6, 9, 12} {
		if c[i] != v {
			t.Fatalf("C = %v, want 3*C", c)
		}
	}
}
