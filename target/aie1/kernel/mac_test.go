package kernel

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/sumacdev/sumac/num"
)

func decode(t *testing.T, f MACForm, xLen, zLen int, p MACParams) *MACSel {
	t.Helper()
	var s MACSel
	if err := DecodeMAC(f, xLen, zLen, p, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// UG1079 "MAC on 16x16 bits": xoffsets 0x24 selects 8, 9 (even row) and 14, 15 (odd row);
// 0x00 selects 0, 1 and 2, 3.
func TestPairRule0x24(t *testing.T) {
	s := decode(t, Form16x16, 32, 16, MACParams{XOffs: 0x24, XSquare: 0x3210, ZSquare: 0x3210})
	want := [][2]uint8{{8, 9}, {14, 15}, {0, 1}, {2, 3}}
	for l, w := range want {
		if got := [2]uint8{s.X[l][0], s.X[l][1]}; got != w {
			t.Errorf("lane %d: X %v, want %v", l, got, w)
		}
	}
}

// UG1079: xsquare 0x2103 puts index 3, 0 in the even row and 1, 2 in the odd row.
func TestSquare0x2103(t *testing.T) {
	s := decode(t, Form16x16, 32, 16, MACParams{XSquare: 0x2103})
	if got := [4]uint8{s.X[0][0], s.X[0][1], s.X[1][0], s.X[1][1]}; got != [4]uint8{3, 0, 1, 2} {
		t.Errorf("lanes 0/1 = %v, want [3 0 1 2]", got)
	}
}

// Seed 001 Fig. 4: xoffsets 0x73727170/0x77767574, xsquare 0x3120 make lane i multiply
// x[i] (column k of A) and x[16+i] (column k+1); zstart j, zstep 4: z[j] and z[j+4].
func TestLeiGEMMParams(t *testing.T) {
	for _, zs := range []int64{0, 1, 2, 3, 8, 9, 10, 11} {
		s := decode(t, Form16x16, 32, 16, MACParams{XOffs: 0x73727170, XOffsHi: 0x77767574, XSquare: 0x3120, ZStart: zs, ZStep: 4})
		for l := 0; l < 16; l++ {
			if s.X[l][0] != uint8(l) || s.X[l][1] != uint8(16+l) {
				t.Fatalf("lane %d: X %v, want [%d %d]", l, s.X[l][:2], l, 16+l)
			}
			if s.Z[l][0] != uint8(zs) || s.Z[l][1] != uint8(zs+4) {
				t.Fatalf("zstart %d lane %d: Z %v", zs, l, s.Z[l][:2])
			}
		}
	}
}

// mlir-aie test/aievec/conv2d_i16.mlir: xoffsets 0x03020100/0x07060504, xsquare 0x2110,
// zstep 1, at (xstart, zstart) = (0,0) and (2,2): a 16-output sliding window, 2 taps a call.
func TestConvI16Params(t *testing.T) {
	for _, st := range [][2]int64{{0, 0}, {2, 2}} {
		s := decode(t, Form16x16, 32, 16, MACParams{XStart: st[0], XOffs: 0x03020100, XOffsHi: 0x07060504, XSquare: 0x2110, ZStart: st[1], ZStep: 1})
		for l := 0; l < 16; l++ {
			for c := 0; c < 2; c++ {
				if s.X[l][c] != uint8(int(st[0])+l+c) || s.Z[l][c] != uint8(int(st[1])+c) {
					t.Fatalf("start %v lane %d col %d: x%d z%d, want x%d z%d", st, l, c, s.X[l][c], s.Z[l][c], int(st[0])+l+c, int(st[1])+c)
				}
			}
		}
	}
}

// An int8 4x8x8 matrix-multiply configuration (16 lanes x 8 columns): xoffsets 0, xstep 8,
// xsquare 0x3120, zoffsets 0x[12 12 8 8 4 4 0 0], zstep 2 gives lane l, column c:
// X = l%4 + 4c (A stored 4x8 column-major), Z = 8(l/4) + c (B stored column-major); table
// as published in "AI Engine ni shita CNN akitekucha no kento to jisso" (speakerdeck, anjn).
func TestInt8MmulParams(t *testing.T) {
	s := decode(t, Form8x8, 64, 32, MACParams{XStep: 8, XSquare: 0x3120, ZOffs: 0xCC884400, ZStep: 2, ZSquare: 0x3210})
	for l := 0; l < 16; l++ {
		for c := 0; c < 8; c++ {
			if s.X[l][c] != uint8(l%4+4*c) || s.Z[l][c] != uint8(8*(l/4)+c) {
				t.Fatalf("lane %d col %d: x%d z%d, want x%d z%d", l, c, s.X[l][c], s.Z[l][c], l%4+4*c, 8*(l/4)+c)
			}
		}
	}
}

// onnx2versal design/aie_src/qlinearconv.cc (QLinearConv5x5) runs a 5-tap row of a 5x5
// convolution as mac16(acc, w, 0, 0x00000000, 4, 0x1032, data, 0, 0x76543210, 2, 0x2110)
// with the 5 weights expanded to [0,0,0,0,a,a,b,b,c,c,d,d,e,e,0,0]; its comments list the
// products of every lane: lane l computes the output pixel l. Check the arithmetic.
func TestInt8Conv5Params(t *testing.T) {
	s := decode(t, Form8x8, 64, 32, MACParams{XStep: 4, XSquare: 0x1032, ZOffs: 0x76543210, ZStep: 2, ZSquare: 0x2110})
	rng := rand.New(rand.NewPCG(1, 2))
	var x, z Vec
	taps := [5]int64{}
	for i := range taps {
		taps[i] = int64(rng.IntN(256) - 128)
		x.SetI8(4+2*i, taps[i])
		x.SetI8(5+2*i, taps[i])
	}
	for i := 0; i < 32; i++ {
		z.SetI8(i, int64(rng.IntN(256)-128))
	}
	var acc, out AccVal
	MACInt(Mac, s, &acc, &x, Int8, 64, &z, Int8, 32, &out)
	for l := 0; l < 16; l++ {
		var want int64
		for i, w := range taps {
			want += w * z.I8(l+i)
		}
		if out[l].Int64() != want {
			t.Errorf("lane %d = %d, want the 5-tap convolution at pixel %d = %d", l, out[l].Int64(), l, want)
		}
	}
}

// naiveIndex restates the rules as closed forms per (lane, column), independently of the
// structure of DecodeMAC.
func naiveIndex(f MACForm, xLen, zLen int, p MACParams, l, c int) (xi, zi int) {
	n := func(w int64, i int) int { return int(w>>(4*i)) & 15 }
	m := func(a, b int) int { return ((a % b) + b) % b }
	switch f {
	case Form16x16, Form16x16x4:
		off := p.XOffs
		zoff := p.ZOffs
		if l >= 8 {
			off = p.XOffsHi
			if f == Form16x16 {
				zoff = p.ZOffsHi
			}
		}
		e := (l - l%2) % 8
		sq := n(p.XSquare, 2*(l%2)+c%2) & 3
		row, j := sq/2, sq%2
		w := int(p.XStart)/2 + (c/2)*int(p.XStep)/2 + n(off, e) + row*(n(off, e+1)+1)
		xi = m(2*w+j, xLen)
		zi = m(int(p.ZStart%16)+n(zoff, l%8)+c*int(p.ZStep), zLen)
	case Form8x8:
		g, t := l/4, l%4
		sq := n(p.XSquare, 2*(t/2)+c%2) & 3
		row, h := sq/2, sq%2
		w := int(p.XStart)/4 + (c/2)*int(p.XStep)/4 + n(p.XOffs, 2*g) + row*(n(p.XOffs, 2*g+1)+1)
		xi = m(4*w+2*h+t%2, xLen)
		zs := n(p.ZSquare, 2*(l%2)+c%2) & 3
		unit := (int(p.ZStart)/2)%16 + (c/2)*int(p.ZStep)/2 + n(p.ZOffs, 2*g+zs/2)
		zi = 2*m(unit, zLen/2) + zs%2
	case Form32x32, FormFloat:
		xi = m(int(p.XStart)+n(p.XOffs, l), xLen)
		zi = m(int(p.ZStart%16)+n(p.ZOffs, l), zLen)
	}
	return
}

func randParams(rng *rand.Rand, f MACForm) MACParams {
	p := MACParams{XOffs: int64(rng.Uint32()), XOffsHi: int64(rng.Uint32()), XSquare: int64(rng.Uint32() & 0xFFFF),
		ZOffs: int64(rng.Uint32()), ZOffsHi: int64(rng.Uint32()), ZSquare: int64(rng.Uint32() & 0xFFFF)}
	switch f {
	case Form16x16, Form16x16x4:
		p.XStart, p.XStep = 2*int64(rng.IntN(32)), 2*int64(rng.IntN(8))
		p.ZStart, p.ZStep = int64(rng.IntN(16)), int64(rng.IntN(8))
	case Form8x8:
		p.XStart, p.XStep = 4*int64(rng.IntN(32)), 4*int64(rng.IntN(8))
		p.ZStart, p.ZStep = 2*int64(rng.IntN(16)), 2*int64(rng.IntN(8))
	default:
		p.XStart, p.ZStart = int64(rng.IntN(32)), int64(rng.IntN(8))
	}
	return p
}

// TestMACAgainstNaive checks the decoded selection against the closed forms and the MAC
// arithmetic against big-integer sums wrapped to the lane width, on random parameters and
// data, for every form and mul/mac/msc.
func TestMACAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type cfg struct {
		f          MACForm
		xe, ze     Elem
		xLen, zLen int
	}
	cfgs := []cfg{
		{Form16x16, Int16, Int16, 32, 16}, {Form16x16, Int16, Int16, 64, 16},
		{Form16x16x4, Int16, Int16, 32, 16}, {Form16x16x4, Int16, Int16, 64, 16},
		{Form8x8, Int8, Int8, 64, 32}, {Form8x8, UInt8, UInt8, 128, 32}, {Form8x8, UInt8, Int8, 64, 32}, {Form8x8, Int8, UInt8, 128, 32},
		{Form32x32, Int32, Int32, 16, 8}, {Form32x32, Int32, Int32, 32, 8},
	}
	for _, c := range cfgs {
		lanes, cols := c.f.Shape()
		for iter := 0; iter < 300; iter++ {
			p := randParams(rng, c.f)
			s := decode(t, c.f, c.xLen, c.zLen, p)
			for l := 0; l < lanes; l++ {
				for col := 0; col < cols; col++ {
					xi, zi := naiveIndex(c.f, c.xLen, c.zLen, p, l, col)
					if int(s.X[l][col]) != xi || int(s.Z[l][col]) != zi {
						t.Fatalf("%v x%d %+v lane %d col %d: decoded (x%d, z%d), naive (x%d, z%d)", c.f, c.xLen, p, l, col, s.X[l][col], s.Z[l][col], xi, zi)
					}
				}
			}
			var x, z Vec
			for i := range x {
				x[i] = byte(rng.Uint32())
				z[i] = byte(rng.Uint32())
			}
			var acc AccVal
			width := c.f.AccBits()
			for l := range acc {
				acc[l] = num.AccFrom(rng.Int64()).Wrap(width)
			}
			for _, kind := range []MACKind{Mul, Mac, Msc} {
				var out AccVal
				MACInt(kind, s, &acc, &x, c.xe, c.xLen, &z, c.ze, c.zLen, &out)
				for l := 0; l < lanes; l++ {
					sum := new(big.Int)
					for col := 0; col < cols; col++ {
						xi, zi := naiveIndex(c.f, c.xLen, c.zLen, p, l, col)
						sum.Add(sum, new(big.Int).Mul(big.NewInt(x.Lane(c.xe, xi)), big.NewInt(z.Lane(c.ze, zi))))
					}
					switch kind {
					case Mac:
						sum.Add(big.NewInt(acc[l].Int64()), sum)
					case Msc:
						sum.Sub(big.NewInt(acc[l].Int64()), sum)
					}
					if want := wrapBig(sum, width); out[l].Cmp(want) != 0 {
						t.Fatalf("%v kind %d lane %d: %v, want %v", c.f, kind, l, out[l], want)
					}
				}
			}
		}
	}
}

// wrapBig reduces v modulo 2^width into the signed range, as a num.Acc.
func wrapBig(v *big.Int, width int) num.Acc {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(width))
	r := new(big.Int).Mod(v, mod)
	if r.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
		r.Sub(r, mod)
	}
	lo := new(big.Int).And(r, new(big.Int).SetUint64(^uint64(0))).Uint64()
	hi := new(big.Int).Rsh(r, 64).Int64()
	return num.Acc{Hi: hi, Lo: lo}
}

func TestMACFloat(t *testing.T) {
	var s MACSel
	if err := DecodeMAC(FormFloat, 16, 8, MACParams{XStart: 1, ZOffs: 0x76543210}, &s); err != nil {
		t.Fatal(err)
	}
	var acc, x, z, out Vec
	for i := 0; i < 16; i++ {
		x.SetF32(i, float32(i)+0.5)
	}
	for i := 0; i < 8; i++ {
		z.SetF32(i, float32(i)*0.25)
		acc.SetF32(i, 1)
	}
	MACFloat(Mac, &s, &acc, &x, &z, &out)
	for l := 0; l < 8; l++ {
		want := float32(1 + float32(1.5)*float32(l)*0.25) // x[1] (xoffsets 0) times z[l]
		if out.F32(l) != want {
			t.Errorf("lane %d = %v, want %v", l, out.F32(l), want)
		}
	}
	// two roundings, not one: a product whose low bits an fma would keep.
	var a2, x2, z2, o2 Vec
	x2.SetF32(0, 1+1.0/(1<<12))
	z2.SetF32(0, 1+1.0/(1<<12))
	a2.SetF32(0, -1)
	var s2 MACSel
	if err := DecodeMAC(FormFloat, 16, 8, MACParams{}, &s2); err != nil {
		t.Fatal(err)
	}
	MACFloat(Mac, &s2, &a2, &x2, &z2, &o2)
	p := float32(x2.F32(0) * z2.F32(0))
	if o2.F32(0) != float32(p-1) {
		t.Errorf("fpmac = %v, want %v (product rounded first)", o2.F32(0), p-1)
	}
}

func TestDecodeErrors(t *testing.T) {
	var s MACSel
	for _, c := range []struct {
		f MACForm
		p MACParams
	}{
		{Form16x16, MACParams{XStart: 1}},
		{Form16x16x4, MACParams{XStep: 3}},
		{Form8x8, MACParams{XStart: 2}},
		{Form8x8, MACParams{ZStep: 1}},
	} {
		if err := DecodeMAC(c.f, 64, 32, c.p, &s); err == nil {
			t.Errorf("%v %+v: no error", c.f, c.p)
		}
	}
}

// FuzzDecodeMAC: any parameters either fail cleanly or select in-range elements, and the
// selection matches the closed forms.
func FuzzDecodeMAC(f *testing.F) {
	f.Add(uint8(1), int64(0), int64(0x73727170), int64(0x77767574), int64(0), int64(0x3120), int64(0), int64(0), int64(0), int64(4), int64(0x3210))
	f.Add(uint8(2), int64(0), int64(0x11101110), int64(0), int64(16), int64(0x3120), int64(0), int64(0x44440000), int64(0), int64(2), int64(0x1010))
	f.Fuzz(func(t *testing.T, form uint8, xs, xo, xoh, xst, xsq, zs, zo, zoh, zst, zsq int64) {
		fm := MACForm(form%5 + 1)
		p := MACParams{XStart: xs % 4096, XOffs: xo, XOffsHi: xoh, XStep: xst % 4096, XSquare: xsq,
			ZStart: zs % 4096, ZOffs: zo, ZOffsHi: zoh, ZStep: zst % 4096, ZSquare: zsq}
		xLen, zLen := 32, 16
		switch fm {
		case Form8x8:
			xLen, zLen = 128, 32
		case Form32x32, FormFloat:
			xLen, zLen = 32, 8
		}
		var s MACSel
		if err := DecodeMAC(fm, xLen, zLen, p, &s); err != nil {
			return
		}
		for l := 0; l < s.Lanes; l++ {
			for c := 0; c < s.Cols; c++ {
				if int(s.X[l][c]) >= xLen || int(s.Z[l][c]) >= zLen {
					t.Fatalf("%v %+v lane %d col %d: x%d z%d out of range", fm, p, l, c, s.X[l][c], s.Z[l][c])
				}
				if xi, zi := naiveIndex(fm, xLen, zLen, p, l, c); xi != int(s.X[l][c]) || zi != int(s.Z[l][c]) {
					t.Fatalf("%v %+v lane %d col %d: decoded x%d z%d, closed form x%d z%d", fm, p, l, c, s.X[l][c], s.Z[l][c], xi, zi)
				}
			}
		}
	})
}

// mlir-aie's AIE1 8x8 IDCT kernel (idct_horizontal.cc) multiplies four rows of 8 int16 (v32int16
// X) by coefficient rows with mul8(x, 0, 0x38303830, 2, 0x3210, b, 0, 0x88880000, 1) then
// mac8(..., 0x3a323a32, 2, 0x3210, b, 4, 0x88880000, 1): lane l (l < 4) must see row l of X,
// columns 0-3 then 4-7, against b[0..7]; lanes 4-7 the same rows against b[8..15].
func TestInt16Mac8IDCT(t *testing.T) {
	for h, xo := range []int64{0x38303830, 0x3a323a32} {
		s := decode(t, Form16x16x4, 32, 16, MACParams{XOffs: xo, XStep: 2, XSquare: 0x3210, ZStart: int64(4 * h), ZOffs: 0x88880000, ZStep: 1})
		for l := 0; l < 8; l++ {
			for c := 0; c < 4; c++ {
				wantX := 8*(l%4) + 4*h + c
				wantZ := 8*(l/4) + 4*h + c
				if int(s.X[l][c]) != wantX || int(s.Z[l][c]) != wantZ {
					t.Fatalf("half %d lane %d col %d: x%d z%d, want x%d z%d", h, l, c, s.X[l][c], s.Z[l][c], wantX, wantZ)
				}
			}
		}
	}
}
