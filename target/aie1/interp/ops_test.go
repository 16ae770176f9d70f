package interp

import (
	"encoding/binary"
	"testing"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// TestMoreOps runs ext_elem, upd_elem, concat of accumulators, lsrs, bsrs, lups, mul16,
// msc16 and operator- through the interpreter and checks values computed by hand.
func TestMoreOps(t *testing.T) {
	k := kernel.New("more")
	b := kernel.NewBuilder(k)
	out := b.Param("out", kernel.OutWindow(kernel.Int32))
	out8 := b.Param("out8", kernel.OutWindow(kernel.Int8))
	v := b.Decl("v", kernel.VecOf(kernel.Int16, 32))
	b.Set(v, kernel.OpNull)
	for i := int64(0); i < 32; i++ { // v[i] = i - 3
		b.Set(v, kernel.OpUpdElem, kernel.V(v), kernel.Imm(i), kernel.Imm(i-3))
	}
	z := b.Decl("z", kernel.VecOf(kernel.Int16, 16))
	b.Set(z, kernel.OpNull)
	b.Set(z, kernel.OpUpdElem, kernel.V(z), kernel.Imm(0), kernel.Imm(2))
	b.Set(z, kernel.OpUpdElem, kernel.V(z), kernel.Imm(1), kernel.Imm(5))
	// mul16 with the sliding-window parameters: lane l = 2*v[l] + 5*v[l+1]
	acc := b.Decl("acc", kernel.AccOf(kernel.Acc48, 16))
	b.MAC(acc, kernel.OpMul16, nil, v, z, kernel.MACArgs{XOffs: kernel.Imm(0x03020100), XOffsHi: kernel.Imm(0x07060504), XSquare: kernel.Imm(0x2110), ZStep: kernel.Imm(1)})
	// msc16 subtracts the same again at zstart 0: lane l = 0
	acc2 := b.Decl("acc2", kernel.AccOf(kernel.Acc48, 16))
	b.MAC(acc2, kernel.OpMsc16, acc, v, z, kernel.MACArgs{XOffs: kernel.Imm(0x03020100), XOffsHi: kernel.Imm(0x07060504), XSquare: kernel.Imm(0x2110), ZStep: kernel.Imm(1)})
	lo := b.Op(kernel.OpExtW, kernel.V(v), kernel.Imm(0)) // v16int16: v[0..15]
	e := b.Decl("e", kernel.ScalarOf(kernel.Int32))
	b.Set(e, kernel.OpExtElem, kernel.V(lo), kernel.Imm(5)) // 2
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(e))
	b.Emit(kernel.OpWinIncr, nil, kernel.V(out), kernel.Imm(3)) // keep vector writes 128-bit aligned
	w := b.Op(kernel.OpLSRS, kernel.V(acc), kernel.Imm(1))      // v16int32: (2*v[l] + 5*v[l+1]) >> 1
	w8 := b.Op(kernel.OpExtW, kernel.V(w), kernel.Imm(0))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(w8))
	r2 := b.Op(kernel.OpLSRS, kernel.V(acc2), kernel.Imm(0))
	r2a := b.Op(kernel.OpExtW, kernel.V(r2), kernel.Imm(1))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(r2a))
	by := b.Op(kernel.OpBSRS, kernel.V(acc), kernel.Imm(0)) // v16int8, saturating to [-128, 127]
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out8), kernel.V(by))
	i32 := b.Decl("i32", kernel.VecOf(kernel.Int32, 8))
	b.Set(i32, kernel.OpExtW, kernel.V(w), kernel.Imm(1))
	up := b.Op(kernel.OpLUPS, kernel.V(i32), kernel.Imm(2)) // v8acc48: w[8+l] << 2
	h := b.Op(kernel.OpExtW, kernel.V(w), kernel.Imm(0))
	hh := b.Op(kernel.OpUPS, kernel.V(h), kernel.Imm(0)) // v8acc80
	_ = hh
	cat := b.Op(kernel.OpConcat, kernel.V(up), kernel.V(up)) // v16acc48
	d := b.Op(kernel.OpVSub, kernel.V(cat), kernel.V(acc))   // (w[8+l%8] << 2) - acc[l]
	dd := b.Op(kernel.OpLSRS, kernel.V(d), kernel.Imm(0))
	b.Emit(kernel.OpWinWriteIncr, nil, kernel.V(out), kernel.V(dd))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(k, Config{Sizes: map[string]int{"out": 4 * (4 + 8 + 8 + 16), "out8": 16}})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Data["out"]
	at := func(i int) int64 { return int64(int32(binary.LittleEndian.Uint32(o[4*i:]))) }
	vv := func(i int) int64 { return int64(i - 3) }
	a := func(l int) int64 { return 2*vv(l) + 5*vv(l+1) }
	if at(0) != 2 {
		t.Errorf("ext_elem = %d, want 2", at(0))
	}
	for l := 0; l < 8; l++ {
		if at(4+l) != a(l)>>1 {
			t.Errorf("lsrs lane %d = %d, want %d", l, at(4+l), a(l)>>1)
		}
		if at(12+l) != 0 {
			t.Errorf("mul16 then msc16 lane %d = %d, want 0", 8+l, at(12+l))
		}
	}
	for l := 0; l < 16; l++ {
		want := ((a(8+l%8) >> 1) << 2) - a(l)
		if at(20+l) != want {
			t.Errorf("concat/lups/operator- lane %d = %d, want %d", l, at(20+l), want)
		}
		w8 := max(-128, min(127, a(l)))
		if got := int64(int8(res.Data["out8"][l])); got != w8 {
			t.Errorf("bsrs lane %d = %d, want %d", l, got, w8)
		}
	}
}
