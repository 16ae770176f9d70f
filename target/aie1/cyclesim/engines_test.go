package cyclesim

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sumacdev/sumac/internal/testutil/kerneltest"
	"github.com/sumacdev/sumac/target/aie1/backend"
)

// TestTraceEngineMatchesReference runs every test kernel with the three-pass engine (trace.go)
// and the single-pass reference engine that carries values through the cycles, and requires
// identical results: cycles, stalls, slot use, counters and the final memory.
func TestTraceEngineMatchesReference(t *testing.T) {
	for _, c := range []struct{ file, def string }{
		{"lei_gemm_16x4.cc", "Kc=64"}, {"lei_gemm_16x4.cc", "Kc=290"}, {"lei_gemm_32x4.cc", "Kc=128"}, {"lei_conv_8x8_u8.cc", ""},
	} {
		var defs []string
		if c.def != "" {
			defs = append(defs, c.def)
		}
		k := kerneltest.Parse(t, c.file, defs...)
		p, data, sizes := compiled(t, k, 3)
		if tr := prepare(p).traced(p); tr.err != nil {
			t.Fatalf("%s %s: no trace: %v", c.file, c.def, tr.err)
		}
		got, err := Run(p, Config{Data: data, Sizes: sizes})
		if err != nil {
			t.Fatalf("%s %s: %v", c.file, c.def, err)
		}
		useReference = true
		want, err := Run(p, Config{Data: data, Sizes: sizes})
		useReference = false
		if err != nil {
			t.Fatalf("%s %s: reference: %v", c.file, c.def, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s: trace engine %+v\nreference %+v", c.file, c.def, *got, *want)
		}
	}
}

// TestMemoryOrderViolation: the caller stores each window's start into its descriptor and the
// kernel loads it back; moving that load above the store (into an earlier bundle with a free
// load slot, where no register dependence stops it) must be reported, not run with the stale
// value.
func TestMemoryOrderViolation(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	p, data, sizes := compiled(t, k, 2)
	// (no run before the change: a program's trace is kept once built)
	// the first store, then the first later load from the same pointer register and offset
	si, li, lj := -1, -1, -1
	var st *backend.Instr
	for i, b := range p.Bundles {
		for j, in := range b.Instrs {
			if in.Mem == nil {
				continue
			}
			if st == nil && in.Mem.Store {
				st, si = in, i
			} else if st != nil && !in.Mem.Store && in.Mem.Ptr.String() == st.Mem.Ptr.String() && in.Mem.Offset == st.Mem.Offset && li < 0 {
				li, lj = i, j
			}
		}
	}
	if si < 0 || li < 0 {
		t.Fatal("no store followed by a load of the same address")
	}
	ld := p.Bundles[li].Instrs[lj]
	moved := false
	for b := si - 1; b >= 0 && !moved; b-- {
		free := true
		for _, x := range p.Bundles[b].Instrs {
			free = free && x.Slot != ld.Slot
		}
		if free {
			p.Bundles[b].Instrs = append(p.Bundles[b].Instrs, ld)
			p.Bundles[li].Instrs = append(p.Bundles[li].Instrs[:lj], p.Bundles[li].Instrs[lj+1:]...)
			moved = true
		}
	}
	if !moved {
		t.Fatal("no bundle to move the load to")
	}
	_, err := Run(p, Config{Data: data, Sizes: sizes})
	if err == nil || !strings.Contains(err.Error(), "memory-order violation") {
		t.Fatalf("want a memory-order violation, got %v", err)
	}
	t.Log(err)
}

// TestSteadySkipMatchesFullCheck runs pass 1 with and without the steady-state skip on the
// test kernels and on Vyasa-style loops, and requires the same verdict and the same final
// checker state; on the test kernels the skip must actually happen.
func TestSteadySkipMatchesFullCheck(t *testing.T) {
	for _, c := range []struct{ file, def string }{
		{"lei_gemm_16x4.cc", "Kc=64"}, {"lei_gemm_16x4.cc", "Kc=256"}, {"lei_gemm_32x4.cc", "Kc=128"}, {"lei_conv_8x8_u8.cc", ""},
	} {
		var defs []string
		if c.def != "" {
			defs = append(defs, c.def)
		}
		k := kerneltest.Parse(t, c.file, defs...)
		p, _, _ := compiled(t, k, 3)
		skipped := compareSkip(t, c.file+" "+c.def, p)
		t.Logf("%s %s: %d iterations skipped", c.file, c.def, skipped)
		if c.file == "lei_gemm_16x4.cc" && skipped == 0 {
			t.Errorf("%s %s: the steady-state skip never applied", c.file, c.def)
		}
	}
}

// compareSkip runs pass 1 on p with the skip on and off and compares; it returns the
// iterations skipped.
func compareSkip(t *testing.T, name string, p *backend.Program) int64 {
	t.Helper()
	pi := prepare(p)
	tr := pi.traced(p)
	if tr.err != nil {
		t.Fatalf("%s: %v", name, tr.err)
	}
	run := func(skip bool) (*timer, error, int64) {
		steadySkip = skip
		defer func() { steadySkip = true }()
		s := &sim{runState: runState{instrs: pi.instrs, res: &Result{}}}
		err := s.timing(tr, pi.tops)
		return s.tm, err, s.steady.skipped
	}
	a, errA, n := run(true)
	b, errB, _ := run(false)
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%s: with skip %v, without %v", name, errA, errB)
	}
	if errA == nil {
		// all a later read (from the cycle after the last instruction's, T) could depend on:
		// the visible write, when it landed unless before T-1, and then the write before it
		// (the snapshot's normalization, steady.go)
		T := int64(tr.issue[len(tr.issue)-1].t) + 1
		for g := range a.cur {
			va, vb := max(a.vis[g]-T, -2), max(b.vis[g]-T, -2)
			if a.cur[g] != b.cur[g] || va != vb || va > -2 && a.prev[g] != b.prev[g] {
				t.Fatalf("%s: unit %s's final checker state differs with the skip", name, unitName(int32(g)))
			}
		}
	}
	return n
}

// TestSteadySkipMutatedLoops moves random instructions of the gemm and 8-bit kernels' loop
// bodies to other bundles of the body (creating latency violations in every iteration, or
// none) and compares pass 1 with and without the skip.
func TestSteadySkipMutatedLoops(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	failed := 0
	for _, c := range []struct {
		file string
		defs []string
	}{{"lei_gemm_16x4.cc", []string{"Kc=128"}}, {"lei_conv_8x8_u8.cc", nil}} {
		k := kerneltest.Parse(t, c.file, c.defs...)
		_, sizes := randomData(t, k, 3)
		for trial := 0; trial < 40; trial++ {
			p, err := backend.Compile(k, backend.Options{Sizes: sizes})
			if err != nil {
				t.Fatal(err)
			}
			l := p.Loops[len(p.Loops)-1]
			from := l.Start + rng.Intn(l.End-l.Start)
			to := l.Start + rng.Intn(l.End-l.Start)
			if len(p.Bundles[from].Instrs) == 0 || from == to {
				continue
			}
			j := rng.Intn(len(p.Bundles[from].Instrs))
			in := p.Bundles[from].Instrs[j]
			free := true
			for _, x := range p.Bundles[to].Instrs {
				free = free && x.Slot != in.Slot
			}
			if !free {
				continue
			}
			p.Bundles[to].Instrs = append(p.Bundles[to].Instrs, in)
			p.Bundles[from].Instrs = append(p.Bundles[from].Instrs[:j], p.Bundles[from].Instrs[j+1:]...)
			pi := prepare(p)
			tr := pi.traced(p)
			s := &sim{runState: runState{instrs: pi.instrs, res: &Result{}}}
			if s.timing(tr, pi.tops) != nil {
				failed++
			}
			compareSkip(t, "mutated "+c.file, p)
			// and the whole run against the reference engine: the same verdict
			data, _ := randomData(t, k, 3)
			_, errT := Run(p, Config{Data: data, Sizes: sizes})
			useReference = true
			_, errR := Run(p, Config{Data: data, Sizes: sizes})
			useReference = false
			if (errT == nil) != (errR == nil) || errT != nil && errT.Error() != errR.Error() {
				t.Fatalf("mutated %s: trace engine %v, reference engine %v", c.file, errT, errR)
			}
		}
	}
	if failed == 0 {
		t.Error("no mutation produced a violation: the test checks nothing")
	}
}

// TestSnapshotNormalization pins the steady-state snapshot's rule for a value no read to come
// can tell apart: the write before the visible one once the visible one landed before cycle
// T-1. States differing only there must compare equal, and states differing in what a read
// can still see must not.
func TestSnapshotNormalization(t *testing.T) {
	const t0 = 1000
	lr := &loopRun{b: 100, stride: 10, units: []int32{0}}
	type st struct {
		cur, prev, vis int64
		pending        []int64 // seqs of writes to unit 0 landing at t0+1
	}
	snap := func(s st) []int64 {
		tm := new(timer)
		tm.reset(nil)
		tm.cur[0], tm.prev[0], tm.vis[0] = s.cur, s.prev, s.vis
		for _, p := range s.pending {
			tm.ring[(t0+1)&63] = append(tm.ring[(t0+1)&63], tWrite{s: 0, seq: p})
		}
		return tm.snapshot(nil, lr, 1, t0, 63)
	}
	same := slices.Equal[[]int64]
	for _, c := range []struct {
		name string
		a, b st
		want bool
	}{
		{"previous write no longer visible", st{cur: 50, prev: 40, vis: t0 - 5}, st{cur: 50, prev: 45, vis: t0 - 5}, true},
		{"previous write still visible", st{cur: 50, prev: 40, vis: t0}, st{cur: 50, prev: 45, vis: t0}, false},
		{"landed long ago, clamped", st{cur: 50, prev: 40, vis: t0 - 5}, st{cur: 50, prev: 40, vis: t0 - 9}, true},
		{"landed at T-1", st{cur: 50, prev: 40, vis: t0 - 1}, st{cur: 50, prev: 40, vis: t0 - 2}, false},
		{"a write in flight", st{cur: 50, prev: 40, vis: t0 - 5, pending: []int64{60}}, st{cur: 50, prev: 40, vis: t0 - 5, pending: []int64{70}}, false},
		{"loop writes by iteration", st{cur: 115, prev: 40, vis: t0 - 5}, st{cur: 125, prev: 40, vis: t0 - 5}, false},
	} {
		if got := same(snap(c.a), snap(c.b)); got != c.want {
			t.Errorf("%s: snapshots equal = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestReadBeforeItsWriter: a read issued before the instruction that must produce its value
// (earlier in program order, later in issue order) is a violation, although no write to the
// unit is in flight or has landed late: pass 1 knows each read's writer from the program
// order, not from the writers issued so far.
func TestReadBeforeItsWriter(t *testing.T) {
	ops := []tInstr{
		{writes: []tOp{{g: 5, s: 5, cyc: 1}}, notes: []int32{5}}, // writes unit 5
		{reads: []tOp{{g: 5, s: 5, cyc: 1}}},                     // reads it
	}
	// program order: the writer (seq 0) then the reader (seq 1); issue order reversed
	tr := &trace{issue: []dyn{{id: 1, t: 0, seq: 1}, {id: 0, t: 1, seq: 0}}, order: []int32{1, 0}, horizon: 8}
	tr.setWants(ops)
	s := &sim{runState: runState{res: &Result{}, instrs: []*backend.Instr{nil, nil}}}
	err := s.timing(tr, ops)
	if err == nil || !strings.Contains(err.Error(), "before its producer's result lands") {
		t.Fatalf("got %v, want a latency violation", err)
	}
	// in program order's issue order it passes
	tr = &trace{issue: []dyn{{id: 0, t: 0, seq: 0}, {id: 1, t: 1, seq: 1}}, order: []int32{0, 1}, horizon: 8}
	tr.setWants(ops)
	if err := s.timing(tr, ops); err != nil {
		t.Fatalf("in order: %v", err)
	}
}

// TestTwinReadsDropped: on the gemm kernel the MACs' X, Z and accumulator operands span
// several units that are always written together, so pass 1 checks fewer reads than the
// instructions make; TestTraceEngineMatchesReference and TestSteadySkipMutatedLoops (whose
// mutations create violations) show the verdicts unchanged.
func TestTwinReadsDropped(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	p, _, _ := compiled(t, k, 3)
	pi := prepare(p)
	pi.traced(p)
	all, kept := 0, 0
	for id, in := range pi.instrs {
		if in == nil {
			continue
		}
		full := timingOps(p, in, pi.kind[id], pi.dec[id])
		all += len(full.reads) + len(full.late)
		kept += len(pi.tops[id].reads) + len(pi.tops[id].late)
	}
	t.Logf("%d of %d reads checked", kept, all)
	if kept >= all {
		t.Errorf("no read dropped (%d of %d kept)", kept, all)
	}
}

// TestDelayedLoadsMatchReference delays each vector load of the gemm kernel's loop body by
// one to three bundles and moves each MAC up to four bundles earlier, swapping places with the
// MAC there (so that a MAC, which
// reads several registers in one cycle, sees an old value) and requires the trace engine's
// verdict to equal the reference engine's: a read dropped for its twin must never hide a
// violation.
func TestDelayedLoadsMatchReference(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	data, sizes := randomData(t, k, 3)
	probe, err := backend.Compile(k, backend.Options{Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	l := probe.Loops[len(probe.Loops)-1]
	tried, failed := 0, 0
	for b := l.Start; b < l.End; b++ {
		for j, in := range probe.Bundles[b].Instrs {
			isLoad := in.Mem != nil && !in.Mem.Store && len(in.Defs) > 0 && in.Defs[0].Reg.File == backend.FileVec
			isMAC := prepare(probe).kind[in.ID] == kMAC
			if !isLoad && !isMAC {
				continue
			}
			for d := -4; d <= 3; d++ {
				// loads later, MACs earlier: either way a MAC reads an operand too soon
				if d == 0 || isLoad && d < 0 || isMAC && d > 0 || b+d < l.Start || b+d >= l.End {
					continue
				}
				p, err := backend.Compile(k, backend.Options{Sizes: sizes})
				if err != nil {
					t.Fatal(err)
				}
				ld := p.Bundles[b].Instrs[j]
				other := -1 // the instruction in ld's slot at b+d: a MAC swaps places with it
				for x, in2 := range p.Bundles[b+d].Instrs {
					if in2.Slot == ld.Slot {
						other = x
					}
				}
				switch {
				case other < 0:
					p.Bundles[b+d].Instrs = append(p.Bundles[b+d].Instrs, ld)
					p.Bundles[b].Instrs = append(p.Bundles[b].Instrs[:j], p.Bundles[b].Instrs[j+1:]...)
				case isMAC:
					p.Bundles[b].Instrs[j], p.Bundles[b+d].Instrs[other] = p.Bundles[b+d].Instrs[other], ld
				default:
					continue
				}
				_, errT := Run(p, Config{Data: data, Sizes: sizes})
				useReference = true
				_, errR := Run(p, Config{Data: data, Sizes: sizes})
				useReference = false
				if (errT == nil) != (errR == nil) || errT != nil && errT.Error() != errR.Error() {
					t.Fatalf("%s moved by %d bundles: trace engine %v, reference engine %v", in.Name, d, errT, errR)
				}
				tried++
				if errT != nil {
					failed++
				}
			}
		}
	}
	if tried == 0 || failed == 0 {
		t.Fatalf("%d moves tried, %d violations: the test checks nothing", tried, failed)
	}
	t.Logf("%d moves, %d violations", tried, failed)
}

// TestLockMisuse: a second acquire of a held lock and a release of a free one are errors,
// worded the same by the trace engine (its fast lock forms) and the reference engine.
func TestLockMisuse(t *testing.T) {
	k := kerneltest.Parse(t, "lei_gemm_16x4.cc", "Kc=64")
	data, sizes := randomData(t, k, 3)
	for _, name := range []string{"acq", "rel"} {
		p, err := backend.Compile(k, backend.Options{Sizes: sizes})
		if err != nil {
			t.Fatal(err)
		}
		// the first instruction called name, issued once more in the bundle after it (or the
		// last bundle) with its slot free
		done := false
		for b := 0; b < len(p.Bundles) && !done; b++ {
			for _, in := range p.Bundles[b].Instrs {
				if in.Name != name || done {
					continue
				}
				for b2 := b + 1; b2 < len(p.Bundles) && !done; b2++ {
					free := true
					for _, x := range p.Bundles[b2].Instrs {
						free = free && x.Slot != in.Slot
					}
					if free {
						dup := *in
						dup.ID = p.NumInstrs
						p.NumInstrs++
						p.Bundles[b2].Instrs = append(p.Bundles[b2].Instrs, &dup)
						done = true
					}
				}
			}
		}
		if !done {
			t.Fatalf("no place for a second %s", name)
		}
		_, errT := Run(p, Config{Data: data, Sizes: sizes})
		useReference = true
		_, errR := Run(p, Config{Data: data, Sizes: sizes})
		useReference = false
		if errT == nil || errR == nil || errT.Error() != errR.Error() || !strings.Contains(errT.Error(), "lock") {
			t.Fatalf("second %s: trace engine %v, reference engine %v", name, errT, errR)
		}
		t.Logf("second %s: %v", name, errT)
	}
}

// TestMergeTwinsRule pins what makes units twins: the same writes at the same cycles and the
// same issued writers. Units 1 and 2 are written together by instruction 0; unit 3 too, but
// instruction 1 also lists it as written (an issued writer without a value of its own, as a
// partial move has); unit 4 is written by instruction 0 one cycle later.
func TestMergeTwinsRule(t *testing.T) {
	ops := []tInstr{
		{writes: []tOp{{g: 1, s: 1, cyc: 2}, {g: 2, s: 2, cyc: 2}, {g: 3, s: 3, cyc: 2}, {g: 4, s: 4, cyc: 3}}, notes: []int32{1, 2, 3, 4}},
		{notes: []int32{3}},
		{reads: []tOp{{g: 1, s: 1, cyc: 1}, {g: 2, s: 2, cyc: 1}, {g: 3, s: 3, cyc: 1}, {g: 4, s: 4, cyc: 1}, {g: 2, s: 2, cyc: 2}}},
	}
	mergeTwins(ops)
	got := ops[2].reads
	want := []tOp{{g: 1, s: 1, cyc: 1}, {g: 3, s: 3, cyc: 1}, {g: 4, s: 4, cyc: 1}, {g: 2, s: 1, cyc: 2}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("reads after merging: %+v, want %+v", got, want)
	}
	if w := ops[0].writes; len(w) != 3 || w[0].g != 1 || w[1].g != 3 || w[2].g != 4 {
		t.Fatalf("writes after merging: %+v", w)
	}
	if n := ops[0].notes; !reflect.DeepEqual(n, []int32{1, 3, 4}) {
		t.Fatalf("issued writers after merging: %v", n)
	}
}

// TestOutOfOrderWriteBack: a write landing after a later instruction's write to the same
// unit is an error naming the unit its instruction writes (not the twin standing for it).
func TestOutOfOrderWriteBack(t *testing.T) {
	s := &sim{runState: runState{res: &Result{}, instrs: []*backend.Instr{nil}}}
	tm := new(timer)
	tm.reset(nil)
	tm.ops = []tInstr{{writes: []tOp{{g: 5, s: 3, cyc: 2}}}}
	tm.cur[3] = 10 // a later write (seq 10) has landed
	tm.ring[7] = append(tm.ring[7], tWrite{s: 3, by: 0, seq: 5})
	err := tm.retire(s, 7)
	if err == nil || !strings.Contains(err.Error(), "out-of-order write-back") || !strings.Contains(err.Error(), unitName(5)) {
		t.Fatalf("got %v, want an out-of-order write-back error naming %s", err, unitName(5))
	}
}
