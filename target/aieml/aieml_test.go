package aieml

import "testing"

func TestDescription(t *testing.T) {
	if err := Arch.Validate(); err != nil {
		t.Fatal(err)
	}
	m := Arch.M
	x4, wl4, wh4, y2 := m.MustReg("x4"), m.MustReg("wl4"), m.MustReg("wh4"), m.MustReg("y2")
	if wl4.Bytes != 32 || !x4.Overlaps(wl4) || !x4.Overlaps(wh4) || wl4.Overlaps(wh4) || !y2.Overlaps(x4) || !y2.Overlaps(m.MustReg("x5")) {
		t.Fatal("x4 = wl4:wh4, y2 = x4:x5")
	}
	amhh0, bmh0 := m.MustReg("amhh0"), m.MustReg("bmh0")
	if amhh0.Bytes != 32 || !bmh0.Overlaps(amhh0) || amhh0.Locs[0].Off != 96 {
		t.Fatal("amhh0 is the upper 32 bytes of bmh0 (XD isa)")
	}
	if b, _ := m.FormatBytes(nil); b != 2 {
		t.Fatal("AIE2 NOP bundle is 2 bytes")
	}
	if b, err := m.FormatBytes([]string{"vec", "lda", "ldb", "st", "alu", "mv"}); err != nil || b != 16 {
		t.Fatalf("full bundle %d %v", b, err)
	}
	if Arch.MACsPerInstr() != 128 {
		t.Fatal("bf16 4x8x4 is 128 MACs")
	}
}
