package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIndirectWindowTiles: F32ZIndirectWindowTiles equals the strided tail kernel on the
// tile's segments copied into dense rows (segment after segment), bit for bit when one call
// holds the whole tile (the same multiply-adds in the same order), and within a few ulps
// of the sum when a long k splits it across calls; for every row count, under each kernel
// set the CPU has and the Go fallbacks; C outside the tiles is never written; bad tables
// panic before any assembly runs.
func TestIndirectWindowTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, cp := range caps(t) {
		restore := LimitISA(cp)
		for _, c := range []struct{ kg, segs int }{{1, 1}, {5, 3}, {37, 3}, {64, 9}, {3, 1}, {700, 3}, {maxChunk + 9, 2}} {
			exact := c.kg*c.segs <= maxChunk
			for rows := 1; rows <= F32ZMR; rows++ {
				tiles := 1 + r.IntN(3)
				ldc := F32ZNR + r.IntN(5)
				reach := c.kg
				nA, nAlt := 3*reach+50, 2*reach+20
				offs := make([]int, tiles*c.segs*rows)
				for i := range offs {
					if r.IntN(3) == 0 {
						offs[i] = ^r.IntN(nAlt - reach + 1)
					} else {
						offs[i] = r.IntN(nA - reach + 1)
					}
				}
				cLen := (tiles*rows-1)*ldc + F32ZNR + 7
				const sentinel = 12345
				a, alt, b := randF32(r, nA), randF32(r, nAlt), randF32(r, c.segs*c.kg*F32ZNR)
				got, want := fill[float32](cLen, sentinel), fill[float32](cLen, sentinel)
				for i := 0; i < (tiles*rows-1)*ldc+F32ZNR; i++ {
					got[i] = float32(i%7) - 3
					want[i] = got[i]
				}
				F32ZIndirectWindowTiles(rows, tiles, c.kg, c.segs, a, alt, offs, b, got, ldc, 1.5, 0.5)
				w := c.segs * c.kg
				for tt := 0; tt < tiles; tt++ {
					d := make([]float32, rows*w)
					for s := 0; s < c.segs; s++ {
						seg := gatherRows(a, alt, offs[(tt*c.segs+s)*rows:][:rows], c.kg)
						for i := 0; i < rows; i++ {
							copy(d[i*w+s*c.kg:], seg[i*c.kg:(i+1)*c.kg])
						}
					}
					F32ZStridedRows(rows, w, d, w, b, want[tt*rows*ldc:], ldc, 1.5, 0.5)
				}
				if exact {
					compareTiles(t, cp.String()+" F32Z", got, want, rows, w)
					continue
				}
				for i := range got {
					if d := math.Abs(float64(got[i] - want[i])); d > 1e-3*(1+math.Abs(float64(want[i]))) || (want[i] == sentinel) != (got[i] == sentinel) {
						t.Fatalf("%s rows=%d kg=%d segs=%d: C[%d] = %v, want %v", cp, rows, c.kg, c.segs, i, got[i], want[i])
					}
				}
			}
		}
		restore()
	}
	a, b, c := make([]float32, 100), make([]float32, 32*10*2), make([]float32, 32*6)
	for name, offs := range map[string][]int{
		"a":          {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 91},
		"alt":        {0, 0, 0, 0, 0, 0, 0, ^0, 0, 0, 0, 0},
		"short":      {0, 0, 0, 0, 0, 0, 0, 0},
		"a overflow": {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, math.MaxInt},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("offsets %s: no panic", name)
				}
			}()
			F32ZIndirectWindowTiles(6, 1, 10, 2, a, make([]float32, 5), offs, b, c, 32, 1, 0)
		}()
	}
}
