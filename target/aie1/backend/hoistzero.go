package backend

import (
	"fmt"

	"github.com/sumacdev/sumac/target/aie1"
)

// hoistZeros moves loop-invariant zeroing out of innermost loops after register allocation
// (loop-invariant code motion of a constant, as any compiler's LICM does for a
// rematerializable value): a vector unit that only vzero writes inside a loop body, and that
// the body writes before it reads, holds zero throughout the loop once it is zeroed before
// the loop. The zero halves of widened MAC operands (concat(a, zeros) narrowed, flatten.go)
// are such units when the allocator keeps them in the same register from block to block.
// A vzero whose other units are overwritten before they are read is narrowed to the
// invariant units first. It returns the number of vzeros moved.
func (c *compiler) hoistZeros() int {
	n := 0
	var walk func(rs []*region)
	walk = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				walk(rg.loop.body)
				n += c.hoistLoopZeros(rg.loop)
			}
		}
	}
	walk(c.regions)
	if n > 0 {
		c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("%d loop-invariant vzeros moved before their loops", n))
	}
	return n
}

func (c *compiler) hoistLoopZeros(lr *loopRegion) int {
	if lr.minTrip < 1 {
		return 0
	}
	var ops []*vop
	for _, rg := range lr.body {
		if rg.loop != nil || rg.barrier {
			return 0 // only innermost straight-line bodies
		}
		ops = append(ops, rg.ops...)
	}
	isZero := func(o *vop) bool {
		return o.name == "vzero" && len(o.uses) == 0 && len(o.defs) == 1 && o.defs[0].r.file == FileVec && o.mem == nil
	}
	type access struct {
		i     int
		write bool
	}
	var acc [16][]access
	onlyZero := [16]bool{}
	for u := range onlyZero {
		onlyZero[u] = true
	}
	for i, o := range ops {
		for _, x := range o.uses {
			for _, fu := range unitsOf(x) {
				if fu[0] == int(FileVec) {
					acc[fu[1]] = append(acc[fu[1]], access{i, false})
				}
			}
		}
		for _, x := range o.defs {
			for _, fu := range unitsOf(x) {
				if fu[0] == int(FileVec) {
					acc[fu[1]] = append(acc[fu[1]], access{i, true})
					if !isZero(o) {
						onlyZero[fu[1]] = false
					}
				}
			}
		}
	}
	inv := [16]bool{}
	for u := range acc {
		inv[u] = onlyZero[u] && len(acc[u]) > 0 && acc[u][0].write
	}
	// deadAfter: unit u's value written by op i is overwritten later in the body before any
	// read (so dropping that write changes nothing)
	deadAfter := func(u, i int) bool {
		for _, a := range acc[u] {
			if a.i > i {
				return a.write
			}
		}
		return false
	}
	drop := map[*vop]bool{}
	var hoisted []*vop
	seen := map[string]bool{}
	for i, o := range ops {
		if !isZero(o) {
			continue
		}
		d := o.defs[0]
		us := unitsOf(d)
		var keep []int // indices into the register's units that stay
		first, last := -1, -1
		ok := true
		regUnits := d.r.phys.Units
		for _, fu := range us {
			u := fu[1]
			if inv[u] {
				idx := -1
				for k, ru := range regUnits {
					if ru == u {
						idx = k
					}
				}
				if idx < 0 {
					ok = false
					break
				}
				keep = append(keep, idx)
				if first < 0 || idx < first {
					first = idx
				}
				last = max(last, idx)
				continue
			}
			if !deadAfter(u, i) {
				ok = false
				break
			}
		}
		if !ok || len(keep) == 0 || last-first+1 != len(keep) {
			continue
		}
		drop[o] = true
		key := fmt.Sprint(regUnits[first : last+1])
		if seen[key] {
			continue
		}
		seen[key] = true
		z := &vop{name: "vzero", alts: mvAlts, itin: &aie1.ItinMOV, defs: []vopnd{{r: d.r, part: 16 * first, partBytes: 16 * len(keep)}}}
		if len(keep) == len(regUnits) {
			z.defs[0].part, z.defs[0].partBytes = 0, 0
		}
		hoisted = append(hoisted, z)
	}
	if len(drop) == 0 {
		return 0
	}
	for _, rg := range lr.body {
		out := rg.ops[:0]
		for _, o := range rg.ops {
			if !drop[o] {
				out = append(out, o)
			}
		}
		rg.ops = out
	}
	lr.pre = append(lr.pre, hoisted...)
	return len(drop)
}
