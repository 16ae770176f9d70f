package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/sumacdev/sumac/num"
)

// The functions below are the exact semantics of the non-MAC vector ops. They take and
// fill fixed-size values and never allocate, so the interpreter and the cycle simulator can
// call them on their hot paths. Types are checked beforehand (ResultType); the functions
// trust their arguments' shapes.

// Upd returns buf with its part number idx (partBits wide) replaced by part: upd_v, upd_w,
// upd_x (UG1079 "Update, Extract, and Shift": the index counts parts of that width from the
// low end). bufBytes is the width of buf.
func Upd(buf *Vec, bufBytes, partBits, idx int, part *Vec, out *Vec) error {
	pb := partBits / 8
	if idx < 0 || (idx+1)*pb > bufBytes {
		return fmt.Errorf("part index %d out of range for a %d-bit vector and %d-bit parts", idx, bufBytes*8, partBits)
	}
	if out != buf {
		*out = *buf
	}
	copy(out[idx*pb:(idx+1)*pb], part[:pb])
	return nil
}

// Ext extracts part number idx (partBits wide) of buf: ext_v, ext_w, ext_x.
func Ext(buf *Vec, bufBytes, partBits, idx int, out *Vec) error {
	pb := partBits / 8
	if idx < 0 || (idx+1)*pb > bufBytes {
		return fmt.Errorf("part index %d out of range for a %d-bit vector and %d-bit parts", idx, bufBytes*8, partBits)
	}
	var r Vec
	copy(r[:pb], buf[idx*pb:(idx+1)*pb])
	*out = r
	return nil
}

// Concat joins parts of partBytes each, the first in the low bytes: concat(a, b[, c, d]).
func Concat(out *Vec, partBytes int, parts ...*Vec) {
	var r Vec
	for i, p := range parts {
		copy(r[i*partBytes:(i+1)*partBytes], p[:partBytes])
	}
	*out = r
}

// ConcatAcc joins accumulators of lanes each, the first in the low lanes.
func ConcatAcc(out *AccVal, lanes int, parts ...*AccVal) {
	var r AccVal
	for i, p := range parts {
		copy(r[i*lanes:(i+1)*lanes], p[:lanes])
	}
	*out = r
}

// SRS narrows lanes of acc to elements of type e: shift right by shift, round with round,
// saturate with sat (num.SRS; UG1079 "Shift-Round-Saturate"). It returns the number of lanes
// whose value saturation changed.
func SRS(acc *AccVal, lanes int, shift int, e Elem, round num.Round, sat num.Sat, out *Vec) (saturated int) {
	if shift < 0 || shift > num.MaxShift {
		shift &= num.MaxShift // the shift-control register holds 6 bits
	}
	n := num.Narrow{Bits: e.Bits(), Unsigned: !e.Signed(), Shift: uint(shift), Round: round, Sat: sat}
	var r Vec
	var v [len(AccVal{})]int64
	// no shift and a clamping saturation: a lane within int64's range is clamped (num.SRS's
	// result, without its rounding and mode dispatch)
	clamp := shift == 0 && sat != num.None && n.Bits <= 32
	lo, hi := n.Range()
	for l := 0; l < lanes; l++ {
		if a := acc[l]; clamp && a.Hi == int64(a.Lo)>>63 {
			x := int64(a.Lo)
			switch {
			case x < lo:
				x = lo
				saturated++
			case x > hi:
				x = hi
				saturated++
			}
			v[l] = x
			continue
		}
		x, s := num.SRS(acc[l], n)
		if s {
			saturated++
		}
		v[l] = x
	}
	switch e.Bits() {
	case 8:
		for l := 0; l < lanes; l++ {
			r.SetI8(l, v[l])
		}
	default:
		for l := 0; l < lanes; l++ {
			r.SetLane(e, l, v[l])
		}
	}
	*out = r
	return saturated
}

// UPS moves lanes of v (element type e) into an accumulator of lane width accBits, shifted
// left by shift (UG1079 "Update, Extract, and Shift": the upshift path; AM009 "Register Move
// Functionality"). The result wraps at the lane width.
func UPS(v *Vec, e Elem, lanes int, shift int, accBits int, out *AccVal) {
	if shift < 0 || shift > num.MaxShift {
		shift &= num.MaxShift
	}
	var r AccVal
	for l := 0; l < lanes; l++ {
		a := num.AccFrom(v.Lane(e, l))
		for s := 0; s < shift; s++ { // a << shift without overflow: at most 63 doublings of a 128-bit value
			a = a.Add(a, 128)
		}
		r[l] = a.Wrap(accBits)
	}
	*out = r
}

// VAdd adds (sub: subtracts) two vectors lane by lane, wrapping to the element width
// (operator+ / operator- on vectors, "lane by lane addition" in the intrinsics reference,
// group intr_gpvectorop_arit; no saturation is documented). Float lanes add in float32.
func VAdd(sub bool, e Elem, lanes int, a, b *Vec, out *Vec) {
	var r Vec
	// Integer lanes wrap at their width, so signed and unsigned add alike: one loop per width.
	switch {
	case e == Float32:
	case e.Bits() == 8 && lanes <= 128:
		for l := 0; l < lanes; l++ {
			if sub {
				r[l] = a[l] - b[l]
			} else {
				r[l] = a[l] + b[l]
			}
		}
		*out = r
		return
	case e.Bits() == 16 && lanes <= 64:
		for l := 0; l < lanes; l++ {
			x, y := binary.LittleEndian.Uint16(a[2*l:]), binary.LittleEndian.Uint16(b[2*l:])
			if sub {
				y = -y
			}
			binary.LittleEndian.PutUint16(r[2*l:], x+y)
		}
		*out = r
		return
	case e.Bits() == 32 && lanes <= 32:
		for l := 0; l < lanes; l++ {
			x, y := binary.LittleEndian.Uint32(a[4*l:]), binary.LittleEndian.Uint32(b[4*l:])
			if sub {
				y = -y
			}
			binary.LittleEndian.PutUint32(r[4*l:], x+y)
		}
		*out = r
		return
	}
	for l := 0; l < lanes; l++ {
		if e == Float32 {
			x, y := a.F32(l), b.F32(l)
			if sub {
				y = -y
			}
			r.SetF32(l, float32(x+y))
			continue
		}
		x, y := a.Lane(e, l), b.Lane(e, l)
		if sub {
			y = -y
		}
		r.SetLane(e, l, x+y)
	}
	*out = r
}

// AccAdd adds (sub: subtracts) two accumulators lane by lane, wrapping at width.
func AccAdd(sub bool, lanes, width int, a, b *AccVal, out *AccVal) {
	var r AccVal
	for l := 0; l < lanes; l++ {
		if sub {
			r[l] = a[l].Sub(b[l], width)
		} else {
			r[l] = a[l].Add(b[l], width)
		}
	}
	*out = r
}

// AccAddVec adds (sub: subtracts) vector lanes to accumulator lanes: operator+(v16acc48,
// v16int16) and friends (intrinsics reference, group intr_gpvectorop_arit).
func AccAddVec(sub bool, lanes, width int, a *AccVal, v *Vec, e Elem, out *AccVal) {
	var r AccVal
	for l := 0; l < lanes; l++ {
		x := num.AccFrom(v.Lane(e, l))
		if sub {
			r[l] = a[l].Sub(x, width)
		} else {
			r[l] = a[l].Add(x, width)
		}
	}
	*out = r
}

// FPLane applies fpadd, fpsub, fpmax or fpmin: lane i of the result is op(acc[i],
// x[xstart + xoffs(i)]), the X index taken modulo the buffer's xLen lanes (intrinsics
// reference, "Advanced Float Vector Arithmetic Operations": ret[i] = acc[i] + xbuf[xstart +
// xoffs[i]]; "Float vector max/min"). Sums round to float32 once; max and min take acc[i] when
// neither compares greater (acc[i] > x ? acc[i] : x for max).
func FPLane(op Op, acc *Vec, x *Vec, xLen int, xstart, xoffs int64, out *Vec) {
	var r [8]float32
	for l := 0; l < 8; l++ {
		a := acc.F32(l)
		b := x.F32(mod(int(xstart)+nib(xoffs, l), xLen))
		switch op {
		case OpFPAdd:
			r[l] = a + b
		case OpFPSub:
			r[l] = a - b
		case OpFPMax:
			if b > a {
				a = b
			}
			r[l] = a
		case OpFPMin:
			if b < a {
				a = b
			}
			r[l] = a
		}
	}
	*out = Vec{}
	for l, f := range r {
		out.SetF32(l, f)
	}
}

// VMaxMin is the element-wise maximum (min: minimum) of two vectors of element type e
// (aie::max / aie::min; for float lanes a > b ? a : b, as FPLane).
func VMaxMin(min bool, e Elem, lanes int, a, b *Vec, out *Vec) {
	var r Vec
	for l := 0; l < lanes; l++ {
		if e == Float32 {
			x, y := a.F32(l), b.F32(l)
			if min && y < x || !min && y > x {
				x = y
			}
			r.SetF32(l, x)
			continue
		}
		x, y := a.Lane(e, l), b.Lane(e, l)
		if min && y < x || !min && y > x {
			x = y
		}
		r.SetLane(e, l, x)
	}
	*out = r
}

// Broadcast fills lanes of element type e with the scalar v (an integer, or float bits).
func Broadcast(e Elem, lanes int, v int64, out *Vec) {
	var r Vec
	for l := 0; l < lanes; l++ {
		r.SetLane(e, l, v)
	}
	*out = r
}
