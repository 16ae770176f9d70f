package aie2p

import "testing"

func TestDescription(t *testing.T) {
	if err := Arch.Validate(); err != nil {
		t.Fatal(err)
	}
	m := Arch.M
	ex0, x0, e0 := m.MustReg("ex0"), m.MustReg("x0"), m.MustReg("e0")
	if ex0.Bytes != 72 || !ex0.Overlaps(x0) || !ex0.Overlaps(e0) || ex0.Overlaps(m.MustReg("x1")) {
		t.Fatalf("ex0 = x0 + e0 (72 bytes): %+v", ex0)
	}
	// ex0 byte 9 is e0[1], byte 10 is x0[8] (the interleaved layout).
	if l := ex0.Locs[2]; l.File != m.File("e") || l.Off != 1 {
		t.Fatalf("ex0 third run %+v, want e0 byte 1", l)
	}
	dm2, bmhl2 := m.MustReg("dm2"), m.MustReg("bmhl2")
	if dm2.Bytes != 256 || bmhl2.Bytes != 64 || !dm2.Overlaps(bmhl2) || bmhl2.Locs[0].Off != 2*256+128 {
		t.Fatalf("bmhl2 is dm2 bytes 128..191: %+v", bmhl2)
	}
	if m.MustReg("cmh1").Locs[0].Off != 256+128 {
		t.Fatal("cmh1 is the upper half of dm1")
	}
	// Bundle sizes of two seed bundles: VMAC + both pops + store + vmov needs the full 128-bit
	// format; VMAC + both pops + an ALU op fits 96 bits.
	if b, err := m.FormatBytes([]string{"vec", "lda", "ldb", "st", "mv"}); err != nil || b != 16 {
		t.Fatalf("vec+lda+ldb+st+mv: %d %v", b, err)
	}
	if b, err := m.FormatBytes([]string{"vec", "lda", "ldb", "alu"}); err != nil || b != 12 {
		t.Fatalf("vec+lda+ldb+alu: %d %v", b, err)
	}
	if _, err := m.FormatBytes([]string{"lng", "alu"}); err == nil {
		t.Fatal("lng and alu in one bundle accepted")
	}
	if b, _ := m.FormatBytes(nil); b != 4 {
		t.Fatalf("empty bundle %d bytes", b)
	}
	if Arch.MACsPerInstr() != 512 {
		t.Fatal("bfp16 8x8x8 is 512 MACs")
	}
}
