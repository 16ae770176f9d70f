package backend

import (
	"sort"

	"github.com/sumacdev/sumac/target/aie1"
)

// Post-modified accesses from pointer additions. AIE1's loads and stores address memory
// through a pointer register and may add a step to it afterwards in the same instruction
// ([Instr] AIE1InstrInfo.td: "lda $reg, [$ptr], $imm", "vst $reg, [$ptr], $imm" with the
// ag_short_pstm_nrm_imm operand; ag_short_pstm_nrm, "[$ptr], $mod", takes the step from a
// modifier register; AM009 "Functional Overview": "post-incremental" addressing of the three
// AGUs). C code that walks a pointer (`*(v16int8 *) w_ptr; w_ptr += N`) lowers to an access and
// a separate pointer addition (padd, II_PADDA, on a load slot); foldPostModify merges the
// addition into the access that precedes it, as a compiler's addressing-mode selection does
// (LLVM's post-indexed loads and stores, DAGCombiner::CombineToPostIndexedLoadStore). The
// pointer is then written in the access's PtrDef cycle, as a padd writes it (II_PADDA,
// II_LDASP_RW: cycle 2), so a chain of such accesses is no shorter; what is saved is the padd's
// load slot. splitChains shortens the chain.
//
// A step outside the instruction's immediate field is taken from a modifier register set
// before the code that uses it; like the lowering's other post-increments (indGroup, window
// reads), the model does not allocate that register.

// foldPostModify merges into each memory access through a pointer p at offset 0 without a
// post-modify of its own the constant pointer addition p = p + c that follows it in ops when
// nothing in between reads or writes p. It returns ops without the merged additions.
func foldPostModify(ops []*vop) []*vop {
	drop := map[*vop]bool{}
	for i, o := range ops {
		if o.mem == nil || o.mem.spillOf != nil || o.mem.offset != 0 || o.mem.postInc != 0 || hasPtrUpdate(o) {
			continue
		}
		p := o.mem.ptr
		if p == nil || p.file != FilePtr {
			continue
		}
		for j := i + 1; j < len(ops); j++ {
			d := ops[j]
			if drop[d] {
				continue
			}
			if isConstPadd(d, p) && (d.wrap == "" || o.wrap == "" || d.wrap == o.wrap) {
				o.mem.postInc = int(d.imm)
				o.defs = append(o.defs, vopnd{r: p, ptrUpdate: true})
				if d.wrap != "" {
					o.wrap = d.wrap
				}
				drop[d] = true
				break
			}
			if mentionsReg(d, p) {
				break
			}
		}
	}
	if len(drop) == 0 {
		return ops
	}
	out := make([]*vop, 0, len(ops)-len(drop))
	for _, o := range ops {
		if !drop[o] {
			out = append(out, o)
		}
	}
	return out
}

// isConstPadd reports whether d is p = p + constant (a padd with an immediate step).
func isConstPadd(d *vop, p *vreg) bool {
	return d.name == "padd" && d.itin == &aie1.ItinPADD && d.imm != 0 && d.mem == nil &&
		len(d.defs) == 1 && d.defs[0].r == p && d.defs[0].partBytes == 0 &&
		len(d.uses) == 1 && d.uses[0].r == p
}

func mentionsReg(o *vop, r *vreg) bool {
	for _, u := range o.uses {
		if u.r == r {
			return true
		}
	}
	for _, d := range o.defs {
		if d.r == r {
			return true
		}
	}
	return o.mem != nil && o.mem.ptr == r
}

// splitChains deals the post-modified accesses of a loop body's pointer round-robin to up to
// maxChains pointers when the pointer's chain is the body's bound: each post-modify writes the
// pointer in cycle 2 and the next access reads it in cycle 1 (II_PADDA, ItinLoad.PtrDef), so u
// accesses on one pointer need 2u cycles an iteration however many load slots are free, while
// the other resources of the body need resMII cycles. As in rechain (group.go), every access
// keeps its address: the extra pointers start at the addresses of their first accesses (set
// up before the loop) and advance by the steps between their own accesses. It reports whether
// it changed the body.
func (l *lowerer) splitChains(ops []*vop, lr *loopRegion) bool {
	chains := rechainable(ops)
	if len(chains) == 0 {
		return false
	}
	res := resBound(ops)
	changed := false
	ptrs := make([]*vreg, 0, len(chains))
	for p := range chains {
		ptrs = append(ptrs, p)
	}
	sort.Slice(ptrs, func(i, j int) bool { return ptrs[i].name < ptrs[j].name })
	for _, p := range ptrs {
		upd, wraps := 0, false
		for _, o := range ops {
			if o.mem != nil && o.mem.ptr == p && hasPtrUpdate(o) {
				upd++
				wraps = wraps || o.wrap != ""
			}
		}
		// a circular window's pointer wraps at the window's end, which a second pointer set
		// up by a plain padd would not
		if wraps || 2*upd <= res {
			continue
		}
		one := map[*vreg][]*vop{p: chains[p]}
		nptr := min(maxChains, (2*upd+res-1)/res)
		pre, ok := l.rechainN(ops, one, nptr)
		if !ok {
			continue
		}
		lr.pre = append(lr.pre, pre...)
		changed = true
	}
	return changed
}

// rechainN is rechain over the body in its own order with the number of pointers given.
func (l *lowerer) rechainN(ops []*vop, chains map[*vreg][]*vop, nptr int) ([]*vop, bool) {
	var pre []*vop
	for p := range chains {
		abs := map[*vop]int{}
		cum := 0
		var upd []*vop
		for _, o := range ops {
			if o.mem == nil || o.mem.ptr != p {
				continue
			}
			abs[o] = cum + o.mem.offset
			if hasPtrUpdate(o) {
				cum += o.mem.postInc
				upd = append(upd, o)
			}
		}
		total := cum
		if len(upd) < 2 || abs[upd[0]] != 0 {
			return nil, false
		}
		nptr = min(nptr, len(upd))
		pre = append(pre, l.dealChain(p, upd, nptr, abs, total, "c")...)
		// accesses without a post-modify keep their addresses relative to the main pointer
		cur := 0
		for _, o := range ops {
			if o.mem == nil || o.mem.ptr != p {
				continue
			}
			if hasPtrUpdate(o) {
				cur += o.mem.postInc
			} else {
				o.mem.offset = abs[o] - cur
			}
		}
	}
	return pre, true
}

// resBound is a lower bound on a loop body's cycles an iteration from its issue slots alone:
// the most operations that can only go to one slot, and the load-slot operations over the two
// load slots.
func resBound(ops []*vop) int {
	var single [aie1.NumSlots]int
	load := 0
	ldPair := SlotMask(aie1.SlotLDA) | SlotMask(aie1.SlotLDB)
	for _, o := range ops {
		if len(o.alts) == 1 {
			for s := aie1.Slot(0); s < aie1.NumSlots; s++ {
				if o.alts[0]&SlotMask(s) != 0 {
					single[s]++
				}
			}
			if o.alts[0]&ldPair != 0 && o.alts[0]&^ldPair == 0 {
				load++
			}
			continue
		}
		all := uint16(0)
		for _, a := range o.alts {
			all |= a
		}
		if all == ldPair {
			load++
		}
	}
	b := max(1, (load+1)/2)
	for _, n := range single {
		b = max(b, n)
	}
	return b
}
