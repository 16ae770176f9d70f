package aie1

import "testing"

func TestShapesMatchPeaks(t *testing.T) {
	for _, s := range MACShapes {
		p, ok := PeakMACsPerCycle[s.X+" x "+s.Z]
		if !ok {
			t.Errorf("%s %s x %s: no peak", s.Intrinsic, s.X, s.Z)
			continue
		}
		if s.MACsPerCycle() != p {
			t.Errorf("%s %s x %s: %d x %d = %d MACs, peak table says %d", s.Intrinsic, s.X, s.Z, s.Lanes, s.Cols, s.MACsPerCycle(), p)
		}
	}
	for dt, want := range map[string]int{"int8": 128, "uint8": 128, "int16": 32, "int32": 8, "fp32": 8} {
		if p, err := Peak(dt); err != nil || p != want {
			t.Errorf("Peak(%s) = %d, %v; want %d", dt, p, err, want)
		}
	}
	if _, err := Peak("bf16"); err == nil {
		t.Error("Peak(bf16) on AIE1 should fail")
	}
}

func TestViews(t *testing.T) {
	bits := map[string]int{}
	for _, n := range VectorRegs.Names {
		bits[n] = VectorRegs.Bits
	}
	if len(VectorRegs.Names) != VectorRegs.Count {
		t.Fatalf("%d vector register names for %d registers", len(VectorRegs.Names), VectorRegs.Count)
	}
	for _, v := range VectorViews {
		sum := 0
		for _, p := range v.Parts {
			b, ok := bits[p]
			if !ok {
				t.Fatalf("view %s: unknown part %s", v.Name, p)
			}
			sum += b
		}
		if sum != v.Bits {
			t.Errorf("view %s: parts give %d bits, want %d", v.Name, sum, v.Bits)
		}
		bits[v.Name] = v.Bits
	}
	if AccRegs.Count*AccRegs.Bits != AccWide*768 {
		t.Errorf("accumulators: %d x %d bits != %d x 768", AccRegs.Count, AccRegs.Bits, AccWide)
	}
	if Banks*BankWords*BankWordBits/8 != DataMemBytes || ProgMemInstrs*InstrBits/8 != ProgMemBytes {
		t.Error("memory sizes inconsistent")
	}
	if len(Neighbours)*DataMemBytes != ReachBytes {
		t.Error("reach inconsistent")
	}
}

func TestBankOf(t *testing.T) {
	counts := map[[2]int]int{}
	for a := uint32(0); a < ReachBytes; a += 16 {
		m, b := BankOf(a)
		counts[[2]int{m, b}] += 16
	}
	if len(counts) != 4*Banks {
		t.Fatalf("%d (module, bank) pairs, want %d", len(counts), 4*Banks)
	}
	for k, n := range counts {
		if n != DataMemBytes/Banks {
			t.Errorf("module %d bank %d holds %d bytes, want %d", k[0], k[1], n, DataMemBytes/Banks)
		}
	}
	// consecutive 128-bit words alternate even/odd banks of one double bank
	_, b0 := BankOf(0x40)
	_, b1 := BankOf(0x50)
	if b0/2 != b1/2 || b0 == b1 {
		t.Errorf("0x40 -> bank %d, 0x50 -> bank %d: want the two banks of one double bank", b0, b1)
	}
	if !Conflict(0x100, 256, 0x110, 128) {
		t.Error("256-bit access and 128-bit access to the same double bank must conflict")
	}
	if Conflict(0x100, 128, 0x110, 128) {
		t.Error("128-bit accesses to the even and the odd bank must not conflict")
	}
	if Conflict(0x100, 256, 0x2100, 256) {
		t.Error("different double banks must not conflict")
	}
	if Conflict(0x100, 256, 0x8100, 256) {
		t.Error("different modules must not conflict")
	}
}
