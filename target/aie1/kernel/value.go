package kernel

import (
	"encoding/binary"
	"math"

	"github.com/sumacdev/sumac/num"
)

// Vec is the value of a vector: up to 1024 bits, lanes stored little-endian from byte 0
// (AIE data memory is little endian, UG1079 "AI Engine Memory", and a vector register holds
// lane 0 in its low bits). Lanes beyond the type's width are ignored and kept zero.
type Vec [128]byte

// AccVal is the value of an accumulator: up to 16 lanes of 48 or 80 bits (num.Acc wraps
// them at the lane width).
type AccVal [16]num.Acc

// Lane accessors. i is a lane index; callers guarantee it is in range.
func (v *Vec) I8(i int) int64    { return int64(int8(v[i])) }
func (v *Vec) U8(i int) int64    { return int64(v[i]) }
func (v *Vec) I16(i int) int64   { return int64(int16(binary.LittleEndian.Uint16(v[2*i:]))) }
func (v *Vec) U16(i int) int64   { return int64(binary.LittleEndian.Uint16(v[2*i:])) }
func (v *Vec) I32(i int) int64   { return int64(int32(binary.LittleEndian.Uint32(v[4*i:]))) }
func (v *Vec) U32(i int) int64   { return int64(binary.LittleEndian.Uint32(v[4*i:])) }
func (v *Vec) F32(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(v[4*i:])) }

func (v *Vec) SetI8(i int, x int64)    { v[i] = byte(x) }
func (v *Vec) SetI16(i int, x int64)   { binary.LittleEndian.PutUint16(v[2*i:], uint16(x)) }
func (v *Vec) SetI32(i int, x int64)   { binary.LittleEndian.PutUint32(v[4*i:], uint32(x)) }
func (v *Vec) SetF32(i int, f float32) { binary.LittleEndian.PutUint32(v[4*i:], math.Float32bits(f)) }

// Lane returns lane i of a vector of element type e as an integer (floats: their bits).
func (v *Vec) Lane(e Elem, i int) int64 {
	switch e {
	case Int8:
		return v.I8(i)
	case UInt8:
		return v.U8(i)
	case Int16:
		return v.I16(i)
	case UInt16:
		return v.U16(i)
	case Int32:
		return v.I32(i)
	case UInt32, Float32:
		return v.U32(i)
	}
	return 0
}

// SetLane stores x (wrapped to the element width) in lane i.
func (v *Vec) SetLane(e Elem, i int, x int64) {
	switch e.Bits() {
	case 8:
		v.SetI8(i, x)
	case 16:
		v.SetI16(i, x)
	case 32:
		v.SetI32(i, x)
	}
}

// Wrap converts an integer to element type e as C does on assignment (keep the low bits,
// reinterpret); floats are not handled here.
func (e Elem) Wrap(x int64) int64 {
	switch e {
	case Int8:
		return int64(int8(x))
	case UInt8:
		return int64(uint8(x))
	case Int16:
		return int64(int16(x))
	case UInt16:
		return int64(uint16(x))
	case Int32:
		return int64(int32(x))
	case UInt32:
		return int64(uint32(x))
	}
	return x
}

// Range returns the smallest and largest value of an integer element type.
func (e Elem) Range() (lo, hi int64) {
	switch e {
	case Int8:
		return math.MinInt8, math.MaxInt8
	case UInt8:
		return 0, math.MaxUint8
	case Int16:
		return math.MinInt16, math.MaxInt16
	case UInt16:
		return 0, math.MaxUint16
	case Int32:
		return math.MinInt32, math.MaxInt32
	case UInt32:
		return 0, math.MaxUint32
	}
	return 0, 0
}

// StreamLane decodes accumulator lane l of a cascade word stream b: an acc48 lane is 8
// little-endian bytes holding the lane sign-extended, an acc80 lane 16 (low, then high 8
// bytes). The lane is wrapped to its width.
func StreamLane(b []byte, l int, e Elem) num.Acc {
	if e == Acc80 {
		lo := binary.LittleEndian.Uint64(b[16*l:])
		hi := int64(binary.LittleEndian.Uint64(b[16*l+8:]))
		return num.Acc{Hi: hi, Lo: lo}.Wrap(80)
	}
	return num.AccFrom(int64(binary.LittleEndian.Uint64(b[8*l:]))).Wrap(48)
}

// AppendStreamLane appends accumulator lane a as StreamLane reads it.
func AppendStreamLane(b []byte, a num.Acc, e Elem) []byte {
	var w [16]byte
	binary.LittleEndian.PutUint64(w[:], a.Lo)
	if e == Acc80 {
		binary.LittleEndian.PutUint64(w[8:], uint64(a.Hi))
		return append(b, w[:16]...)
	}
	return append(b, w[:8]...)
}
