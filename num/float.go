package num

import (
	"fmt"
	"math"
	"math/big"
)

// BF16 is a bfloat16: the top 16 bits of an IEEE-754 binary32 (1 sign, 8 exponent, 7 fraction bits).
type BF16 uint16

// ToBF16 rounds f to the nearest bf16, ties to even (the conversion the AI Engine API uses for
// float -> bfloat16, UG1529 "Floating-point Conversion": rounding_mode::conv_even). NaN stays a
// quiet NaN with its sign; infinities and overflow to infinity follow IEEE-754.
func ToBF16(f float32) BF16 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 && b&0x007fffff != 0 { // NaN: keep sign, force quiet bit
		return BF16(b>>16 | 0x0040)
	}
	lsb := (b >> 16) & 1
	b += 0x7fff + lsb // round half to even on the 16 dropped bits
	return BF16(b >> 16)
}

// Float32 widens h exactly.
func (h BF16) Float32() float32 { return math.Float32frombits(uint32(h) << 16) }

func (h BF16) String() string { return fmt.Sprint(h.Float32()) }

// BFP16 block format ("bfp16ebs8": 8-bit shared exponent, block size 8).
//
// AMD documents only the outline (aie_api type bfp16ebs8; seed 002: an 8x8 tile is 8 blocks
// = 72 bytes). sumac fills in the rest following the OCP Microscaling (MX) v1.0 MXINT8 element
// definition, with the block size 8 instead of 32:
//   - the shared exponent X is an E8M0 byte: scale 2^(X-127); 0xFF is NaN;
//   - each element is an 8-bit two's-complement integer m with 6 fraction bits: value
//     2^(X-127) * m / 64;
//   - memory order of a block: the exponent byte, then the 8 elements (9 bytes).
//
// Quantization (FromFloat32): X = floor(log2(max |x|)) + 127 clamped to [0, 254]; elements
// are x / 2^(X-127-6) rounded to nearest even and saturated to [-127, 127] (symmetric, as MX
// permits, so negation is exact). A block of zeros has X = 0.
const (
	BFP16Block     = 8 // values per block
	BFP16BlockSize = 9 // bytes per block: exponent + 8 mantissas
	bfpFracBits    = 6
	bfpNaNExp      = 0xFF
)

// BFP16 is one block: a shared exponent and 8 signed mantissas.
type BFP16 struct {
	Exp uint8
	Man [BFP16Block]int8
}

// BFP16FromFloat32 quantizes 8 values into one block.
func BFP16FromFloat32(x [BFP16Block]float32) BFP16 {
	var blk BFP16
	maxAbs := 0.0
	for _, v := range x {
		a := math.Abs(float64(v))
		if math.IsNaN(a) {
			blk.Exp = bfpNaNExp
			return blk
		}
		maxAbs = math.Max(maxAbs, a)
	}
	if maxAbs == 0 {
		return blk
	}
	e := 0
	if !math.IsInf(maxAbs, 0) {
		_, e = math.Frexp(maxAbs) // maxAbs = f * 2^e, f in [0.5,1): floor(log2) = e-1
		e--
	} else {
		e = 127
	}
	x8 := e + 127
	if x8 < 0 {
		x8 = 0
	}
	if x8 > 254 {
		x8 = 254
	}
	blk.Exp = uint8(x8)
	scale := math.Ldexp(1, x8-127-bfpFracBits)
	for i, v := range x {
		q := math.RoundToEven(float64(v) / scale)
		blk.Man[i] = int8(math.Max(-127, math.Min(127, q)))
	}
	return blk
}

// Float32s returns the 8 values the block represents (exact in float32: 8-bit mantissas).
func (b BFP16) Float32s() [BFP16Block]float32 {
	var out [BFP16Block]float32
	if b.Exp == bfpNaNExp {
		for i := range out {
			out[i] = float32(math.NaN())
		}
		return out
	}
	for i, m := range b.Man {
		out[i] = float32(math.Ldexp(float64(m), int(b.Exp)-127-bfpFracBits))
	}
	return out
}

// Dot returns the exact dot product of two blocks as a float64 (an integer sum of 8
// products of 8-bit values times a power of two: at most 17 significant bits, always exact).
func (b BFP16) Dot(c BFP16) float64 {
	if b.Exp == bfpNaNExp || c.Exp == bfpNaNExp {
		return math.NaN()
	}
	s := 0
	for i := range b.Man {
		s += int(b.Man[i]) * int(c.Man[i])
	}
	return math.Ldexp(float64(s), int(b.Exp)+int(c.Exp)-2*127-2*bfpFracBits)
}

// AppendBytes appends the 9-byte memory image of the block.
func (b BFP16) AppendBytes(dst []byte) []byte {
	dst = append(dst, b.Exp)
	for _, m := range b.Man {
		dst = append(dst, byte(m))
	}
	return dst
}

// BFP16FromBytes decodes one block from its 9-byte memory image.
func BFP16FromBytes(p []byte) (BFP16, error) {
	var b BFP16
	if len(p) < BFP16BlockSize {
		return b, fmt.Errorf("bfp16 block needs %d bytes, have %d", BFP16BlockSize, len(p))
	}
	b.Exp = p[0]
	for i := range b.Man {
		b.Man[i] = int8(p[1+i])
	}
	return b, nil
}

// BFP16Rounding selects how FromFloat32 turns element values into 8-bit mantissas.
type BFP16Rounding int

const (
	// BFP16NearestEven rounds to nearest, ties to even, and saturates to [-127, 127]
	// (BFP16FromFloat32, the MX-style quantizer above).
	BFP16NearestEven BFP16Rounding = iota
	// BFP16Truncate is the conversion the AMD tool chain documents (mlir-aie
	// programming_examples/ml/block_datatypes/helper.h floatToBfp16, "the rounding mode for
	// the mantissa in AIE2p is always truncation"): the shared exponent is the largest biased
	// fp32 exponent field in the block, and each mantissa is the two's-complement fixed-point
	// value floor(x / 2^(X-133)), computed by shifting the 24-bit significand (implicit bit
	// included) right and keeping 8 bits. Range [-128, 127]. See BFP16FromFloat32Trunc.
	BFP16Truncate
)

// BFP16Convert quantizes 8 values with the chosen rounding.
func BFP16Convert(x [BFP16Block]float32, r BFP16Rounding) BFP16 {
	if r == BFP16Truncate {
		return BFP16FromFloat32Trunc(x)
	}
	return BFP16FromFloat32(x)
}

// BFP16FromFloat32Trunc quantizes 8 values the way mlir-aie's helper floatToBfp16 does:
//
//   - X = max over the block of the biased exponent field (bits 30..23) of each fp32 value;
//     an all-zero block gets X = 0;
//   - each element's mantissa is floor(s / 2^(17 + X - e)) as an 8-bit two's-complement
//     number, where e is the element's exponent field and s its signed 24-bit significand
//     (with the implicit bit when e > 0): for a normal value this is floor(x / 2^(X-133));
//     shifts of 32 or more give -1 for negative and 0 for non-negative values, as the helper's
//     special case does;
//   - a subnormal element (e = 0) is shifted by X rather than X-1, exactly as the helper does
//     (it halves subnormals relative to their value; the hardware flushes subnormals, AM020).
//
// The helper leaves Inf and NaN elements unconverted (and misplaces the following bytes);
// here a block holding any Inf or NaN becomes a NaN block (X = 0xFF), the MX convention.
func BFP16FromFloat32Trunc(x [BFP16Block]float32) BFP16 {
	var blk BFP16
	maxE := uint32(0)
	for _, v := range x {
		e := math.Float32bits(v) >> 23 & 0xFF
		if e == 0xFF {
			blk.Exp = bfpNaNExp
			return blk
		}
		maxE = max(maxE, e)
	}
	blk.Exp = uint8(maxE)
	for i, v := range x {
		b := math.Float32bits(v)
		e := b >> 23 & 0xFF
		sig := int64(b & 0x7FFFFF)
		if e != 0 {
			sig |= 1 << 23
		}
		if b>>31 != 0 {
			sig = -sig
		}
		sh := 17 + int64(maxE-e)
		var m int64
		if maxE-e >= 32 {
			m = 0
			if sig < 0 {
				m = -1
			}
		} else {
			m = sig >> uint(sh) // arithmetic shift: floor
		}
		blk.Man[i] = int8(m) // |sig| < 2^24, shift >= 17: m in [-128, 127]
	}
	return blk
}

// FP32Sum returns acc plus the exact sum of terms rounded once to fp32, ties to even, with
// subnormal inputs and results flushed to zero (signed zero kept): the model sumac uses for
// one lane of a VMAC.F. The hardware's reduction order and rounding points are not published
// (AM020 "Floating-Point Vector Unit" says only that products feed an fp32 adder and that
// denormals are not supported); a single rounding of the exact sum is the most accurate
// reading and the one the tests pin. Terms must be exact (products of bf16 or bfp16 values
// are: at most 16 and 14 significant bits). Inf and NaN follow IEEE-754.
func FP32Sum(acc float32, terms []float64) float32 {
	a := float64(ftz32(acc))
	nonFinite := math.IsInf(a, 0) || math.IsNaN(a)
	for _, t := range terms {
		if math.IsInf(t, 0) || math.IsNaN(t) {
			nonFinite = true
		}
	}
	if nonFinite {
		s := a
		for _, t := range terms {
			s += t
		}
		return float32(s)
	}
	// fast path: float64 additions that are all exact (TwoSum error zero) leave the exact sum
	// in s, and float32(s) rounds it once
	s, exact := a, true
	for _, v := range terms {
		r := s + v
		bv := r - s
		if (s-(r-bv))+(v-bv) != 0 {
			exact = false
			break
		}
		s = r
	}
	if exact && s != 0 {
		return ftz32(float32(s))
	}
	var sum big.Float
	sum.SetPrec(2200) // wider than the float64 exponent range: every sum below is exact
	sum.SetFloat64(a)
	var t big.Float
	t.SetPrec(2200)
	for _, v := range terms {
		t.SetFloat64(v)
		sum.Add(&sum, &t)
	}
	if sum.Sign() == 0 {
		// an exact zero sum is +0 unless every addend was -0 (round to nearest, IEEE 754 6.3)
		neg := math.Signbit(a)
		for _, v := range terms {
			neg = neg && (v == 0 && math.Signbit(v))
		}
		if neg {
			return float32(math.Copysign(0, -1))
		}
		return 0
	}
	f, _ := sum.Float32() // nearest, ties to even
	return ftz32(f)
}

// ftz32 flushes an fp32 subnormal to a zero of the same sign.
func ftz32(f float32) float32 {
	if f != 0 && math.Abs(float64(f)) < 0x1p-126 {
		return float32(math.Copysign(0, float64(f)))
	}
	return f
}
