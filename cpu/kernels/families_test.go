package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The kernel families of the wider instruction sets (AVX-512 float32, AVX-512 VNNI and
// AVX-VNNI int16 and uint8 x int8), every form (packed tiles, strided tiles and rows,
// window tiles and rows, indirect tiles), against the exact dot products, with each kernel
// set forced in turn (LimitISA): where the CPU lacks a set its kernels run their Go
// fallbacks, which the same check covers. The VNNI uint8 kernels take full-range
// activations: VPDPBUSD does not saturate.

// famForms are one family's exported functions.
type famForms[A, B, C any] struct {
	name      string
	isa       ISA // the family's set
	mr, nr, g int
	packed    func(tiles, kg int, a []A, b []B, c []C, ldc int, alpha, beta C)
	strided   func(tiles, kg int, a []A, lda int, b []B, c []C, ldc int, alpha, beta C)
	rows      func(rows, tiles, kg int, a []A, lda int, b []B, c []C, ldc int, alpha, beta C)
	window    func(tiles, kg, segs, segStride int, a []A, lda int, b []B, c []C, ldc int, alpha, beta C)
	winRows   func(rows, tiles, kg, segs, segStride int, a []A, lda int, b []B, c []C, ldc int, alpha, beta C)
	indirect  func(rows, tiles, kg int, a, alt []A, offs []int, b []B, c []C, ldc int, alpha, beta C)
	randA     func(r *rand.Rand) A
	randB     func(r *rand.Rand) B
	float     bool
}

// tileRef is the exact result of one C element: sum of products and of their magnitudes.
func dotRef[A, B any](aRow []A, b []B, nr, g, j int, fa func(A) float64, fb func(B) float64) (s, abs float64, si int64) {
	for p, av := range aRow {
		bv := b[(p/g*nr+j)*g+p%g]
		x, y := fa(av), fb(bv)
		s += x * y
		abs += math.Abs(x * y)
		si += int64(x) * int64(y)
	}
	return
}

func toF[T float32 | int16 | uint8 | int8 | int32](v T) float64 { return float64(v) }

// checkTiles compares C tiles (rows rows per tile) with the reference given A row t*rows+i.
func checkFam[A, B any, C float32 | int32](t *testing.T, name string, f *famForms[A, B, C], rowsOf func(t, i int) []A,
	tiles, rows int, b []B, c0, c []C, ldc int, alpha, beta C, fa func(A) float64, fb func(B) float64) {
	t.Helper()
	for tt := 0; tt < tiles; tt++ {
		for i := 0; i < rows; i++ {
			row := tt*rows + i
			ar := rowsOf(tt, i)
			for j := 0; j < ldc && row*ldc+j < len(c); j++ {
				got, old := c[row*ldc+j], c0[row*ldc+j]
				if j >= f.nr {
					if got != old {
						t.Fatalf("%s: wrote outside the tile at row %d column %d", name, row, j)
					}
					continue
				}
				s, abs, si := dotRef(ar, b, f.nr, f.g, j, fa, fb)
				if f.float {
					want := float64(alpha)*s + float64(beta)*float64(old)
					k := float64(len(ar) + 2)
					bound := k * 0x1p-24 / (1 - k*0x1p-24) * (math.Abs(float64(alpha))*abs + math.Abs(float64(beta)*float64(old)))
					if d := math.Abs(float64(got) - want); d > bound*1.0001+1e-30 {
						t.Fatalf("%s: C[%d][%d] = %v, want %v (bound %g)", name, row, j, got, want, bound)
					}
					continue
				}
				want := int32(si)*int32(alpha) + int32(beta)*int32(old)
				if int32(got) != want {
					t.Fatalf("%s: C[%d][%d] = %d, want %d", name, row, j, int32(got), want)
				}
			}
		}
	}
}

func runFamily[A, B any, C float32 | int32](t *testing.T, r *rand.Rand, f *famForms[A, B, C], cap ISA, long bool, fa func(A) float64, fb func(B) float64) {
	impl := fmt.Sprintf("%s cap=%s asm=%v", f.name, cap, Runs(f.isa))
	kgs := []int{0, 1, 3, 8, 37}
	if long && !testing.Short() { // the chunked long k, under the widest cap and the fallbacks
		kgs = append(kgs, maxChunk+5)
	}
	alpha, beta := C(1), C(0)
	for ki, kg := range kgs {
		switch ki % 3 {
		case 1:
			alpha, beta = C(2), C(1)
		case 2:
			alpha, beta = C(1), C(3)
		default:
			alpha, beta = C(1), C(0)
		}
		reach := kg * f.g
		newA := func(n int) []A {
			a := make([]A, n)
			for i := range a {
				a[i] = f.randA(r)
			}
			return a
		}
		newB := func(n int) []B {
			b := make([]B, n)
			for i := range b {
				b[i] = f.randB(r)
			}
			return b
		}
		newC := func(n int) ([]C, []C) {
			c0 := make([]C, n)
			for i := range c0 {
				c0[i] = C(r.IntN(200) - 100)
			}
			return c0, append([]C(nil), c0...)
		}
		tiles := 1 + r.IntN(3)
		ldc := f.nr + r.IntN(5)
		b := newB(max(kg, 1) * f.nr * f.g * 3)
		name := fmt.Sprintf("%s kg=%d tiles=%d", impl, kg, tiles)

		// packed
		a := newA(max(tiles*kg*f.mr*f.g, 1))
		c0, c := newC((tiles*f.mr-1)*ldc + f.nr)
		f.packed(tiles, kg, a, b, c, ldc, alpha, beta)
		checkFam(t, name+" packed", f, func(tt, i int) []A {
			row := make([]A, reach)
			for p := range row {
				row[p] = a[tt*kg*f.mr*f.g+(p/f.g*f.mr+i)*f.g+p%f.g]
			}
			return row
		}, tiles, f.mr, b, c0, c, ldc, alpha, beta, fa, fb)

		// strided tiles and rows
		lda := reach + r.IntN(5)
		for rows := 1; rows <= f.mr; rows++ {
			a := newA(max((tiles*rows-1)*lda+reach, 1))
			c0, c := newC((tiles*rows-1)*ldc + f.nr)
			if rows == f.mr {
				f.strided(tiles, kg, a, lda, b, c, ldc, alpha, beta)
			} else {
				f.rows(rows, tiles, kg, a, lda, b, c, ldc, alpha, beta)
			}
			checkFam(t, fmt.Sprintf("%s strided rows=%d", name, rows), f, func(tt, i int) []A {
				o := (tt*rows + i) * lda
				return a[o : o+reach]
			}, tiles, rows, b, c0, c, ldc, alpha, beta, fa, fb)
		}

		// window tiles and rows: segs segments segStride apart
		if kg <= 64 {
			segs := 1 + r.IntN(3)
			segStride := reach + r.IntN(7)
			for rows := 1; rows <= f.mr; rows++ {
				a := newA(max((tiles*rows-1)*lda+(segs-1)*segStride+reach, 1))
				c0, c := newC((tiles*rows-1)*ldc + f.nr)
				if rows == f.mr {
					f.window(tiles, kg, segs, segStride, a, lda, b, c, ldc, alpha, beta)
				} else {
					f.winRows(rows, tiles, kg, segs, segStride, a, lda, b, c, ldc, alpha, beta)
				}
				checkFam(t, fmt.Sprintf("%s window segs=%d rows=%d", name, segs, rows), f, func(tt, i int) []A {
					var row []A
					for s := 0; s < segs; s++ {
						o := (tt*rows+i)*lda + s*segStride
						row = append(row, a[o:o+reach]...)
					}
					return row
				}, tiles, rows, b, c0, c, ldc, alpha, beta, fa, fb)
			}
		}

		// indirect: rows from a and alt
		nA, nAlt := 3*reach+50, 2*reach+20
		a, alt := newA(nA), newA(nAlt)
		for rows := 1; rows <= f.mr; rows++ {
			offs := make([]int, tiles*rows)
			for i := range offs {
				if r.IntN(3) == 0 {
					offs[i] = ^r.IntN(nAlt - reach + 1)
				} else {
					offs[i] = r.IntN(nA - reach + 1)
				}
			}
			c0, c := newC((tiles*rows-1)*ldc + f.nr)
			f.indirect(rows, tiles, kg, a, alt, offs, b, c, ldc, alpha, beta)
			checkFam(t, fmt.Sprintf("%s indirect rows=%d", name, rows), f, func(tt, i int) []A {
				o := offs[tt*rows+i]
				if o < 0 {
					return alt[^o : ^o+reach]
				}
				return a[o : o+reach]
			}, tiles, rows, b, c0, c, ldc, alpha, beta, fa, fb)
		}
	}
}

// caps lists the kernel sets to force in turn: the Go fallbacks and each set the CPU has
// (skipping, with a log line, those it lacks).
func caps(t *testing.T) []ISA {
	out := []ISA{ISAGo}
	for _, s := range []ISA{ISAAVX2, ISAAVX2VNNI, ISAAVX512, ISAAVX512VNNI} {
		if CPUHas(s) {
			out = append(out, s)
		} else {
			t.Logf("the CPU lacks %s (or this build has no assembly): its kernels are tested through their Go fallbacks only", s)
		}
	}
	return out
}

func TestWideFamilies(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	f32 := func(r *rand.Rand) float32 { return float32(r.Float64()*2 - 1) }
	i16 := func(r *rand.Rand) int16 { return int16(r.Uint32()) }
	u8 := func(r *rand.Rand) uint8 { return uint8(r.Uint32()) }
	s8 := func(r *rand.Rand) int8 { return int8(r.Uint32()) }
	cs := caps(t)
	for _, cap := range cs {
		restore := LimitISA(cap)
		long := cap == ISAGo || cap == cs[len(cs)-1]
		runFamily(t, r, &famForms[float32, float32, float32]{"F32Z", ISAAVX512, F32ZMR, F32ZNR, 1,
			F32ZTiles, F32ZStridedTiles, F32ZStridedRowsTiles, F32ZWindowTiles, F32ZWindowRowsTiles, F32ZIndirectTiles, f32, f32, true},
			cap, long, toF[float32], toF[float32])
		for _, f := range []*famForms[int16, int16, int32]{
			{"I16ZV", ISAAVX512VNNI, I16ZVMR, I16ZVNR, I16KGroup, I16ZVTiles, I16ZVStridedTiles, I16ZVStridedRowsTiles, I16ZVWindowTiles, I16ZVWindowRowsTiles, I16ZVIndirectTiles, i16, i16, false},
			{"I16V", ISAAVX2VNNI, I16VMR, I16VNR, I16KGroup, I16VTiles, I16VStridedTiles, I16VStridedRowsTiles, I16VWindowTiles, I16VWindowRowsTiles, I16VIndirectTiles, i16, i16, false},
		} {
			runFamily(t, r, f, cap, long, toF[int16], toF[int16])
		}
		for _, f := range []*famForms[uint8, int8, int32]{
			{"U8S8ZV", ISAAVX512VNNI, U8ZVMR, U8ZVNR, U8KGroup, U8S8ZVTiles, U8S8ZVStridedTiles, U8S8ZVStridedRowsTiles, U8S8ZVWindowTiles, U8S8ZVWindowRowsTiles, U8S8ZVIndirectTiles, u8, s8, false},
			{"U8S8V", ISAAVX2VNNI, U8VMR, U8VNR, U8KGroup, U8S8VTiles, U8S8VStridedTiles, U8S8VStridedRowsTiles, U8S8VWindowTiles, U8S8VWindowRowsTiles, U8S8VIndirectTiles, u8, s8, false},
		} {
			runFamily(t, r, f, cap, long, toF[uint8], toF[int8])
		}
		// S8U8 has packed kernels only (the column-major GEMM).
		for _, f := range []*famForms[int8, uint8, int32]{
			{name: "S8U8ZV", isa: ISAAVX512VNNI, mr: U8ZVMR, nr: U8ZVNR, g: U8KGroup, packed: S8U8ZVTiles},
			{name: "S8U8V", isa: ISAAVX2VNNI, mr: U8VMR, nr: U8VNR, g: U8KGroup, packed: S8U8VTiles},
		} {
			for _, kg := range []int{0, 1, 7, 40} {
				tiles := 1 + r.IntN(3)
				ldc := f.nr + r.IntN(3)
				a, b := make([]int8, max(tiles*kg*f.mr*4, 1)), make([]uint8, max(kg*f.nr*4, 1))
				for i := range a {
					a[i] = s8(r)
				}
				for i := range b {
					b[i] = u8(r)
				}
				c0 := make([]int32, (tiles*f.mr-1)*ldc+f.nr)
				for i := range c0 {
					c0[i] = int32(r.IntN(100))
				}
				c := append([]int32(nil), c0...)
				f.packed(tiles, kg, a, b, c, ldc, 1, 1)
				for tt := 0; tt < tiles; tt++ {
					for i := 0; i < f.mr; i++ {
						for j := 0; j < f.nr; j++ {
							var s int32
							for p := 0; p < 4*kg; p++ {
								s += int32(a[tt*kg*f.mr*4+(p/4*f.mr+i)*4+p%4]) * int32(b[(p/4*f.nr+j)*4+p%4])
							}
							o := (tt*f.mr+i)*ldc + j
							if c[o] != s+c0[o] {
								t.Fatalf("%s cap=%s kg=%d: C[%d][%d] = %d, want %d", f.name, cap, kg, tt*f.mr+i, j, c[o], s+c0[o])
							}
						}
					}
				}
			}
		}
		restore()
	}
}
