package num

import (
	"math"
	"math/rand/v2"
	"testing"
)

// helperFloatToBfp16 is a line-by-line Go transcription of mlir-aie's
// programming_examples/ml/block_datatypes/helper.h floatToBfp16 for one block of 8 finite
// values (block = 8, mbits = 7), returning its 9-byte image: the test oracle for
// BFP16FromFloat32Trunc, written in the helper's own bit operations rather than arithmetic.
func helperFloatToBfp16(a [8]float32) [9]byte {
	var res [9]byte
	maxExp := uint32(0)
	for _, v := range a {
		p := math.Float32bits(v)
		exp := p >> 23 & 0xFF
		if maxExp < exp {
			maxExp = exp
		}
	}
	for i, v := range a {
		p := math.Float32bits(v)
		sign := p & 0x80000000
		exp := p >> 23 & 0xFF
		mantissa := p & 0x007FFFFF
		if exp != 0 {
			mantissa |= 0x00800000
		}
		if sign != 0 {
			mantissa = ^mantissa + 1
		}
		valueInt8 := uint8(mantissa >> (23 - 7 + 1))
		if maxExp-exp >= 32 {
			if sign != 0 {
				valueInt8 = 0xff
			} else {
				valueInt8 = 0
			}
		} else {
			valueInt8 = uint8(int8(valueInt8) >> (maxExp - exp))
		}
		res[1+i] = valueInt8
	}
	res[0] = uint8(maxExp)
	return res
}

// helperBfp16ebs8ToFloat transcribes helper.h bfp16ebs8ToFloat for one block (exponents
// below 127+31, where its integer shifts are defined).
func helperBfp16ebs8ToFloat(b [9]byte) [8]float32 {
	var out [8]float32
	shared := b[0]
	var mult float32
	if shared >= 127 {
		mult = 1.0 * float32(uint64(1)<<(shared-127))
	} else {
		mult = 1.0 / float32(uint64(1)<<(127-shared))
	}
	mult /= 64.0
	for j := 1; j < 9; j++ {
		negative := b[j]&0x80 != 0
		var r float32
		if negative {
			decoded := ^(b[j] - 1)
			r = float32(decoded) * mult
		} else {
			r = float32(b[j]) * mult
		}
		if negative {
			r = -r
		}
		out[j-1] = r
	}
	return out
}

func image(b BFP16) [9]byte {
	var img [9]byte
	copy(img[:], b.AppendBytes(nil))
	return img
}

func TestBFP16TruncEdgeCases(t *testing.T) {
	f := math.Float32frombits
	cases := []struct {
		name string
		in   [8]float32
		exp  uint8
		man  [8]int8
	}{
		{"all zero", [8]float32{}, 0, [8]int8{}},
		{"negative zeros", [8]float32{float32(math.Copysign(0, -1))}, 0, [8]int8{}},
		// largest finite exponent: 0x7f7fffff = (2 - 2^-23) * 2^127 -> 127 at X = 254.
		{"largest exponent", [8]float32{f(0x7f7fffff), -f(0x7f7fffff), 0x1p127, 0x1p126}, 254, [8]int8{127, -128, 64, 32}},
		// negatives floor: -1 -> -64 exactly; -1.99 -> -128 (floor of -127.36); -0.3 at X=127
		// -> floor(-19.2) = -20; 1.99 -> 127 (floor of 127.36).
		{"negatives", [8]float32{-1, -1.99, -0.3, 1.99, 0.3}, 127, [8]int8{-64, -128, -20, 127, 19}},
		// ties: 0x1p-7 is half a step at X = 127 (step 2^-6): truncation gives 0 (RNE: 0,
		// even); 3 * 0x1p-7 = 1.5 steps -> 1 (RNE: 2); -0x1p-7 -> floor(-0.5) = -1.
		{"ties", [8]float32{1, 0x1p-7, 3 * 0x1p-7, -0x1p-7, -3 * 0x1p-7}, 127, [8]int8{64, 0, 1, -1, -2}},
		// a value 32+ exponents below the block maximum: 0 if positive, -1 if negative.
		{"far below", [8]float32{1, 0x1p-40, -0x1p-40}, 127, [8]int8{64, 0, -1}},
		// subnormal: the helper shifts by X (not X-1): 2^-127 (field 0, significand 2^22) at
		// X = 1 -> (2^22 >> 17) >> 1 = 16.
		{"subnormal", [8]float32{0x1p-126, 0x1p-127}, 1, [8]int8{64, 16}},
	}
	for _, c := range cases {
		b := BFP16FromFloat32Trunc(c.in)
		if b.Exp != c.exp || b.Man != c.man {
			t.Errorf("%s: got X=%d %v, want X=%d %v", c.name, b.Exp, b.Man, c.exp, c.man)
		}
		if img := image(b); img != helperFloatToBfp16(c.in) {
			t.Errorf("%s: image %v, helper %v", c.name, img, helperFloatToBfp16(c.in))
		}
	}
	// NaN and Inf blocks become NaN blocks.
	if b := BFP16FromFloat32Trunc([8]float32{1, float32(math.Inf(1))}); b.Exp != 0xFF || !math.IsNaN(float64(b.Float32s()[0])) {
		t.Fatal("Inf block not NaN")
	}
	// Ties under the other rounding: RNE keeps the even neighbour.
	if b := BFP16Convert([8]float32{1, 3 * 0x1p-7}, BFP16NearestEven); b.Man[1] != 2 {
		t.Fatalf("RNE tie 1.5 steps -> %d, want 2", b.Man[1])
	}
}

// TestBFP16TruncMatchesHelper: random blocks with mixed exponents, signs and special
// magnitudes convert to the helper's bytes, decode to the helper's values, and the
// truncation error is below one step (floor).
func TestBFP16TruncMatchesHelper(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 2))
	for i := 0; i < 20000; i++ {
		var v [8]float32
		for j := range v {
			switch rng.IntN(10) {
			case 0:
				v[j] = 0
			case 1:
				v[j] = math.Float32frombits(rng.Uint32() & 0x807FFFFF) // subnormal or zero
			default:
				e := rng.IntN(60) - 30
				if i%7 == 0 {
					e = rng.IntN(250) - 125
				}
				v[j] = float32(math.Ldexp(rng.Float64()*2-1, e))
			}
		}
		b := BFP16FromFloat32Trunc(v)
		img := image(b)
		if img != helperFloatToBfp16(v) {
			t.Fatalf("%v: %v, helper %v", v, img, helperFloatToBfp16(v))
		}
		if b.Exp < 127+31 && b.Exp > 127-31 { // the helper's int shifts are defined there
			if got, want := b.Float32s(), helperBfp16ebs8ToFloat(img); got != want {
				t.Fatalf("decode %v: %v, helper %v", img, got, want)
			}
		}
		step := math.Ldexp(1, int(b.Exp)-133)
		d := b.Float32s()
		for j := range v {
			if math.Float32bits(v[j])>>23&0xFF == 0 {
				continue // subnormal quirk, checked above
			}
			if diff := float64(v[j]) - float64(d[j]); diff < 0 || diff > step { // < step exactly; float64 rounding can reach it
				t.Fatalf("%v element %d: decoded %g, floor error %g not in [0, %g]", v, j, d[j], diff, step)
			}
		}
	}
}

func TestFP32Sum(t *testing.T) {
	// Exact sum then one rounding: 1 + 2^-24 + 2^-24 = 1 + 2^-23 exactly (sequential fp32
	// addition would give 1).
	if got := FP32Sum(1, []float64{0x1p-24, 0x1p-24}); got != 1+0x1p-23 {
		t.Fatalf("got %v", got)
	}
	// A tie rounds to even: 1 + 2^-24 -> 1; (1 + 2^-23) + 2^-24 -> 1 + 2^-22.
	if FP32Sum(1, []float64{0x1p-24}) != 1 || FP32Sum(1+0x1p-23, []float64{0x1p-24}) != 1+0x1p-22 {
		t.Fatal("ties to even")
	}
	// Terms float64 cannot add exactly take the exact path: 1 + 2^-60 - 1 = 2^-60.
	if got := FP32Sum(1, []float64{0x1p-60, -1}); got != 0x1p-60 {
		t.Fatalf("inexact float64 path: %v", got)
	}
	// Cancellation is exact before rounding.
	if got := FP32Sum(0x1p30, []float64{-0x1p30, 0x1p-40}); got != 0x1p-40 {
		t.Fatalf("cancellation: %v", got)
	}
	// Subnormal results and inputs flush to zero.
	if got := FP32Sum(0, []float64{0x1p-130}); got != 0 {
		t.Fatalf("subnormal result %v", got)
	}
	if got := FP32Sum(math.Float32frombits(1), []float64{0}); got != 0 {
		t.Fatalf("subnormal acc %v", got)
	}
	if got := FP32Sum(float32(math.Copysign(0, -1)), []float64{math.Copysign(0, -1)}); !math.Signbit(float64(got)) {
		t.Fatal("-0 + -0 is -0")
	}
	if got := FP32Sum(1, []float64{math.Inf(1)}); !math.IsInf(float64(got), 1) {
		t.Fatal("inf")
	}
	// Random: matches a float64 sum when that is exact (small integer-valued terms).
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		acc := float32(rng.IntN(1<<20) - 1<<19)
		var terms []float64
		s := float64(acc)
		for j := 0; j < 8; j++ {
			v := float64(rng.IntN(1<<14) - 1<<13)
			terms = append(terms, v)
			s += v
		}
		if got := FP32Sum(acc, terms); got != float32(s) {
			t.Fatalf("%v + %v = %v, want %v", acc, terms, got, float32(s))
		}
	}
}
