package cyclesim

import (
	"fmt"

	"github.com/sumacdev/sumac/target/aie1"
	"github.com/sumacdev/sumac/target/aie1/backend"
)

// The simulator runs a program in three passes over its dynamic instruction trace:
//
//  1. timing (timing.go): in issue order, cycle by cycle, every register read and write at its
//     itinerary cycle, with the latency-violation and write-back-order checks. There are no
//     interlocks and no data-dependent branches (hardware loops have constant counts), so
//     when and in which order instructions issue does not depend on the data.
//  2. functional (this file): in sequential program order, with registers written at once.
//     Pass 1 proved that every read sees the value of the last write before it in program
//     order, which is exactly what this pass gives it, so the results are those of the
//     bundles executed cycle by cycle.
//  3. memory (memory.go): in issue order again, each data-memory access at the address pass 2
//     computed: bank conflicts (stall cycles) and the memory-order check (a load or store
//     issued before an earlier store to the same bytes, or a store before an earlier load,
//     is an error: the hardware would execute it out of program order).
//
// The trace (the issue order and the program order) is built once per program; each Run
// does all three passes.

// dyn is one dynamic instruction: the instruction, its issue cycle and its sequence number.
type dyn struct {
	id  int32
	t   int32
	seq int64
}

// trace is a program's dynamic instruction stream.
type trace struct {
	issue   []dyn   // issue order
	order   []int32 // program order: indices into issue
	bundles int64   // issued bundles (cycles without stalls)
	slotUse [aie1.NumSlots]int64
	hasMem  bool
	// mems lists the memory accesses in issue order: trace index, bytes, store (pass 3
	// reads these instead of the instructions); hot indexes the ones pass 3 must look at
	// (shared or check)
	mems []traceMem
	hot  []int32
	// units are the register units pass 1 touches (nil: all)
	units []int32
	// wants[wantOff[k]:] holds, for trace entry k's reads and then its late reads (tInstr
	// order), the sequence number of the write each must see: the last write to the unit
	// before the reader in program order (-1: the reset value). It depends on the program
	// alone, like the trace; whether the cycles deliver that write is pass 1's check.
	wants   []int64
	wantOff []int32
	// horizon bounds how far ahead of the current cycle pass 1 queues anything: the largest
	// itinerary cycle of a timing operand (at most 63, the rings' reach)
	horizon int64
	err     error
	// runs are the activations of innermost hardware loops and marks their iterations'
	// first trace entries (sorted), for pass 1's steady-state skip (steady.go)
	runs  []loopRun
	marks []iterMark
}

type traceMem struct {
	k      int32
	bytes  int32
	store  bool
	check  bool // it changes places with a store (markReordered)
	shared bool // another access issues in the same cycle (only then can banks conflict)
}

// loopStack holds the active hardware loops, outermost first, while the bundles are walked
// in execution order (the trace and the reference engine walk them the same way).
type loopStack []loopActive

type loopActive struct {
	l   *backend.Loop
	rep int // iterations done
}

// enter makes l active unless it is, and reports whether it was and its iteration.
func (st *loopStack) enter(l *backend.Loop) (entered bool, rep int) {
	for _, a := range *st {
		if a.l == l {
			return true, a.rep
		}
	}
	*st = append(*st, loopActive{l: l})
	return false, 0
}

// seqOff is the sequence-number offset of the active loops' current iterations.
func (st loopStack) seqOff() int64 {
	var off int64
	for _, a := range st {
		off += int64(a.rep) * a.l.SeqStride
	}
	return off
}

// next returns the bundle after pc: back to a loop's start while it has iterations left,
// leaving the loops that end here otherwise.
func (st *loopStack) next(pc int) int {
	pc++
	for len(*st) > 0 && pc == (*st)[len(*st)-1].l.End {
		top := &(*st)[len(*st)-1]
		if top.rep+1 < top.l.Count {
			top.rep++
			return top.l.Start
		}
		*st = (*st)[:len(*st)-1]
	}
	return pc
}

// maxTraceInstrs bounds the trace kept per program (24 bytes an instruction); longer runs use
// the single-pass reference engine (run), which needs no trace.
var maxTraceInstrs = 1 << 22 // a variable for the tests

func buildTrace(p *backend.Program, noop []bool) *trace {
	tr := &trace{}
	var stack loopStack
	innermost := make([]bool, len(p.Loops))
	for i, l := range p.Loops {
		innermost[i] = true
		for j, l2 := range p.Loops {
			if j != i && l.Start <= l2.Start && l2.End <= l.End {
				innermost[i] = false
			}
		}
	}
	run := make([]int32, len(p.Loops)) // current run of each loop
	pc, t := 0, int64(0)
	for pc < len(p.Bundles) {
		for i := range p.Loops {
			l := &p.Loops[i]
			if l.Start != pc {
				continue
			}
			entered, rep := stack.enter(l)
			if innermost[i] {
				if !entered {
					run[i] = int32(len(tr.runs))
					tr.runs = append(tr.runs, loopRun{n: int32(l.Count), l: int32(l.End - l.Start), stride: l.SeqStride, first: int32(len(tr.issue))})
				}
				tr.marks = append(tr.marks, iterMark{idx: int32(len(tr.issue)), run: run[i], j: int32(rep)})
			}
		}
		seqOff := stack.seqOff()
		for _, in := range p.Bundles[pc].Instrs {
			if len(tr.issue) >= maxTraceInstrs || t >= 1<<31-1 {
				tr.err = fmt.Errorf("run longer than %d instructions", maxTraceInstrs)
				return tr
			}
			tr.issue = append(tr.issue, dyn{id: int32(in.ID), t: int32(t), seq: in.Seq + seqOff})
			tr.slotUse[in.Slot]++
			tr.hasMem = tr.hasMem || in.Mem != nil
		}
		tr.bundles++
		t++
		pc = stack.next(pc)
	}
	tr.finishRuns()
	tr.order = make([]int32, len(tr.issue))
	for i := range tr.order {
		tr.order[i] = int32(i)
	}
	// Program order is seq order; issue order is already close to it, so an insertion
	// sort moves each instruction only past the few that the schedule hoisted above it.
	o := tr.order
	for i := 1; i < len(o); i++ {
		k := o[i]
		s := tr.issue[k].seq
		j := i
		for j > 0 && tr.issue[o[j-1]].seq > s {
			o[j] = o[j-1]
			j--
		}
		o[j] = k
	}
	// Loop set-up moves (ls, le, lc) have no sequence number (-1) and no register operand:
	// they are left out of the check, and of pass 2 where they do nothing. Inside a loop
	// their -1 gets the loop's sequence offset too, and may then equal a real instruction's
	// number (-1 + SeqStride is the last one of the iteration before): only two real
	// instructions sharing a number is an error.
	last := -1 // the last real instruction in o so far
	for i := range o {
		if noop[tr.issue[o[i]].id] {
			continue
		}
		if last >= 0 && tr.issue[o[i]].seq == tr.issue[o[last]].seq {
			tr.err = fmt.Errorf("two dynamic instructions share sequence number %d", tr.issue[o[i]].seq)
			return tr
		}
		last = i
	}
	return tr
}

// setWants fills wants from the program order and turns the steady-state skip off for a loop
// run whose iterations after the first do not want the same writers, shifted.
func (tr *trace) setWants(ops []tInstr) {
	tr.wantOff = make([]int32, len(tr.issue)+1)
	n := 0
	for k, d := range tr.issue {
		tr.wantOff[k] = int32(n)
		n += len(ops[d.id].reads) + len(ops[d.id].late)
	}
	tr.wantOff[len(tr.issue)] = int32(n)
	tr.wants = make([]int64, n)
	var last [numUnits]int64
	for g := range last {
		last[g] = -1
	}
	for _, k := range tr.order {
		d := &tr.issue[k]
		ti := &ops[d.id]
		w := tr.wants[tr.wantOff[k]:]
		for i, o := range ti.reads {
			w[i] = last[o.s]
		}
		for i, o := range ti.late {
			w[len(ti.reads)+i] = last[o.s]
		}
		for _, g := range ti.notes {
			last[g] = d.seq
		}
	}
	for r := range tr.runs {
		lr := &tr.runs[r]
		if lr.perIter == 0 || lr.n < 3 {
			continue
		}
		// iteration j's wants against iteration 1's: shifted by (j-1) strides when they are
		// from the loop, the same otherwise
		first := int(lr.first) + int(lr.perIter)
		for j := int64(2); j < int64(lr.n) && lr.perIter != 0; j++ {
			at := int(lr.first) + int(j)*int(lr.perIter)
			a, b := tr.wants[tr.wantOff[first]:tr.wantOff[first+int(lr.perIter)]], tr.wants[tr.wantOff[at]:tr.wantOff[at+int(lr.perIter)]]
			for i := range a {
				want := a[i]
				if want >= lr.b {
					want += (j - 1) * lr.stride
				}
				if b[i] != want {
					lr.perIter = 0
					break
				}
			}
		}
	}
}

// functional executes the trace in program order with immediate register writes (pass 2).
func (s *sim) functional(tr *trace) error {
	s.imm = true
	defer func() { s.imm = false }()
	fops, simd := s.fops, useSIMD
	for _, k := range tr.order {
		d := &tr.issue[k]
		f := &fops[d.id]
		// the common cases first, without a call between (simdMAC, fast)
		switch {
		case f.asm == asmMac8 && simd:
			mac8U(f.tab.simd, &s.r, &f.mu)
			s.res.MACs += f.macs
			continue
		case f.asm == asmMac16x2 && simd:
			mac16x2U(f.tab.x16, &s.r, &f.mu)
			s.res.MACs += f.macs
			continue
		case f.op == fVld && s.vld(f, k):
			continue
		}
		in := s.instrs[d.id]
		s.cycle = int64(d.t)
		s.cur = k
		if err := s.fast(&s.fops[d.id], in, k, d.seq, int64(d.t)); err != nil {
			return err
		}
	}
	return nil
}
