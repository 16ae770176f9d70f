package backend

import (
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/target/aie1"
)

// Register allocation: every virtual register gets one physical register for its whole live
// range (linear positions over the region tree; a value live around a loop's back edge is
// live through the whole loop). When a file has no room, a victim is spilled to a stack slot:
// each use reads it back through a short-lived temporary (fill) and each definition writes it
// out (spill), and allocation restarts. Spill code is real code: it is scheduled and executed.

type interval struct {
	r          *vreg
	start, end int
	refs       float64 // uses+defs weighted by 8^loop depth
}

// placements lists the register choices for a virtual register (units of its file).
func placements(r *vreg) [][]int {
	var out [][]int
	switch r.file {
	case FileVec:
		switch r.bits {
		case 128:
			for u := 0; u < 16; u++ {
				out = append(out, []int{u})
			}
		case 256:
			for w := 0; w < 8; w++ {
				// Z buffers must be wc0/wc1 (VECFWC); X buffers inside ya or yd: wr0..wr3, wd0, wd1.
				if r.needZ && w != 4 && w != 5 {
					continue
				}
				if r.needX && (w == 4 || w == 5) {
					continue
				}
				out = append(out, []int{2 * w, 2*w + 1})
			}
		case 512:
			for x := 0; x < 4; x++ {
				if r.needX && x == 2 { // xc is not part of ya or yd
					continue
				}
				if r.needZ {
					continue
				}
				out = append(out, []int{4 * x, 4*x + 1, 4*x + 2, 4*x + 3})
			}
		case 1024:
			out = append(out, []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{12, 13, 14, 15, 4, 5, 6, 7})
		}
	case FileAcc:
		if r.bits == 768 {
			for i := 0; i < 4; i++ {
				out = append(out, []int{2 * i, 2*i + 1})
			}
		} else {
			for u := 0; u < 8; u++ {
				out = append(out, []int{u})
			}
		}
	case FileScalar:
		// r0..r15 less r15, which the compiler keeps for bounces (AIE1InstrInfo.cpp copyPhysReg).
		for u := 0; u < 15; u++ {
			out = append(out, []int{u})
		}
	case FilePtr, FileMod, FileCfg:
		for u := 0; u < FileUnits[r.file]; u++ {
			out = append(out, []int{u})
		}
	}
	return out
}

// linearize numbers the operations and computes live intervals.
func liveIntervals(regs []*region, all []*vreg) (map[*vreg]*interval, int) {
	iv := map[*vreg]*interval{}
	pos := 0
	get := func(r *vreg) *interval {
		x := iv[r]
		if x == nil {
			x = &interval{r: r, start: 1 << 30, end: -1}
			iv[r] = x
		}
		return x
	}
	type loopSpan struct{ start, end int }
	var walk func(rs []*region, depth int)
	// exposed[r] lists the loops around whose back edge r is live (read before written in
	// the body): its interval then covers the whole loop.
	exposed := map[*vreg]map[int]bool{}
	var loopSpans []loopSpan
	walk = func(rs []*region, depth int) {
		for _, rg := range rs {
			if rg.loop != nil {
				for _, o := range rg.loop.pre {
					visitOp(o, pos, depth, get)
					pos++
				}
				id := len(loopSpans)
				loopSpans = append(loopSpans, loopSpan{pos, -1})
				writtenFull := map[*vreg]bool{}
				writtenParts := map[*vreg]int{}
				mark := func(r *vreg) {
					if exposed[r] == nil {
						exposed[r] = map[int]bool{}
					}
					exposed[r][id] = true
				}
				// Upward-exposed reads make a register live around this loop.
				var scan func(rs []*region)
				scan = func(rs []*region) {
					for _, rg2 := range rs {
						if rg2.loop != nil {
							for _, o := range rg2.loop.pre {
								scanOp(o, writtenFull, writtenParts, mark)
							}
							scan(rg2.loop.body)
							continue
						}
						for _, o := range rg2.ops {
							scanOp(o, writtenFull, writtenParts, mark)
						}
					}
				}
				scan(rg.loop.body)
				walk(rg.loop.body, depth+1)
				loopSpans[id].end = pos - 1
				continue
			}
			for _, o := range rg.ops {
				visitOp(o, pos, depth, get)
				pos++
			}
		}
	}
	walk(regs, 0)
	for r, loops := range exposed {
		x := iv[r]
		if x == nil {
			continue
		}
		for id := range loops {
			s := loopSpans[id]
			x.start = min(x.start, s.start)
			x.end = max(x.end, s.end)
		}
	}
	// A register defined in a loop and used after it must survive the whole loop.
	for _, x := range iv {
		for _, s := range loopSpans {
			if x.start >= s.start && x.start <= s.end && x.end > s.end {
				x.start = s.start
			}
		}
	}
	return iv, pos
}

func visitOp(o *vop, pos, depth int, get func(*vreg) *interval) {
	w := 1.0
	for i := 0; i < depth; i++ {
		w *= 8
	}
	for _, u := range o.uses {
		x := get(u.r)
		x.start, x.end = min(x.start, pos), max(x.end, pos)
		x.refs += w
	}
	for _, d := range o.defs {
		x := get(d.r)
		x.start, x.end = min(x.start, pos), max(x.end, pos)
		x.refs += w
	}
}

// scanOp records upward-exposed reads: a read of a register not fully written earlier in the
// loop body.
func scanOp(o *vop, full map[*vreg]bool, parts map[*vreg]int, mark func(*vreg)) {
	for _, u := range o.uses {
		if !full[u.r] && !u.r.undefOnly {
			mark(u.r)
		}
	}
	for _, d := range o.defs {
		if d.partBytes > 0 && d.partBytes*8 < d.r.bits && !d.r.undefRest {
			parts[d.r] += d.partBytes
			if parts[d.r]*8 >= d.r.bits {
				full[d.r] = true
			}
			continue
		}
		full[d.r] = true
	}
}

// allocate assigns physical registers, spilling as needed. It rewrites regs in place.
func (c *compiler) allocate() error {
	for round := 0; round < 64; round++ {
		victim, err := c.tryAllocate()
		if err != nil {
			return err
		}
		if victim == nil {
			return nil
		}
		c.spill(victim)
	}
	return fmt.Errorf("register allocation did not converge")
}

func (c *compiler) tryAllocate() (*vreg, error) {
	iv, _ := liveIntervals(c.regions, c.l.all)
	var ivs []*interval
	for _, x := range iv {
		ivs = append(ivs, x)
	}
	// Registers read before any write (uninitialized accumulators read as zero) keep their
	// register from the start so no earlier value lands in it.
	for _, x := range ivs {
		if c.readFirst[x.r] {
			x.start = -1
		}
	}
	sort.Slice(ivs, func(i, j int) bool {
		if ivs[i].start != ivs[j].start {
			return ivs[i].start < ivs[j].start
		}
		return ivs[i].r.name < ivs[j].r.name
	})
	type busy struct {
		x     *interval
		units []int
	}
	var active [NumFiles][]busy
	var lastEnd [NumFiles][16]int // per unit: the end of the last interval placed there
	for f := range lastEnd {
		for u := range lastEnd[f] {
			lastEnd[f][u] = -1 << 30
		}
	}
	// Fixed registers (arguments, sp) are set by the caller before the kernel starts and
	// occupy their register over their whole interval.
	var fixed [NumFiles][]busy
	for _, x := range ivs {
		if x.r.fixed != nil {
			x.start = -1
			x.r.phys = *x.r.fixed
			fixed[x.r.file] = append(fixed[x.r.file], busy{x, x.r.fixed.Units})
		}
	}
	for _, x := range ivs {
		r := x.r
		if r.fixed != nil {
			continue
		}
		// expire
		act := active[r.file][:0]
		for _, b := range active[r.file] {
			if b.x.end >= x.start {
				act = append(act, b)
			}
		}
		active[r.file] = act
		used := map[int]bool{}
		for _, b := range fixed[r.file] {
			if b.x.start <= x.end && b.x.end >= x.start {
				for _, u := range b.units {
					used[u] = true
				}
			}
		}
		for _, b := range act {
			for _, u := range b.units {
				used[u] = true
			}
		}
		// Among the free placements take the one freed longest ago: reusing the register
		// just released would tie this value to the previous one by write-after-read
		// dependences that keep the modulo scheduler from overlapping them.
		var got []int
		bestAge := 0
		for _, pl := range placements(r) {
			ok := true
			age := -1 << 30
			for _, u := range pl {
				if used[u] {
					ok = false
					break
				}
				age = max(age, lastEnd[r.file][u])
			}
			if ok && (got == nil || age < bestAge) && !(r.avoidZ && zPlacement(pl) && got != nil && !zPlacement(got)) ||
				ok && r.avoidZ && got != nil && zPlacement(got) && !zPlacement(pl) {
				got, bestAge = pl, age
			}
		}
		if got == nil {
			// Spill the cheapest candidate among the active ones and this one.
			best := r
			bestCost := x.refs
			if r.noSpill {
				bestCost = 1e18
			}
			for _, b := range act {
				if b.x.r.noSpill || b.x.r.fixed != nil {
					continue
				}
				if b.x.refs < bestCost {
					best, bestCost = b.x.r, b.x.refs
				}
			}
			if best.noSpill || best.fixed != nil || len(placements(r)) == 0 {
				return nil, &allocError{file: r.file, msg: fmt.Sprintf("register allocation: no %d-bit register for %s", r.bits, r.name)}
			}
			return best, nil
		}
		r.phys = Reg{File: r.file, Units: got}
		active[r.file] = append(active[r.file], busy{x, got})
		for _, u := range got {
			lastEnd[r.file][u] = max(lastEnd[r.file][u], x.end)
		}
	}
	return nil, nil
}

// spill gives victim a stack slot and rewrites every reference through a temporary. When the
// victim is referenced in more than one region (live across a loop's back edge or between
// blocks), a block reuses one temporary for all its references: a fill before the first
// reference that reads it and a spill after the block's last write. A victim local to one
// block is filled before each read and spilled after each write instead (that shortens its
// live range, which is the point of spilling it).
//
// Spill code moves 32 bytes per instruction (AIE1InstrInfo.cpp getSpillPseudoExpandInfo:
// a 768-bit bm is two 384-bit halves, each two 32-byte vst.spil.48 / vlda.spil.48). Vector
// spills and fills are ordinary 256-bit stack stores/loads (WVST_spis on the store slot,
// WVLDA_spis / WVLDB_spis on either load slot); accumulator spills are long-format
// vst.spil.48 (LNG slot and the store unit) and fills vlda.48 [sp, #imm] (VLDA_AM_spis,
// load slot A).
// splitSpillGap is the idle stretch (operations without a reference) after which a spilled
// register's temporary is stored and a new one filled at the next reference, when
// allocation failed without splitting (a compiler policy, not a timing parameter).
const splitSpillGap = 16

func (c *compiler) spill(victim *vreg) {
	if c.remat(victim) {
		return
	}
	nops := aie1.SpillOps(victim.bits)
	bytes := 32 * nops
	scalar := victim.file != FileVec && victim.file != FileAcc
	if scalar {
		// a scalar, pointer or modifier register: one 32-bit stack store or load
		// (AIE1InstrInfo.cpp storeRegToStackSlot: ST_dms_sts_spill for eR, eP, eM)
		nops, bytes = 1, 4
	}
	if victim.file == FileAcc {
		// 64 bytes per 384-bit unit (two 32-byte halves)
		bytes = 64 * len(placements(victim)[0])
		nops = bytes / 32
	}
	if victim.file == FileAcc {
		c.stackTop = (c.stackTop + 63) &^ 63 // accumulator slots hold 64-byte units
	} else if !scalar {
		c.stackTop = (c.stackTop + 31) &^ 31 // 256-bit transfers are 32-byte aligned
	}
	victim.slot = c.stackTop
	c.stackTop += bytes
	c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("spilled %s (%d bits) to stack offset %d", victim.name, victim.bits, victim.slot))
	sp := c.stackPtr
	space := fmt.Sprintf("stack+%d", victim.slot)
	fillOps := func(t *vreg) []*vop {
		var out []*vop
		for k := 0; k < nops; k++ {
			alts := []uint16{SlotMask(aie1.SlotLDA) | ResStackBank, SlotMask(aie1.SlotLDB) | ResStackBank}
			if victim.file == FileAcc {
				alts = alts[:1]
			}
			d := vopnd{r: t, part: 32 * k, partBytes: 32}
			if scalar {
				d = vopnd{r: t}
			}
			out = append(out, &vop{name: "fill", alts: alts, itin: &aie1.ItinLoad, defs: []vopnd{d}, uses: []vopnd{{r: sp, kind: aie1.OpndPtr}},
				mem: &vmem{ptr: sp, offset: victim.slot + 32*k, bytes: min(32, bytes), space: space, spillOf: victim}, spill: true})
			c.prog.Fills++
			if victim.file == FileAcc {
				c.prog.accSpills++
			}
		}
		return out
	}
	spillOps := func(t *vreg) []*vop {
		var out []*vop
		for k := 0; k < nops; k++ {
			alts := []uint16{SlotMask(aie1.SlotST) | ResStackBank}
			if victim.file == FileAcc {
				alts = []uint16{spillStAlts[0] | ResStackBank}
			}
			d := vopnd{r: t, kind: aie1.OpndStoreData, part: 32 * k, partBytes: 32}
			if scalar {
				d = vopnd{r: t, kind: aie1.OpndStoreData}
			}
			out = append(out, &vop{name: "spill", alts: alts, itin: &aie1.ItinStore, uses: []vopnd{d, {r: sp, kind: aie1.OpndPtr}},
				mem: &vmem{store: true, ptr: sp, offset: victim.slot + 32*k, bytes: min(32, bytes), space: space, spillOf: victim}, spill: true})
			c.prog.Spills++
			if victim.file == FileAcc {
				c.prog.accSpills++
			}
		}
		return out
	}
	refs := func(o *vop) (reads, writes, partial bool) {
		for _, u := range o.uses {
			if u.r == victim {
				reads = true
			}
		}
		for _, d := range o.defs {
			if d.r == victim {
				writes = true
				if d.partBytes > 0 && d.partBytes*8 < victim.bits {
					partial = true
				}
			}
		}
		return
	}
	// In how many op lists does the victim appear?
	lists := 0
	var count func(rs []*region)
	countOps := func(ops []*vop) {
		for _, o := range ops {
			if r, w, _ := refs(o); r || w {
				lists++
				return
			}
		}
	}
	count = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				countOps(rg.loop.pre)
				count(rg.loop.body)
				continue
			}
			countOps(rg.ops)
		}
	}
	count(c.regions)
	blockMode := lists > 1
	newTemp := func() *vreg {
		c.l.nTemp++
		t := c.l.newReg(fmt.Sprintf("%s.s%d", victim.name, c.l.nTemp), victim.file, victim.bits)
		t.needX, t.needZ, t.noSpill = victim.needX, victim.needZ, true
		return t
	}
	rename := func(o *vop, t *vreg) {
		for i := range o.uses {
			if o.uses[i].r == victim {
				o.uses[i].r = t
			}
		}
		for i := range o.defs {
			if o.defs[i].r == victim {
				o.defs[i].r = t
			}
		}
	}
	rewriteOps := func(ops []*vop) []*vop {
		lastDef := -1
		for i, o := range ops {
			if _, w, _ := refs(o); w {
				lastDef = i
			}
		}
		var out []*vop
		var t *vreg
		lastRef, dirtyAt := -1, -1 // op index of t's last reference; out index after its last write
		for i, o := range ops {
			reads, writes, partial := refs(o)
			if !reads && !writes {
				out = append(out, o)
				continue
			}
			if blockMode && t != nil && c.splitGap > 0 && i-lastRef > c.splitGap {
				// live-range splitting: t was idle for a while; store it after its last
				// write (if any since its fill) and start a new temporary here
				if dirtyAt >= 0 {
					out = append(out[:dirtyAt], append(spillOps(t), out[dirtyAt:]...)...)
				}
				t = nil
			}
			if t == nil || !blockMode {
				t = newTemp()
				dirtyAt = -1
				if reads || partial {
					out = append(out, fillOps(t)...)
				}
			}
			rename(o, t)
			out = append(out, o)
			lastRef = i
			if writes {
				dirtyAt = len(out)
			}
			if writes && (!blockMode || i == lastDef) {
				out = append(out, spillOps(t)...)
				dirtyAt = -1
			}
		}
		return out
	}
	var rewrite func(rs []*region)
	rewrite = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				rg.loop.pre = rewriteOps(rg.loop.pre)
				rewrite(rg.loop.body)
				continue
			}
			rg.ops = rewriteOps(rg.ops)
		}
	}
	rewrite(c.regions)
	// A victim read before any write (an uninitialized accumulator) reads its slot, which
	// starts zeroed like the register file.
}

// remat rematerializes instead of spilling (Briggs, Cooper and Torczon, "Rematerialization",
// PLDI 1992) a register whose one definition is a move of an immediate with no operand (a
// local array's address, mov.u20): the move is repeated into a short-lived temporary before
// its reads, once per block of operations (as a fill would be), and the original is
// dropped, where a spill would cost a store and a fill per block. It reports whether victim
// was such a register.
func (c *compiler) remat(victim *vreg) bool {
	var def *vop
	n := 0
	var scan func(rs []*region)
	scanOps := func(ops []*vop) {
		for _, o := range ops {
			for _, d := range o.defs {
				if d.r == victim {
					n++
					def = o
				}
			}
		}
	}
	scan = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				scanOps(rg.loop.pre)
				scan(rg.loop.body)
				continue
			}
			scanOps(rg.ops)
		}
	}
	scan(c.regions)
	if n != 1 || def == nil || len(def.uses) != 0 || len(def.defs) != 1 || def.mem != nil || def.itin != &aie1.ItinMOVI ||
		def.defs[0].partBytes != 0 || victim.fixed != nil {
		return false
	}
	c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("rematerialized %s (an immediate move) instead of spilling it", victim.name))
	rewriteOps := func(ops []*vop) []*vop {
		var out []*vop
		var t *vreg
		for _, o := range ops {
			if o == def {
				continue
			}
			reads := false
			for _, u := range o.uses {
				if u.r == victim {
					reads = true
				}
			}
			if !reads {
				out = append(out, o)
				continue
			}
			if t == nil {
				c.l.nTemp++
				t = c.l.newReg(fmt.Sprintf("%s.r%d", victim.name, c.l.nTemp), victim.file, victim.bits)
				t.noSpill = true
				cp := *def
				cp.defs = []vopnd{{r: t}}
				out = append(out, &cp)
			}
			for i := range o.uses {
				if o.uses[i].r == victim {
					o.uses[i].r = t
				}
			}
			out = append(out, o)
		}
		return out
	}
	var rewrite func(rs []*region)
	rewrite = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				rg.loop.pre = rewriteOps(rg.loop.pre)
				rewrite(rg.loop.body)
				continue
			}
			rg.ops = rewriteOps(rg.ops)
		}
	}
	rewrite(c.regions)
	return true
}

// allocError is an allocation failure in one register file.
type allocError struct {
	file File
	msg  string
}

func (e *allocError) Error() string { return e.msg }
