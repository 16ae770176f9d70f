// Package num defines the exact number formats that every sumac target is checked against:
// the AI Engine's wide fixed-point accumulator lanes and their shift-round-saturate narrowing,
// bf16 and the block floating-point format bfp16.
//
// These semantics are sumac's oracle. Where the public documentation is silent the choice is
// stated in a comment and in docs/numbers.md.
package num

import (
	"fmt"
	"math/bits"
)

// Acc is one accumulator lane: a two's-complement integer of Bits bits held in 128 bits.
// AIE1 accumulator lanes are 48 bits wide for 8- and 16-bit products and 80 bits wide for
// 32x32-bit products (UG1079 "Accumulator Registers"; AM009 "Register Files": a 384-bit aml
// register holds 8 x 48-bit lanes (v8acc48), a 768-bit bm register 16 x 48-bit lanes (v16acc48)
// or 8 x 80-bit lanes (v8acc80)).
// Arithmetic on an Acc wraps modulo 2^Bits: the hardware's accumulator adders do not saturate
// (saturation happens only when a value leaves the accumulator, in SRS).
type Acc struct {
	Hi int64  // high 64 bits, sign-extended from bit Bits-1
	Lo uint64 // low 64 bits
}

// Widths of the AIE1 accumulator lanes (UG1079 "Accumulator Registers"): acc48 for 8/16-bit
// operands, acc80 for 32x32-bit products.
const (
	Acc48 = 48
	Acc80 = 80
)

// AccFrom returns v as an accumulator value.
func AccFrom(v int64) Acc { return Acc{Hi: v >> 63, Lo: uint64(v)} }

// Add returns a+b wrapped to width bits.
func (a Acc) Add(b Acc, width int) Acc {
	lo, c := bits.Add64(a.Lo, b.Lo, 0)
	hi := a.Hi + b.Hi + int64(c)
	return Acc{hi, lo}.Wrap(width)
}

// Sub returns a-b wrapped to width bits.
func (a Acc) Sub(b Acc, width int) Acc {
	lo, br := bits.Sub64(a.Lo, b.Lo, 0)
	hi := a.Hi - b.Hi - int64(br)
	return Acc{hi, lo}.Wrap(width)
}

// MulAdd returns a + x*y wrapped to width bits (the MAC of one lane and one column).
func (a Acc) MulAdd(x, y int64, width int) Acc { return a.Add(Mul(x, y), width) }

// MulSub returns a - x*y wrapped to width bits (msc).
func (a Acc) MulSub(x, y int64, width int) Acc { return a.Sub(Mul(x, y), width) }

// Mul returns the full 128-bit product x*y.
func Mul(x, y int64) Acc {
	neg := (x < 0) != (y < 0)
	ux, uy := abs64(x), abs64(y)
	hi, lo := bits.Mul64(ux, uy)
	r := Acc{int64(hi), lo}
	if neg {
		r = r.neg()
	}
	return r
}

func abs64(x int64) uint64 {
	if x < 0 {
		return uint64(-x) // -MinInt64 wraps to 1<<63, the right magnitude as uint64
	}
	return uint64(x)
}

func (a Acc) neg() Acc {
	lo, br := bits.Sub64(0, a.Lo, 0)
	return Acc{-a.Hi - int64(br), lo}
}

// Wrap reduces a to a two's-complement value of width bits (1..128), sign-extended.
func (a Acc) Wrap(width int) Acc {
	switch {
	case width >= 128:
		return a
	case width > 64:
		s := uint(128 - width)
		return Acc{Hi: (a.Hi << s) >> s, Lo: a.Lo}
	case width == 64:
		return Acc{Hi: int64(a.Lo) >> 63, Lo: a.Lo}
	default:
		s := uint(64 - width)
		v := int64(a.Lo<<s) >> s
		return AccFrom(v)
	}
}

// IsInt64 reports whether a fits in an int64.
func (a Acc) IsInt64() bool { return a.Hi == int64(a.Lo)>>63 }

// Int64 returns the low 64 bits as an int64 (exact when IsInt64).
func (a Acc) Int64() int64 { return int64(a.Lo) }

// Cmp compares a and b as signed 128-bit integers.
func (a Acc) Cmp(b Acc) int {
	switch {
	case a.Hi < b.Hi:
		return -1
	case a.Hi > b.Hi:
		return 1
	case a.Lo < b.Lo:
		return -1
	case a.Lo > b.Lo:
		return 1
	}
	return 0
}

// Sign returns -1, 0 or 1.
func (a Acc) Sign() int {
	switch {
	case a.Hi < 0:
		return -1
	case a.Hi == 0 && a.Lo == 0:
		return 0
	}
	return 1
}

// shr is an arithmetic shift right by s (0..127).
func (a Acc) shr(s uint) Acc {
	switch {
	case s == 0:
		return a
	case s < 64:
		return Acc{Hi: a.Hi >> s, Lo: a.Lo>>s | uint64(a.Hi)<<(64-s)}
	default:
		return Acc{Hi: a.Hi >> 63, Lo: uint64(a.Hi >> (s - 64))}
	}
}

// lowBits returns a mod 2^s as an unsigned value compared against the half point; s in 1..64.
func (a Acc) fraction(s uint) (frac uint64, half uint64, more bool) {
	if s > 64 {
		s = 64 // shifts above 64 never occur on AIE (shift field is 6 bits); see SRS
	}
	mask := uint64(1)<<s - 1
	if s == 64 {
		mask = ^uint64(0)
	}
	frac = a.Lo & mask
	half = uint64(1) << (s - 1)
	return frac, half, frac != 0
}

func (a Acc) String() string {
	if a.IsInt64() {
		return fmt.Sprint(a.Int64())
	}
	return fmt.Sprintf("0x%016x%016x", uint64(a.Hi), a.Lo)
}
