package aie1

import "testing"

func TestLatencies(t *testing.T) {
	cases := []struct {
		name string
		p, c *Itin
		k    OperandKind
		want int
	}{
		// Seed 001's counts need back-to-back integer MACs into one accumulator ([LLVM-AIE] AIE1Schedule.td, seed 001 Fig. 5).
		{"vmac->vmac acc", &ItinVMAC, &ItinVMAC, OpndAcc, 1},
		// Dependent fpmacs into one accumulator are FPAccChainCycles apart (UG1079, VT IIR Part 2a/2b).
		{"vfmac->vfmac acc", &ItinVFMAC, &ItinVFMAC, OpndAcc, FPAccChainCycles},
		{"load->vmac X", &ItinLoad, &ItinVMAC, OpndVecX, 8},
		{"load->vmac Z", &ItinLoad, &ItinVMAC, OpndVecZ, 9},
		{"vmac->srs", &ItinVMAC, &ItinSRS, OpndAcc, 6},
		{"srs->vadd", &ItinSRS, &ItinVCMP, OpndVecX, 3},
		{"vadd->store", &ItinVCMP, &ItinStore, OpndStoreData, 2},
		{"padd->load ptr", &ItinPADD, &ItinLoad, OpndPtr, 2},
		{"mul->alu", &ItinMUL, &ItinALU, OpndScalar, 3},
	}
	for _, c := range cases {
		if got := Latency(c.p, c.c, c.k); got != c.want {
			t.Errorf("%s: latency %d, want %d", c.name, got, c.want)
		}
	}
}

func TestAccessBanks(t *testing.T) {
	// A 256-bit aligned access uses both banks of its double bank; a 128-bit one only one.
	if m := AccessBanks(64, 32); m != 0b11 {
		t.Fatalf("AccessBanks(64,32) = %b, want 11", m)
	}
	if m := AccessBanks(8192, 16); m != 0b100 {
		t.Fatalf("AccessBanks(8192,16) = %b, want 100", m)
	}
	if m := AccessBanks(32<<10, 32); m != 0b11<<8 {
		t.Fatalf("AccessBanks(32K,32) = %b, want module 1 banks 0,1", m)
	}
	// An unaligned 256-bit access spans two double-bank words.
	if m := AccessBanks(16, 32); m != 0b11 {
		t.Fatalf("AccessBanks(16,32) = %b", m)
	}
}

func TestLockMechanismMeetsDocumentedMinimum(t *testing.T) {
	// One acquire and one release each hold the LOCK unit; with the memory reservation
	// around them the pair cannot cost less than XD100's documented minimum.
	if 2*LockBusyCycles < LockAcqRelMinCycles {
		t.Fatalf("lock mechanism (%d) below documented minimum %d", 2*LockBusyCycles, LockAcqRelMinCycles)
	}
}

func TestSpillOps(t *testing.T) {
	for bits, want := range map[int]int{256: 1, 384: 2, 512: 2, 768: 4, 1024: 4} {
		if got := SpillOps(bits); got != want {
			t.Errorf("SpillOps(%d) = %d, want %d", bits, got, want)
		}
	}
}
