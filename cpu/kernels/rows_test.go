package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil"
)

// TestStridedRows: a tile of r rows equals the first r rows of the full tile computed from
// the same A (padded with more rows), and C past row r-1 is never written. Both
// implementations, short and chunked k.
func TestStridedRows(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range []int{0, 1, 5, 37, maxChunk + 9} {
			for rows := 1; rows <= 6; rows++ {
				lda := 4*kg + r.IntN(5)
				ldc := 16 + r.IntN(5)
				nA := 5*lda + 4*kg + 1 // room for all six rows
				cLen := 5*ldc + 16
				const sentinel = 12345

				af, bf := make([]float32, nA), make([]float32, kg*16)
				for i := range af {
					af[i] = float32(r.NormFloat64())
				}
				for i := range bf {
					bf[i] = float32(r.NormFloat64())
				}
				got, want := make([]float32, cLen), make([]float32, cLen)
				for i := range got {
					got[i] = sentinel
					want[i] = sentinel
				}
				for i := 0; i < rows; i++ {
					for j := 0; j < 16; j++ {
						v := float32(r.NormFloat64())
						got[i*ldc+j], want[i*ldc+j] = v, v
					}
				}
				F32StridedRows(rows, kg, af, lda, bf, got, ldc, 1.5, 0.5)
				F32Strided(kg, af, lda, bf, want, ldc, 1.5, 0.5)
				for i := range got {
					if row := i / ldc; row < rows && i%ldc < 16 {
						if got[i] != want[i] {
							t.Fatalf("%s F32 rows=%d kg=%d: C[%d] = %v, full tile %v", impl, rows, kg, i, got[i], want[i])
						}
					} else if got[i] != sentinel {
						t.Fatalf("%s F32 rows=%d kg=%d: C[%d] written (%v)", impl, rows, kg, i, got[i])
					}
				}

				a16, b16 := make([]int16, nA), make([]int16, kg*32)
				for i := range a16 {
					a16[i] = int16(r.Uint32())
				}
				for i := range b16 {
					b16[i] = int16(r.Uint32())
				}
				g32, w32 := make([]int32, cLen), make([]int32, cLen)
				for i := range g32 {
					g32[i], w32[i] = sentinel, sentinel
				}
				I16StridedRows(rows, kg, a16, lda, b16, g32, ldc, 3, 1)
				I16Strided(kg, a16, lda, b16, w32, ldc, 3, 1)
				a8, b8 := make([]uint8, nA), make([]int8, kg*64)
				for i := range a8 {
					a8[i] = uint8(r.Uint32())
				}
				for i := range b8 {
					b8[i] = int8(r.Uint32())
				}
				g8, w8 := make([]int32, cLen), make([]int32, cLen)
				for i := range g8 {
					g8[i], w8[i] = sentinel, sentinel
				}
				U8S8StridedRows(rows, kg, a8, lda, b8, g8, ldc, 1, 0)
				U8S8Strided(kg, a8, lda, b8, w8, ldc, 1, 0)
				for i := range g32 {
					inTile := i/ldc < rows && i%ldc < 16
					if inTile && (g32[i] != w32[i] || g8[i] != w8[i]) || !inTile && (g32[i] != sentinel || g8[i] != sentinel) {
						t.Fatalf("%s rows=%d kg=%d: C[%d]: int16 %d (full %d), u8s8 %d (full %d)", impl, rows, kg, i, g32[i], w32[i], g8[i], w8[i])
					}
				}
			}
		}
		restore()
	}
}

// TestStridedRowsTiles: tiles of r rows in one call equal one call per tile (A and C moving
// r rows per tile), for every type, both implementations, short and chunked k; nothing
// past the last tile's rows is written.
func TestStridedRowsTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range []int{1, 7, maxChunk + 3} {
			for rows := 1; rows <= 6; rows++ {
				tiles := 1 + r.IntN(4)
				lda := 4*kg + r.IntN(3)
				ldc := 16 + r.IntN(3)
				nA := (tiles*rows-1)*lda + 4*kg
				nC := (tiles*rows-1)*ldc + 16 + 7
				af, bf := make([]float32, nA), make([]float32, kg*16)
				a16, b16 := make([]int16, nA), make([]int16, kg*32)
				a8, b8 := make([]uint8, nA), make([]int8, kg*64)
				for i := range af {
					af[i], a16[i], a8[i] = float32(r.NormFloat64()), int16(r.Uint32()), uint8(r.Uint32())
				}
				for i := range bf {
					bf[i] = float32(r.NormFloat64())
				}
				for i := range b16 {
					b16[i] = int16(r.Uint32())
				}
				for i := range b8 {
					b8[i] = int8(r.Uint32())
				}
				gf, wf := make([]float32, nC), make([]float32, nC)
				g16, w16 := make([]int32, nC), make([]int32, nC)
				g8, w8 := make([]int32, nC), make([]int32, nC)
				F32StridedRowsTiles(rows, tiles, kg, af, lda, bf, gf, ldc, 1, 0)
				I16StridedRowsTiles(rows, tiles, kg, a16, lda, b16, g16, ldc, 1, 0)
				U8S8StridedRowsTiles(rows, tiles, kg, a8, lda, b8, g8, ldc, 1, 0)
				for tt := 0; tt < tiles; tt++ {
					ao, co := tt*rows*lda, tt*rows*ldc
					F32StridedRows(rows, kg, af[ao:], lda, bf, wf[co:], ldc, 1, 0)
					I16StridedRows(rows, kg, a16[ao:], lda, b16, w16[co:], ldc, 1, 0)
					U8S8StridedRows(rows, kg, a8[ao:], lda, b8, w8[co:], ldc, 1, 0)
				}
				for i := range gf {
					if gf[i] != wf[i] || g16[i] != w16[i] || g8[i] != w8[i] {
						t.Fatalf("%s rows=%d tiles=%d kg=%d: C[%d]: %v/%v %d/%d %d/%d", impl, rows, tiles, kg, i, gf[i], wf[i], g16[i], w16[i], g8[i], w8[i])
					}
				}
			}
		}
		restore()
	}
}

// TestIndirectTiles: a tile read through the offset table equals the strided tile kernel on
// the same rows copied into one dense tile, bit for bit (the same arithmetic in the same
// order), for every row count, short and chunked k, rows from a and from alt; C outside the
// tiles is never written; an offset reaching past its slice panics before any assembly runs.
func TestIndirectTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, impl := range implementations() {
		restore := use(impl)
		for _, kg := range []int{0, 1, 5, 37, maxChunk + 9} {
			for rows := 1; rows <= 6; rows++ {
				tiles := 1 + r.IntN(3)
				ldc := 16 + r.IntN(5)
				reach := 4 * kg // elements one row spans, for the widest group
				nA, nAlt := 3*reach+50, 2*reach+20
				offs := make([]int, tiles*rows)
				for i := range offs {
					if r.IntN(3) == 0 {
						offs[i] = ^r.IntN(nAlt - reach + 1)
					} else {
						offs[i] = r.IntN(nA - reach + 1)
					}
				}
				cLen := (tiles*rows-1)*ldc + 16 + 7
				const sentinel = 12345

				// float32
				af, altf, bf := randF32(r, nA), randF32(r, nAlt), randF32(r, kg*16)
				got, want := fill[float32](cLen, sentinel), fill[float32](cLen, sentinel)
				F32IndirectTiles(rows, tiles, kg, af, altf, offs, bf, got, ldc, 1.5, 0.5)
				for tt := 0; tt < tiles; tt++ {
					d := gatherRows(af, altf, offs[tt*rows:(tt+1)*rows], max(kg, 1))
					F32StridedRows(rows, kg, d, max(kg, 1), bf, want[tt*rows*ldc:], ldc, 1.5, 0.5)
				}
				compareTiles(t, impl+" F32", got, want, rows, kg)

				// int16 pairs
				a16, alt16, b16 := testutil.Ints[int16](r, nA), testutil.Ints[int16](r, nAlt), testutil.Ints[int16](r, kg*32)
				g32, w32 := fill[int32](cLen, sentinel), fill[int32](cLen, sentinel)
				I16IndirectTiles(rows, tiles, kg, a16, alt16, offs, b16, g32, ldc, 3, 1)
				for tt := 0; tt < tiles; tt++ {
					d := gatherRows(a16, alt16, offs[tt*rows:(tt+1)*rows], max(2*kg, 2))
					I16StridedRows(rows, kg, d, max(2*kg, 2), b16, w32[tt*rows*ldc:], ldc, 3, 1)
				}
				compareTiles(t, impl+" I16", g32, w32, rows, kg)

				// uint8 x int8 quads
				a8, alt8, b8 := testutil.Ints[uint8](r, nA), testutil.Ints[uint8](r, nAlt), testutil.Ints[int8](r, kg*64)
				g8, w8 := fill[int32](cLen, sentinel), fill[int32](cLen, sentinel)
				U8S8IndirectTiles(rows, tiles, kg, a8, alt8, offs, b8, g8, ldc, 1, 0)
				for tt := 0; tt < tiles; tt++ {
					d := gatherRows(a8, alt8, offs[tt*rows:(tt+1)*rows], max(4*kg, 4))
					U8S8StridedRows(rows, kg, d, max(4*kg, 4), b8, w8[tt*rows*ldc:], ldc, 1, 0)
				}
				compareTiles(t, impl+" U8S8", g8, w8, rows, kg)
			}
		}
		restore()
	}
	// Offsets past either slice (also where offset + reach would overflow), and a short
	// table, panic.
	a, b, c := make([]float32, 100), make([]float32, 16*10), make([]float32, 16*6)
	for name, offs := range map[string][]int{
		"a":            {0, 0, 0, 0, 0, 91},
		"alt":          {0, ^0, 0, 0, 0, 0},
		"short":        {0, 0, 0},
		"a overflow":   {0, 0, 0, 0, 0, math.MaxInt},
		"alt overflow": {0, ^math.MaxInt, 0, 0, 0, 0},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("offsets %s: no panic", name)
				}
			}()
			F32IndirectTiles(6, 1, 10, a, make([]float32, 5), offs, b, c, 16, 1, 0)
		}()
	}
}

// gatherRows copies the rows of one indirect tile densely, w elements apart (as many of
// each row's as its slice holds).
func gatherRows[T any](a, alt []T, offs []int, w int) []T {
	d := make([]T, len(offs)*w)
	for i, o := range offs {
		src := a
		if o < 0 {
			src, o = alt, ^o
		}
		copy(d[i*w:(i+1)*w], src[o:])
	}
	return d
}

func randF32(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

func fill[T float32 | int32](n int, v T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// compareTiles requires got == want everywhere (want holds the sentinel outside the tiles).
func compareTiles[T float32 | int32](t *testing.T, what string, got, want []T, rows, kg int) {
	t.Helper()
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s rows=%d kg=%d: C[%d] = %v, want %v", what, rows, kg, i, got[i], want[i])
		}
	}
}
