package cyclesim

import (
	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
	"github.com/sumacdev/sumac/target/aie1/kernel"
	"slices"
)

// Pass 1, the timing check (see trace.go): which write each register read sees, decided by
// the cycles alone. A register unit keeps the sequence numbers of its visible write and the
// one before, and the cycle the visible one landed; a read in cycle rc sees the visible write
// if it landed by rc, else the one before, and that must be the last write to the unit
// before the reader in program order (the trace's wants, set once per program from the
// program order: a writer issued after its reader is a violation like one that lands late).
// These are the rules of the value-carrying engine (run, readUnit, retire), with the values
// left out.

// tOp is a register access of an instruction: a unit (index into all files' units) and the
// itinerary cycle of the access.
type tOp struct {
	g   int32 // the unit, as error messages name it
	s   int32 // where its checker state lives: g, or the twin that stands for it (mergeTwins)
	cyc int32
}

// tInstr is what pass 1 needs of an instruction.
type tInstr struct {
	reads  []tOp   // read in the issue cycle's bookkeeping (cycle t+cyc-1)
	late   []tOp   // read when cycle t+cyc-1 comes (a MAC's accumulator, read late)
	writes []tOp   // land at t+cyc; pushed at issue, or after the late reads when there are any
	notes  []int32 // state indices of the units written (for the trace's wants)
}

// unitBase numbers the units of all register files one after the other.
var unitBase = func() (b [backend.NumFiles + 1]int32) {
	for f := 0; f < int(backend.NumFiles); f++ {
		b[f+1] = b[f] + int32(backend.FileUnits[f])
	}
	return
}()

func gunit(f backend.File, n int) int32 { return unitBase[f] + int32(n) }

// fileOf returns the register file of a global unit index.
func fileOf(g int32) backend.File {
	f := 0
	for f+1 < len(unitBase) && unitBase[f+1] <= g {
		f++
	}
	return backend.File(f)
}

// unitName renders a global unit index for error messages.
func unitName(g int32) string {
	f := fileOf(g)
	return backend.Reg{File: f, Units: []int{int(g - unitBase[f])}}.String()
}

// timingOps lists the register accesses the value-carrying engine makes for in (exec and
// the functions it calls): the same operands, at the same cycles.
func timingOps(p *backend.Program, in *backend.Instr, kind uint8, dec *decoded) tInstr {
	var ti tInstr
	units := func(dst *[]tOp, op backend.Operand, all bool) {
		for i, n := range op.Reg.Units {
			if i > 0 && !all {
				break
			}
			g := gunit(op.Reg.File, n)
			*dst = append(*dst, tOp{g: g, s: g, cyc: int32(op.Cycle)})
		}
	}
	for _, d := range in.Defs {
		for _, n := range d.Reg.Units {
			ti.notes = append(ti.notes, gunit(d.Reg.File, n))
		}
	}
	ptrUse := func() (backend.Operand, bool) {
		for _, u := range in.Uses {
			if u.Kind == aie1.OpndPtr {
				return u, true
			}
		}
		return backend.Operand{}, false
	}
	if adfTimingOps(p, in, &ti, units) {
		return ti
	}
	switch kind {
	case kAcq, kRel, kNop:
	case kMovImm:
		units(&ti.writes, in.Defs[0], false)
	case kPadd:
		units(&ti.reads, in.Uses[0], false)
		if len(in.Uses) > 1 { // padd p, m
			units(&ti.reads, in.Uses[1], false)
		}
		units(&ti.writes, in.Defs[0], false)
	case kMem:
		pu, ok := ptrUse()
		if ok {
			units(&ti.reads, pu, false)
		}
		if in.Mem.Store {
			d := in.Uses[0]
			units(&ti.reads, d, d.Reg.File == backend.FileVec || d.Reg.File == backend.FileAcc)
		} else {
			d := in.Defs[0]
			units(&ti.writes, d, d.Reg.File == backend.FileVec)
		}
		if in.Mem.PostInc != 0 && ok {
			units(&ti.reads, pu, false)
			for _, d := range in.Defs {
				if d.Reg.File == backend.FilePtr && d.Reg.Units[0] == pu.Reg.Units[0] {
					units(&ti.writes, d, false)
				}
			}
		}
	case kRaw:
		if len(in.Defs) == 0 {
			break
		}
		d := in.Defs[0]
		if in.Name != "add" && len(in.Uses) > 0 {
			units(&ti.reads, in.Uses[0], d.Reg.File == backend.FileVec || d.Reg.File == backend.FileAcc)
		} else if in.Name == "add" {
			units(&ti.reads, in.Uses[0], false)
		}
		units(&ti.writes, d, in.Name != "add" && (d.Reg.File == backend.FileVec || d.Reg.File == backend.FileAcc))
	case kMAC:
		if dec == nil || dec.xo < 0 || dec.zo < 0 || len(in.Defs) == 0 {
			break
		}
		acco := dec.acco
		deferred := acco >= 0 && in.Uses[acco].Cycle > 1
		units(&ti.reads, in.Uses[dec.xo], true)
		units(&ti.reads, in.Uses[dec.zo], true)
		if acco >= 0 {
			if deferred {
				units(&ti.late, in.Uses[acco], true)
			} else {
				units(&ti.reads, in.Uses[acco], true)
			}
		}
		units(&ti.writes, in.Defs[0], true)
	default: // kGeneric
		src := in.Src
		op := src.Op
		switch {
		case op.IsScalarArith():
			ui := 0
			for i := 0; i < len(src.Args) && i < 2; i++ {
				if _, ok := p.ConstArg(src, i); ok {
					continue
				}
				if ui < len(in.Uses) {
					units(&ti.reads, in.Uses[ui], false)
				}
				ui++
			}
			if len(in.Defs) > 0 {
				units(&ti.writes, in.Defs[0], false)
			}
		case op == kernel.OpVAdd || op == kernel.OpVSub:
			units(&ti.reads, in.Uses[0], true)
			units(&ti.reads, in.Uses[1], true)
			units(&ti.writes, in.Defs[0], true)
		case op == kernel.OpConcat:
			for _, u := range in.Uses {
				units(&ti.reads, u, true)
			}
			units(&ti.writes, in.Defs[0], true)
		default: // srs, ups, ext: one operand in, one out
			if len(in.Uses) > 0 {
				units(&ti.reads, in.Uses[0], true)
			}
			if len(in.Defs) > 0 {
				units(&ti.writes, in.Defs[0], true)
			}
		}
	}
	return ti
}

const numUnits = 128 // >= unitBase[NumFiles]

type tWrite struct {
	s   int32 // the unit's checker state (the unit itself: its writer's operands)
	by  int32
	seq int64
}

// tDefer is a MAC's late read waiting for its cycle: the trace entry.
type tDefer struct {
	k int32
}

// timer is pass 1's state.
type timer struct {
	cur, prev [numUnits]int64 // seqs of the visible write and the one before (-1: reset)
	vis       [numUnits]int64 // cycle the visible write landed
	// ring, defers: what is due in cycle c sits in slot (c+rot)&63 (the steady-state skip
	// moves everything pending by changing rot)
	ring   [64][]tWrite
	defers [64][]tDefer
	rot    int64
	ops    []tInstr // the program's timing operands (for messages)
	tr     *trace
}

// reset puts the given units (all when units is nil) and the queues in their start state;
// pass 1 touches no other unit.
func (tm *timer) reset(units []int32) {
	if units == nil {
		for g := range tm.cur {
			tm.resetUnit(int32(g))
		}
	}
	for _, g := range units {
		tm.resetUnit(g)
	}
	for i := range tm.ring {
		tm.ring[i] = tm.ring[i][:0]
		tm.defers[i] = tm.defers[i][:0]
	}
	tm.rot = 0
}

func (tm *timer) resetUnit(g int32) {
	tm.cur[g], tm.prev[g], tm.vis[g] = -1, -1, -1<<40
}

// timing runs pass 1 over the trace.
func (s *sim) timing(tr *trace, ops []tInstr) error {
	tm := s.tm
	if tm == nil {
		tm = new(timer)
		s.tm = tm
	}
	tm.reset(tr.units)
	tm.ops, tm.tr = ops, tr
	iss := tr.issue
	wants, wantOff := tr.wants, tr.wantOff
	var t int64
	st := &s.steady
	st.next, st.run, st.skipped = 0, -1, 0
	for i := 0; i < len(iss); {
		t = int64(iss[i].t)
		if st.next < len(tr.marks) {
			var at int64
			if i, at = tm.boundary(tr, st, i, t); at != t {
				// skipped iterations (all the same as the ones checked): the state stands at
				// cycle at; the cycles from there to the next entry's have only what is due
				next := at // none left: the drain below goes on from at
				if i < len(iss) {
					next = int64(iss[i].t)
				}
				for c := at; c < next; c++ {
					if err := tm.due(s, c, ops); err != nil {
						return err
					}
				}
				if i >= len(iss) {
					t = at - 1
					break
				}
				t = next
			}
		}
		if len(tm.ring[(t+tm.rot)&63]) > 0 {
			if err := tm.retire(s, t); err != nil {
				return err
			}
		}
		for ; i < len(iss) && int64(iss[i].t) == t; i++ {
			d := &iss[i]
			ti := &ops[d.id]
			want := wants[wantOff[i]:]
			for r, o := range ti.reads {
				if !tm.sees(o.s, want[r], t+int64(o.cyc)-1) {
					return tm.violation(s, t, t, d.id, o, want[r])
				}
			}
			if len(ti.late) > 0 {
				rc := t + int64(ti.late[0].cyc) - 1
				q := &tm.defers[(rc+tm.rot)&63]
				*q = append(*q, tDefer{k: int32(i)})
			} else {
				for _, o := range ti.writes {
					q := &tm.ring[(t+int64(o.cyc)+tm.rot)&63]
					*q = append(*q, tWrite{s: o.s, by: d.id, seq: d.seq})
				}
			}
		}
		if len(tm.defers[(t+tm.rot)&63]) > 0 {
			if err := tm.late(s, t, ops); err != nil {
				return err
			}
		}
		// cycles without an issued instruction (empty bundles)
		if i < len(iss) {
			for c := t + 1; c < int64(iss[i].t); c++ {
				if err := tm.due(s, c, ops); err != nil {
					return err
				}
			}
		}
	}
	// drain: results still in flight after the last bundle
	for c := t + 1; tm.busy(); c++ {
		if err := tm.due(s, c, ops); err != nil {
			return err
		}
	}
	return nil
}

// due processes cycle c where nothing issues: the writes landing and the late reads due.
func (tm *timer) due(s *sim, c int64, ops []tInstr) error {
	if len(tm.ring[(c+tm.rot)&63]) > 0 {
		if err := tm.retire(s, c); err != nil {
			return err
		}
	}
	if len(tm.defers[(c+tm.rot)&63]) > 0 {
		return tm.late(s, c, ops)
	}
	return nil
}

// sees reports whether a read of unit g in cycle rc sees the write of sequence number want.
func (tm *timer) sees(g int32, want, rc int64) bool {
	if tm.vis[g] <= rc {
		return tm.cur[g] == want
	}
	return tm.prev[g] == want
}

// violation reports a failed read of an instruction issued in cycle t, found in cycle now:
// the write it had to see (want) was not the visible one.
func (tm *timer) violation(s *sim, now, t int64, id int32, o tOp, want int64) error {
	s.cycle = now
	rc := t + int64(o.cyc) - 1
	if tm.vis[o.s] <= rc && tm.cur[o.s] > want {
		return s.fail(s.instrs[id], "latency violation: reads %s in cycle %d but a write issued later in program order has already landed", unitName(o.g), rc)
	}
	if tm.vis[o.s] <= rc {
		return s.fail(s.instrs[id], "latency violation: reads %s in cycle %d before its producer's result lands", unitName(o.g), rc)
	}
	return s.fail(s.instrs[id], "latency violation: reads %s in cycle %d before its producer's result lands (cycle %d)", unitName(o.g), rc, tm.vis[o.s])
}

func (tm *timer) retire(s *sim, t int64) error {
	q := &tm.ring[(t+tm.rot)&63]
	for _, w := range *q {
		if w.seq < tm.cur[w.s] {
			s.cycle = t
			g := w.s
			for _, o := range tm.ops[w.by].writes {
				if o.s == w.s {
					g = o.g // the unit the instruction names
					break
				}
			}
			return s.fail(s.instrs[w.by], "write to %s lands after a later instruction's write (out-of-order write-back)", unitName(g))
		}
		tm.prev[w.s], tm.cur[w.s], tm.vis[w.s] = tm.cur[w.s], w.seq, t
	}
	*q = (*q)[:0]
	return nil
}

// late performs the deferred reads of cycle t (a MAC's accumulator) and then queues the
// writes of their instructions.
func (tm *timer) late(s *sim, t int64, ops []tInstr) error {
	q := &tm.defers[(t+tm.rot)&63]
	for _, df := range *q {
		d := &tm.tr.issue[df.k]
		ti := &ops[d.id]
		want := tm.tr.wants[tm.tr.wantOff[df.k]+int32(len(ti.reads)):]
		dt := int64(d.t)
		for r, o := range ti.late {
			if !tm.sees(o.s, want[r], dt+int64(o.cyc)-1) {
				return tm.violation(s, t, dt, d.id, o, want[r])
			}
		}
		for _, o := range ti.writes {
			w := &tm.ring[(dt+int64(o.cyc)+tm.rot)&63]
			*w = append(*w, tWrite{s: o.s, by: d.id, seq: d.seq})
		}
	}
	*q = (*q)[:0]
	return nil
}

func (tm *timer) busy() bool {
	for k := range tm.ring {
		if len(tm.ring[k]) > 0 || len(tm.defers[k]) > 0 {
			return true
		}
	}
	return false
}

// mergeTwins gives twin units one checker state. Two units are twins when exactly the same
// writes reach them: the same instructions, at the same itinerary cycles, both as timed writes
// and as the units an instruction defines (notes, from which the trace's wants come; a
// 512-bit load fills four 128-bit units together, a MAC both halves of its accumulator).
// Twins then hold the same checker state at every cycle and want the same writers, so pass 1
// keeps it once, in the lowest twin's slot: of an instruction's reads, writes and notes at
// one cycle only the first of each twin set remains, which is also the one the reference
// engine reports first; messages still name the unit the instruction names. Run it before
// setUnits and setWants, whose unit lists are then lists of states.
func mergeTwins(ops []tInstr) {
	var sig [numUnits][]int64
	for id := range ops {
		ti := &ops[id]
		for _, o := range ti.writes {
			sig[o.g] = append(sig[o.g], int64(id)<<32|int64(o.cyc)<<1)
		}
		for _, g := range ti.notes {
			sig[g] = append(sig[g], int64(id)<<32|1)
		}
	}
	// class[g]: the smallest unit with g's signature
	var class [numUnits]int32
	for g := range class {
		class[g] = int32(g)
		for h := 0; h < g; h++ {
			if class[h] == int32(h) && slices.Equal(sig[g], sig[h]) {
				class[g] = int32(h)
				break
			}
		}
	}
	merge := func(list []tOp) []tOp {
		var out []tOp
		for _, o := range list {
			o.s = class[o.g]
			dup := false
			for _, p := range out {
				if p.cyc == o.cyc && p.s == o.s {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, o)
			}
		}
		return out
	}
	for id := range ops {
		ti := &ops[id]
		ti.reads = merge(ti.reads)
		ti.late = merge(ti.late)
		ti.writes = merge(ti.writes)
		var notes []int32
		for _, g := range ti.notes {
			c, dup := class[g], false
			for _, n := range notes {
				dup = dup || n == c
			}
			if !dup {
				notes = append(notes, c)
			}
		}
		ti.notes = notes
	}
}
