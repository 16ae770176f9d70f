package kernel

import (
	"fmt"

	"github.com/sumacdev/sumac/num"
)

// MACParams are the integer parameters of a MAC call (those its form does not have are 0).
type MACParams struct {
	XStart, XOffs, XOffsHi, XStep, XSquare int64
	ZStart, ZOffs, ZOffsHi, ZStep, ZSquare int64
}

// MACSel is a decoded operand selection: for every lane and column, the index of the X
// element and of the Z element that are multiplied (indices in elements of the buffers'
// types). Decoding once and applying many times keeps the hot path free of bit fiddling.
type MACSel struct {
	Form        MACForm
	Lanes, Cols int
	X, Z        [16][8]uint8
}

func nib(word int64, i int) int { return int(uint64(word)>>(4*uint(i))) & 0xF }

func mod(a, n int) int {
	a %= n
	if a < 0 {
		a += n
	}
	return a
}

// DecodeMAC computes the operand selection of a MAC of form f with an X buffer of xLen
// elements and a Z buffer of zLen elements. The rules, and where each comes from:
//
// All forms (UG1079 "MAC Intrinsics"; intrinsics reference "Full Lane Addressing Scheme"):
// lane l reads x[xstart + xoffs(l)] and z[zstart + zoffs(l)], 4 bits of offset per lane
// (xoffsets: lanes 0-7, xoffsets_hi: lanes 8-15), the step parameter moves from one column
// (or block of columns) to the next, and an index past the end of a buffer wraps around
// ("Mod input_samples", UG1079 "Data Shuffle"). zstart is a constant of which only the low
// 4 bits count (of a 16-element Z buffer: 16-bit units for 8-bit Z).
//
// int16 X (mac16 16x2, mac8 8x4), UG1079 "MAC on 16x16 bits": permute granularity is 32 bits,
// xstart counts 16-bit elements and must be even. The offsets of lanes 2m and 2m+1 form a
// pair: the even lane's nibble is an absolute offset in 32-bit words, the odd lane's is
// relative, word(odd) = word(even) + nibble + 1 ("0x24 selects 8, 9 for the even row and 14,
// 15 for the odd row"). The two words give four 16-bit values v0 v1 (even lane's word) v2 v3
// (odd lane's word); xsquare then picks, lowest nibble first, the value for (even lane,
// column 0), (even, 1), (odd, 0), (odd, 1) ("0x2103 puts index 3, 0 in the even row and 1, 2
// in the odd row"; default 0x3210). mac8's columns 2-3 are a second such block xstep
// elements further ("the step applies to the next 2*2 block", UG1079 "MAC on 8x8 bits").
// int16 Z (v16int16): lane l column c reads z[zstart + zoffs(l) + c*zstep] (16-bit
// granularity, no pairing).
//
// 8-bit X (mac16 16x8), UG1079 "MAC on 8x8 bits": 32-bit permute granularity, xstart and
// xstep in bytes, multiples of 4. Lanes come in groups of four; group g uses the nibble pair
// (2g, 2g+1) with the same pair rule, selecting words Wa and Wb ("0x24 selects index 16-19
// as well as 28-31"). The two words are four 16-bit units u0 u1 (Wa) u2 u3 (Wb); xsquare
// picks a unit for each of (lanes 4g+0/1, column 0), (4g+0/1, 1), (4g+2/3, 0), (4g+2/3, 1),
// and of that unit an even lane takes the low byte and an odd lane the high byte. Columns
// 2k, 2k+1 are block k, k*xstep bytes further.
//
// 8-bit Z (v32int8/v32uint8): 16-bit permute granularity, zstart and zstep in bytes,
// multiples of 2. Group g uses the nibble pair (2g, 2g+1), each an absolute 16-bit unit
// (no pairing): bytes z0 z1 (first unit) z2 z3 (second); zsquare picks a byte for each of
// (even lane, column 0), (even, 1), (odd, 0), (odd, 1), and the 2x2 block is duplicated over
// the group's two lane pairs ("the 2*2 index block is duplicated to construct a 4*2 block").
// Block k of columns is k*zstep bytes further.
//
// The 8-bit rules are our reading of the UG1079 text and figures; they reproduce the worked
// examples in mac_test.go (an aie_api-style 4x8x8 mmul configuration and the 5x5
// convolution of onnx2versal's qlinearconv.cc, whose comments give the products per lane).
// The int16 mac8 rule reproduces mlir-aie's AIE1 8x8 IDCT kernel (idct_horizontal.cc), a
// row-by-coefficient product.
//
// int32 lmac8 and fp32 fpmac (8x1): lane l reads x[xstart + xoffs(l)] and
// z[zstart + zoffs(l)], 32-bit granularity, xoffsets covering all 8 lanes.
func DecodeMAC(f MACForm, xLen, zLen int, p MACParams, sel *MACSel) error {
	lanes, cols := f.Shape()
	sel.Form, sel.Lanes, sel.Cols = f, lanes, cols
	switch f {
	case Form16x16, Form16x16x4:
		if p.XStart%2 != 0 {
			return fmt.Errorf("xstart %d: must be even for 16-bit X data (32-bit permute granularity)", p.XStart)
		}
		if f == Form16x16x4 && p.XStep%2 != 0 {
			return fmt.Errorf("xstep %d: must be even for 16-bit X data (32-bit permute granularity)", p.XStep)
		}
		words := xLen / 2
		for l := 0; l < lanes; l++ {
			off := p.XOffs
			if l >= 8 {
				off = p.XOffsHi
			}
			even := l &^ 1
			ne, no := nib(off, even%8), nib(off, (even+1)%8)
			r := l & 1
			for c := 0; c < cols; c++ {
				k, cc := c/2, c%2
				base := int(p.XStart/2) + k*int(p.XStep/2)
				we := mod(base+ne, words)
				wo := mod(base+ne+no+1, words)
				v := [4]int{2 * we, 2*we + 1, 2 * wo, 2*wo + 1}
				sel.X[l][c] = uint8(v[nib(p.XSquare, 2*r+cc)&3])
			}
			zoff := p.ZOffs
			if l >= 8 && f == Form16x16 {
				zoff = p.ZOffsHi
			}
			for c := 0; c < cols; c++ {
				sel.Z[l][c] = uint8(mod(int(p.ZStart&0xF)+nib(zoff, l%8)+c*int(p.ZStep), zLen))
			}
		}
	case Form8x8:
		if p.XStart%4 != 0 || p.XStep%4 != 0 {
			return fmt.Errorf("xstart %d, xstep %d: must be multiples of 4 for 8-bit X data (32-bit permute granularity)", p.XStart, p.XStep)
		}
		if p.ZStart%2 != 0 || p.ZStep%2 != 0 {
			return fmt.Errorf("zstart %d, zstep %d: must be multiples of 2 for 8-bit Z data (16-bit permute granularity)", p.ZStart, p.ZStep)
		}
		words, zunits := xLen/4, zLen/2
		for l := 0; l < lanes; l++ {
			g, t := l/4, l%4
			ne, no := nib(p.XOffs, 2*g), nib(p.XOffs, 2*g+1)
			zne, zno := nib(p.ZOffs, 2*g), nib(p.ZOffs, 2*g+1)
			for c := 0; c < cols; c++ {
				k, cc := c/2, c%2
				base := int(p.XStart/4) + k*int(p.XStep/4)
				wa, wb := mod(base+ne, words), mod(base+ne+no+1, words)
				u := [4]int{2 * wa, 2*wa + 1, 2 * wb, 2*wb + 1}
				unit := u[nib(p.XSquare, 2*(t/2)+cc)&3]
				sel.X[l][c] = uint8(2*unit + t%2)

				zbase := int(p.ZStart/2&0xF) + k*int(p.ZStep/2)
				u0, u1 := mod(zbase+zne, zunits), mod(zbase+zno, zunits)
				zb := [4]int{2 * u0, 2*u0 + 1, 2 * u1, 2*u1 + 1}
				sel.Z[l][c] = uint8(zb[nib(p.ZSquare, 2*(t%2)+cc)&3])
			}
		}
	case Form32x32, FormFloat:
		for l := 0; l < lanes; l++ {
			sel.X[l][0] = uint8(mod(int(p.XStart)+nib(p.XOffs, l), xLen))
			sel.Z[l][0] = uint8(mod(int(p.ZStart&0xF)+nib(p.ZOffs, l), zLen))
		}
	case Form32x16:
		// lmac8's rule over 16 lanes: lane l reads x[xstart + xoffs(l)] (32-bit granularity)
		// and z[zstart + zoffs(l)] (16-bit), lanes 8-15 taking their nibbles from the _hi
		// words (our reading: UG1079 works no example of this form)
		for l := 0; l < lanes; l++ {
			xo, zo := p.XOffs, p.ZOffs
			if l >= 8 {
				xo, zo = p.XOffsHi, p.ZOffsHi
			}
			sel.X[l][0] = uint8(mod(int(p.XStart)+nib(xo, l%8), xLen))
			sel.Z[l][0] = uint8(mod(int(p.ZStart&0xF)+nib(zo, l%8), zLen))
		}
	default:
		return fmt.Errorf("no MAC form")
	}
	return nil
}

// MACKind is the variant of a MAC: mul (acc = products), mac (acc += products) or msc
// (acc -= products).
type MACKind uint8

const (
	Mul MACKind = iota
	Mac
	Msc
)

// KindOf returns the variant of a MAC op.
func KindOf(op Op) MACKind { return MACKind(op.MACFamily()) }

// AccBits is the lane width of the integer MAC forms' accumulators (UG1079 "Accumulator
// Registers": 48-bit lanes for 8/16-bit products, 80-bit for 32x32).
func (f MACForm) AccBits() int {
	if f == Form32x32 {
		return num.Acc80
	}
	return num.Acc48
}

// MACInt applies an integer MAC: for each lane, sum over columns of x*z, then out = sum,
// acc + sum or acc - sum wrapped to the lane width. x and z hold elements of types xe and ze;
// xLen and zLen bound the elements read. out may alias acc. It does not allocate.
func MACInt(kind MACKind, sel *MACSel, acc *AccVal, x *Vec, xe Elem, xLen int, z *Vec, ze Elem, zLen int, out *AccVal) {
	var sums [16]int64
	switch {
	case xe == Int16 && ze == Int16 && sel.Cols == 2:
		for l := 0; l < sel.Lanes; l++ {
			xi, zi := &sel.X[l], &sel.Z[l]
			sums[l] = i16At(x, xi[0])*i16At(z, zi[0]) + i16At(x, xi[1])*i16At(z, zi[1])
		}
	case xe == Int16 && ze == Int16:
		for l := 0; l < sel.Lanes; l++ {
			xi, zi := &sel.X[l], &sel.Z[l]
			var s int64
			for c := 0; c < sel.Cols; c++ {
				s += i16At(x, xi[c]) * i16At(z, zi[c])
			}
			sums[l] = s
		}
	case xe.Bits() == 8 && ze.Bits() == 8:
		// x and z bytes reinterpreted by signedness: int8 x int8 (the common case) gets its own loop
		switch xs, zs := xe.Signed(), ze.Signed(); {
		case xs && zs:
			for l := 0; l < sel.Lanes; l++ {
				xi, zi := &sel.X[l], &sel.Z[l]
				var s int64
				for c := 0; c < 8; c++ {
					s += int64(int8(x[xi[c]])) * int64(int8(z[zi[c]]))
				}
				sums[l] = s
			}
		case !xs && !zs:
			for l := 0; l < sel.Lanes; l++ {
				xi, zi := &sel.X[l], &sel.Z[l]
				var s int64
				for c := 0; c < 8; c++ {
					s += int64(x[xi[c]]) * int64(z[zi[c]])
				}
				sums[l] = s
			}
		default:
			for l := 0; l < sel.Lanes; l++ {
				xi, zi := &sel.X[l], &sel.Z[l]
				var s int64
				for c := 0; c < 8; c++ {
					s += byteVal(x[xi[c]], xs) * byteVal(z[zi[c]], zs)
				}
				sums[l] = s
			}
		}
	default:
		for l := 0; l < sel.Lanes; l++ {
			var s int64
			for c := 0; c < sel.Cols; c++ {
				s += x.Lane(xe, int(sel.X[l][c])) * z.Lane(ze, int(sel.Z[l][c]))
			}
			sums[l] = s
		}
	}
	width := sel.Form.AccBits()
	switch {
	case kind == Mac && width == num.Acc48:
		// A 48-bit lane is exact in an int64 (num.Acc keeps it sign-extended), so adding
		// in int64 and wrapping to 48 bits is num.Acc.Add without the 128-bit carry.
		for l := 0; l < sel.Lanes; l++ {
			out[l] = num.AccFrom(int64(acc[l].Lo) + sums[l]).Wrap(width)
		}
	default:
		for l := 0; l < sel.Lanes; l++ {
			switch kind {
			case Mul:
				out[l] = num.AccFrom(sums[l]).Wrap(width)
			case Mac:
				out[l] = acc[l].Add(num.AccFrom(sums[l]), width)
			case Msc:
				out[l] = acc[l].Sub(num.AccFrom(sums[l]), width)
			}
		}
	}
	for l := sel.Lanes; l < len(out); l++ {
		out[l] = num.Acc{}
	}
}

func i16At(v *Vec, i uint8) int64 {
	return int64(int16(uint16(v[2*int(i)]) | uint16(v[2*int(i)+1])<<8))
}

func byteVal(b byte, signed bool) int64 {
	if signed {
		return int64(int8(b))
	}
	return int64(b)
}

// MACFloat applies fpmul/fpmac/fpmsc on 8 float lanes: the product is rounded to float32,
// then added to (or, negated, to) the accumulator and rounded again - the FPMPY and FPACC
// units are separate pipeline stages (AM009 "Floating-Point Vector Unit"), so there is no
// fused rounding. fpmul's result is the rounded product. IEEE 754 binary32, round to nearest
// even; AM009 does not document denormal handling, sumac keeps IEEE gradual underflow.
func MACFloat(kind MACKind, sel *MACSel, acc *Vec, x *Vec, z *Vec, out *Vec) {
	var r [8]float32
	for l := 0; l < 8; l++ {
		p := float32(x.F32(int(sel.X[l][0])) * z.F32(int(sel.Z[l][0])))
		switch kind {
		case Mul:
			r[l] = p
		case Mac:
			r[l] = float32(acc.F32(l) + p)
		case Msc:
			r[l] = float32(acc.F32(l) - p)
		}
	}
	*out = Vec{}
	for l, f := range r {
		out.SetF32(l, f)
	}
}
