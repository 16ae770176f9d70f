package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil"
)

// TestWindowTiles: a window call equals its segments run one after the other through the
// strided kernels (the first with beta, the rest adding): integers bit for bit, float32
// within the rounding of k*segs sums. Both implementations, short and long segments, one
// and several segments, chunked calls (segs*kg past maxChunk) and a segment longer than
// maxChunk.
func TestWindowTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	type shape struct{ kg, segs, tiles int }
	shapes := []shape{{0, 1, 1}, {1, 1, 1}, {5, 7, 3}, {21, 7, 13}, {3, 3, 2}, {64, 3, 5}, {700, 5, 2}, {maxChunk + 3, 2, 1}}
	for _, impl := range implementations() {
		restore := use(impl)
		for _, sh := range shapes {
			kg, segs, tiles := sh.kg, sh.segs, sh.tiles
			rows := tiles * 6
			lda := 3 + r.IntN(7)           // rows overlap, as a strided convolution's do
			segStride := 4*kg + r.IntN(40) // elements between a row's segments
			nA := (rows-1)*lda + (segs-1)*segStride + 4*kg + 1
			ldc := 16 + r.IntN(9)
			cLen := (rows-1)*ldc + 16

			af := make([]float32, nA)
			for i := range af {
				af[i] = float32(r.NormFloat64())
			}
			bf := make([]float32, segs*kg*16)
			for i := range bf {
				bf[i] = float32(r.NormFloat64())
			}
			got := make([]float32, cLen)
			for i := range got {
				got[i] = float32(r.NormFloat64())
			}
			want := append([]float32(nil), got...)
			F32WindowTiles(tiles, kg, segs, segStride, af, lda, bf, got, ldc, 1.5, 0.5)
			beta := float32(0.5)
			for s := 0; s < segs; s++ {
				F32StridedTiles(tiles, kg, af[s*segStride:], lda, bf[s*kg*16:], want, ldc, 1.5, beta)
				beta = 1
			}
			tol := float64(segs*kg+2) * 1.2e-7 * (1.5*float64(segs*kg)*4 + 4) // |a|,|b|,|c| ~ N(0,1)
			for i := range got {
				if math.Abs(float64(got[i]-want[i])) > tol {
					t.Fatalf("%s F32 %+v: C[%d] = %v, by segments %v", impl, sh, i, got[i], want[i])
				}
			}

			a16 := make([]int16, nA)
			for i := range a16 {
				a16[i] = int16(r.Uint32())
			}
			b16 := make([]int16, segs*kg*16*2)
			for i := range b16 {
				b16[i] = int16(r.Uint32())
			}
			g32 := make([]int32, cLen)
			for i := range g32 {
				g32[i] = int32(r.Uint32())
			}
			w32 := append([]int32(nil), g32...)
			I16WindowTiles(tiles, kg, segs, segStride, a16, lda, b16, g32, ldc, 3, 2)
			b32 := int32(2)
			for s := 0; s < segs; s++ {
				I16StridedTiles(tiles, kg, a16[s*segStride:], lda, b16[s*kg*32:], w32, ldc, 3, b32)
				b32 = 1
			}
			for i := range g32 {
				if g32[i] != w32[i] {
					t.Fatalf("%s I16 %+v: C[%d] = %d, by segments %d", impl, sh, i, g32[i], w32[i])
				}
			}

			a8 := make([]uint8, nA)
			for i := range a8 {
				a8[i] = uint8(r.Uint32())
			}
			b8 := make([]int8, segs*kg*16*4)
			for i := range b8 {
				b8[i] = int8(r.Uint32())
			}
			for i := range g32 {
				g32[i] = int32(r.Uint32())
			}
			copy(w32, g32)
			U8S8WindowTiles(tiles, kg, segs, segStride, a8, lda, b8, g32, ldc, 1, 0)
			b32 = 0
			for s := 0; s < segs; s++ {
				U8S8StridedTiles(tiles, kg, a8[s*segStride:], lda, b8[s*kg*64:], w32, ldc, 1, b32)
				b32 = 1
			}
			for i := range g32 {
				if g32[i] != w32[i] {
					t.Fatalf("%s U8S8 %+v: C[%d] = %d, by segments %d", impl, sh, i, g32[i], w32[i])
				}
			}
		}
		restore()
	}
}

// TestWindowBadArgs: a window of no segments or a negative stride is refused before any
// assembly runs (a zero segment count would never end the kernel's segment loop).
func TestWindowBadArgs(t *testing.T) {
	for _, c := range []struct{ segs, stride int }{{0, 4}, {-1, 4}, {2, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatalf("segs=%d stride=%d: no panic", c.segs, c.stride)
				}
			}()
			F32WindowTiles(1, 1, c.segs, c.stride, make([]float32, 64), 1, make([]float32, 64), make([]float32, 96), 16, 1, 0)
		}()
	}
}

// TestWindowRowsTiles: a window tile of r rows equals the first r rows of the 6-row window
// tile on the same A, bit for bit (each row's sums are its own), and writes no other C row;
// both implementations, one tile and several, short and chunked segments.
func TestWindowRowsTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	type shape struct{ kg, segs int }
	for _, impl := range implementations() {
		restore := use(impl)
		for _, sh := range []shape{{0, 1}, {5, 7}, {21, 7}, {700, 5}, {maxChunk + 3, 2}} {
			kg, segs := sh.kg, sh.segs
			for rows := 1; rows <= 6; rows++ {
				tiles := 1 + r.IntN(3)
				lda := 3 + r.IntN(7)
				segStride := 4*kg + r.IntN(40)
				nA := (tiles*6-1)*lda + (segs-1)*segStride + 4*kg + 1
				ldc := 16 + r.IntN(9)
				cLen := (tiles*6-1)*ldc + 16
				const sentinel = 12345
				af, bf := randF32(r, nA), randF32(r, segs*kg*16)
				for tt := 0; tt < tiles; tt++ {
					// Tile tt of rows rows starts at row tt*rows; the full tile from there too.
					got, want := fill[float32](cLen, sentinel), fill[float32](cLen, sentinel)
					F32WindowRowsTiles(rows, 1, kg, segs, segStride, af[tt*rows*lda:], lda, bf, got, ldc, 1.5, 0)
					F32WindowTiles(1, kg, segs, segStride, af[tt*rows*lda:], lda, bf, want, ldc, 1.5, 0)
					keepRows(want, ldc, rows, sentinel)
					compareTiles(t, impl+" F32", got, want, rows, kg)
				}
				// Several tiles in one call equal one call per tile.
				got, want := fill[float32](cLen, sentinel), fill[float32](cLen, sentinel)
				F32WindowRowsTiles(rows, tiles, kg, segs, segStride, af, lda, bf, got, ldc, 1, 0)
				for tt := 0; tt < tiles; tt++ {
					F32WindowRowsTiles(rows, 1, kg, segs, segStride, af[tt*rows*lda:], lda, bf, want[tt*rows*ldc:], ldc, 1, 0)
				}
				compareTiles(t, impl+" F32 tiles", got, want, rows, kg)

				a16, b16 := testutil.Ints[int16](r, nA), testutil.Ints[int16](r, segs*kg*32)
				g32, w32 := fill[int32](cLen, sentinel), fill[int32](cLen, sentinel)
				I16WindowRowsTiles(rows, 1, kg, segs, segStride, a16, lda, b16, g32, ldc, 1, 0)
				I16WindowTiles(1, kg, segs, segStride, a16, lda, b16, w32, ldc, 1, 0)
				keepRows(w32, ldc, rows, sentinel)
				compareTiles(t, impl+" I16", g32, w32, rows, kg)

				a8, b8 := testutil.Ints[uint8](r, nA), testutil.Ints[int8](r, segs*kg*64)
				g8, w8 := fill[int32](cLen, sentinel), fill[int32](cLen, sentinel)
				U8S8WindowRowsTiles(rows, 1, kg, segs, segStride, a8, lda, b8, g8, ldc, 1, 0)
				U8S8WindowTiles(1, kg, segs, segStride, a8, lda, b8, w8, ldc, 1, 0)
				keepRows(w8, ldc, rows, sentinel)
				compareTiles(t, impl+" U8S8", g8, w8, rows, kg)
			}
		}
		restore()
	}
}

// keepRows sets every element of a C buffer outside the first rows rows of a 16-wide tile
// (row stride ldc) to v: what a tile of rows rows leaves of a full tile's result.
func keepRows[T float32 | int32](c []T, ldc, rows int, v T) {
	for i := range c {
		if i/ldc >= rows || i%ldc >= 16 {
			c[i] = v
		}
	}
}
