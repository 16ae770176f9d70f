package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/num"
)

// amxConvWant is the direct convolution kernel's result from its definition: block t, row
// i, column j of C plus, over the steps s and the 64 bytes q of a step, A's byte at
// t*32*lda + offs[s] + i*lda + q times B(s*64 + q, j) from the packed VNNI layout (amxB).
func amxConvWant(tiles, kg int, a []byte, signed bool, lda int, offs []int, b []int8, c []int32, ldc int, load bool) []int32 {
	w := append([]int32(nil), c...)
	for t := 0; t < tiles; t++ {
		for i := 0; i < AMXBlock; i++ {
			for j := 0; j < AMXBlock; j++ {
				var acc int32
				if load {
					acc = w[(t*AMXBlock+i)*ldc+j]
				}
				for s := 0; s < kg; s++ {
					for q := 0; q < AMXKStep; q++ {
						x := int32(a[t*AMXBlock*lda+offs[s]+i*lda+q])
						if signed {
							x = int32(int8(x))
						}
						acc += x * int32(b[amxB(s*AMXKStep+q, j, 1)])
					}
				}
				w[(t*AMXBlock+i)*ldc+j] = acc
			}
		}
	}
	return w
}

// TestAMXConvTiles: AMXConvU8S8 and AMXConvS8S8 (A read in place through the offset table,
// row strides that are and are not multiples of 64, offsets in any order) against their
// definition, bit for bit, C from zero and accumulated, several blocks per call.
func TestAMXConvTiles(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, c := range []struct{ tiles, kg, lda int }{{1, 1, 64}, {2, 3, 40}, {3, 5, 200}, {1, 4, 7}} {
		offs := make([]int, c.kg)
		for i := range offs {
			offs[i] = r.Intn(5 * c.lda)
		}
		ext := 0
		for _, o := range offs {
			ext = max(ext, o)
		}
		a := make([]byte, (c.tiles*AMXBlock-1)*c.lda+ext+AMXKStep)
		for i := range a {
			a[i] = byte(r.Intn(256))
		}
		as := make([]int8, len(a))
		for i, v := range a {
			as[i] = int8(v)
		}
		b := make([]int8, c.kg*2*AMXTileBytes)
		for i := range b {
			b[i] = int8(r.Intn(256) - 128)
		}
		ldc := AMXBlock + 3
		for _, load := range []bool{false, true} {
			c0 := make([]int32, (c.tiles*AMXBlock-1)*ldc+AMXBlock)
			for i := range c0 {
				c0[i] = int32(r.Uint32())
			}
			for _, signed := range []bool{false, true} {
				got := append([]int32(nil), c0...)
				if signed {
					AMXConvS8S8(c.tiles, c.kg, as, c.lda, offs, b, got, ldc, load)
				} else {
					AMXConvU8S8(c.tiles, c.kg, a, c.lda, offs, b, got, ldc, load)
				}
				want := amxConvWant(c.tiles, c.kg, a, signed, c.lda, offs, b, c0, ldc, load)
				for i := range got {
					if i%ldc >= AMXBlock {
						want[i] = c0[i] // outside the blocks: untouched
					}
					if got[i] != want[i] {
						t.Fatalf("%+v load %v signed %v: C[%d] = %d, want %d", c, load, signed, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestAMXConvTilesBF16: AMXConvBF16 gives the same bits as AMXBF16 on the A tiles it reads in
// place, gathered into AMXBF16's packed layout (the same tile multiplies in the same order).
func TestAMXConvTilesBF16(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, c := range []struct{ tiles, kg, lda int }{{1, 2, 32}, {2, 3, 40}, {3, 1, 100}} {
		offs := make([]int, c.kg)
		for i := range offs {
			offs[i] = r.Intn(4 * c.lda)
		}
		ext := 0
		for _, o := range offs {
			ext = max(ext, o)
		}
		a := make([]uint16, (c.tiles*AMXBlock-1)*c.lda+ext+AMXKStep/2)
		for i := range a {
			a[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
		}
		b := make([]uint16, c.kg*AMXTileBytes)
		for i := range b {
			b[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
		}
		// packed A: block t, step s, tile h, row i: 32 values from a[t*32*lda + offs[s] + (16h+i)*lda]
		packed := make([]uint16, c.tiles*c.kg*AMXTileBytes)
		for tb := 0; tb < c.tiles; tb++ {
			for s := 0; s < c.kg; s++ {
				for row := 0; row < AMXBlock; row++ {
					copy(packed[((tb*c.kg+s)*2+row/16)*512+(row%16)*32:][:32], a[tb*AMXBlock*c.lda+offs[s]+row*c.lda:][:32])
				}
			}
		}
		ldc := AMXBlock + 1
		for _, load := range []bool{false, true} {
			c0 := make([]float32, (c.tiles*AMXBlock-1)*ldc+AMXBlock)
			for i := range c0 {
				c0[i] = float32(r.NormFloat64())
			}
			got, want := append([]float32(nil), c0...), append([]float32(nil), c0...)
			AMXConvBF16(c.tiles, c.kg, a, c.lda, offs, b, got, ldc, load)
			AMXBF16(c.tiles, c.kg, packed, b, want, ldc, load)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%+v load %v: C[%d] = %v, want %v", c, load, i, got[i], want[i])
				}
			}
		}
	}
}
