package xdna_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/aieml"
	"github.com/sumacdev/sumac/target/vliw"
	"github.com/sumacdev/sumac/target/xdna"
)

// prelude sets the FIFO positions and the VMAC.F configuration and loads one tile of each
// operand into ex0 and ex1 (landing after bundle 11).
const prelude = `
  nopv ; nopa ; nopb ; nops ; movx r24, #0 ; mov r25, #0
  nopv ; nopa ; nopb ; nops ; movxm r0, #780
  nopv ; vlda.fill.512 [p0, lf0, r24] ; vldb.fill.512 [p1, lf1, r25] ; nops ; nopxm
  nopv ; vlda.pop.576 ex0, [p0, lf0, r24] ; vldb.pop.576 ex1, [p1, lf1, r25] ; nops ; nopxm
`

func wantHazard(t *testing.T, a *xdna.Arch, rule, src, msg string) {
	t.Helper()
	_, err := runListing(t, a, src, tileSpec, "zero")
	var h *vliw.Hazard
	if !errors.As(err, &h) || h.Rule != rule || !strings.Contains(h.Msg, msg) {
		t.Fatalf("want a %s hazard mentioning %q, got %v", rule, msg, err)
	}
}

func nops(n int) string { return strings.Repeat("  nop\n", n) }

// TestHazards violates each rule once.
func TestHazards(t *testing.T) {
	store := "  nopv ; nopa ; nopb ; vst bmll0, [p2], #64 ; ret lr\n" + nops(5)
	// a read before the producing write lands: VMUL.F 7 cycles after the pop (the pop's
	// result lands in its stage 8)
	wantHazard(t, aie2p.Arch, "raw", prelude+nops(6)+"  vmul.f dm0, ex0, ex1, r0\n"+nops(5)+store,
		"before the producing write")
	// a store of an accumulator 5 cycles after the VMUL.F writing it (lands in stage 6)
	wantHazard(t, aie2p.Arch, "raw", prelude+nops(7)+"  vmul.f dm0, ex0, ex1, r0\n"+nops(4)+store,
		"before the producing write")
	// slot over-subscribed: two vector operations, and a long move next to an ALU operation
	wantHazard(t, aie2p.Arch, "slot", prelude+"  vmul.f dm0, ex0, ex1, r0 ; vmul.f dm1, ex0, ex1, r0\n", "over-subscribed")
	wantHazard(t, aie2p.Arch, "slot", "  movxm r1, #5 ; add r2, r2, r3\n", "over-subscribed")
	// loop set-up too close to the loop: 3 bundles (at most 48 bytes) before its start
	loop := `  nopv ; nopa ; nopb ; nops ; movxm ls, #.l_start
  nopv ; nopa ; nopb ; nops ; movxm le, #.l_end
  nopv ; nopa ; nopb ; nops ; movxm lc, #2
.p2align 4
.l_start:
  nop
.p2align 4
.l_end:
  nopv ; nopa ; nopb ; nops ; nopxm
  nopv ; nopa ; nopb ; nops ; ret lr
` + nops(5)
	wantHazard(t, aie2p.Arch, "loop", loop, "at least 64 bytes before the start")
	// two writes of one register landing in the same cycle
	wantHazard(t, aie2p.Arch, "waw", "  nopv ; nopa ; nopb ; nops ; movx r1, #1 ; mov r1, #2\n", "same cycle")
	// a pop with no fill before it
	wantHazard(t, aie2p.Arch, "fifo", "  nopv ; nopa ; nopb ; nops ; movx r24, #0\n  nopv ; vlda.pop.576 ex0, [p0, lf0, r24] ; nopb ; nops ; nopxm\n", "fill is missing")
	// a standard load right after a pop on the same unit
	wantHazard(t, aie2p.Arch, "pipeline", prelude+"  nopv ; vlda x4, [p2, #0] ; nopb ; nops ; nopxm\n", "directly follow")
	// a misaligned vector load
	wantHazard(t, aie2p.Arch, "align", "  nopv ; vlda x4, [p2, #32] ; nopb ; nops ; nopxm\n", "aligned")
	// a VMAC.F under the AIE2 bf16 configuration
	wantHazard(t, aie2p.Arch, "config", strings.Replace(prelude, "#780", "#28", 1)+nops(7)+"  vmul.f dm0, ex0, ex1, r0\n", "configuration")
	// operations and registers the machine does not have: AIE-ML has no load FIFOs
	if _, err := runListing(t, aieml.Arch, prelude, tileSpec, "zero"); err == nil {
		t.Fatal("aieml accepted fill/pop")
	}
	if _, err := runListing(t, aieml.Arch, "  nopv ; vlda.fill.512 [p0] ; nopb ; nops ; nopxm\n", tileSpec, "zero"); err == nil || !strings.Contains(err.Error(), "unknown operation") {
		t.Fatalf("aieml accepted a fill: %v", err)
	}
}

// TestBankConflictStalls: two loads of one bank in one bundle cost a stall, not an error;
// on different banks none.
func TestBankConflictStalls(t *testing.T) {
	src := `  nopv ; vlda x4, [p2, #0] ; vldb x5, [p2, #64] ; nops ; nopxm
  nopv ; vlda x4, [p0, #0] ; vldb x5, [p1, #0] ; nops ; ret lr
` + nops(5)
	// the output buffer (p2) holds zeros; 2 x 64 bytes of it are read
	r, err := runListing(t, aie2p.Arch, src, tileSpec, "zero")
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Stalls != 1 || r.Stats.Cycles != r.Stats.Bundles+1 {
		t.Fatalf("stalls %d cycles %d bundles %d, want one stall", r.Stats.Stalls, r.Stats.Cycles, r.Stats.Bundles)
	}
}

// TestGeneratedHazard: delaying one pop of a generated kernel by a bundle makes its VMAC.F
// read the register before the pop lands; the engine names the read and the write.
func TestGeneratedHazard(t *testing.T) {
	a := aie2p.Arch
	r, err := xdna.Compile(a, seedSpec)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Program
	moved := false
	for bi := 0; bi+1 < len(p.Bundles) && !moved; bi++ {
		for ii, in := range p.Bundles[bi].Insts {
			if in.Op != "vlda.pop.576" || bi+1 >= p.LoopStart {
				continue
			}
			next := p.Bundles[bi+1]
			busy := false
			for _, o := range next.Insts {
				if o.Slot == "lda" {
					busy = true
				}
			}
			if busy {
				continue
			}
			p.Bundles[bi].Insts = append(p.Bundles[bi].Insts[:ii], p.Bundles[bi].Insts[ii+1:]...)
			next.Insts = append(next.Insts, in)
			moved = true
			break
		}
	}
	if !moved {
		t.Fatal("no pop to delay")
	}
	if err := vliw.Link(a.M, p); err != nil {
		t.Fatal(err)
	}
	e := einsum(t, seedSpec)
	o, _ := a.RandomOperands(e, 1, "zero")
	_, err = a.Run(p, e, r.Layout, o)
	var h *vliw.Hazard
	if !errors.As(err, &h) || h.Rule != "raw" || !strings.Contains(h.Msg, "before the producing write") {
		t.Fatalf("want a raw hazard, got %v", err)
	}
}
