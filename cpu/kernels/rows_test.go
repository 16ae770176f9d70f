package kernels

import (
	"math/rand/v2"
	"testing"
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
