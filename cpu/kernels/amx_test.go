package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/num"
)

// amxPacked returns random packed A and B of kg steps (bytes) and the value of A(i, q) and
// B(q, j) (q the byte, or bf16, index along k) from the documented layouts.
func amxA(i, q, eb int) int { // element index in packed A
	kps := AMXKStep / eb
	s, qq := q/kps, q%kps
	return (s*2+i/16)*16*kps + (i%16)*kps + qq
}

func amxB(q, j, eb int) int { // element index in packed B (VNNI tiles)
	kps, g := AMXKStep/eb, 4/eb
	s, qq := q/kps, q%kps
	return (s*2+j/16)*16*kps + (qq/g)*16*g + (j%16)*g + qq%g
}

// TestAMXTilesInt: AMXU8S8 and AMXS8S8 against the sums the layouts define, bit for bit, C
// from zero and accumulated (load), several k step counts.
func TestAMXTilesInt(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, kg := range []int{1, 2, 5} {
		a, b := make([]uint8, kg*2*AMXTileBytes), make([]int8, kg*2*AMXTileBytes)
		for i := range a {
			a[i] = uint8(r.Intn(256))
			b[i] = int8(r.Intn(256) - 128)
		}
		as := make([]int8, len(a))
		for i, v := range a {
			as[i] = int8(v)
		}
		for _, load := range []bool{false, true} {
			ldc := AMXBlock + 5
			c0 := make([]int32, AMXBlock*ldc)
			for i := range c0 {
				c0[i] = int32(r.Uint32())
			}
			cu, cs := append([]int32(nil), c0...), append([]int32(nil), c0...)
			AMXU8S8(1, kg, a, b, cu, ldc, load)
			AMXS8S8(1, kg, as, b, cs, ldc, load)
			for i := 0; i < AMXBlock; i++ {
				for j := 0; j < ldc; j++ {
					var wu, ws int32
					if j >= AMXBlock {
						if cu[i*ldc+j] != c0[i*ldc+j] || cs[i*ldc+j] != c0[i*ldc+j] {
							t.Fatalf("kg=%d: C[%d][%d] outside the block written", kg, i, j)
						}
						continue
					}
					if load {
						wu, ws = c0[i*ldc+j], c0[i*ldc+j]
					}
					for q := 0; q < kg*AMXKStep; q++ {
						bv := int32(b[amxB(q, j, 1)])
						wu += int32(a[amxA(i, q, 1)]) * bv
						ws += int32(as[amxA(i, q, 1)]) * bv
					}
					if cu[i*ldc+j] != wu || cs[i*ldc+j] != ws {
						t.Fatalf("kg=%d load=%v: C[%d][%d] = %d, %d (u8s8, s8s8), want %d, %d", kg, load, i, j, cu[i*ldc+j], cs[i*ldc+j], wu, ws)
					}
				}
			}
		}
	}
}

// TestAMXTilesBF16: AMXBF16 within the fp32 bound of the exact sums the layouts define.
func TestAMXTilesBF16(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	kg := 3
	a, b := make([]uint16, kg*AMXTileBytes), make([]uint16, kg*AMXTileBytes)
	for i := range a {
		a[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
		b[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
	}
	c := make([]float32, AMXBlock*AMXBlock)
	for i := range c {
		c[i] = float32(r.NormFloat64())
	}
	c0 := append([]float32(nil), c...)
	AMXBF16(1, kg, a, b, c, AMXBlock, true)
	n := kg * AMXKStep / 2
	for i := 0; i < AMXBlock; i++ {
		for j := 0; j < AMXBlock; j++ {
			want, abs := float64(c0[i*AMXBlock+j]), math.Abs(float64(c0[i*AMXBlock+j]))
			for q := 0; q < n; q++ {
				p := float64(num.BF16(a[amxA(i, q, 2)]).Float32()) * float64(num.BF16(b[amxB(q, j, 2)]).Float32())
				want += p
				abs += math.Abs(p)
			}
			u := math.Ldexp(1, -24)
			bound := float64(n+2) * u / (1 - float64(n+2)*u) * abs
			if d := math.Abs(float64(c[i*AMXBlock+j]) - want); d > bound {
				t.Fatalf("C[%d][%d] = %v, want %v (error %.3g > %.3g)", i, j, c[i*AMXBlock+j], want, d, bound)
			}
		}
	}
}

// TestAMXHardware: where the CPU runs AMX, the assembly kernels give the same bits as the
// Go model of the tile instructions for int8 (the GEMM and the direct convolution kernels),
// from zero and accumulating; bf16 agrees within
// the fp32 accumulation bound (the count of differing bits is logged: the SDM's pseudo-code
// is the model, the silicon may round its partial sums in another order).
func TestAMXHardware(t *testing.T) {
	if !AMX() {
		t.Skipf("no AMX here (%v): the tile kernels are checked through their Go model only", AMXStatus())
	}
	r := rand.New(rand.NewSource(5))
	kg := 7
	a, b := make([]uint8, kg*2*AMXTileBytes), make([]int8, kg*2*AMXTileBytes)
	h1, h2 := make([]uint16, kg*AMXTileBytes), make([]uint16, kg*AMXTileBytes)
	for i := range a {
		a[i], b[i] = uint8(r.Intn(256)), int8(r.Intn(256)-128)
	}
	for i := range h1 {
		h1[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
		h2[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
	}
	as := make([]int8, len(a))
	for i, v := range a {
		as[i] = int8(v)
	}
	run := func() (u, s []int32, f []float32) {
		u, s, f = make([]int32, 32*40), make([]int32, 32*40), make([]float32, 32*40)
		for i := range u {
			u[i], s[i], f[i] = int32(i*7919), int32(i*104729), float32(i)/7
		}
		AMXU8S8(1, kg, a, b, u, 40, true)
		AMXS8S8(1, kg, as, b, s, 40, false)
		AMXBF16(1, kg, h1, h2, f, 40, true)
		// the direct convolution kernels: A in place, 2 blocks, lda 72, offsets out of order
		offs := []int{0, 3 * 72, 64, 5, 2 * 72, 1000, 7}
		cu, cs := make([]int32, 64*40), make([]int32, 64*40)
		AMXConvU8S8(2, kg, a[:63*72+1000+64], 72, offs, b, cu, 40, false)
		AMXConvS8S8(2, kg, as[:63*72+1000+64], 72, offs, b, cs, 40, false)
		cf := make([]float32, 64*40)
		AMXConvBF16(2, kg, h1[:63*72+1000+32], 72, offs, h2, cf, 40, false)
		return append(append(u, cu...), cs...), s, append(f, cf...)
	}
	hu, hs, hf := run()
	restore := LimitISA(ISAAVX512BF16) // everything but AMX: the model runs
	mu, ms, mf := run()
	restore()
	diff := 0
	for i := range hu {
		if hu[i] != mu[i] {
			t.Fatalf("u8s8/conv element %d: hardware %d, model %d", i, hu[i], mu[i])
		}
	}
	for i := range hf {
		if i < len(hs) && (hu[i] != mu[i] || hs[i] != ms[i]) {
			t.Fatalf("element %d: hardware %d %d, model %d %d", i, hu[i], hs[i], mu[i], ms[i])
		}
		if math.Float32bits(hf[i]) != math.Float32bits(mf[i]) {
			diff++
		}
		// |products| are about 1 each: the bound of kg*32 + 2 roundings of sums of that size.
		if d := math.Abs(float64(hf[i] - mf[i])); d > 2*float64(kg*32+2)*math.Ldexp(1, -24)*(float64(kg*32)+math.Abs(float64(mf[i]))) {
			t.Fatalf("bf16 element %d: hardware %v, model %v", i, hf[i], mf[i])
		}
	}
	t.Logf("bf16: %d of %d outputs differ in bits between the hardware and the SDM model", diff, len(hf))
}

// TestAMXTilesMulti: one call over several blocks stacked down C equals one call per block
// (each block its own A panel, the B panel shared), also when the calls are split (amxCalls).
func TestAMXTilesMulti(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, c := range []struct{ tiles, kg int }{{3, 2}, {5, 300}} {
		a, b := make([]uint8, c.tiles*c.kg*2*AMXTileBytes), make([]int8, c.kg*2*AMXTileBytes)
		for i := range a {
			a[i] = uint8(r.Intn(256))
		}
		for i := range b {
			b[i] = int8(r.Intn(256) - 128)
		}
		ldc := 40
		got, want := make([]int32, c.tiles*AMXBlock*ldc), make([]int32, c.tiles*AMXBlock*ldc)
		for i := range got {
			got[i] = int32(r.Uint32())
			want[i] = got[i]
		}
		AMXU8S8(c.tiles, c.kg, a, b, got, ldc, true)
		panel := c.kg * 2 * AMXTileBytes
		for tb := 0; tb < c.tiles; tb++ {
			AMXU8S8(1, c.kg, a[tb*panel:][:panel], b, want[tb*AMXBlock*ldc:], ldc, true)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%+v: C[%d] = %d, want %d", c, i, got[i], want[i])
			}
		}
	}
}
