package kernel

import (
	"fmt"
	"math"
)

// The functions below are the exact semantics of the scalar ops (OpAdd .. OpGe): C on the
// AIE1 scalar unit's 32-bit int, unsigned and float. The interpreter and the cycle simulator
// both call them, so the two engines cannot disagree. A scalar value is carried in an int64:
// an integer sign- or zero-extended per its type, a float as its IEEE bits. The functions
// never allocate unless they return an error.

// Promote is C's usual arithmetic conversion of two operands on the 32-bit scalar unit:
// float if either is float, else unsigned if either is unsigned int, else int (narrower
// integers promote to int).
func Promote(x, y Elem) Elem {
	switch {
	case x == Float32 || y == Float32:
		return Float32
	case x == UInt32 || y == UInt32:
		return UInt32
	}
	return Int32
}

// ArithTypes gives the types op computes in from its operands' element types x and y (y is
// ignored for a unary op): ct for the first operand (and the result), yt for the second. A
// shift takes the promoted type of its left operand; its count keeps its own.
func ArithTypes(op Op, x, y Elem) (ct, yt Elem) {
	switch {
	case op == OpShl || op == OpShr:
		return Promote(x, x), Promote(y, y)
	case op.IsUnary():
		ct = Promote(x, x)
		return ct, ct
	}
	ct = Promote(x, y)
	return ct, ct
}

// Convert converts v, a value of type from, to type to as C assignment does: integers wrap,
// floats convert to integers by truncation and integers to the nearest float.
func Convert(v int64, from, to Elem) int64 {
	switch {
	case to == Float32 && from == Float32:
		return v
	case to == Float32:
		if from == UInt32 {
			return int64(math.Float32bits(float32(uint32(v))))
		}
		return int64(math.Float32bits(float32(v)))
	case from == Float32:
		return to.Wrap(int64(math.Float32frombits(uint32(v))))
	}
	return to.Wrap(v)
}

// Arith executes scalar op on x and y (y unused for a unary op), both already converted to
// the types ArithTypes gives, computing in ct. It returns the result and its type: ct, or
// int for a comparison or logical not (0 or 1). Integer division by zero, INT_MIN / -1 and a
// shift count outside 0..31 are undefined in C and reported as errors.
func Arith(op Op, ct Elem, x, y int64) (r int64, rt Elem, err error) {
	if ct == Float32 {
		fx, fy := math.Float32frombits(uint32(x)), math.Float32frombits(uint32(y))
		var f float32
		switch op {
		case OpAdd:
			f = fx + fy
		case OpSub:
			f = fx - fy
		case OpMul:
			f = fx * fy
		case OpDiv:
			f = fx / fy
		case OpNeg:
			f = -fx
		default:
			return b2i(cmpF(op, fx, fy)), Int32, nil
		}
		return int64(math.Float32bits(f)), Float32, nil
	}
	rt = ct
	switch op {
	case OpAdd:
		r = x + y
	case OpSub:
		r = x - y
	case OpMul:
		r = x * y
	case OpDiv, OpRem:
		if y == 0 {
			return 0, ct, fmt.Errorf("integer division by zero")
		}
		if ct == Int32 && x == math.MinInt32 && y == -1 {
			return 0, ct, fmt.Errorf("integer overflow in %d / -1", x)
		}
		if op == OpDiv {
			r = x / y // Go and C both truncate towards zero
		} else {
			r = x % y
		}
	case OpShl, OpShr:
		if y < 0 || y >= 32 {
			return 0, ct, fmt.Errorf("shift count %d out of range 0..31", y)
		}
		if op == OpShl {
			r = x << uint(y)
		} else {
			r = x >> uint(y) // x is sign- or zero-extended per ct
		}
	case OpAnd:
		r = x & y
	case OpOr:
		r = x | y
	case OpXor:
		r = x ^ y
	case OpNeg:
		r = -x
	case OpNot:
		r = ^x
	case OpLNot:
		return b2i(x == 0), Int32, nil
	default:
		if !op.IsCompare() {
			return 0, ct, fmt.Errorf("%v is not a scalar op", op)
		}
		return b2i(cmpI(op, x, y)), Int32, nil
	}
	return rt.Wrap(r), rt, nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func cmpI(op Op, x, y int64) bool {
	switch op {
	case OpEq:
		return x == y
	case OpNe:
		return x != y
	case OpLt:
		return x < y
	case OpLe:
		return x <= y
	case OpGt:
		return x > y
	}
	return x >= y
}

func cmpF(op Op, x, y float32) bool {
	switch op {
	case OpEq:
		return x == y
	case OpNe:
		return x != y
	case OpLt:
		return x < y
	case OpLe:
		return x <= y
	case OpGt:
		return x > y
	case OpGe:
		return x >= y
	case OpLNot:
		return x == 0
	}
	return false
}
