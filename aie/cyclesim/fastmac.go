package cyclesim

import (
	"github.com/sumacdev/sumac/aie/kernel"
	"github.com/sumacdev/sumac/num"
)

// fastMACInt computes an integer MAC with 48-bit accumulator lanes (the 16-bit and 8-bit
// forms) on int64 lanes, widening each operand once instead of per product. It returns false
// for the forms it does not cover, which then go through kernel.MACInt. Its results equal
// kernel.MACInt's bit for bit (TestFastMACMatchesKernel): a 48-bit lane is exact in an int64
// and wrapping is modular, so adding in int64 and wrapping once is the same as num.Acc's
// 128-bit arithmetic.
func fastMACInt(d *decoded, acc *kernel.AccVal, x, z *kernel.Vec, out *kernel.AccVal) bool {
	if d.form.AccBits() != num.Acc48 || d.xLen > 128 || d.zLen > 32 {
		return false
	}
	var xs [128]int64
	var zs [32]int64
	switch {
	case d.xe == kernel.Int16 && d.ze == kernel.Int16:
		for i := 0; i < d.xLen; i++ {
			xs[i] = int64(int16(uint16(x[2*i]) | uint16(x[2*i+1])<<8))
		}
		for i := 0; i < d.zLen; i++ {
			zs[i] = int64(int16(uint16(z[2*i]) | uint16(z[2*i+1])<<8))
		}
	case d.xe.Bits() == 8 && d.ze.Bits() == 8:
		widen8(xs[:d.xLen], x, d.xe.Signed())
		widen8(zs[:d.zLen], z, d.ze.Signed())
	default:
		return false
	}
	lanes, cols := d.sel.Lanes, d.sel.Cols
	for l := 0; l < lanes; l++ {
		xi, zi := &d.sel.X[l], &d.sel.Z[l]
		var s int64
		for c := 0; c < cols; c++ {
			s += xs[xi[c]] * zs[zi[c]]
		}
		var v int64
		switch d.kind {
		case kernel.Mul:
			v = s
		case kernel.Mac:
			v = int64(acc[l].Lo) + s
		default:
			v = int64(acc[l].Lo) - s
		}
		v = v << 16 >> 16 // wrap to 48 bits
		out[l] = num.Acc{Hi: v >> 63, Lo: uint64(v)}
	}
	for l := lanes; l < len(out); l++ {
		out[l] = num.Acc{}
	}
	return true
}

func widen8(dst []int64, v *kernel.Vec, signed bool) {
	if signed {
		for i := range dst {
			dst[i] = int64(int8(v[i]))
		}
		return
	}
	for i := range dst {
		dst[i] = int64(v[i])
	}
}
