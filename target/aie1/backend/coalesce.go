package backend

import (
	"fmt"

	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Register coalescing (Chaitin, "Register allocation and spilling via graph coloring", SIGPLAN
// 1982; LLVM's RegisterCoalescer): a copy whose source dies at the copy and whose destination
// is first defined there needs no code when source and destination share a register. The
// pass runs on the virtual registers before allocation and, where the two live intervals
// (liveIntervals, the allocator's own interference model) touch only at the copy and the
// register class of the merged register is not empty, renames one register to the other and
// deletes the copy.
//
// Two kinds of copies:
//   - a full vector or accumulator move (vmov of a kernel mov, the copy before a MAC that
//     accumulates into another register, the copy before an upd_* into another register):
//     source and destination become one register;
//   - a concatenation (concat(a, b) into a register twice as wide): each source that dies at
//     the concatenation becomes a part of the destination (sub-register coalescing, LLVM's
//     REG_SEQUENCE elimination), so its definition writes that half directly.
//
// Compile keeps the faster of the kernel compiled with and without coalescing, so merging
// live ranges (which can tie operations by register reuse) never makes a kernel slower.

// walkOps numbers the operations in liveIntervals' order and calls f with each op, its
// list and its position.
func walkOps(regs []*region, f func(o *vop, pos int)) {
	pos := 0
	var walk func(rs []*region)
	walk = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				for _, o := range rg.loop.pre {
					f(o, pos)
					pos++
				}
				walk(rg.loop.body)
				continue
			}
			for _, o := range rg.ops {
				f(o, pos)
				pos++
			}
		}
	}
	walk(regs)
}

// isCopy reports whether o is a full register-to-register vector or accumulator move.
func isCopy(o *vop) bool {
	if o.name != "vmov" || len(o.defs) != 1 || len(o.uses) != 1 || o.mem != nil || o.macs != 0 {
		return false
	}
	if o.src != nil && o.src.Op != kernel.OpMov {
		return false
	}
	d, s := o.defs[0], o.uses[0]
	if d.partBytes > 0 && d.partBytes*8 < d.r.bits || s.partBytes > 0 && s.partBytes*8 < s.r.bits {
		return false
	}
	return d.r != s.r && d.r.file == s.r.file && d.r.bits == s.r.bits && (d.r.file == FileVec || d.r.file == FileAcc)
}

// isConcat reports whether o is a concatenation of whole vector registers of equal width
// into a whole register.
func isConcat(o *vop) bool {
	if o.name != "vmov" || o.src == nil || o.src.Op != kernel.OpConcat || len(o.defs) != 1 || len(o.uses) < 2 || o.mem != nil {
		return false
	}
	d := o.defs[0]
	if d.partBytes > 0 && d.partBytes*8 < d.r.bits || d.r.file != FileVec {
		return false
	}
	seen := map[*vreg]bool{}
	for _, u := range o.uses {
		if u.partBytes > 0 && u.partBytes*8 < u.r.bits || u.r.file != FileVec || u.r.bits*len(o.uses) != d.r.bits || seen[u.r] || u.r == d.r {
			return false
		}
		seen[u.r] = true
	}
	return true
}

// coalesce merges copies' sources and destinations (see above) and deletes the copies.
func (c *compiler) coalesce() int {
	iv, _ := liveIntervals(c.regions, c.l.all)
	dead := map[*vop]bool{}
	type cand struct {
		o   *vop
		pos int
	}
	var cands []cand
	walkOps(c.regions, func(o *vop, pos int) {
		if isCopy(o) || isConcat(o) {
			cands = append(cands, cand{o, pos})
		}
	})
	if len(cands) == 0 {
		return 0
	}
	// rename rewrites every reference to from as a reference to to, at byte offset off
	// (-1: the whole register).
	rename := func(from, to *vreg, off int) {
		fix := func(x *vopnd) {
			if x.r != from {
				return
			}
			x.r = to
			if off < 0 {
				return
			}
			if x.partBytes > 0 && x.partBytes*8 < from.bits {
				x.part += off
			} else {
				x.part, x.partBytes = off, from.bits/8
			}
		}
		walkOps(c.regions, func(o *vop, _ int) {
			for i := range o.defs {
				fix(&o.defs[i])
			}
			for i := range o.uses {
				fix(&o.uses[i])
			}
			if o.mem != nil && o.mem.ptr == from {
				o.mem.ptr = to
			}
		})
		for v, r := range c.l.vregs {
			if r == from && off < 0 {
				c.l.vregs[v] = to
			} else if r == from {
				delete(c.l.vregs, v) // now a part of another register
			}
		}
		a, b := iv[from], iv[to]
		if a != nil && b != nil {
			b.start, b.end = min(a.start, b.start), max(a.end, b.end)
			b.refs += a.refs
		}
		delete(iv, from)
	}
	merged, concats := 0, 0
	for _, cd := range cands {
		o, p := cd.o, cd.pos
		if isCopy(o) {
			d, s := o.defs[0].r, o.uses[0].r
			if d.fixed != nil || s.fixed != nil {
				continue
			}
			id, is := iv[d], iv[s]
			if id == nil || is == nil || is.end != p || id.start != p {
				continue
			}
			// the merged register's class
			m := *s
			m.needX, m.needZ, m.avoidZ = s.needX || d.needX, s.needZ || d.needZ, s.avoidZ || d.avoidZ
			m.noSpill = s.noSpill || d.noSpill
			if len(placements(&m)) == 0 {
				continue
			}
			s.needX, s.needZ, s.avoidZ, s.noSpill = m.needX, m.needZ, m.avoidZ, m.noSpill
			if s.v == nil {
				s.v = d.v
			}
			dead[o] = true
			rename(d, s, -1)
			merged++
			continue
		}
		// a concatenation: each source that dies here becomes a part of the destination
		d := o.defs[0].r
		id := iv[d]
		if d.fixed != nil || id == nil || id.start != p {
			continue
		}
		ok := true
		for _, u := range o.uses {
			x := iv[u.r]
			if u.r.fixed != nil || x == nil || x.end != p || u.r.needZ || u.r.avoidZ {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		m := *d
		for _, u := range o.uses {
			m.needX = m.needX || u.r.needX
			m.noSpill = m.noSpill || u.r.noSpill
		}
		if len(placements(&m)) == 0 {
			continue
		}
		d.needX, d.noSpill = m.needX, m.noSpill
		dead[o] = true
		part := d.bits / 8 / len(o.uses)
		for i, u := range o.uses {
			rename(u.r, d, i*part)
		}
		merged++
		concats++
	}
	if merged == 0 {
		return 0
	}
	keep := func(ops []*vop) []*vop {
		out := ops[:0]
		for _, o := range ops {
			if !dead[o] {
				out = append(out, o)
			}
		}
		return out
	}
	var prune func(rs []*region)
	prune = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				rg.loop.pre = keep(rg.loop.pre)
				prune(rg.loop.body)
				continue
			}
			rg.ops = keep(rg.ops)
		}
	}
	prune(c.regions)
	c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("register coalescing removed %d copies (%d of them concatenations)", merged, concats))
	return merged
}
