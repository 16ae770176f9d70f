package kernel

import (
	"math"
	"strings"
	"testing"
)

func TestArith(t *testing.T) {
	f := func(x float32) int64 { return int64(math.Float32bits(x)) }
	for _, c := range []struct {
		op     Op
		x, y   Elem
		a, b   int64
		want   int64
		wantT  Elem
		errHas string
	}{
		{OpAdd, Int32, Int32, math.MaxInt32, 1, math.MinInt32, Int32, ""},
		{OpShr, Int32, Int32, -8, 1, -4, Int32, ""},
		{OpShr, UInt32, Int32, -8, 1, 0x7FFFFFFC, UInt32, ""}, // the unsigned operand is converted first
		{OpDiv, Int32, UInt32, -7, 2, 0x7FFFFFFC, UInt32, ""},
		{OpDiv, Int32, Int32, -7, 2, -3, Int32, ""},
		{OpRem, Int32, Int32, -7, 2, -1, Int32, ""},
		{OpLt, Int32, UInt32, -1, 1, 0, Int32, ""}, // (unsigned)-1 < 1 is false
		{OpLNot, Int32, Int32, 0, 0, 1, Int32, ""},
		{OpNot, Int32, Int32, 5, 0, -6, Int32, ""},
		{OpAdd, Float32, Int32, f(1.5), 2, f(3.5), Float32, ""},
		{OpGt, Float32, Float32, f(1.5), f(-2), 1, Int32, ""},
		{OpDiv, Int32, Int32, 1, 0, 0, 0, "division by zero"},
		{OpDiv, Int32, Int32, math.MinInt32, -1, 0, 0, "overflow"},
		{OpShl, Int32, Int32, 1, 32, 0, 0, "shift count"},
	} {
		ct, yt := ArithTypes(c.op, c.x, c.y)
		r, rt, err := Arith(c.op, ct, Convert(c.a, c.x, ct), Convert(c.b, c.y, yt))
		switch {
		case c.errHas != "":
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("%v(%d, %d): error %v, want one with %q", c.op, c.a, c.b, err, c.errHas)
			}
		case err != nil || r != c.want || rt != c.wantT:
			t.Errorf("%v %v,%v (%d, %d) = %d %v, %v; want %d %v", c.op, c.x, c.y, c.a, c.b, r, rt, err, c.want, c.wantT)
		}
	}
}
