package backend

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/kernel"
)

// Layout places a kernel call's data in the 128 KB the core addresses (byte addresses of the
// AGU view, 0..0x1FFFF).
type Layout struct {
	// Base is the address of each window's or pointer parameter's data.
	Base map[string]int
	// Desc is the address of each window's descriptor (its current position pointer).
	Desc map[string]int
	// Stack is the base of the spill area.
	Stack int
}

// DefaultLayout places each window's or pointer parameter's data at the start of its own
// 32 KB memory module when there are at most four and each fits (the placement target/aie1/interp
// uses; different modules never conflict, UG1079 "AI Engine Memory"), otherwise packs them
// 32-byte aligned from address 0. Window descriptors and the spill stack go in the top 4 KB of
// the last module used (its double bank 3), or after the packed data. sizes gives each
// parameter's data size in bytes.
func DefaultLayout(params []*kernel.Var, sizes map[string]int) *Layout {
	lay := &Layout{Base: map[string]int{}, Desc: map[string]int{}}
	var bufs []*kernel.Var
	for _, p := range params {
		if p.Type.IsWindow() || p.Type.IsPointer() {
			bufs = append(bufs, p)
		}
	}
	const top = aie1.DataMemBytes - 4096
	fits := len(bufs) <= 4
	for i, p := range bufs {
		limit := aie1.DataMemBytes
		if i == len(bufs)-1 {
			limit = top
		}
		if sizes[p.Name] > limit {
			fits = false
		}
	}
	var sys int
	if fits {
		for i, p := range bufs {
			lay.Base[p.Name] = i * aie1.DataMemBytes
		}
		last := max(len(bufs)-1, 0)
		sys = last*aie1.DataMemBytes + top
	} else {
		addr := 0
		for _, p := range bufs {
			lay.Base[p.Name] = addr
			addr += (sizes[p.Name] + 31) &^ 31
		}
		sys = (addr + 63) &^ 63
	}
	for i, p := range bufs {
		lay.Desc[p.Name] = sys + 32*i
	}
	lay.Stack = sys + 32*len(bufs) + 64
	lay.Stack = (lay.Stack + 63) &^ 63
	return lay
}

// Options controls compilation.
type Options struct {
	// Layout of the data (nil: DefaultLayout with Sizes).
	Layout *Layout
	// Sizes gives the data size in bytes of each window/pointer parameter (for DefaultLayout).
	Sizes map[string]int
	// BodyOrder: "" compiles loop bodies clustered by accumulator and in program order and
	// keeps the faster; "cluster" or "program" compiles only that one.
	BodyOrder string
	// NoFlatten skips the flattened variant (flatten.go): only the kernel as written.
	NoFlatten bool
	// splitGap, when not 0, splits a spilled register's per-block temporary after that many
	// operations without a reference (regalloc.go spill). trySplit (Compile's flattened
	// variants) sets it and allocates again when the pointer file runs out: window positions
	// and array addresses live across a long flattened block, each spilled temporary kept
	// from its first reference to its last. (Always splitting cost the tuner's flattened
	// candidates more allocation rounds than it saved.)
	splitGap int
	trySplit bool
	// noCoalesce skips register coalescing (coalesce.go); merged, when set, counts the
	// copies it removed.
	noCoalesce bool
	merged     *int
	// noHoist skips moving loop-invariant zeros out of loops (hoistzero.go); hoisted, when
	// set, counts the zeros it moved.
	noHoist bool
	hoisted *int
	// zeroUndef lowers undef_* to a vzero, as null_* (a legal value for an undefined one,
	// and what the interpreter gives it): Compile tries it when the kernel has undef_* and
	// keeps the faster (undef.go).
	zeroUndef bool
	// noPostModify keeps pointer additions separate from the accesses before them and each
	// post-modified pointer of a loop body one chain (postmod.go foldPostModify,
	// splitChains); postMod, when set, counts the additions folded and the chains split.
	noPostModify bool
	postMod      *int
}

type compiler struct {
	splitGap  int // Options.splitGap
	k         *kernel.Kernel
	l         *lowerer
	regions   []*region
	prog      *Program
	readFirst map[*vreg]bool
	stackTop  int
	stackPtr  *vreg
	args      map[*kernel.Var]*vreg // descriptor (windows) or buffer (pointers) argument registers

	// timeline state
	res   Reservation
	units map[[2]int]*unitState
	mems  map[string]*memState
	floor int // no op may be placed before this (end of the last loop's kernel)
	seq   int64
	sched []placed
	loops []Loop
	// entry/exit markers for the breakdown
	tCall, tRet int
	loopInfo    []loopSummary
	// arrayEntry: the address moves of arrays with storage of their own (adf.go)
	arrayEntry []*vop
	// streams: the last issue cycle of an op on each stream (adf.go)
	streams map[string]int
}

type loopSummary struct {
	t0, k0, ii, stages, trip int
	pipelined                bool
}

type unitState struct{ vis, maxRead int }
type memState struct{ lastStore, lastAny int }

type placed struct {
	op  *vop
	t   int
	alt int
	seq int64
}

// Compile lowers, allocates, schedules and packs a kernel for one AIE1 tile, wrapped in the
// caller's lock acquire/release and call/return. Innermost loops are also tried unrolled 2 and
// 4 times with iteration-local variables renamed (modulo variable expansion, unroll.go); the
// version with the fewest cycles that fits the 16 KB program memory wins.
//
// Loop bodies are compiled with their MACs clustered by accumulator (clusterMACs) and, when
// that changes their order, also in program order (the order the kernel was written or
// generated in, which may keep fewer X and Z operands live); the faster wins.
func Compile(k *kernel.Kernel, opt Options) (*Program, error) {
	// coalesce.go, hoistzero.go: register coalescing and loop-invariant zeros; when either
	// changed the code anywhere, the kernel is also compiled without it and the faster kept
	// (merged live ranges can tie operations; a hoisted zero lengthens an outer loop's body)
	if k2 := ifConvertKernel(k); k2 != nil { // ifconvert.go: small scalar ifs become selects
		k = k2
	}
	merged, hoisted, postMod := 0, 0, 0
	opt.merged, opt.hoisted, opt.postMod = &merged, &hoisted, &postMod
	vs := kernelVariants(k, opt)
	p, err := compileVariants(k, vs, opt)
	opt.merged, opt.hoisted, opt.postMod = nil, nil, nil
	try := func(o Options, note string) {
		p2, err2 := compileVariants(k, vs, o)
		if err2 == nil && (err != nil || faster(p2, p)) {
			p2.Notes = append(p2.Notes, note)
			p, err = p2, nil
		}
	}
	if hoisted > 0 && !opt.noHoist {
		o := opt
		o.noHoist = true
		try(o, "compiled without hoisting loop-invariant zeros (faster)")
	}
	if merged > 0 && !opt.noCoalesce {
		o := opt
		o.noCoalesce, o.noHoist = true, true
		try(o, "compiled without register coalescing (faster)")
	}
	if hasUndef(k) && !opt.zeroUndef {
		// undef_* costs nothing but leaves its register's other contents to the allocator's
		// choices; zeros (a vzero that hoistzero.go may move out of the loop) tie the register
		// to one value, which schedules better in some kernels: keep the faster
		o := opt
		o.zeroUndef = true
		try(o, "compiled with undefined vector parts zeroed (faster)")
	}
	if postMod > 0 && !opt.noPostModify {
		// postmod.go: a separate pointer addition may issue a cycle before the access it
		// follows (its write lands after the access's read), which a post-modify cannot;
		// more pointers cost registers
		o := opt
		o.noPostModify = true
		try(o, "compiled with pointer additions apart from the accesses (faster)")
	}
	return p, err
}

// kernelVariant is k rewritten by flatten.go, with the note a program compiled from it carries.
type kernelVariant struct {
	k    *kernel.Kernel
	note string
}

// kernelVariants builds k's flattened and narrowed rewrites (flatten.go) once, for every
// compileVariants call of one Compile; none when opt.NoFlatten or when a rewrite changes nothing.
// When the rewrites flatten a loop marked chess_prepare_for_pipelining, the same rewrites with
// the marked loops kept as loops are variants too.
func kernelVariants(k *kernel.Kernel, opt Options) []kernelVariant {
	if opt.NoFlatten {
		return nil
	}
	var vs []kernelVariant
	for _, keepMarked := range []bool{false, true} {
		marked := false
		for _, v := range []struct {
			narrow bool
			note   string
		}{
			{false, "small constant loops flattened and pointer additions forwarded into the accesses (flatten.go)"},
			{true, "small constant loops flattened, pointer additions forwarded and MAC operands loaded in place (flatten.go)"},
		} {
			k2, m := flattenWith(k, v.narrow, keepMarked)
			marked = marked || m
			if k2 == nil {
				continue
			}
			note := v.note
			if keepMarked {
				note += "; loops marked chess_prepare_for_pipelining kept"
			} else if m {
				note += "; loops marked chess_prepare_for_pipelining flattened too"
			}
			vs = append(vs, kernelVariant{k2, note})
			if k3 := promoteArrays(k2); k3 != nil {
				vs = append(vs, kernelVariant{k3, note + "; small local arrays in registers (promote.go)"})
			}
		}
		if !marked {
			break // no marked loop flattened: keeping them changes nothing
		}
	}
	return vs
}

// compileVariants compiles k as written and each of its rewrites vs, and keeps the fastest.
func compileVariants(k *kernel.Kernel, vs []kernelVariant, opt Options) (*Program, error) {
	p, err := compileKernel(k, opt)
	for _, v := range vs {
		opt2 := opt
		opt2.trySplit = true
		p2, err2 := compileKernel(v.k, opt2)
		if err2 != nil || err == nil && !faster(p2, p) {
			continue
		}
		p2.Notes = append(p2.Notes, v.note)
		p, err = p2, nil
	}
	return p, err
}

// compileKernel is Compile without flattening.
func compileKernel(k *kernel.Kernel, opt Options) (*Program, error) {
	switch opt.BodyOrder {
	case orderCluster, orderProgram:
		p, _, err := compileUnrolled(k, opt, opt.BodyOrder)
		return p, err
	case "":
	default:
		return nil, fmt.Errorf("body order %q: want cluster or program", opt.BodyOrder)
	}
	best, reordered, err := compileUnrolled(k, opt, orderCluster)
	if err == nil && best.accSpills > 0 {
		// Accumulators spill: also try the innermost loops unrolled with the accumulators
		// grouped (group.go), each group swapped in and out once per unrolled body.
		// Groups of the whole file swap all registers at once; groups of half of it swap
		// half of them while the other half computes.
		for _, u := range []int{2, 4, 8} {
			k2 := unrollInnerMax(k, u, maxGroupedOps)
			if k2 == nil {
				break
			}
			for _, units := range []int{FileUnits[FileAcc], FileUnits[FileAcc] / 2} {
				if p, err := compileGrouped(k2, opt, u, units); err == nil && p.grouped && faster(p, best) {
					p.Notes = append(p.Notes, fmt.Sprintf("innermost loops unrolled %d times, accumulators in groups of %d units", u, units))
					best = p
				}
			}
		}
	}
	if err == nil && !reordered {
		return best, nil
	}
	alt, _, aerr := compileUnrolled(k, opt, orderProgram)
	switch {
	case aerr != nil && err != nil:
		return nil, err
	case aerr != nil:
		return best, nil
	case err != nil || faster(alt, best):
		alt.Notes = append(alt.Notes, "loop bodies kept in program order (faster than clustered by accumulator)")
		return alt, nil
	}
	return best, nil
}

// faster reports whether a is the better of two compilations: one that fits the program
// memory over one that does not, then fewer static cycles.
func faster(a, b *Program) bool {
	fa, fb := len(a.Bundles) <= aie1.ProgMemInstrs, len(b.Bundles) <= aie1.ProgMemInstrs
	if fa != fb {
		return fa
	}
	return a.StaticCycles() < b.StaticCycles()
}

// compileUnrolled compiles k and its innermost loops unrolled 2 and 4 times, and returns the
// fastest; reordered says whether clusterMACs changed a loop body's order.
func compileUnrolled(k *kernel.Kernel, opt Options, order string) (*Program, bool, error) {
	best, reordered, err := compileOne(k, opt, order)
	if err != nil {
		return nil, false, err
	}
	if best.Spills > 0 {
		return best, reordered, nil // more copies would only need more registers
	}
	for _, u := range []int{2, 4} {
		k2 := unrollInner(k, u)
		if k2 == nil {
			break
		}
		p, r, err := compileOne(k2, opt, order)
		reordered = reordered || r
		if err != nil || len(p.Bundles) > aie1.ProgMemInstrs || p.StaticCycles() >= best.StaticCycles() {
			break
		}
		p.Notes = append(p.Notes, fmt.Sprintf("innermost loops unrolled %d times (modulo variable expansion)", u))
		best = p
	}
	return best, reordered, nil
}

func compileOne(k *kernel.Kernel, opt Options, order string) (*Program, bool, error) {
	p, err := compileOrder(k, opt, order)
	if err != nil {
		return nil, false, err
	}
	return p, p.reordered, nil
}

// Loop body orders (lowerLoop).
const (
	orderCluster = "cluster" // clusterMACs: the MACs of one accumulator together
	orderProgram = "program" // as written
	orderGroup   = "group"   // groupAccs: accumulators in groups that fit the register file
)

func compileOrder(k *kernel.Kernel, opt Options, order string) (*Program, error) {
	return compileUnroll(k, opt, order, 1)
}

// compileGrouped compiles k, whose innermost loops were unrolled u times, with the
// accumulators in groups of units accumulator units (groupAccs).
func compileGrouped(k *kernel.Kernel, opt Options, u, units int) (*Program, error) {
	return compileWith(k, opt, orderGroup, u, units)
}

// compileUnroll compiles k whose innermost loops were unrolled u times (unrollInner).
func compileUnroll(k *kernel.Kernel, opt Options, order string, u int) (*Program, error) {
	return compileWith(k, opt, order, u, FileUnits[FileAcc])
}

func compileWith(k *kernel.Kernel, opt Options, order string, u, groupUnits int) (*Program, error) {
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := checkADF(k); err != nil {
		return nil, err
	}
	lay := opt.Layout
	if lay == nil {
		lay = DefaultLayout(withArrays(k), arraySizes(k, opt.Sizes))
	}
	c := &compiler{splitGap: opt.splitGap, k: k, prog: &Program{Kernel: k, Layout: lay, Vars: map[*kernel.Var]Reg{}, SpillSlots: map[*kernel.Var]int{}},
		units: map[[2]int]*unitState{}, mems: map[string]*memState{}, args: map[*kernel.Var]*vreg{}}
	c.l = &lowerer{k: k, vregs: map[*kernel.Var]*vreg{}, consts: findConsts(k), undef: undefParts(k), undefSrc: undefSources(k), zeroUndef: opt.zeroUndef, winPtr: map[*kernel.Var]*vreg{}, cfg: map[[6]int64]*vreg{}, order: order, unroll: u, groupUnits: groupUnits, modes: setsModes(k), noPostModify: opt.noPostModify}
	c.l.stsrs, c.l.stsrsOf = storeSRS(k, c.l.consts), map[*kernel.Instr]bool{}
	for _, srs := range c.l.stsrs {
		c.l.stsrsOf[srs] = true
	}
	c.stackPtr = c.l.newReg("sp", FileSpecial, 20)
	c.stackPtr.fixed = &Reg{File: FileSpecial, Units: []int{4}}
	c.stackPtr.phys = *c.stackPtr.fixed

	// Parameters: pointers arrive in p0..p5 (AIE1CallingConv.td AssignToPTR); a window
	// argument is the address of its descriptor, whose first word is the current position.
	nptr := 0
	for _, p := range k.Params {
		switch {
		case p.Type.IsWindow() || p.Type.IsPointer():
			if nptr >= 6 {
				return nil, fmt.Errorf("more than 6 pointer/window parameters")
			}
			a := c.l.newReg(p.Name+".arg", FilePtr, 20)
			a.fixed = &Reg{File: FilePtr, Units: []int{nptr}}
			a.phys = *a.fixed
			nptr++
			c.args[p] = a
			if p.Type.IsWindow() {
				w := c.l.newReg(p.Name+".pos", FilePtr, 20)
				c.l.winPtr[p] = w
			} else {
				c.l.vregs[p] = a
			}
		case p.Type.IsStream():
			// a stream port: no register, read and written by stream moves (adf.go)
		default:
			return nil, fmt.Errorf("parameter %s: scalar parameters are not supported by the AIE1 backend yet", p.Name)
		}
	}
	if err := c.arrays(); err != nil {
		return nil, err
	}
	c.prog.Consts = c.l.consts
	body, err := c.l.lowerBody(k.Body, nil, nil)
	if err != nil {
		return nil, err
	}
	// Entry and exit.
	entry := &region{ops: c.arrayEntry}
	exit := &region{}
	for _, p := range k.Params {
		if w := c.l.winPtr[p]; w != nil {
			a := c.args[p]
			entry.ops = append(entry.ops, &vop{name: "lda", alts: ldAlts, itin: &aie1.ItinLoad, defs: []vopnd{{r: w}}, uses: []vopnd{{r: a, kind: aie1.OpndPtr}},
				mem: &vmem{ptr: a, bytes: 4, space: p.Name + ".desc"}})
		}
	}
	keep := c.rematerializeConfigs(body)
	for i, cfg := range c.l.cfgList {
		if !keep[cfg] {
			continue
		}
		for h := 0; h < 2; h++ {
			entry.ops = append(entry.ops, &vop{name: []string{"mov.cl", "mov.ch"}[h], alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{{r: cfg, part: 4 * h, partBytes: 4}}, imm: c.l.cfgVals[i][h]})
		}
	}
	written := map[*kernel.Var]bool{}
	kernel.Walk(k.Body, func(s kernel.Stmt, _ int) {
		if in, ok := s.(*kernel.Instr); ok && (in.Op == kernel.OpWinReadIncr || in.Op == kernel.OpWinWriteIncr || in.Op == kernel.OpWinIncr) {
			written[in.Args[0].Var] = true
		}
	})
	for _, p := range k.Params {
		if w := c.l.winPtr[p]; w != nil && written[p] {
			a := c.args[p]
			exit.ops = append(exit.ops, &vop{name: "st", alts: stAlts, itin: &aie1.ItinStore, uses: []vopnd{{r: w, kind: aie1.OpndStoreData}, {r: a, kind: aie1.OpndPtr}},
				mem: &vmem{store: true, ptr: a, bytes: 4, space: p.Name + ".desc"}})
		}
	}
	c.regions = append(append([]*region{entry}, body...), exit)
	if opt.postMod != nil {
		*opt.postMod += c.l.nPostMod
	}
	if !opt.noCoalesce {
		if n := c.coalesce(); opt.merged != nil {
			*opt.merged += n
		}
	}
	c.findReadFirst()
	if err := c.allocate(); err != nil {
		var ae *allocError
		if opt.trySplit && opt.splitGap == 0 && errors.As(err, &ae) && ae.file == FilePtr {
			opt.splitGap = splitSpillGap
			return compileWith(k, opt, order, u, groupUnits)
		}
		return nil, err
	}
	if !opt.noHoist {
		// hoistzero.go: loop-invariant zero halves set once before their loop
		if n := c.hoistZeros(); opt.hoisted != nil {
			*opt.hoisted += n
		}
	}
	for v, r := range c.l.vregs {
		if r.slot >= 0 {
			c.prog.SpillSlots[v] = r.slot
		} else {
			c.prog.Vars[v] = r.phys
		}
	}
	if err := c.emit(); err != nil {
		return nil, err
	}
	c.prog.reordered, c.prog.grouped = c.l.reordered, c.l.grouped
	return c.prog, nil
}

// rematerializeConfigs handles kernels with more distinct MAC configurations than the eight
// configuration registers: the six most used stay in registers set at entry; every other MAC
// gets its configuration moved in (two long-immediate moves) right before it. It returns the
// configurations that stay in registers.
func (c *compiler) rematerializeConfigs(body []*region) map[*vreg]bool {
	keep := map[*vreg]bool{}
	if len(c.l.cfgList) <= FileUnits[FileCfg] {
		for _, r := range c.l.cfgList {
			keep[r] = true
		}
		return keep
	}
	uses := map[*vreg]int{}
	var count func(rs []*region)
	count = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				count(rg.loop.body)
				continue
			}
			for _, o := range rg.ops {
				for _, u := range o.uses {
					if u.r.file == FileCfg {
						uses[u.r] += 1
					}
				}
			}
		}
	}
	count(body)
	order := append([]*vreg(nil), c.l.cfgList...)
	sort.SliceStable(order, func(i, j int) bool { return uses[order[i]] > uses[order[j]] })
	for _, r := range order[:FileUnits[FileCfg]-2] {
		keep[r] = true
	}
	vals := map[*vreg][6]int64{}
	for i, r := range c.l.cfgList {
		vals[r] = c.l.cfgVals[i]
	}
	var rewrite func(rs []*region)
	rewrite = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				rewrite(rg.loop.body)
				continue
			}
			var out []*vop
			for _, o := range rg.ops {
				for i, u := range o.uses {
					if u.r.file != FileCfg || keep[u.r] {
						continue
					}
					c.l.nTemp++
					t := c.l.newReg(fmt.Sprintf("cfg.r%d", c.l.nTemp), FileCfg, 64)
					t.noSpill = true
					for h := 0; h < 2; h++ {
						out = append(out, &vop{name: []string{"mov.cl", "mov.ch"}[h], alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{{r: t, part: 4 * h, partBytes: 4}}, imm: vals[u.r][h]})
					}
					o.uses[i].r = t
				}
				out = append(out, o)
			}
			rg.ops = out
		}
	}
	rewrite(body)
	c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("%d MAC configurations: %d in registers, the others moved in before each use", len(c.l.cfgList), len(keep)))
	return keep
}

// findReadFirst marks registers whose first reference in program order is a read (they must
// read as zero: kernel variables never written before use start at zero).
func (c *compiler) findReadFirst() {
	c.readFirst = map[*vreg]bool{}
	seen := map[*vreg]bool{}
	var walk func(rs []*region)
	visit := func(o *vop) {
		for _, u := range o.uses {
			if !seen[u.r] && u.r.v != nil && !u.r.v.Param && !u.r.undefOnly { // undefOnly: any contents do
				c.readFirst[u.r] = true
			}
			seen[u.r] = true
		}
		for _, d := range o.defs {
			seen[d.r] = true
		}
	}
	walk = func(rs []*region) {
		for _, rg := range rs {
			if rg.loop != nil {
				for _, o := range rg.loop.pre {
					visit(o)
				}
				walk(rg.loop.body)
				continue
			}
			for _, o := range rg.ops {
				visit(o)
			}
		}
	}
	walk(c.regions)
}

// unitsOf lists the (file, unit) pairs an operand touches.
func unitsOf(o vopnd) [][2]int {
	r := o.r.phys
	us := r.Units
	if o.partBytes > 0 && r.File == FileAcc && len(us) > 1 && o.partBytes*8 < o.r.bits {
		us = us[o.part/64 : o.part/64+1]
	} else if o.partBytes > 0 && r.File == FileVec {
		first := o.part / 16
		n := max(1, o.partBytes/16)
		if first+n <= len(us) {
			us = us[first : first+n]
		}
	}
	out := make([][2]int, len(us))
	for i, u := range us {
		out[i] = [2]int{int(r.File), u}
	}
	return out
}

func defCycle(o *vop, d vopnd) int {
	if d.ptrUpdate {
		return o.itin.PtrDef
	}
	return o.itin.Def
}

func useCycle(o *vop, u vopnd) int { return o.itin.Use[u.kind] }

// depEdges returns the dependences among ops (program order) with Dist 0, and, if carried,
// also the loop-carried ones (Dist 1) of a loop body.
func depEdges(ops []*vop, carried bool) []Edge {
	var edges []Edge
	type uw struct {
		w     int // last writer op index (-1 none)
		reads []int
	}
	st := map[[2]int]*uw{}
	get := func(u [2]int) *uw {
		x := st[u]
		if x == nil {
			x = &uw{w: -1}
			st[u] = x
		}
		return x
	}
	firstRead := map[[2]int][]int{} // reads before any write in the body
	firstWrite := map[[2]int]int{}
	for i, o := range ops {
		for _, u := range o.uses {
			for _, un := range unitsOf(u) {
				x := get(un)
				if x.w >= 0 {
					p := ops[x.w]
					for _, d := range p.defs {
						for _, du := range unitsOf(d) {
							if du == un {
								edges = append(edges, Edge{x.w, i, defCycle(p, d) - useCycle(o, u) + 1, 0})
							}
						}
					}
				} else {
					firstRead[un] = append(firstRead[un], i)
				}
				x.reads = append(x.reads, i)
			}
		}
		for _, d := range o.defs {
			for _, un := range unitsOf(d) {
				x := get(un)
				dc := defCycle(o, d)
				for _, r := range x.reads {
					if r == i {
						continue
					}
					for _, u := range ops[r].uses {
						for _, uu := range unitsOf(u) {
							if uu == un {
								edges = append(edges, Edge{r, i, useCycle(ops[r], u) - dc, 0})
							}
						}
					}
				}
				if x.w >= 0 && x.w != i {
					p := ops[x.w]
					for _, pd := range p.defs {
						for _, pu := range unitsOf(pd) {
							if pu == un {
								edges = append(edges, Edge{x.w, i, defCycle(p, pd) - dc + 1, 0})
							}
						}
					}
				}
				if _, ok := firstWrite[un]; !ok {
					firstWrite[un] = i
				}
				x.w = i
				x.reads = x.reads[:0]
			}
		}
	}
	edges = append(edges, streamEdges(ops, carried)...)
	// Memory order within a space: stores keep their order with every other access they may
	// overlap (disjoint constant offsets from one unchanged pointer do not, disjoint.go).
	var written map[*vreg]bool
	for i, a := range ops {
		if a.mem == nil {
			continue
		}
		for j := i + 1; j < len(ops); j++ {
			b := ops[j]
			if b.mem == nil || b.mem.space != a.mem.space || (!a.mem.store && !b.mem.store) {
				continue
			}
			if written == nil {
				written = writtenRegs(ops)
			}
			if disjointAccesses(ops, i, j, written) {
				continue
			}
			edges = append(edges, Edge{i, j, 1, 0})
			if carried {
				edges = append(edges, Edge{j, i, 1, 1})
			}
		}
		if carried && a.mem.store {
			edges = append(edges, Edge{i, i, 1, 1})
		}
	}
	if carried {
		for un, x := range st {
			if x.w < 0 {
				continue
			}
			p := ops[x.w]
			var dc int
			for _, d := range p.defs {
				for _, du := range unitsOf(d) {
					if du == un {
						dc = defCycle(p, d)
					}
				}
			}
			for _, r := range firstRead[un] {
				for _, u := range ops[r].uses {
					for _, uu := range unitsOf(u) {
						if uu == un {
							edges = append(edges, Edge{x.w, r, dc - useCycle(ops[r], u) + 1, 1})
						}
					}
				}
			}
			if fw, ok := firstWrite[un]; ok {
				fo := ops[fw]
				var fdc int
				for _, d := range fo.defs {
					for _, du := range unitsOf(d) {
						if du == un {
							fdc = defCycle(fo, d)
						}
					}
				}
				edges = append(edges, Edge{x.w, fw, dc - fdc + 1, 1})
				for _, r := range x.reads {
					for _, u := range ops[r].uses {
						for _, uu := range unitsOf(u) {
							if uu == un {
								edges = append(edges, Edge{r, fw, useCycle(ops[r], u) - fdc, 1})
							}
						}
					}
				}
			}
		}
	}
	return edges
}

func snode(o *vop) SNode {
	alts := o.alts
	if bit := spaceBit(o); bit != 0 {
		alts = make([]uint16, len(o.alts))
		for i, a := range o.alts {
			alts[i] = a | bit
		}
	}
	return SNode{Alts: alts, Lock: o.lock != nil, Mem: o.mem != nil && o.lock == nil}
}

// spaceBit gives memory accesses a scheduling resource per memory area so that two accesses
// to one area never share a bundle: a 256-bit access occupies both banks of its double bank
// and the accesses of one buffer (or of the stack and the window descriptors, which share a
// double bank) almost always fall in the same one (UG1079 "AI Engine Memory"). The compiler
// knows where every buffer is, so a bank-aware schedule costs nothing in stalls.
func spaceBit(o *vop) uint16 {
	if o.mem == nil || o.lock != nil {
		return 0
	}
	sp := o.mem.space
	if strings.HasPrefix(sp, "stack+") || strings.HasSuffix(sp, ".desc") {
		return ResStackBank
	}
	h := 0
	for _, ch := range sp {
		h = h*31 + int(ch)
	}
	if h < 0 {
		h = -h
	}
	return 1 << uint(numRes+h%(16-numRes))
}

// earliest returns the first cycle op o may issue at given the timeline state.
func (c *compiler) earliest(o *vop) int {
	t := c.floor
	for _, u := range o.uses {
		for _, un := range unitsOf(u) {
			if s := c.units[un]; s != nil {
				t = max(t, s.vis-useCycle(o, u)+1)
			}
		}
	}
	for _, d := range o.defs {
		dc := defCycle(o, d)
		for _, un := range unitsOf(d) {
			if s := c.units[un]; s != nil {
				t = max(t, s.vis-dc+1, s.maxRead-dc+1)
			}
		}
	}
	if o.mem != nil {
		if m := c.mems[o.mem.space]; m != nil {
			t = max(t, m.lastStore+1)
			if o.mem.store {
				t = max(t, m.lastAny+1)
			}
		}
	}
	return max(t, c.streamReady(o))
}

// commit records op o issued at t in the timeline state.
func (c *compiler) commit(o *vop, t int) {
	for _, u := range o.uses {
		for _, un := range unitsOf(u) {
			s := c.units[un]
			if s == nil {
				s = &unitState{vis: -100, maxRead: -100}
				c.units[un] = s
			}
			s.maxRead = max(s.maxRead, t+useCycle(o, u)-1)
		}
	}
	for _, d := range o.defs {
		for _, un := range unitsOf(d) {
			c.units[un] = &unitState{vis: t + defCycle(o, d), maxRead: -100}
		}
	}
	if o.mem != nil {
		m := c.mems[o.mem.space]
		if m == nil {
			m = &memState{lastStore: -100, lastAny: -100}
			c.mems[o.mem.space] = m
		}
		m.lastAny = max(m.lastAny, t)
		if o.mem.store {
			m.lastStore = max(m.lastStore, t)
		}
	}
	c.streamCommit(o, t)
}

// scheduleStraight list-schedules ops into the timeline after the current floor.
func (c *compiler) scheduleStraight(ops []*vop, extraEarliest int) error {
	if len(ops) == 0 {
		return nil
	}
	nodes := make([]SNode, len(ops))
	est := make([]int, len(ops))
	for i, o := range ops {
		nodes[i] = snode(o)
		est[i] = max(c.earliest(o), extraEarliest)
	}
	s, err := ListSchedule(nodes, depEdges(ops, false), est, &c.res)
	if err != nil {
		return err
	}
	// commit in program order (state updates follow program order)
	for i, o := range ops {
		c.commit(o, s.Time[i])
		c.sched = append(c.sched, placed{op: o, t: s.Time[i], alt: s.Alt[i], seq: c.seq})
		c.seq++
	}
	return nil
}

// placeLoopSetup books the three loop-register moves at or before deadline.
func (c *compiler) placeLoopSetup(deadline int, dry bool) bool {
	need := aie1.LoopSetupMoves
	var ts []int
	for t := deadline; t >= 0 && len(ts) < need; t-- {
		if c.res.Free(t, SlotMask(aie1.SlotMV0), SNode{}) {
			ts = append(ts, t)
		}
	}
	if len(ts) < need {
		return false
	}
	if !dry {
		for i, t := range ts {
			c.res.Take(t, SlotMask(aie1.SlotMV0), SNode{})
			o := &vop{name: []string{"mov lc", "mov le", "mov ls"}[i], alts: mvAlts, itin: &aie1.ItinMOV}
			c.sched = append(c.sched, placed{op: o, t: t, seq: -1})
		}
	}
	return true
}

func (c *compiler) scheduleLoop(lr *loopRegion) error {
	if err := c.scheduleStraight(lr.pre, 0); err != nil {
		return err
	}
	inner := true
	for _, rg := range lr.body {
		if rg.loop != nil {
			inner = false
		}
	}
	if !inner || len(lr.body) != 1 {
		return c.scheduleOuterLoop(lr)
	}
	ops := lr.body[0].ops
	n := len(ops)
	N := lr.trip
	if N == 0 {
		return nil
	}
	nodes := make([]SNode, n)
	for i, o := range ops {
		nodes[i] = snode(o)
	}
	edges := depEdges(ops, true)
	var sch *Schedule
	stages := 1
	if lr.pipelined && N >= 2 && n <= maxModuloOps {
		maxStages := min(lr.minTrip, N)
		if s, err := ModuloSchedule(nodes, edges, 4*n+64, maxStages); err == nil {
			sch = s
			stages = (s.Length() + s.II - 1) / s.II
		}
	}
	if sch == nil {
		// Not pipelined: the body is list-scheduled and the loop period covers every
		// dependence into the next iteration.
		var res Reservation
		var intra []Edge
		for _, e := range edges {
			if e.Dist == 0 {
				intra = append(intra, e)
			}
		}
		s, err := ListSchedule(nodes, intra, nil, &res)
		if err != nil {
			return err
		}
		lb := max(res.Len(), 1)
		for _, e := range edges {
			if e.Dist == 1 {
				lb = max(lb, s.Time[e.From]+e.Lat-s.Time[e.To])
			}
		}
		s.II = lb
		sch = s
		stages = 1
		c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("loop at %v: not pipelined, period %d cycles x %d", lr.src.Pos, lb, N))
	}
	ii := sch.II
	S := stages
	// Earliest start of iteration 0.
	t0 := 0
	for i, o := range ops {
		t0 = max(t0, c.earliest(o)-sch.Time[i])
	}
	t0 = max(t0, c.res.Len()-(S-1)*ii)
	for ; ; t0++ {
		k0 := t0 + (S-1)*ii
		if k0 < c.res.Len() || k0 < c.floor {
			continue
		}
		ok := true
		for k := 0; k < S-1 && ok; k++ {
			for i := range ops {
				e := t0 + k*ii + sch.Time[i]
				if e < k0 && !c.res.Free(e, nodes[i].Alts[sch.Alt[i]], nodes[i]) {
					ok = false
					break
				}
			}
		}
		if ok && !c.placeLoopSetup(min(k0+ii-1-aie1.LoopSetupLead, k0-1), true) {
			ok = false
		}
		if ok {
			break
		}
	}
	k0 := t0 + (S-1)*ii
	base := c.seq
	nb := int64(n)
	reps := N - S + 1
	book := func(i, t int, seq int64) {
		c.res.Take(t, nodes[i].Alts[sch.Alt[i]], nodes[i])
		c.sched = append(c.sched, placed{op: ops[i], t: t, alt: sch.Alt[i], seq: seq})
	}
	for k := 0; k < min(S, N); k++ {
		for i := range ops {
			if e := t0 + k*ii + sch.Time[i]; e < k0 {
				book(i, e, base+int64(k)*nb+int64(i))
			}
		}
	}
	// The kernel: one copy of every op; its iteration is rep - q (q <= 0).
	for i := range ops {
		d := t0 + sch.Time[i] - k0
		q := floorDiv(d, ii)
		book(i, k0+d-q*ii, base-int64(q)*nb+int64(i))
	}
	endK := k0 + ii
	for k := max(0, N-S); k < N; k++ {
		for i := range ops {
			e := t0 + k*ii + sch.Time[i]
			if e >= k0+reps*ii {
				book(i, e-(reps-1)*ii, base+int64(k)*nb+int64(i))
			}
		}
	}
	c.placeLoopSetup(min(k0+ii-1-aie1.LoopSetupLead, k0-1), false)
	c.loops = append(c.loops, Loop{Start: k0, End: endK, Count: reps, SeqStride: nb})
	c.loopInfo = append(c.loopInfo, loopSummary{t0: t0, k0: k0, ii: ii, stages: S, trip: N, pipelined: S > 1 || lr.pipelined})
	if lr.pipelined {
		c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("loop at %v: modulo scheduled, II %d, %d stage(s), %d iterations (chess_loop_range min %d), kernel repeated %d times", lr.src.Pos, ii, S, N, lr.minTrip, reps))
	}
	// State after the loop: the last iteration's operations, in code time.
	for i, o := range ops {
		t := t0 + (N-1)*ii + sch.Time[i] - (reps-1)*ii
		c.commit(o, t)
	}
	c.seq = base + int64(N)*nb
	c.floor = endK
	return nil
}

// maxModuloOps bounds the loop bodies given to the modulo scheduler (its cost grows with the
// square of the body); larger bodies are list-scheduled, iterations back to back.
const maxModuloOps = 256

// drained returns the first cycle by which every write issued so far has landed and every
// read has happened.
func (c *compiler) drained() int {
	t := max(c.res.Len(), c.floor)
	for _, u := range c.units {
		t = max(t, u.vis, u.maxRead+1)
	}
	for _, m := range c.mems {
		t = max(t, m.lastAny+1)
	}
	return t
}

// scheduleOuterLoop compiles a loop whose body holds other loops: the body is scheduled on a
// timeline of its own (its inner loops pipelined as usual), padded until everything in flight
// has landed, and repeated by a zero-overhead hardware loop around it (hardware loops nest,
// UG1079 "Loops"). Iterations do not overlap.
func (c *compiler) scheduleOuterLoop(lr *loopRegion) error {
	N := lr.trip
	if N == 0 {
		return nil
	}
	start := c.drained()
	saved := struct {
		res      Reservation
		units    map[[2]int]*unitState
		mems     map[string]*memState
		floor    int
		sched    []placed
		loops    []Loop
		loopInfo []loopSummary
	}{c.res, c.units, c.mems, c.floor, c.sched, c.loops, c.loopInfo}
	// The body's timeline starts at 0, so the last issue cycle of each stream (adf.go) starts
	// afresh too: the ops before the loop all issue before the body's first bundle (start is
	// past everything placed), so they stay in order; carried over, those cycles of the outer
	// timeline would hold the body's first stream op back by as many bundles.
	savedStreams := c.streams
	c.streams = nil
	c.res, c.units, c.mems, c.floor, c.sched, c.loops = Reservation{}, map[[2]int]*unitState{}, map[string]*memState{}, 0, nil, nil
	seq0 := c.seq
	for _, rg := range lr.body {
		var err error
		if rg.loop != nil {
			err = c.scheduleLoop(rg.loop)
		} else {
			err = c.scheduleStraight(rg.ops, 0)
		}
		if err != nil {
			return err
		}
	}
	bodyLen := max(c.drained(), 1)
	sub, subLoops := c.sched, c.loops
	stride := c.seq - seq0
	c.res, c.units, c.mems, c.floor, c.sched, c.loops, c.loopInfo = saved.res, saved.units, saved.mems, saved.floor, saved.sched, saved.loops, saved.loopInfo
	bodyStreams := c.streams
	c.streams = savedStreams
	t0 := start
	for !c.placeLoopSetup(min(t0+bodyLen-1-aie1.LoopSetupLead, t0-1), true) {
		t0++
	}
	c.placeLoopSetup(min(t0+bodyLen-1-aie1.LoopSetupLead, t0-1), false)
	c.res.grow(t0 + bodyLen)
	for name, t := range bodyStreams {
		c.streamCommit(&vop{stream: name}, t0+t)
	}
	for _, pl := range sub {
		pl.t += t0
		if len(pl.op.alts) > 0 {
			nd := snode(pl.op)
			c.res.Take(pl.t, nd.Alts[pl.alt], nd)
		} else {
			c.res.Take(pl.t, SlotMask(aie1.SlotMV0), SNode{})
		}
		c.sched = append(c.sched, pl)
	}
	// Mark the whole body as used so nothing else lands inside the loop.
	c.floor = t0 + bodyLen
	c.loops = append(c.loops, Loop{Start: t0, End: t0 + bodyLen, Count: N, SeqStride: stride})
	for _, l := range subLoops {
		l.Start += t0
		l.End += t0
		c.loops = append(c.loops, l)
	}
	c.prog.Notes = append(c.prog.Notes, fmt.Sprintf("loop at %v: outer hardware loop, body %d cycles x %d", lr.src.Pos, bodyLen, N))
	c.seq = seq0 + int64(N)*stride
	// Everything in flight landed inside the body: later code starts from a clean state.
	c.units, c.mems = map[[2]int]*unitState{}, map[string]*memState{}
	return nil
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// emit schedules the whole call: lock acquires and argument set-up in the caller, the call,
// the kernel, the return and the lock releases.
func (c *compiler) emit() error {
	k := c.k
	// Caller: acquire one lock per window (XD100 "Interfaces"), pass arguments, call.
	var pre []*vop
	lockID := 0
	locks := map[*kernel.Var]int{}
	for _, p := range k.Params {
		if p.Type.IsWindow() {
			locks[p] = lockID
			// The lock guards the window's buffer and descriptor: order it before their accesses.
			pre = append(pre, &vop{name: "acq", alts: aluAlts, itin: &aie1.ItinLock, lock: &LockOp{ID: lockID}, mem: &vmem{store: true, space: p.Name + ".desc"}})
			lockID++
		}
	}
	nwin := 0
	for _, p := range k.Params {
		a := c.args[p]
		if a == nil {
			continue
		}
		addr := c.prog.Layout.Base[p.Name]
		if p.Type.IsWindow() {
			addr = c.prog.Layout.Desc[p.Name]
		}
		pre = append(pre, &vop{name: "mov.u20", alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{{r: a}}, imm: int64(addr)})
		if p.Type.IsWindow() {
			// window_acquire initializes the window for this call: its position becomes the
			// start of the buffer the lock grants (UG1076 "Asynchronous Window Access": the
			// API "performs the appropriate synchronization and initialization ... keeps track
			// of the appropriate buffer pointers"). The descriptor holds the position at +0 and
			// the granted buffer's start at +4; the caller copies one to the other.
			c.l.nTemp++
			h := c.l.newReg(fmt.Sprintf("%s.head", p.Name), FileScalar, 32)
			// the caller's scratch registers r15, r14, ... (one per window, so the
			// initializations of several windows can overlap)
			h.phys = Reg{File: FileScalar, Units: []int{15 - nwin%8}}
			nwin++
			pre = append(pre,
				&vop{name: "lda", alts: ldAlts, itin: &aie1.ItinLoad, defs: []vopnd{{r: h}}, uses: []vopnd{{r: a, kind: aie1.OpndPtr}}, mem: &vmem{ptr: a, offset: 4, bytes: 4, space: p.Name + ".desc"}},
				&vop{name: "st", alts: stAlts, itin: &aie1.ItinStore, uses: []vopnd{{r: h, kind: aie1.OpndStoreData}, {r: a, kind: aie1.OpndPtr}}, mem: &vmem{store: true, ptr: a, bytes: 4, space: p.Name + ".desc"}})
		}
	}
	spInit := &vop{name: "mov.u20", alts: lngAlts, itin: &aie1.ItinMOVI, defs: []vopnd{{r: c.stackPtr}}, imm: int64(c.prog.Layout.Stack)}
	pre = append(pre, spInit)
	if err := c.scheduleStraight(pre, 0); err != nil {
		return err
	}
	// The call: jal in the LNG slot after the set-up; the kernel's first instruction issues
	// BranchDelaySlots+1 cycles later (the delay slots hold the caller's remaining work).
	tj := c.res.Len() - 1
	for !c.res.Free(tj, SlotMask(aie1.SlotLNG), SNode{}) || tj < 0 {
		tj++
	}
	for _, pl := range c.sched {
		if pl.op.lock != nil {
			tj = max(tj, pl.t) // the call follows the acquires
		}
	}
	for !c.res.Free(tj, SlotMask(aie1.SlotLNG), SNode{}) {
		tj++
	}
	c.res.Take(tj, SlotMask(aie1.SlotLNG), SNode{})
	c.sched = append(c.sched, placed{op: &vop{name: "jal", alts: lngAlts, itin: &aie1.ItinBranch, role: roleCall}, t: tj, seq: c.seq})
	c.seq++
	c.tCall = tj
	c.floor = tj + aie1.BranchDelaySlots + 1
	first := true
	for _, rg := range c.regions {
		if rg.barrier {
			c.floor = c.drained() // nothing moves across a barrier (adf.go)
		}
		if rg.loop != nil {
			if err := c.scheduleLoop(rg.loop); err != nil {
				return err
			}
		} else if err := c.scheduleStraight(rg.ops, 0); err != nil {
			return err
		}
		if first {
			first = false
		}
	}
	// Return: ret may issue up to BranchDelaySlots cycles before the kernel's last bundle.
	last := c.res.Len() - 1
	tr := max(last-aie1.BranchDelaySlots, c.floor)
	for !c.res.Free(tr, SlotMask(aie1.SlotLNG), SNode{}) {
		tr++
	}
	c.res.Take(tr, SlotMask(aie1.SlotLNG), SNode{})
	c.sched = append(c.sched, placed{op: &vop{name: "ret", alts: lngAlts, itin: &aie1.ItinBranch, role: roleRet}, t: tr, seq: c.seq})
	c.seq++
	c.tRet = tr
	c.floor = max(tr+aie1.BranchDelaySlots+1, c.res.Len())
	var post []*vop
	for _, p := range k.Params {
		if p.Type.IsWindow() {
			post = append(post, &vop{name: "rel", alts: aluAlts, itin: &aie1.ItinLock, lock: &LockOp{Release: true, ID: locks[p]}, mem: &vmem{store: true, space: p.Name + ".desc"}})
		}
	}
	if err := c.scheduleStraight(post, 0); err != nil {
		return err
	}
	return c.pack()
}

// pack turns the timeline into bundles of machine instructions.
func (c *compiler) pack() error {
	n := c.res.Len()
	bundles := make([]Bundle, n)
	sort.SliceStable(c.sched, func(i, j int) bool {
		if c.sched[i].t != c.sched[j].t {
			return c.sched[i].t < c.sched[j].t
		}
		return c.sched[i].seq < c.sched[j].seq
	})
	for i, pl := range c.sched {
		in := c.machine(pl)
		in.ID = i
		bundles[pl.t].Instrs = append(bundles[pl.t].Instrs, in)
	}
	c.prog.NumInstrs = len(c.sched)
	c.prog.Bundles = bundles
	sort.SliceStable(c.loops, func(i, j int) bool {
		if c.loops[i].Start != c.loops[j].Start {
			return c.loops[i].Start < c.loops[j].Start
		}
		return c.loops[i].End > c.loops[j].End // the outer loop first
	})
	c.prog.Loops = c.loops
	c.breakdown()
	return nil
}

func (c *compiler) machine(pl placed) *Instr {
	o := pl.op
	slot := aie1.SlotALU
	if len(o.alts) > 0 {
		m := o.alts[pl.alt]
		// the slot named for the instruction: the first set bit except LNG when combined
		for s := aie1.Slot(0); s < aie1.NumSlots; s++ {
			if m&SlotMask(s) != 0 {
				slot = s
				if s != aie1.SlotLNG || m == SlotMask(aie1.SlotLNG) {
					break
				}
			}
		}
		if m&SlotMask(aie1.SlotLNG) != 0 {
			slot = aie1.SlotLNG
		}
	}
	in := &Instr{Name: o.name, Slot: slot, Itin: o.itin, Src: o.src, Part: -1, Spill: o.spill, MACs: o.macs, Seq: pl.seq, Imm: o.imm, Lock: o.lock, Wrap: o.wrap}
	var txt []string
	for _, d := range o.defs {
		r := d.r.phys
		if d.partBytes > 0 && d.partBytes*8 < d.r.bits {
			in.Part = d.part
			if r.File == FileAcc && len(r.Units) > 1 {
				r = Reg{File: r.File, Units: r.Units[d.part/64 : d.part/64+1]}
			}
			if r.File == FileVec {
				first := d.part / 16
				cnt := max(1, d.partBytes/16)
				if first+cnt <= len(r.Units) {
					r = Reg{File: r.File, Units: r.Units[first : first+cnt]}
				}
			}
		}
		in.Defs = append(in.Defs, Operand{Reg: r, Cycle: defCycle(o, d)})
		if !d.ptrUpdate {
			txt = append(txt, r.String())
		}
	}
	for _, u := range o.uses {
		r := u.r.phys
		if u.partBytes > 0 && u.partBytes*8 < u.r.bits && r.File == FileVec {
			first := u.part / 16
			cnt := max(1, u.partBytes/16)
			if first+cnt <= len(r.Units) {
				r = Reg{File: r.File, Units: r.Units[first : first+cnt]}
			}
		}
		if u.partBytes > 0 && r.File == FileAcc && len(r.Units) > 1 {
			r = Reg{File: r.File, Units: r.Units[u.part/64 : u.part/64+1]}
		}
		in.Uses = append(in.Uses, Operand{Reg: r, Kind: u.kind, Cycle: useCycle(o, u)})
		if o.mem == nil || u.r != o.mem.ptr {
			txt = append(txt, u.r.phys.String())
		}
	}
	if o.mem != nil && o.lock == nil {
		m := o.mem
		in.Mem = &MemAccess{Store: m.store, Ptr: m.ptr.phys, Offset: m.offset, PostInc: m.postInc, Bytes: m.bytes, Space: m.space}
		a := "[" + m.ptr.phys.String()
		if m.offset != 0 {
			a += fmt.Sprintf(", #%d", m.offset)
		}
		a += "]"
		if m.postInc != 0 {
			a += fmt.Sprintf(", #%d", m.postInc)
		}
		txt = append(txt, a)
	}
	if o.lock != nil {
		txt = append(txt, fmt.Sprintf("lock%d", o.lock.ID))
	}
	if o.name == "mov.u20" || o.name == "mov.cl" || o.name == "mov.ch" || o.name == "padd" || (o.name == "mov" && len(o.uses) == 0) {
		txt = append(txt, fmt.Sprintf("#%d", o.imm))
	}
	if o.src != nil && o.src.Op.IsMAC() {
		txt = append(txt, "; "+o.src.String())
	}
	in.Text = strings.Join(txt, ", ")
	return in
}

// breakdown itemizes the static schedule (cycles without bank-conflict stalls).
func (c *compiler) breakdown() {
	var items []CostItem
	total := c.res.Len()
	for _, l := range c.loops {
		total += (l.Count - 1) * (l.End - l.Start)
	}
	kernelStart := c.tCall + aie1.BranchDelaySlots + 1
	items = append(items, CostItem{"caller: lock acquires, arguments, call (jal + 5 delay slots)", kernelStart,
		"AIE1Schedule.td II_LOCK RequireLocks<5,0>; AIE1InstrInfo.td 5 branch delay slots"})
	prev := kernelStart
	for _, li := range c.loopInfo {
		items = append(items, CostItem{"kernel entry before the loop (window pointers, MAC configuration, first loads)", li.t0 - prev,
			"II_LDA 8-cycle loads; mov.u20/movt in LNG"})
		items = append(items, CostItem{fmt.Sprintf("loop prologue (pipeline fill, %d stage(s) of II %d)", li.stages, li.ii), li.k0 - li.t0, "modulo schedule"})
		items = append(items, CostItem{fmt.Sprintf("loop kernel: II %d x %d", li.ii, li.trip-li.stages+1), li.ii * (li.trip - li.stages + 1), "modulo schedule; zero-overhead loop (UG1079 Loops)"})
		prev = li.k0 + li.ii*(li.trip-li.stages+1)
	}
	end := total
	retExec := c.tRet
	for _, l := range c.loops {
		if c.tRet >= l.End {
			retExec += (l.Count - 1) * (l.End - l.Start)
		}
	}
	items = append(items, CostItem{"loop epilogue (pipeline drain), C tile epilogue, window pointer write-back, until ret", retExec - prev,
		"II_VMAC 6, II_SRS 3, II_VCMP 2, II_VSTS"})
	items = append(items, CostItem{"return (5 delay slots) and lock releases", end - retExec,
		"II_RET; II_LOCK RequireLocks<5,0>; memory ops ReserveLocks<5,...>"})
	c.prog.Breakdown = items
}

// StaticCycles is the length of the schedule without bank-conflict stalls (hardware loops,
// nested ones included, repeated their counts).
func (p *Program) StaticCycles() int {
	var span func(a, b, from int) (int, int)
	// span returns the cycles of bundles [a, b) and the index of the next loop not inside.
	span = func(a, b, from int) (int, int) {
		n := 0
		pos := a
		i := from
		for i < len(p.Loops) && p.Loops[i].Start < b {
			l := p.Loops[i]
			n += l.Start - pos
			body, next := span(l.Start, l.End, i+1)
			n += body * l.Count
			pos = l.End
			i = next
		}
		n += b - pos
		return n, i
	}
	n, _ := span(0, len(p.Bundles), 0)
	return n
}
