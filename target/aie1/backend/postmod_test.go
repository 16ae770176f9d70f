package backend

import (
	"testing"

	"github.com/sumacdev/sumac/target/aie1"
)

func paddOp(p *vreg, imm int64) *vop {
	return &vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{{r: p}}, uses: []vopnd{{r: p, kind: aie1.OpndPtr}}, imm: imm}
}

func loadOp(p, v *vreg) *vop {
	return &vop{name: "vld", alts: ldAlts, itin: &aie1.ItinLoad, defs: []vopnd{{r: v}}, uses: []vopnd{{r: p, kind: aie1.OpndPtr}},
		mem: &vmem{ptr: p, bytes: 16, space: "w"}}
}

// foldPostModify merges `p = p + c` into the access through p before it, unless something
// between reads or writes p; the access then advances p by c.
func TestFoldPostModify(t *testing.T) {
	l := &lowerer{}
	p := l.newReg("p", FilePtr, 20)
	q := l.newReg("q", FilePtr, 20)
	v := l.newReg("v", FileVec, 128)
	a, b, c := loadOp(p, v), loadOp(p, v), loadOp(q, v)
	use := &vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{{r: q}}, uses: []vopnd{{r: p, kind: aie1.OpndPtr}}}
	ops := []*vop{a, c, paddOp(p, 32), b, use, paddOp(p, 16)}
	out := foldPostModify(ops)
	if len(out) != 5 {
		t.Fatalf("%d ops after folding, want 5 (one padd folded)", len(out))
	}
	if a.mem.postInc != 32 || !hasPtrUpdate(a) {
		t.Errorf("first access: post-modify %d, want 32", a.mem.postInc)
	}
	if b.mem.postInc != 0 || hasPtrUpdate(b) {
		t.Errorf("second access folded across a read of its pointer (post-modify %d)", b.mem.postInc)
	}
	if c.mem.postInc != 0 {
		t.Errorf("an access through another pointer was folded")
	}
}

// splitChains deals a pointer's chain of post-modified loads to several pointers when the
// chain (two cycles an access) is longer than the body's slots need, keeping every address.
func TestSplitChainsKeepsAddresses(t *testing.T) {
	l := &lowerer{}
	p := l.newReg("p", FilePtr, 20)
	v := l.newReg("v", FileVec, 128)
	var ops []*vop
	for i := 0; i < 8; i++ {
		o := loadOp(p, v)
		o.mem.postInc = 32
		o.defs = append(o.defs, vopnd{r: p, ptrUpdate: true})
		ops = append(ops, o)
	}
	ops[7].mem.postInc = 64 // the body advances p by 7*32 + 64
	order := append([]*vop(nil), ops...)
	lr := &loopRegion{}
	if !l.splitChains(ops, lr) {
		t.Fatal("not split: 8 loads on one pointer take 16 cycles, the load slots 4")
	}
	at := map[*vreg]int{p: 0}
	start := map[*vreg]int{p: 0}
	for i := 0; i+1 < len(lr.pre); i += 2 {
		r := lr.pre[i].defs[0].r
		at[r], start[r] = int(lr.pre[i+1].imm), int(lr.pre[i+1].imm)
	}
	if len(at) < 2 {
		t.Fatalf("%d pointers", len(at))
	}
	for k, o := range order {
		if got := at[o.mem.ptr] + o.mem.offset; got != 32*k {
			t.Errorf("access %d at %d, want %d", k, got, 32*k)
		}
		at[o.mem.ptr] += o.mem.postInc
	}
	for r, a := range at {
		if a-start[r] != 7*32+64 {
			t.Errorf("pointer %s advanced by %d, want %d", r.name, a-start[r], 7*32+64)
		}
	}
}
