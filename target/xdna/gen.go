package xdna

import (
	"errors"
	"fmt"
	"sort"

	"github.com/sumacdev/sumac/target/vliw"
)

// The generator builds one loop iteration (one block of output tiles) as a template of
// operations with times relative to the iteration's start, places them in a modulo
// reservation table of period II (every iteration issues the same bundles II cycles after the
// previous one), assigns registers to the values that flow between them modulo II, and emits
// the flat schedule: a prologue (warm-up), one hardware-loop body of II bundles that the loop
// repeats, and an epilogue (cool-down), all cut from the same iteration schedule.

// tval is a value in a register between its producers and its readers.
type tval struct {
	id    int32
	class string // register class it is allocated in ("ex", "dm" on AIE2P; "x", "bm" on AIE2)
	land  int    // first cycle a producer's write has landed by (write cycle; relative)
	last  int    // cycle of the last read
	reg   int    // allocated register index
	fixed bool
}

// top is one template operation.
type top struct {
	slot string
	t    int
	op   string
	args func() []vliw.Arg // built after register allocation
	def  *tval
	uses map[int]*tval // operand index -> value read
	note string
	// compact: in the cool-down the last iteration's instance may move earlier, down to ready
	// (a store whose data is there: it only shortens its register's occupancy), keeping the
	// order of the compactable operations
	compact bool
	ready   int
	bank    string // the buffer a memory operation accesses ("" none)
}

// kern is a kernel under construction.
type kern struct {
	a    *Arch
	isa  *ISA
	ii   int
	n    int // iterations
	ops  []*top
	vals []*tval
	mrt  map[string][]bool
	// setup operations (once, before the loop): placed in the prologue's free slots.
	setup []*setupOp
	name  string
	plan  emitPlan
}

type setupOp struct {
	in       *vliw.Inst
	deadline int // flat time before which it must issue
	placed   int
	ok       bool
	after    *setupOp // must issue at least gap cycles after this one
	gap      int
}

func newKern(a *Arch, ii, n int, name string) *kern {
	return &kern{a: a, isa: NewISA(a), ii: ii, n: n, mrt: map[string][]bool{}, name: name}
}

func (k *kern) busy(slot string, t int) bool {
	row := k.mrt[slot]
	if row == nil {
		return false
	}
	return row[mod(t, k.ii)]
}

func (k *kern) take(slot string, t int) {
	if k.mrt[slot] == nil {
		k.mrt[slot] = make([]bool, k.ii)
	}
	if k.mrt[slot][mod(t, k.ii)] {
		panic(fmt.Sprintf("xdna: modulo slot %s at %d taken twice", slot, t))
	}
	k.mrt[slot][mod(t, k.ii)] = true
	if sl, ok := k.a.M.SlotByName(slot); ok {
		for _, c := range sl.Covers {
			k.take(c, t)
		}
	}
}

func mod(a, b int) int { return ((a % b) + b) % b }

func (k *kern) newVal(class string) *tval {
	v := &tval{id: int32(len(k.vals)), class: class, land: 1 << 30, last: -1 << 30}
	k.vals = append(k.vals, v)
	return v
}

// add places a template operation at time t (the slot must be free modulo II).
func (k *kern) add(slot string, t int, op string, args func() []vliw.Arg) *top {
	k.take(slot, t)
	o := &top{slot: slot, t: t, op: op, args: args, uses: map[int]*tval{}}
	k.ops = append(k.ops, o)
	return o
}

// defines records that o writes v in stage st (the value lands at the end of cycle t+st-1).
func (o *top) defines(v *tval, st int) *top {
	o.def = v
	v.land = min(v.land, o.t+st-1)
	return o
}

// reads records that operand i of o reads v in stage st.
func (o *top) reads(i int, v *tval, st int) *top {
	o.uses[i] = v
	v.last = max(v.last, o.t+st-1)
	return o
}

// alap finds the latest time <= t with slot free.
func (k *kern) alap(slot string, t int) int {
	for i := 0; i < k.ii; i++ {
		if !k.busy(slot, t-i) && !k.coversBusy(slot, t-i) {
			return t - i
		}
	}
	return t - k.ii // no free slot: the caller's check fails
}

// asap finds the earliest time >= t with slot free.
func (k *kern) asap(slot string, t int) int {
	for i := 0; i < k.ii; i++ {
		if !k.busy(slot, t+i) && !k.coversBusy(slot, t+i) {
			return t + i
		}
	}
	return t + k.ii
}

func (k *kern) coversBusy(slot string, t int) bool {
	sl, _ := k.a.M.SlotByName(slot)
	for _, c := range sl.Covers {
		if k.busy(c, t) {
			return true
		}
	}
	return false
}

// allocate assigns registers to the values of each class modulo II: a value occupies its
// register from the cycle its write lands until its last read ([land, last), an interval on a
// circle of length II); two values may share a register when their intervals do not overlap.
// regs gives the number of registers of each class.
func (k *kern) allocate(regs map[string]int) error {
	byClass := map[string][]*tval{}
	for _, v := range k.vals {
		if v.fixed {
			continue
		}
		if v.last < v.land {
			return fmt.Errorf("value %d (%s) is never read", v.id, v.class)
		}
		if v.last-v.land > k.ii {
			return fmt.Errorf("value %d (%s) lives %d cycles, longer than the loop body (%d): the schedule needs more registers than modulo allocation without unrolling gives", v.id, v.class, v.last-v.land, k.ii)
		}
		byClass[v.class] = append(byClass[v.class], v)
	}
	for class, vs := range byClass {
		n := regs[class]
		sort.Slice(vs, func(i, j int) bool {
			li, lj := vs[i].last-vs[i].land, vs[j].last-vs[j].land
			if li != lj {
				return li > lj // longest first
			}
			return vs[i].land < vs[j].land
		})
		assign := make([][]*tval, n)
		budget := 200000
		var try func(i int) bool
		try = func(i int) bool {
			if i == len(vs) {
				return true
			}
			if budget--; budget < 0 {
				return false
			}
			v := vs[i]
			for r := 0; r < n; r++ {
				ok := true
				for _, w := range assign[r] {
					if k.overlap(v, w) {
						ok = false
						break
					}
				}
				if ok {
					assign[r] = append(assign[r], v)
					v.reg = r
					if try(i + 1) {
						return true
					}
					assign[r] = assign[r][:len(assign[r])-1]
				}
				if len(assign[r]) == 0 {
					break // registers are interchangeable: an empty one fails like the next
				}
			}
			return false
		}
		if !try(0) {
			// the most values live in one cycle (a lower bound on the registers needed)
			peak := 0
			for t := 0; t < k.ii; t++ {
				live := 0
				for _, v := range vs {
					for d := -2; d <= 2; d++ {
						if c := t + d*k.ii; c >= v.land && (c < v.last || c == v.land) {
							live++
							break
						}
					}
				}
				peak = max(peak, live)
			}
			return fmt.Errorf("%d %s registers do not hold the schedule's %d values (modulo %d; up to %d live in one cycle)", n, class, len(vs), k.ii, peak)
		}
	}
	return nil
}

// overlap reports whether two values' occupancy intervals meet on the circle of length II.
func (k *kern) overlap(v, w *tval) bool {
	for d := -2; d <= 2; d++ {
		a0, a1 := v.land, v.last
		b0, b1 := w.land+d*k.ii, w.last+d*k.ii
		if a0 < b1 && b0 < a1 {
			return true
		}
		// an empty interval ([land, land) when read in the cycle after landing is [land,
		// land+1)): still occupies its landing cycle
		if a1 == a0 && a0 >= b0 && a0 < b1 || b1 == b0 && b0 >= a0 && b0 < a1 {
			return true
		}
	}
	return false
}

// length is the number of bundles the emitted program issues.
func (k *kern) length() int { return k.plan.tend - k.plan.tstart + 1 }

// emitPlan is where the flat schedule is cut into prologue, loop body and epilogue.
type emitPlan struct {
	smin, smax int
	tstart     int
	tend       int
	l0, lc     int // loop body flat times [l0, l0+II), repeated lc times (lc < 2: no loop)
	retAt      int
}

// emit builds the program. setup operations go into free slots of the prologue; the
// hardware-loop set-up is added if the loop pays; a return closes the kernel. When the loop's
// set-up would come too close to its start (the machine's rule), the loop starts one
// iteration later.
func (k *kern) emit() (*vliw.Program, error) {
	base := append([]*setupOp(nil), k.setup...)
	for shift := 0; ; shift++ {
		k.setup = append([]*setupOp(nil), base...)
		prog, err := k.emitShift(shift)
		var h *vliw.Hazard
		if errors.As(err, &h) && h.Rule == "loop" && k.plan.lc >= 2 {
			continue
		}
		return prog, err
	}
}

func (k *kern) emitShift(shift int) (*vliw.Program, error) {
	pl := emitPlan{smin: 1 << 30, smax: -1 << 30}
	for _, o := range k.ops {
		pl.smin, pl.smax = min(pl.smin, o.t), max(pl.smax, o.t)
	}
	ii, n := k.ii, k.n
	pl.tend = (n-1)*ii + pl.smax
	// loop: the first window whose every op belongs to an existing iteration
	pl.l0 = pl.smax - ii + 1 + shift*ii
	i0 := func(s int) int { return ceilDiv(pl.l0-s, ii) }
	pl.lc = n - i0(pl.smin)
	// flat slot occupancy of template instances
	flatBusy := map[int]map[string]bool{}
	occ := func(t int) map[string]bool {
		if flatBusy[t] == nil {
			flatBusy[t] = map[string]bool{}
		}
		return flatBusy[t]
	}
	mark := func(t int, slot string) {
		occ(t)[slot] = true
		if sl, ok := k.a.M.SlotByName(slot); ok {
			for _, c := range sl.Covers {
				occ(t)[c] = true
			}
		}
	}
	free := func(t int, slot string) bool {
		if occ(t)[slot] {
			return false
		}
		sl, _ := k.a.M.SlotByName(slot)
		for _, c := range sl.Covers {
			if occ(t)[c] {
				return false
			}
		}
		return true
	}
	flatBank := map[int]map[string]bool{}
	for i := 0; i < n; i++ {
		for _, o := range k.ops {
			mark(i*ii+o.t, o.slot)
			if o.bank != "" {
				if flatBank[i*ii+o.t] == nil {
					flatBank[i*ii+o.t] = map[string]bool{}
				}
				flatBank[i*ii+o.t][o.bank] = true
			}
		}
	}
	useLoop := pl.lc >= 2
	// cool-down compaction: the last iteration's compactable operations (stores) in the
	// epilogue move as early as their data, slots and banks allow, after every earlier
	// iteration's (they share the pointers)
	override := map[*top]int{}
	if useLoop {
		epi := pl.l0 + pl.lc*ii
		only := true
		after := epi - 1
		for _, o := range k.ops {
			if o.compact && n >= 2 {
				after = max(after, (n-2)*ii+o.t)
			}
		}
		var cs []*top
		for _, o := range k.ops {
			if o.compact && (n-1)*ii+o.t >= epi {
				cs = append(cs, o)
			}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].t < cs[b].t })
		if only && len(cs) > 0 {
			for _, o := range cs {
				t := (n-1)*ii + o.t
				delete(occ(t), o.slot)
				if o.bank != "" {
					delete(flatBank[t], o.bank)
				}
			}
			prev := after
			for _, o := range cs {
				t := max(epi, (n-1)*ii+o.ready, prev+1)
				for !free(t, o.slot) || o.bank != "" && flatBank[t][o.bank] {
					t++
				}
				mark(t, o.slot)
				if o.bank != "" {
					if flatBank[t] == nil {
						flatBank[t] = map[string]bool{}
					}
					flatBank[t][o.bank] = true
				}
				override[o] = t
				prev = t
			}
			pl.tend = (n-2)*ii + pl.smax
			for _, o := range k.ops {
				t := (n-1)*ii + o.t
				if ot, ok := override[o]; ok {
					t = ot
				}
				pl.tend = max(pl.tend, t)
			}
		}
	}
	// loop set-up: ls, le, lc
	labelStart, labelEnd := ".l_start", ".l_end"
	if useLoop {
		k.setup = append(k.setup,
			&setupOp{in: k.isa.Operation("movxm", vliw.R(k.a.M.MustReg("ls")), vliw.Label(labelStart)), deadline: pl.l0},
			&setupOp{in: k.isa.Operation("movxm", vliw.R(k.a.M.MustReg("le")), vliw.Label(labelEnd)), deadline: pl.l0},
			&setupOp{in: k.isa.Operation("movxm", vliw.R(k.a.M.MustReg("lc")), vliw.Imm(int64(pl.lc))), deadline: pl.l0})
	}
	// place setup operations earliest deadline first, each as early as possible from tstart;
	// move tstart back until all meet their deadlines.
	sort.SliceStable(k.setup, func(i, j int) bool { return k.setup[i].deadline < k.setup[j].deadline })
	pl.tstart = pl.smin
	for {
		ok := true
		placed := map[int][]string{}
		for _, so := range k.setup {
			so.ok = false
			slots, _ := k.isa.Slots(so.in.Op)
			from := pl.tstart
			if so.after != nil {
				from = max(from, so.after.placed+so.gap)
			}
			for t := from; t < so.deadline && !so.ok; t++ {
				for _, s := range slots {
					taken := false
					for _, u := range placed[t] {
						if u == s || overlapsSlot(k.a.M, u, s) {
							taken = true
						}
					}
					if !taken && free(t, s) {
						so.placed, so.ok = t, true
						so.in.Slot = s
						placed[t] = append(placed[t], s)
						break
					}
				}
			}
			if !so.ok {
				ok = false
				break
			}
		}
		if ok {
			for _, so := range k.setup {
				mark(so.placed, so.in.Slot)
			}
			break
		}
		pl.tstart--
		if pl.tstart < pl.smin-64 {
			for _, so := range k.setup {
				if !so.ok {
					return nil, fmt.Errorf("setup operation %s does not fit before its deadline %d", so.in, so.deadline)
				}
			}
			return nil, fmt.Errorf("setup operations do not fit before their deadlines")
		}
	}
	// return: in an alu or mv slot BranchDelay bundles before the end
	for {
		pl.retAt = pl.tend - k.a.M.BranchDelay
		if pl.retAt >= pl.tstart && (free(pl.retAt, "alu") || free(pl.retAt, "mv")) && (!useLoop || pl.retAt >= pl.l0+pl.lc*ii) {
			break
		}
		pl.tend++
	}
	ret := k.isa.Operation("ret", vliw.R(k.a.M.MustReg("lr")))
	if !free(pl.retAt, "alu") {
		ret.Slot = "mv"
	}
	// build bundles
	prog := &vliw.Program{Name: k.name, Labels: map[string]int{}}
	build := func(t int, inLoop bool) *vliw.Bundle {
		b := &vliw.Bundle{}
		for _, so := range k.setup {
			if so.ok && so.placed == t {
				b.Insts = append(b.Insts, so.in)
			}
		}
		for _, o := range k.ops {
			if ot, ok := override[o]; ok && ot == t {
				b.Insts = append(b.Insts, k.instance(o, n-1, false))
				continue
			}
			if mod(t-o.t, ii) != 0 {
				continue
			}
			i := (t - o.t) / ii
			if i < 0 || i >= n || i == n-1 && override[o] != 0 {
				continue
			}
			b.Insts = append(b.Insts, k.instance(o, i, inLoop))
		}
		if t == pl.retAt {
			b.Insts = append(b.Insts, ret)
		}
		return b
	}
	add := func(t int, inLoop bool) {
		b := build(t, inLoop)
		if inLoop && t == pl.l0 {
			b.Labels = []string{labelStart}
		}
		if inLoop && t == pl.l0+ii-1 {
			b.Labels = []string{labelEnd}
		}
		prog.Bundles = append(prog.Bundles, b)
	}
	if useLoop {
		for t := pl.tstart; t < pl.l0; t++ {
			add(t, false)
		}
		for t := pl.l0; t < pl.l0+ii; t++ {
			add(t, true)
		}
		for t := pl.l0 + pl.lc*ii; t <= pl.tend; t++ {
			add(t, false)
		}
	} else {
		for t := pl.tstart; t <= pl.tend; t++ {
			add(t, false)
		}
	}
	for i, b := range prog.Bundles {
		for _, l := range b.Labels {
			prog.Labels[l] = i
		}
	}
	k.plan = pl
	if !useLoop {
		k.plan.lc = 0
	}
	if err := vliw.Link(k.a.M, prog); err != nil {
		return prog, err
	}
	return prog, nil
}

func overlapsSlot(m *vliw.Machine, a, b string) bool {
	for _, x := range occupied(m, a) {
		for _, y := range occupied(m, b) {
			if x == y {
				return true
			}
		}
	}
	return false
}

func occupied(m *vliw.Machine, s string) []string {
	if sl, ok := m.SlotByName(s); ok && len(sl.Covers) > 0 {
		return sl.Covers
	}
	return []string{s}
}

func ceilDiv(a, b int) int {
	if a >= 0 {
		return (a + b - 1) / b
	}
	return -((-a) / b)
}

// chainOrder places the block's VMAC.F: chain c's rounds r = 0..rounds-1 in bundles 0..ii-1,
// one per bundle, a chain's consecutive VMAC.F at least spacing apart, chain c's last by
// deadline[c], earliest deadline (least laxity) first. It returns time[c][r], or ok = false
// when the deadlines cannot be met.
func chainOrder(nc, rounds, ii, spacing int, deadline []int) (time [][]int, ok bool) {
	time = make([][]int, nc)
	next := make([]int, nc) // next round of each chain
	last := make([]int, nc)
	for c := range last {
		last[c] = -spacing
		time[c] = make([]int, rounds)
	}
	for t := 0; t < ii; t++ {
		// round robin (fewest rounds done first, then chain order) while no chain is close to
		// its deadline, so operand tiles stay short-lived; least laxity first near the end.
		best, bestLax, rr := -1, 0, -1
		for c := 0; c < nc; c++ {
			if next[c] == rounds || t-last[c] < spacing {
				continue
			}
			lax := deadline[c] - t - spacing*(rounds-1-next[c])
			if lax < 0 {
				return nil, false
			}
			if best < 0 || lax < bestLax {
				best, bestLax = c, lax
			}
			if rr < 0 || next[c] < next[rr] {
				rr = c
			}
		}
		if best >= 0 && bestLax >= nc {
			best = rr
		}
		if best < 0 {
			continue
		}
		time[best][next[best]] = t
		next[best]++
		last[best] = t
	}
	for c := 0; c < nc; c++ {
		if next[c] != rounds || time[c][rounds-1] > deadline[c] {
			return nil, false
		}
	}
	return time, true
}

// prioritized gives the chains' deadlines for a cool-down that hides most stores: the last
// `spacing` bundles must hold distinct chains (the tail chains, ending in order at
// T-spacing..T-1); every other chain ends early enough that its `q` stores, taken in chain
// order through the one store slot, are done before the first tail chain's store. Chains are
// numbered in the order their tiles are stored.
func prioritized(nc, ii, spacing, q int) []int {
	d := make([]int, nc)
	early := nc - spacing
	if early < 0 {
		early = 0
	}
	for c := 0; c < nc; c++ {
		if c >= early {
			d[c] = ii - nc + c
			continue
		}
		d[c] = ii - spacing - q*(early-c)
	}
	return d
}

// instance builds iteration i's instruction of a template operation, annotated with the value
// it writes and the values it reads (inLoop: the iteration advances with the loop's trips).
func (k *kern) instance(o *top, i int, inLoop bool) *vliw.Inst {
	in := &vliw.Inst{Op: o.op, Args: o.args(), Comment: o.note}
	if err := k.isa.Bind(in); err != nil {
		panic(fmt.Sprintf("xdna: generated %s: %v", in, err))
	}
	in.Slot = o.slot
	ann := &vliw.Ann{Iter: int32(i), Def: -1}
	if inLoop {
		ann.IterStep = 1
	}
	if o.def != nil {
		ann.Def = o.def.id
	}
	for arg, v := range o.uses {
		ann.Uses = append(ann.Uses, vliw.Use{Arg: arg, V: v.id})
	}
	in.Ann = ann
	return in
}
