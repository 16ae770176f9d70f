package cyclesim

import (
	"github.com/sumacdev/sumac/num"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// macTable is a decoded MAC's operand selection resolved once per program into byte offsets
// for the integer forms with 48-bit accumulator lanes (16x16-bit and 8x8-bit), so that
// executing a MAC is a loop of loads, multiplies and adds with no per-element decoding.
type macTable struct {
	ok          bool
	lanes, cols int
	mode        uint8 // fast16, fast8ss, fast8uu, fast8us, fast8su
	// zBcast: every lane reads the same Z element in a given column (a broadcast operand, as
	// in a GEMM's B element), so Z is decoded once per column instead of once per lane.
	zBcast bool
	x, z   [16][8]uint8 // byte offsets (16-bit: of the low byte) into the X and Z buffers
	simd   *macSIMD     // the same selection as byte gathers (gather.go)
	x16    *gatherTab   // int16, 16 lanes, 2 columns, broadcast Z: X as word pairs (mac16x2)
}

const (
	fast16 uint8 = iota
	fast8ss
	fast8uu
	fast8us // unsigned X, signed Z
	fast8su // signed X, unsigned Z
)

// buildMACTable fills d.tab when d's form is covered by fastMACInt.
func buildMACTable(d *decoded) {
	t := &d.tab
	*t = macTable{}
	if d.form.AccBits() != num.Acc48 || d.sel.Lanes > 16 || d.sel.Cols > 8 {
		return
	}
	scale := 1
	switch {
	case d.xe == kernel.Int16 && d.ze == kernel.Int16:
		t.mode, scale = fast16, 2
	case d.xe.Bits() == 8 && d.ze.Bits() == 8:
		switch xs, zs := d.xe.Signed(), d.ze.Signed(); {
		case xs && zs:
			t.mode = fast8ss
		case !xs && !zs:
			t.mode = fast8uu
		case !xs:
			t.mode = fast8us
		default:
			t.mode = fast8su
		}
	default:
		return
	}
	t.lanes, t.cols = d.sel.Lanes, d.sel.Cols
	t.zBcast = true
	for l := 0; l < t.lanes; l++ {
		for c := 0; c < t.cols; c++ {
			xo, zo := scale*int(d.sel.X[l][c]), scale*int(d.sel.Z[l][c])
			// an element must lie inside the declared buffer (and a 1024-bit register)
			if xo+scale > scale*d.xLen || zo+scale > scale*d.zLen || xo+scale > len(kernel.Vec{}) || zo+scale > len(kernel.Vec{}) {
				return
			}
			t.x[l][c], t.z[l][c] = uint8(xo), uint8(zo)
			if t.z[l][c] != t.z[0][c] {
				t.zBcast = false
			}
		}
	}
	t.ok = true
	t.simd = buildMACSIMD(d, t)
	if t.mode == fast16 && t.zBcast && t.cols == 2 && t.lanes == 16 {
		t.x16 = x16PairTab(t)
	}
}

func ld16(v *kernel.Vec, o uint8) int64 {
	i := int(o) & 126
	return int64(int16(uint16(v[i]) | uint16(v[i+1])<<8))
}

// fastMACInt computes an integer MAC with 48-bit accumulator lanes from d's byte-offset
// table. It returns false for the forms it does not cover, which then go through
// kernel.MACInt. Its results equal kernel.MACInt's bit for bit (TestFastMACMatchesKernel): a
// 48-bit lane is exact in an int64 and wrapping is modular, so adding in int64 and wrapping
// once per lane is the same as num.Acc's 128-bit arithmetic.
func fastMACInt(d *decoded, acc *kernel.AccVal, x, z *kernel.Vec, sc *macScratch, out *kernel.AccVal) bool {
	t := &d.tab
	if !t.ok {
		return false
	}
	var sums [16]int64
	lanes := macSumsAny(t, x, z, sc, &sums)
	for l := 0; l < lanes; l++ {
		out[l] = macLane(d.kind, int64(acc[l].Lo), sums[l])
	}
	for l := lanes; l < len(out); l++ {
		out[l] = num.Acc{}
	}
	return true
}

// macLane is one 48-bit accumulator lane of a mul, mac or msc: acc is the lane's low 64
// bits (a 48-bit lane is sign-extended, so this is its value), sum the lane's products.
func macLane(kind kernel.MACKind, acc, sum int64) num.Acc {
	var v int64
	switch kind {
	case kernel.Mul:
		v = sum
	case kernel.Mac:
		v = acc + sum
	default:
		v = acc - sum
	}
	v = v << 16 >> 16 // wrap to 48 bits
	return num.Acc{Hi: v >> 63, Lo: uint64(v)}
}

// macSums computes each lane's sum of products (exact in an int64: at most 8 products of
// two 16-bit values) and returns the number of lanes.
func macSums(t *macTable, x, z *kernel.Vec, sums *[16]int64) int {
	lanes, cols := min(t.lanes, 16), min(t.cols, 8)
	switch t.mode {
	case fast16:
		if cols == 2 && t.zBcast {
			z0, z1 := ld16(z, t.z[0][0]), ld16(z, t.z[0][1])
			for l := 0; l < lanes; l++ {
				xi := &t.x[l]
				sums[l] = ld16(x, xi[0])*z0 + ld16(x, xi[1])*z1
			}
			break
		}
		for l := 0; l < lanes; l++ {
			xi, zi := &t.x[l], &t.z[l]
			var s int64
			for c := 0; c < cols; c++ {
				s += ld16(x, xi[c]) * ld16(z, zi[c])
			}
			sums[l] = s
		}
	case fast8ss:
		if cols == 8 { // mac16 16x8, unrolled
			for l := 0; l < lanes; l++ {
				xi, zi := &t.x[l], &t.z[l]
				sums[l] = int64(int8(x[xi[0]&127]))*int64(int8(z[zi[0]&127])) + int64(int8(x[xi[1]&127]))*int64(int8(z[zi[1]&127])) +
					int64(int8(x[xi[2]&127]))*int64(int8(z[zi[2]&127])) + int64(int8(x[xi[3]&127]))*int64(int8(z[zi[3]&127])) +
					int64(int8(x[xi[4]&127]))*int64(int8(z[zi[4]&127])) + int64(int8(x[xi[5]&127]))*int64(int8(z[zi[5]&127])) +
					int64(int8(x[xi[6]&127]))*int64(int8(z[zi[6]&127])) + int64(int8(x[xi[7]&127]))*int64(int8(z[zi[7]&127]))
			}
			break
		}
		for l := 0; l < lanes; l++ {
			xi, zi := &t.x[l], &t.z[l]
			var s int64
			for c := 0; c < cols; c++ {
				s += int64(int8(x[xi[c]&127])) * int64(int8(z[zi[c]&127]))
			}
			sums[l] = s
		}
	case fast8uu:
		if cols == 8 { // mac16 16x8, unrolled
			for l := 0; l < lanes; l++ {
				xi, zi := &t.x[l], &t.z[l]
				sums[l] = int64(x[xi[0]&127])*int64(z[zi[0]&127]) + int64(x[xi[1]&127])*int64(z[zi[1]&127]) +
					int64(x[xi[2]&127])*int64(z[zi[2]&127]) + int64(x[xi[3]&127])*int64(z[zi[3]&127]) +
					int64(x[xi[4]&127])*int64(z[zi[4]&127]) + int64(x[xi[5]&127])*int64(z[zi[5]&127]) +
					int64(x[xi[6]&127])*int64(z[zi[6]&127]) + int64(x[xi[7]&127])*int64(z[zi[7]&127])
			}
			break
		}
		for l := 0; l < lanes; l++ {
			xi, zi := &t.x[l], &t.z[l]
			var s int64
			for c := 0; c < cols; c++ {
				s += int64(x[xi[c]&127]) * int64(z[zi[c]&127])
			}
			sums[l] = s
		}
	case fast8us:
		for l := 0; l < lanes; l++ {
			xi, zi := &t.x[l], &t.z[l]
			var s int64
			for c := 0; c < cols; c++ {
				s += int64(x[xi[c]&127]) * int64(int8(z[zi[c]&127]))
			}
			sums[l] = s
		}
	default:
		for l := 0; l < lanes; l++ {
			xi, zi := &t.x[l], &t.z[l]
			var s int64
			for c := 0; c < cols; c++ {
				s += int64(int8(x[xi[c]&127])) * int64(z[zi[c]&127])
			}
			sums[l] = s
		}
	}
	return lanes
}
