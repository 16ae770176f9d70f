package backend

import "testing"

// rechain keeps every access's address when the accesses through a post-incremented pointer
// are reordered, copied or split between pointers, and leaves each pointer advanced by the
// body's total.
func TestRechainKeepsAddresses(t *testing.T) {
	for _, macs := range []int{100, 1} { // no split, then split between pointers
		l := &lowerer{}
		p := l.newReg("p", FilePtr, 20)
		v := l.newReg("v", FileVec, 256)
		load := func(inc int) *vop {
			return &vop{name: "vld", defs: []vopnd{{r: v}, {r: p, ptrUpdate: true}}, uses: []vopnd{{r: p, kind: 1}},
				mem: &vmem{ptr: p, postInc: inc, bytes: 32, space: "A"}}
		}
		var ops []*vop
		for i := 0; i < 6; i++ {
			ops = append(ops, load(32))
		}
		// a constant-offset access after three post-increments: address 96 + 64
		fixed := &vop{name: "vld", defs: []vopnd{{r: v}}, uses: []vopnd{{r: p, kind: 1}}, mem: &vmem{ptr: p, offset: 64, bytes: 32, space: "A"}}
		ops = append(ops[:3], append([]*vop{fixed}, ops[3:]...)...)
		want := map[*vop]int{ops[0]: 0, ops[1]: 32, ops[2]: 64, fixed: 160, ops[4]: 96, ops[5]: 128, ops[6]: 160}
		dup := *ops[5]
		m := *ops[5].mem
		dup.mem = &m
		want[&dup] = 128
		out := []*vop{ops[0], ops[4], fixed, ops[2], ops[6], ops[1], &dup, ops[5]}
		order := append([]*vop(nil), out...)
		for i := 0; i < macs; i++ {
			out = append(out, &vop{name: "mac", macs: 1})
		}
		pre, ok := l.rechain(ops, out, map[*vop]*vop{&dup: ops[5]}, rechainable(ops))
		if !ok {
			t.Fatal("rechain refused")
		}
		at := map[*vreg]int{p: 0}
		start := map[*vreg]int{p: 0}
		for i := 0; i+1 < len(pre); i += 2 {
			r := pre[i].defs[0].r
			at[r], start[r] = int(pre[i+1].imm), int(pre[i+1].imm)
		}
		for _, o := range order {
			if got := at[o.mem.ptr] + o.mem.offset; got != want[o] {
				t.Errorf("macs %d: access at %d, want %d", macs, got, want[o])
			}
			if hasPtrUpdate(o) {
				at[o.mem.ptr] += o.mem.postInc
			}
		}
		for r, a := range at {
			if a-start[r] != 192 {
				t.Errorf("macs %d: pointer %s advanced by %d, want 192", macs, r.name, a-start[r])
			}
		}
		if (macs == 1) != (len(pre) > 0) {
			t.Errorf("macs %d: %d set-up ops", macs, len(pre))
		}
	}
}
