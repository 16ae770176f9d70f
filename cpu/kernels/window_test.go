package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
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

// TestIndirectWindowTiles: the indirect window kernels on offsets that describe the window
// kernel's evenly spaced rows, some of them moved into copies in alt, give the window
// kernel's result bit for bit (the same arithmetic in the same order), for the shapes of
// TestWindowTiles; bad offsets panic.
func TestIndirectWindowTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	type shape struct{ kg, segs, tiles int }
	shapes := []shape{{0, 1, 1}, {1, 1, 1}, {5, 7, 3}, {21, 7, 13}, {3, 3, 2}, {64, 3, 5}, {700, 5, 2}, {maxChunk + 3, 2, 1}}
	for _, impl := range implementations() {
		restore := use(impl)
		for _, sh := range shapes {
			kg, segs, tiles := sh.kg, sh.segs, sh.tiles
			rows := tiles * 6
			lda := 3 + r.IntN(7)
			segStride := 4*kg + r.IntN(40)
			reach := (segs-1)*segStride + 4*kg // the widest group's
			nA := (rows-1)*lda + reach + 1
			ldc := 16 + r.IntN(9)
			cLen := (rows-1)*ldc + 16
			// offsets returns the table for elements of the given size per group, every
			// third row copied into alt.
			offsets := func(copyRow func(alt, from int)) (offs []int, nAlt int) {
				for i := 0; i < rows; i++ {
					if i%3 == 1 {
						copyRow(nAlt, i*lda)
						offs = append(offs, ^nAlt)
						nAlt += reach + 1
						continue
					}
					offs = append(offs, i*lda)
				}
				return offs, nAlt
			}

			af, bf := randF32(r, nA), randF32(r, segs*kg*16)
			altf := make([]float32, rows*(reach+1))
			offs, _ := offsets(func(to, from int) { copy(altf[to:to+reach], af[from:]) })
			got := randF32(r, cLen)
			want := append([]float32(nil), got...)
			F32IndirectWindowTiles(tiles, kg, segs, segStride, af, altf, offs, bf, got, ldc, 1.5, 0.5)
			F32WindowTiles(tiles, kg, segs, segStride, af, lda, bf, want, ldc, 1.5, 0.5)
			compareTiles(t, impl+" F32", got, want, 6, kg)

			a16, b16 := randInts[int16](r, nA), randInts[int16](r, segs*kg*32)
			alt16 := make([]int16, rows*(reach+1))
			offs, _ = offsets(func(to, from int) { copy(alt16[to:to+reach], a16[from:]) })
			g32 := make([]int32, cLen)
			w32 := make([]int32, cLen)
			I16IndirectWindowTiles(tiles, kg, segs, segStride, a16, alt16, offs, b16, g32, ldc, 3, 0)
			I16WindowTiles(tiles, kg, segs, segStride, a16, lda, b16, w32, ldc, 3, 0)
			compareTiles(t, impl+" I16", g32, w32, 6, kg)

			a8, b8 := randInts[uint8](r, nA), randInts[int8](r, segs*kg*64)
			alt8 := make([]uint8, rows*(reach+1))
			offs, _ = offsets(func(to, from int) { copy(alt8[to:to+reach], a8[from:]) })
			g8 := randInts[int32](r, cLen)
			w8 := append([]int32(nil), g8...)
			U8S8IndirectWindowTiles(tiles, kg, segs, segStride, a8, alt8, offs, b8, g8, ldc, 1, 1)
			U8S8WindowTiles(tiles, kg, segs, segStride, a8, lda, b8, w8, ldc, 1, 1)
			compareTiles(t, impl+" U8S8", g8, w8, 6, kg)
		}
		restore()
	}
	// An offset whose last segment would reach past its slice panics.
	a, b, c := make([]float32, 100), make([]float32, 3*10*16), make([]float32, 6*16)
	offs := []int{0, 0, 0, 0, 0, 100 - 2*20 - 9}
	defer func() {
		if recover() == nil {
			t.Error("an offset past the input: no panic")
		}
	}()
	F32IndirectWindowTiles(1, 10, 3, 20, a, nil, offs, b, c, 16, 1, 0)
}
