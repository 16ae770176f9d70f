package num

import (
	"fmt"
	"math"
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
