package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil"
)

// kgs are the k group counts tried: every remainder of the unrolled loop, the chunking
// boundary and one beyond it.
var kgs = []int{0, 1, 2, 3, 4, 5, 7, 8, 13, 64, 255, maxChunk, maxChunk + 3}

// floatBound is the forward error bound of alpha*sum(a_p*b_p) + beta*c evaluated in
// any order with (fused) multiply-adds: gamma_{k+2} * (|alpha| sum|a_p b_p| + |beta c|),
// gamma_n = n*u/(1-n*u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §3.1).
func floatBound(k int, u, absSum float64) float64 {
	n := float64(k + 2)
	return n * u / (1 - n*u) * absSum
}

type scal struct{ alpha, beta float64 }

var floatScalars = []scal{{1, 0}, {1, 1}, {-0.5, 2}, {0, 1.5}, {3, 0}}

// checkFloat compares a computed tile with the float64-exact reference.
func checkFloat(t *testing.T, name string, mr, nr, k int, aAt, bAt func(i, p int) float64, c0, c []float64, ldc int, s scal, u float64) {
	t.Helper()
	for i := 0; i < mr; i++ {
		for j := 0; j < nr; j++ {
			var sum, abs float64
			for p := 0; p < k; p++ {
				x := aAt(i, p) * bAt(p, j)
				sum += x
				abs += math.Abs(x)
			}
			want := s.alpha * sum
			bound := floatBound(k, u, math.Abs(s.alpha)*abs)
			if s.beta != 0 {
				want += s.beta * c0[i*ldc+j]
				bound = floatBound(k, u, math.Abs(s.alpha)*abs+math.Abs(s.beta*c0[i*ldc+j]))
			}
			got := c[i*ldc+j]
			if math.IsNaN(got) || math.Abs(got-want) > bound {
				t.Fatalf("%s: C[%d][%d] = %v, want %v (bound %g)", name, i, j, got, want, bound)
			}
		}
	}
	// Elements between rows (ldc > nr) must be untouched.
	for i := 0; i < mr-1; i++ {
		for j := nr; j < ldc; j++ {
			if c[i*ldc+j] != c0[i*ldc+j] && !(math.IsNaN(c[i*ldc+j]) && math.IsNaN(c0[i*ldc+j])) {
				t.Fatalf("%s: wrote outside the tile at row %d column %d", name, i, j)
			}
		}
	}
}

func randC(r *rand.Rand, n int, beta float64) []float64 {
	c := make([]float64, n)
	for i := range c {
		if beta == 0 {
			c[i] = math.NaN() // beta == 0 must not read C
		} else {
			c[i] = r.Float64()*2 - 1
		}
	}
	return c
}

func TestFloatKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range kgs {
			for _, s := range floatScalars {
				ldc := 16 + r.IntN(5)
				lda := kg + r.IntN(3)
				name := fmt.Sprintf("%s k=%d alpha=%v beta=%v", impl, kg, s.alpha, s.beta)
				// float32, packed and strided.
				{
					a := make([]float32, max(kg*F32MR, (F32MR-1)*lda+kg))
					b := make([]float32, kg*F32NR)
					for i := range a {
						a[i] = float32(r.Float64()*2 - 1)
					}
					for i := range b {
						b[i] = float32(r.Float64()*2 - 1)
					}
					c0 := randC(r, (F32MR-1)*ldc+F32NR, s.beta)
					for _, strided := range []bool{false, true} {
						c := make([]float32, len(c0))
						for i := range c {
							c[i] = float32(c0[i])
						}
						c064 := make([]float64, len(c))
						for i := range c {
							c064[i] = float64(c[i])
						}
						aAt := func(i, p int) float64 { return float64(a[p*F32MR+i]) }
						if strided {
							F32Strided(kg, a, lda, b, c, ldc, float32(s.alpha), float32(s.beta))
							aAt = func(i, p int) float64 { return float64(a[i*lda+p]) }
						} else {
							F32(kg, a, b, c, ldc, float32(s.alpha), float32(s.beta))
						}
						got := make([]float64, len(c))
						for i := range c {
							got[i] = float64(c[i])
						}
						checkFloat(t, fmt.Sprintf("F32 strided=%v %s", strided, name), F32MR, F32NR, kg, aAt,
							func(p, j int) float64 { return float64(b[p*F32NR+j]) }, c064, got, ldc, s, 0x1p-24)
					}
				}
				// float64.
				{
					ldc := 8 + r.IntN(5)
					a := make([]float64, max(kg*F64MR, (F64MR-1)*lda+kg))
					b := make([]float64, kg*F64NR)
					for i := range a {
						a[i] = r.Float64()*2 - 1
					}
					for i := range b {
						b[i] = r.Float64()*2 - 1
					}
					c0 := randC(r, (F64MR-1)*ldc+F64NR, s.beta)
					for _, strided := range []bool{false, true} {
						c := append([]float64(nil), c0...)
						aAt := func(i, p int) float64 { return a[p*F64MR+i] }
						if strided {
							F64Strided(kg, a, lda, b, c, ldc, s.alpha, s.beta)
							aAt = func(i, p int) float64 { return a[i*lda+p] }
						} else {
							F64(kg, a, b, c, ldc, s.alpha, s.beta)
						}
						// The reference sums in float64 too, so allow the bound twice.
						checkFloat(t, fmt.Sprintf("F64 strided=%v %s", strided, name), F64MR, F64NR, kg, aAt,
							func(p, j int) float64 { return b[p*F64NR+j] }, c0, c, ldc, s, 0x1p-52)
					}
				}
			}
		}
		restore()
	}
}

type iscal struct{ alpha, beta int32 }

var intScalars = []iscal{{1, 0}, {1, 1}, {-3, 7}, {0, -1}, {1 << 20, 1 << 15}}

// intKernel runs one integer kernel on random operands; dot(i, j) is the exact (int64)
// per-tile dot product for the operands it generated, sat(i, j) the saturating model.
type intCase struct {
	name   string
	run    func(c []int32, ldc int, alpha, beta int32)
	dot    func(i, j int) int64
	mr, nr int
}

func checkInt(t *testing.T, cs intCase, r *rand.Rand, s iscal) {
	t.Helper()
	ldc := cs.nr + r.IntN(4)
	c0 := make([]int32, (cs.mr-1)*ldc+cs.nr)
	for i := range c0 {
		c0[i] = int32(r.Uint32())
	}
	c := append([]int32(nil), c0...)
	cs.run(c, ldc, s.alpha, s.beta)
	for i := 0; i < cs.mr; i++ {
		for j := 0; j < cs.nr; j++ {
			// int32 arithmetic wraps: reduce the exact value modulo 2^32.
			want := int32(cs.dot(i, j))*s.alpha + s.beta*c0[i*ldc+j]
			if got := c[i*ldc+j]; got != want {
				t.Fatalf("%s alpha=%d beta=%d: C[%d][%d] = %d, want %d", cs.name, s.alpha, s.beta, i, j, got, want)
			}
		}
		for j := cs.nr; j < ldc && i < cs.mr-1; j++ {
			if c[i*ldc+j] != c0[i*ldc+j] {
				t.Fatalf("%s: wrote outside the tile at row %d column %d", cs.name, i, j)
			}
		}
	}
}

func TestIntKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range kgs {
			if kg > 300 && testing.Short() {
				continue
			}
			for _, s := range intScalars {
				lda := 2*kg + r.IntN(3)
				a := make([]int16, max(kg*I16MR*2, (I16MR-1)*lda+2*kg))
				b := make([]int16, kg*I16NR*2)
				for i := range a {
					a[i] = int16(r.Uint32())
				}
				for i := range b {
					b[i] = int16(r.Uint32())
				}
				if kg > 0 && r.IntN(2) == 0 {
					// The one VPMADDWD lane that overflows int32: (-32768)^2 * 2.
					a[0], a[1], b[0], b[1] = -32768, -32768, -32768, -32768
				}
				pk := func(aAt func(i, kk int) int16) func(i, j int) int64 {
					return func(i, j int) int64 {
						var d int64
						for kk := 0; kk < 2*kg; kk++ {
							d += int64(aAt(i, kk)) * int64(b[(kk/2*I16NR+j)*2+kk%2])
						}
						return d
					}
				}
				checkInt(t, intCase{fmt.Sprintf("%s I16 k=%d", impl, kg), func(c []int32, ldc int, alpha, beta int32) {
					I16(kg, a, b, c, ldc, alpha, beta)
				}, pk(func(i, kk int) int16 { return a[(kk/2*I16MR+i)*2+kk%2] }), I16MR, I16NR}, r, s)
				checkInt(t, intCase{fmt.Sprintf("%s I16Strided k=%d", impl, kg), func(c []int32, ldc int, alpha, beta int32) {
					I16Strided(kg, a, lda, b, c, ldc, alpha, beta)
				}, pk(func(i, kk int) int16 { return a[i*lda+kk] }), I16MR, I16NR}, r, s)

				// uint8 x int8: activations in 0..127 are exact.
				lda8 := 4*kg + r.IntN(3)
				ua := make([]uint8, max(kg*U8MR*4, (U8MR-1)*lda8+4*kg))
				sb := make([]int8, kg*U8NR*4)
				for i := range ua {
					ua[i] = uint8(r.IntN(128))
				}
				for i := range sb {
					sb[i] = int8(r.Uint32())
				}
				q := func(aAt func(i, kk int) int64) func(i, j int) int64 {
					return func(i, j int) int64 {
						var d int64
						for kk := 0; kk < 4*kg; kk++ {
							d += aAt(i, kk) * int64(sb[(kk/4*U8NR+j)*4+kk%4])
						}
						return d
					}
				}
				checkInt(t, intCase{fmt.Sprintf("%s U8S8 k=%d", impl, kg), func(c []int32, ldc int, alpha, beta int32) {
					U8S8(kg, ua, sb, c, ldc, alpha, beta)
				}, q(func(i, kk int) int64 { return int64(ua[(kk/4*U8MR+i)*4+kk%4]) }), U8MR, U8NR}, r, s)
				checkInt(t, intCase{fmt.Sprintf("%s U8S8Strided k=%d", impl, kg), func(c []int32, ldc int, alpha, beta int32) {
					U8S8Strided(kg, ua, lda8, sb, c, ldc, alpha, beta)
				}, q(func(i, kk int) int64 { return int64(ua[i*lda8+kk]) }), U8MR, U8NR}, r, s)

				// S8U8: the unsigned operand is B; keep it in 0..127 for exactness.
				sa := make([]int8, kg*U8MR*4)
				ub := make([]uint8, kg*U8NR*4)
				for i := range sa {
					sa[i] = int8(r.Uint32())
				}
				for i := range ub {
					ub[i] = uint8(r.IntN(128))
				}
				checkInt(t, intCase{fmt.Sprintf("%s S8U8 k=%d", impl, kg), func(c []int32, ldc int, alpha, beta int32) {
					S8U8(kg, sa, ub, c, ldc, alpha, beta)
				}, func(i, j int) int64 {
					var d int64
					for kk := 0; kk < 4*kg; kk++ {
						d += int64(sa[(kk/4*U8MR+i)*4+kk%4]) * int64(ub[(kk/4*U8NR+j)*4+kk%4])
					}
					return d
				}, U8MR, U8NR}, r, s)
			}
		}
		restore()
	}
}

// TestU8S8SaturationModel checks, for full-range activations, where VPMADDUBSW's int16 pair
// sums clip: that every implementation that saturates (the AVX2 kernels, the Go model)
// does so bit for bit like the Go model, and that the others (the NEON kernels) give the
// exact product.
func TestU8S8SaturationModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kg := range []int{1, 5, 64} {
		a := make([]uint8, kg*U8MR*4)
		b := make([]int8, kg*U8NR*4)
		for i := range a {
			a[i] = uint8(200 + r.IntN(56))
		}
		for i := range b {
			b[i] = int8(-128 + r.IntN(20))
		}
		restore := use("go")
		model := make([]int32, U8MR*U8NR)
		U8S8(kg, a, b, model, U8NR, 1, 0)
		restore()
		exact := make([]int32, U8MR*U8NR)
		saturated := false
		for i := 0; i < U8MR; i++ {
			for j := 0; j < U8NR; j++ {
				var d int32
				for kk := 0; kk < 4*kg; kk++ {
					d += int32(a[(kk/4*U8MR+i)*4+kk%4]) * int32(b[(kk/4*U8NR+j)*4+kk%4])
				}
				exact[i*U8NR+j] = d
				saturated = saturated || model[i*U8NR+j] == -32768*2*int32(kg)
			}
		}
		if !saturated {
			t.Fatalf("k=%d: operands chosen to saturate did not", kg)
		}
		for _, impl := range implementations() {
			restore := use(impl)
			out := make([]int32, U8MR*U8NR)
			U8S8(kg, a, b, out, U8NR, 1, 0)
			restore()
			want, what := exact, "exact product"
			if saturates(impl) {
				want, what = model, "Go model"
			}
			for i := range out {
				if out[i] != want[i] {
					t.Fatalf("%s k=%d: %d, %s %d at %d", impl, kg, out[i], what, want[i], i)
				}
			}
		}
	}
}

// TestTiles checks the multi-tile entry points against one call per tile, bit for bit
// (same kernel, same order), including k long enough to be chunked.
func TestTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range []int{0, 1, 7, 300, maxChunk + 5} {
			for _, tiles := range []int{1, 2, 5, 40} {
				if tiles*kg > 4*maxCall {
					continue
				}
				ldc := F32NR + r.IntN(4)
				a := make([]float32, tiles*kg*F32MR)
				b := make([]float32, kg*F32NR)
				for i := range a {
					a[i] = float32(r.NormFloat64())
				}
				for i := range b {
					b[i] = float32(r.NormFloat64())
				}
				c0 := make([]float32, (tiles*F32MR-1)*ldc+F32NR)
				for i := range c0 {
					c0[i] = float32(r.NormFloat64())
				}
				got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
				F32Tiles(tiles, kg, a, b, got, ldc, 1.5, 0.5)
				for tt := 0; tt < tiles; tt++ {
					F32(kg, a[tt*kg*F32MR:], b, want[tt*F32MR*ldc:], ldc, 1.5, 0.5)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s kg=%d tiles=%d: C[%d] = %v, per-tile %v", impl, kg, tiles, i, got[i], want[i])
					}
				}
				// Integer tiles: int16.
				a16 := make([]int16, tiles*kg*I16MR*2)
				b16 := make([]int16, kg*I16NR*2)
				for i := range a16 {
					a16[i] = int16(r.Uint32())
				}
				for i := range b16 {
					b16[i] = int16(r.Uint32())
				}
				g32, w32 := make([]int32, len(c0)), make([]int32, len(c0))
				I16Tiles(tiles, kg, a16, b16, g32, ldc, 3, 0)
				for tt := 0; tt < tiles; tt++ {
					I16(kg, a16[tt*kg*I16MR*2:], b16, w32[tt*I16MR*ldc:], ldc, 3, 0)
				}
				for i := range g32 {
					if g32[i] != w32[i] {
						t.Fatalf("%s I16 kg=%d tiles=%d: C[%d] = %d, per-tile %d", impl, kg, tiles, i, g32[i], w32[i])
					}
				}
			}
		}
		restore()
	}
}

func TestShortSlicesPanic(t *testing.T) {
	cases := map[string]func(){
		"A":      func() { F32(2, make([]float32, 11), make([]float32, 32), make([]float32, 96), 16, 1, 0) },
		"B":      func() { F64(2, make([]float64, 12), make([]float64, 15), make([]float64, 48), 8, 1, 0) },
		"C":      func() { I16(1, make([]int16, 12), make([]int16, 32), make([]int32, 95), 16, 1, 0) },
		"ldc":    func() { U8S8(1, make([]uint8, 24), make([]int8, 64), make([]int32, 96), 15, 1, 0) },
		"k":      func() { S8U8(-1, nil, nil, make([]int32, 96), 16, 1, 0) },
		"lda":    func() { F32Strided(4, make([]float32, 100), -1, make([]float32, 64), make([]float32, 96), 16, 1, 0) },
		"tiles":  func() { F32Tiles(0, 1, make([]float32, 6), make([]float32, 16), make([]float32, 96), 16, 1, 0) },
		"tilesC": func() { F64Tiles(2, 1, make([]float64, 12), make([]float64, 8), make([]float64, 11*8+7), 8, 1, 0) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestKernelsUnderGC runs kernels on several goroutines while the collector runs and moves
// stacks, checking every result.
func TestKernelsUnderGC(t *testing.T) {
	const kg = 512
	r := rand.New(rand.NewPCG(7, 8))
	a := make([]float32, kg*F32MR)
	b := make([]float32, kg*F32NR)
	for i := range a {
		a[i] = float32(r.IntN(5) - 2)
	}
	for i := range b {
		b[i] = float32(r.IntN(5) - 2)
	}
	want := make([]float32, F32MR*F32NR)
	for i := 0; i < F32MR; i++ {
		for j := 0; j < F32NR; j++ {
			for p := 0; p < kg; p++ {
				want[i*F32NR+j] += a[p*F32MR+i] * b[p*F32NR+j] // small integers: exact
			}
		}
	}
	stop := testutil.GCStress()
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 300; it++ {
				c := make([]float32, F32MR*F32NR) // fresh heap objects keep the collector busy
				F32(kg, a, b, c, F32NR, 1, 0)
				for i := range c {
					if c[i] != want[i] {
						errs <- fmt.Sprintf("iteration %d: C[%d] = %v, want %v", it, i, c[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	stop()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

func TestPackA6F32(t *testing.T) { testPackA6(t, PackA6F32) }
func TestPackA6F64(t *testing.T) { testPackA6(t, PackA6F64) }

func testPackA6[T float32 | float64](t *testing.T, pack func(k int, src []T, lda int, dst []T)) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, k := range []int{0, 1, 3, 4, 5, 7, 8, 9, 16, 100, 333} {
			lda := k + r.IntN(5)
			src := make([]T, 5*lda+k)
			for i := range src {
				src[i] = T(i)
			}
			dst := make([]T, 6*k+3)
			for i := range dst {
				dst[i] = -1
			}
			pack(k, src, lda, dst)
			for p := 0; p < k; p++ {
				for i := 0; i < 6; i++ {
					if dst[6*p+i] != src[i*lda+p] {
						t.Fatalf("%s k=%d: dst[%d][%d] = %v, want %v", impl, k, p, i, dst[6*p+i], src[i*lda+p])
					}
				}
			}
			for _, v := range dst[6*k:] {
				if v != -1 {
					t.Fatalf("%s k=%d: wrote past the panel", impl, k)
				}
			}
		}
		restore()
	}
}

func TestPackB16F32(t *testing.T) { testPackB(t, 16, PackB16F32) }
func TestPackB8F64(t *testing.T)  { testPackB(t, 8, PackB8F64) }

// TestPackBRows: the AVX-512 panel widths (128-byte rows), and widths it does not take.
func TestPackBRows(t *testing.T) {
	testPackB(t, 32, func(k, np int, src []float32, ldb int, dst []float32, panel int) {
		if !PackBRows(k, np, 32, src, ldb, dst, panel) {
			t.Fatal("32 float32 columns refused")
		}
	})
	testPackB(t, 16, func(k, np int, src []float64, ldb int, dst []float64, panel int) {
		if !PackBRows(k, np, 16, src, ldb, dst, panel) {
			t.Fatal("16 float64 columns refused")
		}
	})
	dst := []float32{-1, -1, -1, -1}
	if PackBRows(1, 1, 4, []float32{1, 2, 3, 4}, 4, dst, 4) || dst[0] != -1 {
		t.Error("a 16-byte panel row was packed")
	}
}

func testPackB[T float32 | float64](t *testing.T, nr int, pack func(k, np int, src []T, ldb int, dst []T, panel int)) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, k := range []int{1, 2, 9, 300} {
			for _, np := range []int{1, 3, 17} {
				ldb := nr*np + r.IntN(20)
				panel := nr*k + nr*r.IntN(3)
				src := make([]T, (k-1)*ldb+nr*np)
				for i := range src {
					src[i] = T(i)
				}
				dst := make([]T, (np-1)*panel+nr*k+5)
				for i := range dst {
					dst[i] = -1
				}
				pack(k, np, src, ldb, dst, panel)
				for jp := 0; jp < np; jp++ {
					for p := 0; p < k; p++ {
						for j := 0; j < nr; j++ {
							if got, want := dst[jp*panel+nr*p+j], src[p*ldb+nr*jp+j]; got != want {
								t.Fatalf("%s k=%d np=%d: panel %d [%d][%d] = %v, want %v", impl, k, np, jp, p, j, got, want)
							}
						}
					}
				}
				for _, v := range dst[(np-1)*panel+nr*k:] {
					if v != -1 {
						t.Fatalf("%s: wrote past the last panel", impl)
					}
				}
			}
		}
		restore()
	}
}

func TestPackBGroups(t *testing.T) {
	testPackBGroups[int16](t, 2)
	testPackBGroups[int8](t, 4)
	testPackBGroups[uint8](t, 4)
}

func testPackBGroups[T int16 | int8 | uint8](t *testing.T, g int) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, nr := range []int{16, 32} {
			for _, kg := range []int{1, 2, 9, 100} {
				for _, np := range []int{1, 3, 17} {
					ldb := nr*np + r.IntN(20)
					panel := nr*g*kg + 16*g*r.IntN(3)
					src := make([]T, (kg*g-1)*ldb+nr*np)
					for i := range src {
						src[i] = T(r.Uint32())
					}
					dst := make([]T, (np-1)*panel+nr*g*kg+5)
					for i := range dst {
						dst[i] = 7
					}
					if nr == 16 {
						PackBGroups(kg, np, src, ldb, dst, panel)
					} else {
						PackBGroupsNR(nr, kg, np, src, ldb, dst, panel)
					}
					for jp := 0; jp < np; jp++ {
						for p := 0; p < kg; p++ {
							for j := 0; j < nr; j++ {
								for q := 0; q < g; q++ {
									if got, want := dst[jp*panel+(p*nr+j)*g+q], src[(p*g+q)*ldb+jp*nr+j]; got != want {
										t.Fatalf("%s %T nr=%d kg=%d np=%d: panel %d group %d col %d q %d = %v, want %v", impl, got, nr, kg, np, jp, p, j, q, got, want)
									}
								}
							}
						}
					}
					for _, v := range dst[(np-1)*panel+nr*g*kg:] {
						if v != 7 {
							t.Fatalf("%s: wrote past the last panel", impl)
						}
					}
				}
			}
		}
		restore()
	}
}

func TestPackWiden(t *testing.T) {
	testPackWiden[int8](t)
	testPackWiden[uint8](t)
}

func testPackWiden[T int8 | uint8](t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range []int{1, 3, 8, 9, 40} {
			for _, nr := range []int{16, 32} {
				for _, np := range []int{1, 4} {
					ldb := nr*np + r.IntN(9)
					panel := 2*nr*kg + 32*r.IntN(2)
					src := make([]T, (2*kg-1)*ldb+nr*np)
					for i := range src {
						src[i] = T(r.Uint32())
					}
					dst := make([]int16, (np-1)*panel+2*nr*kg)
					PackBPairsWidenNR(nr, kg, np, src, ldb, dst, panel)
					for jp := 0; jp < np; jp++ {
						for p := 0; p < kg; p++ {
							for j := 0; j < nr; j++ {
								for q := 0; q < 2; q++ {
									if got, want := dst[jp*panel+(p*nr+j)*2+q], int16(src[(2*p+q)*ldb+jp*nr+j]); got != want {
										t.Fatalf("%s %T B nr=%d kg=%d: got %d want %d", impl, src[0], nr, kg, got, want)
									}
								}
							}
						}
					}
				}
			}
			k := 2 * kg * 3
			lda := k + r.IntN(7)
			src := make([]T, 5*lda+k)
			for i := range src {
				src[i] = T(r.Uint32())
			}
			dst := make([]int16, 6*k+2)
			dst[6*k], dst[6*k+1] = 99, 99
			PackA6Widen(k, src, lda, dst)
			for p := 0; p < k; p++ {
				for i := 0; i < 6; i++ {
					if got, want := dst[(p/2*6+i)*2+p%2], int16(src[i*lda+p]); got != want {
						t.Fatalf("%s %T A k=%d: [%d][%d] got %d want %d", impl, src[0], k, p, i, got, want)
					}
				}
			}
			if dst[6*k] != 99 || dst[6*k+1] != 99 {
				t.Fatalf("%s A k=%d: wrote past the panel", impl, k)
			}
		}
		restore()
	}
}

func TestPackTransF32(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, k := range []int{1, 7, 8, 9, 16, 61} {
			lda := 6 + r.IntN(9)
			src := make([]float32, (k-1)*lda+6)
			for i := range src {
				src[i] = float32(i)
			}
			dst := make([]float32, 6*k)
			PackA6TransF32(k, src, lda, dst)
			for p := 0; p < k; p++ {
				for i := 0; i < 6; i++ {
					if dst[6*p+i] != src[p*lda+i] {
						t.Fatalf("%s A k=%d: [%d][%d] = %v want %v", impl, k, p, i, dst[6*p+i], src[p*lda+i])
					}
				}
			}
			for _, np := range []int{1, 3} {
				ldb := k + r.IntN(9)
				panel := 16*k + 16*r.IntN(2)
				srcB := make([]float32, (16*np-1)*ldb+k)
				for i := range srcB {
					srcB[i] = float32(i)
				}
				dstB := make([]float32, (np-1)*panel+16*k)
				PackB16TransF32(k, np, srcB, ldb, dstB, panel)
				for jp := 0; jp < np; jp++ {
					for p := 0; p < k; p++ {
						for j := 0; j < 16; j++ {
							if got, want := dstB[jp*panel+16*p+j], srcB[(16*jp+j)*ldb+p]; got != want {
								t.Fatalf("%s B k=%d np=%d: panel %d [%d][%d] = %v want %v", impl, k, np, jp, p, j, got, want)
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// TestStridedTiles: a StridedTiles call over several tiles (A rows lda apart, the next tile
// MR rows further in A and C) equals one Strided call per tile, for every strided kernel, in
// the assembly and the Go fallback, with k chunked (maxChunk + 5) or not.
func TestStridedTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range []int{0, 1, 7, 64, maxChunk + 5} {
			for _, tiles := range []int{1, 2, 5, 13} {
				ldc := 16 + r.IntN(20)
				lda := 4*kg + r.IntN(9) // elements per A row, room for every kernel's k groups
				rows := tiles * 6
				nA := (rows-1)*lda + 4*kg + 1
				cLen := (rows-1)*ldc + 16
				af := make([]float32, nA)
				bf := make([]float32, kg*16)
				for i := range af {
					af[i] = float32(r.NormFloat64())
				}
				for i := range bf {
					bf[i] = float32(r.NormFloat64())
				}
				c0 := make([]float32, cLen)
				for i := range c0 {
					c0[i] = float32(r.NormFloat64())
				}
				got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
				F32StridedTiles(tiles, kg, af, lda, bf, got, ldc, 1.5, 0.5)
				for tt := 0; tt < tiles; tt++ {
					F32Strided(kg, af[tt*6*lda:], lda, bf, want[tt*6*ldc:], ldc, 1.5, 0.5)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s F32 kg=%d tiles=%d: C[%d] = %v, per-tile %v", impl, kg, tiles, i, got[i], want[i])
					}
				}
				ad := make([]float64, nA)
				bd := make([]float64, kg*8)
				for i := range ad {
					ad[i] = r.NormFloat64()
				}
				for i := range bd {
					bd[i] = r.NormFloat64()
				}
				gd, wd := make([]float64, cLen), make([]float64, cLen)
				F64StridedTiles(tiles, kg, ad, lda, bd, gd, ldc, 2, 0)
				for tt := 0; tt < tiles; tt++ {
					F64Strided(kg, ad[tt*6*lda:], lda, bd, wd[tt*6*ldc:], ldc, 2, 0)
				}
				for i := range gd {
					if gd[i] != wd[i] {
						t.Fatalf("%s F64 kg=%d tiles=%d: C[%d] = %v, per-tile %v", impl, kg, tiles, i, gd[i], wd[i])
					}
				}
				a16 := make([]int16, nA)
				b16 := make([]int16, kg*16*2)
				for i := range a16 {
					a16[i] = int16(r.Uint32())
				}
				for i := range b16 {
					b16[i] = int16(r.Uint32())
				}
				g32, w32 := make([]int32, cLen), make([]int32, cLen)
				for i := range g32 {
					g32[i] = int32(r.Uint32())
					w32[i] = g32[i]
				}
				I16StridedTiles(tiles, kg, a16, lda, b16, g32, ldc, 3, 1)
				for tt := 0; tt < tiles; tt++ {
					I16Strided(kg, a16[tt*6*lda:], lda, b16, w32[tt*6*ldc:], ldc, 3, 1)
				}
				for i := range g32 {
					if g32[i] != w32[i] {
						t.Fatalf("%s I16 kg=%d tiles=%d: C[%d] = %d, per-tile %d", impl, kg, tiles, i, g32[i], w32[i])
					}
				}
				a8 := make([]uint8, nA)
				b8 := make([]int8, kg*16*4)
				for i := range a8 {
					a8[i] = uint8(r.IntN(128))
				}
				for i := range b8 {
					b8[i] = int8(r.Uint32())
				}
				g8, w8 := make([]int32, cLen), make([]int32, cLen)
				U8S8StridedTiles(tiles, kg, a8, lda, b8, g8, ldc, 1, 0)
				for tt := 0; tt < tiles; tt++ {
					U8S8Strided(kg, a8[tt*6*lda:], lda, b8, w8[tt*6*ldc:], ldc, 1, 0)
				}
				for i := range g8 {
					if g8[i] != w8[i] {
						t.Fatalf("%s U8S8 kg=%d tiles=%d: C[%d] = %d, per-tile %d", impl, kg, tiles, i, g8[i], w8[i])
					}
				}
			}
		}
		restore()
	}
}

// TestAVX512Kernels checks F32ZTiles and F64ZTiles (6x32 and 6x16 tiles; the AVX-512
// kernels where the CPU has them, their Go fallbacks everywhere) against the exact
// reference, tile by tile, for every scalar pair and k remainder.
func TestAVX512Kernels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, impl := range implementations() {
		restore := use(impl)
		impl := fmt.Sprintf("%s avx512=%v", impl, AVX512())
		for _, kg := range kgs {
			for _, s := range floatScalars {
				tiles := 1 + r.IntN(3)
				name := fmt.Sprintf("%s k=%d tiles=%d alpha=%v beta=%v", impl, kg, tiles, s.alpha, s.beta)
				{
					ldc := F32ZNR + r.IntN(5)
					a, b := make([]float32, tiles*kg*F32MR), make([]float32, kg*F32ZNR)
					for i := range a {
						a[i] = float32(r.Float64()*2 - 1)
					}
					for i := range b {
						b[i] = float32(r.Float64()*2 - 1)
					}
					c0 := randC(r, (tiles*F32MR-1)*ldc+F32ZNR, s.beta)
					c := make([]float32, len(c0))
					for i := range c {
						c[i] = float32(c0[i])
						c0[i] = float64(c[i])
					}
					F32ZTiles(tiles, kg, a, b, c, ldc, float32(s.alpha), float32(s.beta))
					got := make([]float64, len(c))
					for i := range c {
						got[i] = float64(c[i])
					}
					for tt := 0; tt < tiles; tt++ {
						at := a[tt*kg*F32MR:]
						off := tt * F32MR * ldc
						checkFloat(t, "F32Z "+name, F32MR, F32ZNR, kg, func(i, p int) float64 { return float64(at[p*F32MR+i]) },
							func(p, j int) float64 { return float64(b[p*F32ZNR+j]) }, c0[off:], got[off:], ldc, s, 0x1p-24)
					}
				}
				{
					ldc := F64ZNR + r.IntN(5)
					a, b := make([]float64, tiles*kg*F64MR), make([]float64, kg*F64ZNR)
					for i := range a {
						a[i] = r.Float64()*2 - 1
					}
					for i := range b {
						b[i] = r.Float64()*2 - 1
					}
					c0 := randC(r, (tiles*F64MR-1)*ldc+F64ZNR, s.beta)
					c := append([]float64(nil), c0...)
					F64ZTiles(tiles, kg, a, b, c, ldc, s.alpha, s.beta)
					for tt := 0; tt < tiles; tt++ {
						at := a[tt*kg*F64MR:]
						off := tt * F64MR * ldc
						// The reference sums in float64 too, so allow the bound twice.
						checkFloat(t, "F64Z "+name, F64MR, F64ZNR, kg, func(i, p int) float64 { return at[p*F64MR+i] },
							func(p, j int) float64 { return b[p*F64ZNR+j] }, c0[off:], c[off:], ldc, s, 0x1p-52)
					}
				}
			}
		}
		restore()
	}
}
