package kernel

import (
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/num"
)

func TestUpdExtConcat(t *testing.T) {
	var buf, part, out, ext Vec
	for i := 0; i < 64; i++ {
		buf.SetI16(i, int64(i))
	}
	for i := 0; i < 16; i++ {
		part.SetI16(i, int64(1000+i))
	}
	if err := Upd(&buf, 64, 256, 1, &part, &out); err != nil { // upd_w(v32int16, 1, v16int16)
		t.Fatal(err)
	}
	for i := 0; i < 32; i++ {
		want := int64(i)
		if i >= 16 {
			want = int64(1000 + i - 16)
		}
		if out.I16(i) != want {
			t.Fatalf("upd_w lane %d = %d, want %d", i, out.I16(i), want)
		}
	}
	if err := Ext(&out, 64, 128, 3, &ext); err != nil { // ext_v(v32int16, 3): lanes 24..31
		t.Fatal(err)
	}
	for i := 0; i < 8; i++ {
		if ext.I16(i) != int64(1008+i) {
			t.Fatalf("ext_v lane %d = %d", i, ext.I16(i))
		}
	}
	if ext.I16(8) != 0 {
		t.Error("ext_v left bytes beyond the part")
	}
	if err := Upd(&buf, 64, 256, 2, &part, &out); err == nil {
		t.Error("upd_w index 2 of a 512-bit vector accepted")
	}
	var a, b, c, d, cat Vec
	a.SetI8(0, 1)
	b.SetI8(0, 2)
	c.SetI8(0, 3)
	d.SetI8(15, 4)
	Concat(&cat, 16, &a, &b, &c, &d) // concat of four v16int8
	if cat.I8(0) != 1 || cat.I8(16) != 2 || cat.I8(32) != 3 || cat.I8(63) != 4 {
		t.Errorf("concat: %v", cat[:64])
	}
}

func TestSRSUPS(t *testing.T) {
	var acc AccVal
	acc[0] = num.AccFrom(1 << 20)
	acc[1] = num.AccFrom(-5)
	acc[2] = num.AccFrom(7)
	var v Vec
	sat := SRS(&acc, 16, 4, Int16, num.Floor, num.Saturate, &v)
	if v.I16(0) != 32767 || v.I16(1) != -1 || v.I16(2) != 0 || sat != 1 {
		t.Errorf("srs: %d %d %d sat %d", v.I16(0), v.I16(1), v.I16(2), sat)
	}
	sat = SRS(&acc, 16, 0, UInt8, num.Floor, num.Saturate, &v) // ubsrs
	if v.U8(0) != 255 || v.U8(1) != 0 || v.U8(2) != 7 || sat != 2 {
		t.Errorf("ubsrs: %d %d %d sat %d", v.U8(0), v.U8(1), v.U8(2), sat)
	}
	var w Vec
	w.SetI16(0, -3)
	w.SetI16(1, 0x7fff)
	var up AccVal
	UPS(&w, Int16, 16, 33, num.Acc48, &up)
	if up[0].Int64() != -3<<33 {
		t.Errorf("ups lane 0 = %v", up[0])
	}
	// 0x7fff << 33 needs 48 bits + sign: wraps at 48 bits
	if want := num.AccFrom(0x7fff << 33).Wrap(48); up[1].Cmp(want) != 0 {
		t.Errorf("ups lane 1 = %v, want %v", up[1], want)
	}
}

func TestVAdd(t *testing.T) {
	var a, b, out Vec
	a.SetI16(0, 32767)
	b.SetI16(0, 1)
	a.SetI16(1, -7)
	b.SetI16(1, 3)
	VAdd(false, Int16, 16, &a, &b, &out)
	if out.I16(0) != -32768 || out.I16(1) != -4 {
		t.Errorf("vadd wraps: %d %d", out.I16(0), out.I16(1))
	}
	a[0], b[0] = 200, 100
	VAdd(false, UInt8, 64, &a, &b, &out)
	if out.U8(0) != 44 {
		t.Errorf("uint8 add = %d, want 44", out.U8(0))
	}
	var acc, r AccVal
	acc[0] = num.AccFrom(10)
	var v Vec
	v.SetI16(0, -3)
	AccAddVec(false, 16, 48, &acc, &v, Int16, &r)
	if r[0].Int64() != 7 {
		t.Errorf("acc + vec = %v", r[0])
	}
}

// TestVAddWidths: VAdd's per-width loops equal the lane-by-lane definition (add or subtract
// the lanes as integers, keep the element's width) for every integer element type.
func TestVAddWidths(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for _, e := range []Elem{Int8, UInt8, Int16, UInt16, Int32, UInt32} {
		for trial := 0; trial < 200; trial++ {
			var a, b Vec
			rng.Read(a[:])
			rng.Read(b[:])
			lanes := 1 + rng.Intn(128*8/e.Bits())
			sub := trial%2 == 1
			var got, want Vec
			VAdd(sub, e, lanes, &a, &b, &got)
			for l := 0; l < lanes; l++ {
				x, y := a.Lane(e, l), b.Lane(e, l)
				if sub {
					y = -y
				}
				want.SetLane(e, l, x+y)
			}
			if got != want {
				t.Fatalf("%v lanes %d sub %v: VAdd differs from the lane-by-lane sum", e, lanes, sub)
			}
		}
	}
}

// TestSRSMatchesLanes: SRS over a vector (with its clamp for shift 0) equals num.SRS lane by
// lane for every element type, rounding and saturation mode, shifts 0 and up, and
// accumulators inside and beyond the 48-bit range.
func TestSRSMatchesLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	elems := []Elem{Int8, UInt8, Int16, UInt16, Int32}
	sats := []num.Sat{num.Saturate, num.None, num.Symmetric}
	for trial := 0; trial < 3000; trial++ {
		e := elems[rng.Intn(len(elems))]
		sat := sats[rng.Intn(len(sats))]
		round := num.Round(rng.Intn(int(num.ConvOdd) + 1))
		shift := 0
		if trial%2 == 1 {
			shift = rng.Intn(40)
		}
		var acc AccVal
		for l := range acc {
			switch rng.Intn(4) {
			case 0:
				acc[l] = num.AccFrom(rng.Int63n(600) - 300)
			case 1:
				acc[l] = num.AccFrom(rng.Int63n(1<<48) - 1<<47)
			case 2:
				acc[l] = num.Acc{Hi: rng.Int63n(5) - 2, Lo: rng.Uint64()} // beyond int64
			default:
				acc[l] = num.AccFrom(rng.Int63() - 1<<62)
			}
		}
		lanes := 1 + rng.Intn(16)
		if lanes*e.Bits() > 8*len(Vec{}) {
			lanes = 8 * len(Vec{}) / e.Bits()
		}
		var got, want Vec
		gs := SRS(&acc, lanes, shift, e, round, sat, &got)
		n := num.Narrow{Bits: e.Bits(), Unsigned: !e.Signed(), Shift: uint(shift), Round: round, Sat: sat}
		ws := 0
		for l := 0; l < lanes; l++ {
			v, s := num.SRS(acc[l], n)
			if s {
				ws++
			}
			want.SetLane(e, l, v)
		}
		if got != want || gs != ws {
			t.Fatalf("trial %d (%v, shift %d, %v, %v): SRS %v (%d saturated), lane by lane %v (%d)", trial, e, shift, round, sat, got, gs, want, ws)
		}
	}
}

// TestFPShuffle: lane i takes x[(xstart + xoffs(i)) mod N] (intrinsics reference, "Simple
// Float Vector Lane Selection"), bits unchanged (a negative zero stays one).
func TestFPShuffle(t *testing.T) {
	var x, out Vec
	for i := 0; i < 16; i++ {
		x.SetF32(i, float32(i))
	}
	x.SetI32(3, 0x80000000) // -0.0
	FPShuffle(&x, 16, 5, 0xfedcba98, &out)
	for l, want := range []int{13, 14, 15, 0, 1, 2, 3, 4} {
		if got := out.I32(l); got != x.I32(want) {
			t.Errorf("lane %d: %#x, want lane %d's %#x", l, got, want, x.I32(want))
		}
	}
	FPShuffle(&x, 8, 6, 0x00043210, &out) // v8float, start 6: 6 7 0 1 2 6 6 6
	for l, want := range []int{6, 7, 0, 1, 2, 6, 6, 6} {
		if got := out.I32(l); got != x.I32(want) {
			t.Errorf("v8 lane %d: %#x, want lane %d's %#x", l, got, want, x.I32(want))
		}
	}
}
