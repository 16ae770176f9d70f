package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/num"
)

// randBF16 returns n bf16 values rounded from N(0,1)-like floats (no denormals).
func randBF16(r *rand.Rand, n int) []uint16 {
	v := make([]uint16, n)
	for i := range v {
		v[i] = uint16(num.ToBF16(float32(r.NormFloat64())))
	}
	return v
}

// TestBF16ZTilesModel: the VDPBF16PS kernel and the Go model of the instruction give the same
// bits (where the CPU has AVX512_BF16; the model alone is checked against a float64 sum
// within the fp32 bound elsewhere), for several tile counts, k lengths, alpha and beta.
func TestBF16ZTilesModel(t *testing.T) {
	if !Runs(ISAAVX512BF16) {
		t.Skipf("the CPU (or %s) does not run AVX512_BF16: the kernel is its Go model here", MaxISAEnv)
	}
	r := rand.New(rand.NewSource(1))
	for _, c := range []struct {
		tiles, kg   int
		alpha, beta float32
	}{{1, 1, 1, 0}, {1, 7, 1, 1}, {3, 64, 0.5, -1.25}, {2, 333, 1, 0}, {5, 4, 2, 1}, {1, 5000, 1, 0}} {
		a := randBF16(r, c.tiles*c.kg*BF16ZMR*2)
		b := randBF16(r, c.kg*BF16ZNR*2)
		ldc := BF16ZNR + 3
		c0 := make([]float32, c.tiles*BF16ZMR*ldc)
		for i := range c0 {
			c0[i] = float32(r.NormFloat64())
		}
		got := append([]float32(nil), c0...)
		want := append([]float32(nil), c0...)
		BF16ZTiles(c.tiles, c.kg, a, b, got, ldc, c.alpha, c.beta)
		restore := LimitISA(ISAAVX512VNNI)
		BF16ZTiles(c.tiles, c.kg, a, b, want, ldc, c.alpha, c.beta)
		restore()
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%+v: C[%d] = %v (VDPBF16PS), %v (model)", c, i, got[i], want[i])
			}
		}
	}
}

// TestBF16Dot: the model's special cases: denormal inputs read as zero, denormal results
// flushed, the odd product added first.
func TestBF16Dot(t *testing.T) {
	one := uint16(num.ToBF16(1))
	den := uint16(0x0001) // the smallest bf16 denormal
	if got := BF16Dot(0, den, 0, one, 0); got != 0 {
		t.Errorf("denormal input: %v, want 0", got)
	}
	if got := BF16Dot(math.Float32frombits(0x00400000), 0, 0, 0, 0); math.Float32bits(got) != 0 {
		t.Errorf("denormal accumulator: %v, want +0", got)
	}
	// 2^24 + 1 + 1: odd first gives 2^24 (tie to even) then 2^24 again; the order matters.
	big := float32(1 << 24)
	if got := BF16Dot(big, one, one, one, one); got != big {
		t.Errorf("2^24 + 1 + 1 = %v, want %v (two roundings)", got, big)
	}
}
