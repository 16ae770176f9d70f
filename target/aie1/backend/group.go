package backend

import (
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/target/aie1"
)

// Accumulator groups: when a loop body's MACs write more accumulators than the accumulator
// file holds (seed 001's 32x4 block: eight 768-bit accumulators, four bm registers), every
// accumulator must be spilled, and the cost is how often. Ordered as written, each
// iteration touches every accumulator, so each is filled and spilled every iteration (four
// 32-byte transfers each way per 768-bit register, one stack access per cycle: aie1.SpillOps,
// ResStackBank). groupAccs reorders an unrolled body so that the accumulators are processed
// in groups that fit the file, every MAC of a group over all unrolled iterations together:
// each accumulator is then filled once and spilled once per unrolled body, i.e. a group is
// swapped in and out once per several iterations (the allocator's block-mode spills place
// the fill before a temporary's first reference and the spill after its last write).
//
// Operands a later group needs again are not kept live across the earlier group (which would
// spill vector registers) but loaded again: a value defined in the body only by loads from
// memory the body never stores to is rematerialized by a copy of its loads. Loads through a
// post-incremented pointer (window reads, affine buffer indices) are re-chained: every access
// keeps its address, and the post-increments are recomputed for the new order.

// groupAccs returns the body in group order, or false if it does not apply (the accumulators
// fit, or an address cannot be re-chained).
func (l *lowerer) groupAccs(ops []*vop, lr *loopRegion) ([]*vop, bool) {
	isMAC := func(o *vop) bool { return o.macs > 0 && len(o.defs) > 0 && o.defs[0].r.file == FileAcc }
	// Accumulators in order of first MAC, packed greedily into groups of the file's units.
	group := map[*vreg]int{}
	groups, units := 0, 0
	for _, o := range ops {
		if !isMAC(o) {
			continue
		}
		r := o.defs[0].r
		if _, ok := group[r]; ok {
			continue
		}
		n := len(placements(r)[0])
		if units+n > l.groupUnits {
			groups++
			units = 0
		}
		units += n
		group[r] = groups
	}
	groups++
	if groups < 2 {
		return nil, false
	}
	chains := rechainable(ops)
	// Values that may be loaded again: defined only by loads (all of the register), from a
	// space the body does not store to.
	stored := map[string]bool{}
	for _, o := range ops {
		if o.mem != nil && o.mem.store {
			stored[o.mem.space] = true
		}
	}
	defsOf := map[*vreg][]int{}
	remat := map[*vreg]bool{}
	for i, o := range ops {
		for _, d := range o.defs {
			if !d.ptrUpdate {
				defsOf[d.r] = append(defsOf[d.r], i)
			}
		}
	}
	for r, ds := range defsOf {
		if r.file != FileVec {
			continue
		}
		ok, bytes := true, 0
		for _, i := range ds {
			o := ops[i]
			if o.mem == nil || o.mem.store || stored[o.mem.space] || o.mem.spillOf != nil || chains[o.mem.ptr] == nil && hasPtrUpdate(o) {
				ok = false
				break
			}
			for _, d := range o.defs {
				if d.r == r {
					if d.partBytes > 0 {
						bytes += d.partBytes
					} else {
						bytes += r.bits / 8
					}
				}
			}
		}
		if ok && bytes*8 >= r.bits {
			remat[r] = true
		}
	}
	// Dependences among the ops, without those through re-chained pointers (their addresses
	// are recomputed) and without ordering among loads.
	n := len(ops)
	preds := make([][]int, n)
	lastW := map[*vreg]int{}
	reads := map[*vreg][]int{}
	for i, o := range ops {
		seen := map[int]bool{}
		dep := func(a int) {
			if a >= 0 && a != i && !seen[a] {
				seen[a] = true
				preds[i] = append(preds[i], a)
			}
		}
		for _, u := range o.uses {
			if chains[u.r] != nil && u.kind == aie1.OpndPtr {
				continue
			}
			if w, ok := lastW[u.r]; ok {
				dep(w)
			}
		}
		for _, d := range o.defs {
			if d.ptrUpdate && chains[d.r] != nil {
				continue
			}
			if w, ok := lastW[d.r]; ok {
				dep(w)
			}
			for _, r := range reads[d.r] {
				dep(r)
			}
		}
		for j := 0; j < i; j++ {
			if a, b := ops[j].mem, o.mem; a != nil && b != nil && a.space == b.space && (a.store || b.store) {
				dep(j)
			}
		}
		for _, u := range o.uses {
			reads[u.r] = append(reads[u.r], i)
		}
		for _, d := range o.defs {
			if d.ptrUpdate && chains[d.r] != nil {
				continue
			}
			lastW[d.r] = i
			reads[d.r] = nil
		}
	}
	done := make([]bool, n)
	var out []*vop
	orig := map[*vop]*vop{} // a rematerialized load -> the load it copies
	loadedIn := map[*vreg]int{}
	copyIn := map[[2]int]*vreg{} // (value's first def op, group) -> its copy
	var emit func(i, g int) bool
	emit = func(i, g int) bool {
		if done[i] {
			return true
		}
		for _, p := range preds[i] {
			if !emit(p, g) {
				return false
			}
		}
		done[i] = true
		o := ops[i]
		for _, d := range o.defs {
			if remat[d.r] {
				loadedIn[d.r] = g
			}
		}
		out = append(out, o)
		return true
	}
	// use returns the register a group-g op should read for value r: r itself, or a copy
	// loaded again in this group.
	use := func(r *vreg, g int) *vreg {
		if !remat[r] {
			return r
		}
		first := defsOf[r][0]
		if !done[first] || loadedIn[r] == g {
			return r
		}
		key := [2]int{first, g}
		if c := copyIn[key]; c != nil {
			return c
		}
		l.nTemp++
		c := l.newReg(r.name+".re", r.file, r.bits)
		c.needX, c.needZ = r.needX, r.needZ
		for _, di := range defsOf[r] {
			src := ops[di]
			cp := *src
			cp.defs = append([]vopnd(nil), src.defs...)
			cp.uses = append([]vopnd(nil), src.uses...)
			for k := range cp.defs {
				if cp.defs[k].r == r {
					cp.defs[k].r = c
				}
			}
			m := *src.mem
			cp.mem = &m
			orig[&cp] = src
			out = append(out, &cp)
		}
		copyIn[key] = c
		return c
	}
	// Within a group, round by round (an unrolled copy of the body: each accumulator's MACs
	// of one iteration), accumulator by accumulator: the accumulators of a group then finish,
	// and the next group's start, one after another, so that the swap of one register
	// overlaps the MACs of the others.
	macsOf := map[*vreg][]int{}
	var accOrder []*vreg
	for i, o := range ops {
		if isMAC(o) {
			r := o.defs[0].r
			if macsOf[r] == nil {
				accOrder = append(accOrder, r)
			}
			macsOf[r] = append(macsOf[r], i)
		}
	}
	rounds := max(1, l.unroll)
	for g := 0; g < groups; g++ {
		for round := 0; round < rounds; round++ {
			for _, a := range accOrder {
				if group[a] != g {
					continue
				}
				ms := macsOf[a]
				q := (len(ms) + rounds - 1) / rounds
				for _, i := range ms[min(len(ms), round*q):min(len(ms), (round+1)*q)] {
					o := ops[i]
					if done[i] {
						continue
					}
					// the operands first (loaded again if an earlier group loaded them)
					var renamed []vopnd
					for _, u := range o.uses {
						r := u.r
						if remat[r] && done[defsOf[r][0]] {
							r = use(r, g)
						}
						renamed = append(renamed, vopnd{r: r, kind: u.kind, part: u.part, partBytes: u.partBytes})
					}
					if !emit(i, g) {
						return nil, false
					}
					for k := range o.uses {
						o.uses[k] = renamed[k]
					}
				}
			}
		}
	}
	for i := range ops {
		if !emit(i, groups-1) {
			return nil, false
		}
	}
	pre, ok := l.rechain(ops, out, orig, chains)
	if !ok {
		return nil, false
	}
	lr.pre = append(lr.pre, pre...)
	return out, true
}

func hasPtrUpdate(o *vop) bool {
	for _, d := range o.defs {
		if d.ptrUpdate {
			return true
		}
	}
	return false
}

// rechainable returns the pointers of a body whose every write is a memory access's post-
// increment and every read an address, with each post-incrementing access at offset 0: their
// accesses can be put in any order with the increments recomputed.
func rechainable(ops []*vop) map[*vreg][]*vop {
	ok := map[*vreg]bool{}
	bad := map[*vreg]bool{}
	for _, o := range ops {
		for _, d := range o.defs {
			if d.r.file != FilePtr {
				continue
			}
			if !d.ptrUpdate || o.mem == nil || o.mem.ptr != d.r || o.mem.offset != 0 {
				bad[d.r] = true
			} else {
				ok[d.r] = true
			}
		}
		for _, u := range o.uses {
			if u.r.file == FilePtr && (o.mem == nil || o.mem.ptr != u.r) {
				bad[u.r] = true
			}
		}
	}
	out := map[*vreg][]*vop{}
	for r := range ok {
		if !bad[r] {
			out[r] = []*vop{}
		}
	}
	return out
}

// rechain gives the accesses through each re-chainable pointer of the new order (out) the
// addresses they had in the original order (ops): each access's address relative to the
// pointer at the start of the body is kept (a copy keeps its original's), post-increments
// lead from one post-incrementing access to the next, and the last leaves the pointer where
// the original body left it. Each post-increment feeds the next access of its chain
// (II_PADDA: the pointer is written in cycle 2, read in cycle 1), so one pointer bounds the
// body at two cycles per access: a chain longer than the body's MACs is dealt round-robin to
// the pointer and further ones set up before the loop (returned). It fails if the first post-incrementing access of the new order is not
// at the body's start address.
func (l *lowerer) rechain(ops, out []*vop, orig map[*vop]*vop, chains map[*vreg][]*vop) ([]*vop, bool) {
	ptrs := make([]*vreg, 0, len(chains))
	for p := range chains {
		ptrs = append(ptrs, p)
	}
	sort.Slice(ptrs, func(i, j int) bool { return ptrs[i].name < ptrs[j].name })
	var pre []*vop
	nMACs := 0
	for _, o := range out {
		if o.macs > 0 {
			nMACs++
		}
	}
	for _, p := range ptrs {
		abs := map[*vop]int{}
		cum := 0
		for _, o := range ops {
			if o.mem == nil || o.mem.ptr != p {
				continue
			}
			abs[o] = cum + o.mem.offset
			if hasPtrUpdate(o) {
				cum += o.mem.postInc
			}
		}
		total := cum
		var upd []*vop
		for _, o := range out {
			if o.mem == nil || o.mem.ptr != p {
				continue
			}
			if src, ok := orig[o]; ok {
				abs[o] = abs[src]
			}
			if hasPtrUpdate(o) {
				upd = append(upd, o)
			}
		}
		if len(upd) > 0 && abs[upd[0]] != 0 {
			return nil, false
		}
		nptr := max(1, min(maxChains, (4*len(upd)+nMACs-1)/max(1, nMACs)))
		pre = append(pre, l.dealChain(p, upd, nptr, abs, total, "b")...)
		for _, o := range upd {
			o.mem.offset = 0
		}
		cur := 0
		for _, o := range out {
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

// maxChains bounds the pointers one re-chained pointer's accesses are split between: the
// chain is split when its post-increments (two cycles each) take longer than the body's MACs
// (one cycle each), into as many pointers as bring it below them.
const maxChains = 4

// dealChain deals p's post-incrementing accesses upd (in body order, the first at p's value)
// round-robin to nptr pointers, the first p and the others copies of p set up before the loop
// (pre) at their first access's address; each access's post-increment then steps its own
// pointer to that pointer's next access, and the last wraps by total, p's step an iteration.
// abs holds each access's address relative to p at the iteration's start.
func (l *lowerer) dealChain(p *vreg, upd []*vop, nptr int, abs map[*vop]int, total int, tag string) (pre []*vop) {
	subs := make([][]*vop, nptr)
	for k, o := range upd {
		subs[k%nptr] = append(subs[k%nptr], o)
	}
	for _, sub := range subs[1:] {
		l.nTemp++
		p2 := l.newReg(fmt.Sprintf("%s.%s%d", p.name, tag, l.nTemp), FilePtr, 20)
		pre = append(pre,
			&vop{name: "mov", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{{r: p2}}, uses: []vopnd{{r: p, kind: aie1.OpndPtr}}},
			&vop{name: "padd", alts: paddAlts, itin: &aie1.ItinPADD, defs: []vopnd{{r: p2}}, uses: []vopnd{{r: p2, kind: aie1.OpndPtr}}, imm: int64(abs[sub[0]])})
		for _, o := range sub {
			o.mem.ptr = p2
			for k := range o.uses {
				if o.uses[k].r == p && o.uses[k].kind == aie1.OpndPtr {
					o.uses[k].r = p2
				}
			}
			for k := range o.defs {
				if o.defs[k].r == p && o.defs[k].ptrUpdate {
					o.defs[k].r = p2
				}
			}
		}
	}
	for _, sub := range subs {
		for k, o := range sub {
			if k+1 < len(sub) {
				o.mem.postInc = abs[sub[k+1]] - abs[o]
			} else {
				o.mem.postInc = total + abs[sub[0]] - abs[o]
			}
		}
	}
	return pre
}
