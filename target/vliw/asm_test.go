package vliw_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/target/aie2p"
	"github.com/sumacdev/sumac/target/vliw"
	"github.com/sumacdev/sumac/target/xdna"
)

// TestParseSeedSyntax reads the forms the published listings use: comments, labels,
// .p2align, immediate expressions and labels, every memory operand form, slot assignment by
// mnemonic (mov in the move slot, movx in the ALU slot, movxm in the long slot).
func TestParseSeedSyntax(t *testing.T) {
	m := aie2p.Arch.M
	src := `  .globl k
  .p2align 4
k:
  nopv ; vlda bmll0, [p2, #0  ] ; vldb x8, [p3, #64] ; movs p4, p2 ; movxm r4, #-576 / 8 * 12 * 2 // m1 jump
  nopv ; vlda bmhl1, [p4], #64 ; vldb x9, [p5], m1 ; padds [p4], #256 ; movx r24, #0 ; mov r25, #(32 - 2*4*8*4)
  nopv ; vlda.fill.512 [p0, lf0, r24] ; nopb ; nops ; movxm ls, #.l_start
  nopv ; nopa ; nopb ; nops ; movxm le, #.l_start
.p2align 4
.l_start:
  vmac.f dm0, dm2, ex0, ex3, r0 ; nopa ; nopb ; vst bmll2, [p2], #64 ; ltu r6, r1, r2 ; nopm
.Lend:
`
	p, err := vliw.Parse(m, xdna.NewISA(aie2p.Arch), "k", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Bundles) != 5 || p.Labels[".l_start"] != 4 || p.Labels["k"] != 0 || p.Labels[".Lend"] != 5 || p.Bundles[4].Align != 16 {
		t.Fatalf("bundles %d labels %v", len(p.Bundles), p.Labels)
	}
	find := func(b int, op string) *vliw.Inst {
		for _, in := range p.Bundles[b].Insts {
			if in.Op == op {
				return in
			}
		}
		t.Fatalf("bundle %d has no %s", b, op)
		return nil
	}
	if in := find(0, "movxm"); in.Slot != "lng" || in.Args[1].Imm != -1728 {
		t.Fatalf("movxm: %s slot %s", in, in.Slot)
	}
	if in := find(1, "mov"); in.Slot != "mv" || in.Args[1].Imm != -224 {
		t.Fatalf("mov: %s slot %s", in, in.Slot)
	}
	if in := find(1, "movx"); in.Slot != "alu" {
		t.Fatalf("movx slot %s", in.Slot)
	}
	if a := find(0, "vlda").Args[1]; a.Base.Name != "p2" || a.Post || a.Off != 0 {
		t.Fatalf("[p2, #0]: %+v", a)
	}
	if a := find(1, "vlda").Args[1]; !a.Post || a.PostImm != 64 {
		t.Fatalf("[p4], #64: %+v", a)
	}
	if a := find(1, "vldb").Args[1]; !a.Post || a.PostReg.Name != "m1" {
		t.Fatalf("[p5], m1: %+v", a)
	}
	if a := find(2, "vlda.fill.512").Args[0]; a.Fifo.Name != "lf0" || a.Pos.Name != "r24" {
		t.Fatalf("fifo: %+v", a)
	}
	var h *vliw.Hazard
	if err := vliw.Link(m, p); !errors.As(err, &h) || h.Rule != "loop" {
		t.Fatalf("set-up right before a one-bundle loop: %v", err)
	}
	// the loop-start label resolves to the byte address of its 16-byte-aligned bundle
	if ls := find(2, "movxm").Args[1]; ls.Sym != ".l_start" || ls.Imm != int64(p.Addr[4]) || p.Addr[4]%16 != 0 {
		t.Fatalf("ls = %d, bundle 4 at %d", ls.Imm, p.Addr[4])
	}
	for _, bad := range []string{
		"  vlda x0, [p2, #0 ",           // unbalanced
		"  vlda x0, [r1, #0]",           // not a pointer
		"  vlda x0, [p2, #0], #64",      // offset and post-modify
		"  add r1, r1, #3 +",            // expression ends early
		"  frobnicate r1",               // unknown operation
		"  vmac.f dm0, dm1, x0, x1, r0", // operands of the wrong class
	} {
		if _, err := vliw.Parse(m, xdna.NewISA(aie2p.Arch), "x", bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestLoopRule: the set-up distance follows the machine's rule, either form.
func TestLoopRule(t *testing.T) {
	m := *aie2p.Arch.M
	src := "  nopv ; nopa ; nopb ; nops ; movxm ls, #.s\n  nopv ; nopa ; nopb ; nops ; movxm le, #.e\n" +
		strings.Repeat("  nopv ; nopa ; nopb ; nops ; movx r1, #0\n", 16) + ".s:\n  nop\n.e:\n  nop\n"
	p, err := vliw.Parse(&m, xdna.NewISA(aie2p.Arch), "x", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := vliw.Link(&m, p); err != nil {
		t.Fatalf("XD rule: %v", err)
	}
	m.Loop = vliw.LoopRule{MinBytesToEnd: 112, Source: "llvm-aie"}
	var h *vliw.Hazard
	if err := vliw.Link(&m, p); !errors.As(err, &h) || h.Rule != "loop" {
		t.Fatalf("llvm-aie rule: %v", err)
	}
}
