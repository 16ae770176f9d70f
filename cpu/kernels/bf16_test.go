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

// TestISACaps: the bf16 and AMX sets parse, and each cap allows the sets below it only (amx >
// avx512-bf16 > avx512-vnni > ...); bf16's preference order.
func TestISACaps(t *testing.T) {
	for _, name := range []string{"avx512-bf16", "AMX", "avx512_bf16"} {
		if _, err := ParseISA(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, c := range []struct {
		cap, set ISA
		want     bool
	}{
		{ISAAMX, ISAAVX512BF16, true}, {ISAAMX, ISAAVX2, true}, {ISAAVX512BF16, ISAAMX, false},
		{ISAAVX512BF16, ISAAVX512VNNI, true}, {ISAAVX512VNNI, ISAAVX512BF16, false}, {ISAAVX512VNNI, ISAAMX, false},
		{ISAAVX512, ISAAVX512BF16, false}, {ISAAVX2, ISAAMX, false}, {ISANEONDot, ISAAMX, false},
	} {
		if got := c.cap.allows(c.set); got != c.want {
			t.Errorf("cap %s allows %s: %v, want %v", c.cap, c.set, got, c.want)
		}
	}
	all := func(ISA) bool { return true }
	if got := forDType("bf16", all); got != ISAAMX {
		t.Errorf("bf16 on a machine with everything: %s, want amx", got)
	}
	if got := forDType("bf16", func(s ISA) bool { return s != ISAAMX && s != ISAAVX512BF16 }); got != ISAAVX512 {
		t.Errorf("bf16 without the bf16 instructions: %s, want avx512 (widened)", got)
	}
	if got := forDType("u8s8", all); got != ISAAVX512VNNI {
		t.Errorf("u8s8's vector set: %s (AMX is chosen by cpu/gemm, not ForDType)", got)
	}
}
