package kernel

import "testing"

func BenchmarkMACInt16x2(b *testing.B) {
	var s MACSel
	if err := DecodeMAC(Form16x16, 32, 16, MACParams{XOffs: 0x73727170, XOffsHi: 0x77767574, XSquare: 0x3120, ZStep: 4}, &s); err != nil {
		b.Fatal(err)
	}
	var acc AccVal
	var x, z Vec
	for i := range x {
		x[i], z[i] = byte(i), byte(3*i)
	}
	for i := 0; i < b.N; i++ {
		MACInt(Mac, &s, &acc, &x, Int16, 32, &z, Int16, 16, &acc)
	}
}

func BenchmarkMACInt8x8(b *testing.B) {
	var s MACSel
	if err := DecodeMAC(Form8x8, 64, 32, MACParams{XOffs: 0x11101110, XStep: 16, XSquare: 0x3120, ZOffs: 0x44440000, ZStep: 2, ZSquare: 0x1010}, &s); err != nil {
		b.Fatal(err)
	}
	var acc AccVal
	var x, z Vec
	for i := range x {
		x[i], z[i] = byte(i), byte(3*i)
	}
	for i := 0; i < b.N; i++ {
		MACInt(Mac, &s, &acc, &x, UInt8, 64, &z, UInt8, 32, &acc)
	}
}
