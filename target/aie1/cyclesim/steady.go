package cyclesim

import "slices"

// Pass 1's steady-state skip. A software-pipelined loop repeats the same bundles with the
// same latencies; only sequence numbers (by the loop's SeqStride per iteration) and cycles
// (by the body's length) move. Pass 1's state at an iteration boundary, normalized, is:
//
//   - every sequence number v from the loop (v >= B, the smallest sequence number of the
//     loop's first iteration) as v - j*stride, and every older one as itself (a constant: all
//     of the loop's readers and writers come after it in program order, so every comparison
//     with it comes out the same in every iteration);
//   - every landing cycle as its distance from the boundary, clamped at -2 (no read of the
//     iteration happens before cycle T-1, so any older landing compares the same), and the
//     write before the visible one only when the visible one landed after that (otherwise no
//     read to come can see it);
//   - the writes and deferred reads still pending, by distance from the boundary.
//
// Pass 1 is a deterministic function of this normalized state and of the iteration's
// instructions and the writers their reads must see (the trace's wants), which are the same
// in every iteration from the second on with sequence numbers and cycles shifted (setWants
// turns the skip off where they are not). So if the normalized states at boundaries j-1 and
// j are equal (and iteration j-1
// passed its checks), every later iteration passes too and ends in the same state, shifted:
// the state at the last iteration's boundary is the state at j with m = n-1-j iterations'
// shift applied, and the checks resume there. TestSteadySkipMatchesFullCheck compares the
// verdicts and states with the skip off.

// loopRun is one activation of an innermost hardware loop in the trace.
type loopRun struct {
	n       int32 // iterations
	l       int32 // cycles per iteration (bundles of the body)
	perIter int32 // trace entries per iteration (0: the skip is off for this run)
	stride  int64 // sequence-number step per iteration
	first   int32 // trace index of iteration 0
	b       int64 // the smallest sequence number of iteration 0
	// units the body reads or writes; no other unit's state can change or matter while the
	// loop repeats (pending writes are compared and shifted whatever their unit)
	units []int32
}

// setUnits fills each run's units from the timing operands of its first iteration, and the
// trace's units and horizon from all instructions'.
func (tr *trace) setUnits(ops []tInstr) {
	var all [numUnits]bool
	tr.horizon = 0
	for i := range ops {
		ti := &ops[i]
		for _, list := range [][]tOp{ti.reads, ti.late, ti.writes} {
			for _, o := range list {
				all[o.s] = true
				tr.horizon = max(tr.horizon, int64(o.cyc))
			}
		}
		for _, g := range ti.notes {
			all[g] = true
		}
	}
	tr.horizon = min(tr.horizon, 63)
	tr.units = []int32{}
	for g, ok := range all {
		if ok {
			tr.units = append(tr.units, int32(g))
		}
	}
	for r := range tr.runs {
		lr := &tr.runs[r]
		if lr.perIter == 0 {
			continue
		}
		seen := map[int32]bool{}
		for k := lr.first; k < lr.first+lr.perIter; k++ {
			ti := &ops[tr.issue[k].id]
			for _, list := range [][]tOp{ti.reads, ti.late, ti.writes} {
				for _, o := range list {
					seen[o.s] = true
				}
			}
			for _, g := range ti.notes {
				seen[g] = true
			}
		}
		for g := int32(0); g < numUnits; g++ {
			if seen[g] {
				lr.units = append(lr.units, g)
			}
		}
	}
}

// iterMark marks the first trace entry of iteration j of a run.
type iterMark struct {
	idx, run, j int32
}

// finishRuns fills perIter and b, and turns the skip off where an iteration's entries are not
// uniform.
func (tr *trace) finishRuns() {
	byRun := make([][]int32, len(tr.runs))
	for _, m := range tr.marks {
		byRun[m.run] = append(byRun[m.run], m.idx)
	}
	for r := range tr.runs {
		lr := &tr.runs[r]
		idx := byRun[r]
		if len(idx) != int(lr.n) || lr.n < 4 {
			continue
		}
		per := idx[1] - idx[0]
		ok := per > 0
		for j := 1; j < len(idx) && ok; j++ {
			ok = idx[j]-idx[j-1] == per
		}
		if !ok {
			continue
		}
		b := tr.issue[idx[0]].seq
		for k := idx[0]; k < idx[1]; k++ {
			b = min(b, tr.issue[k].seq)
		}
		// the entries of iteration j must be those of iteration 0, shifted
		for j := 1; j < len(idx) && ok; j++ {
			for k := int32(0); k < per && ok; k++ {
				a, c := tr.issue[idx[0]+k], tr.issue[idx[j]+k]
				ok = a.id == c.id && c.seq-a.seq == int64(j)*lr.stride && int64(c.t)-int64(a.t) == int64(j)*int64(lr.l)
			}
		}
		if ok {
			lr.perIter, lr.b = per, b
		}
	}
}

// maxSteadyTries bounds the snapshots taken in one run before giving up on it.
const maxSteadyTries = 8

// steady is pass 1's skip state.
type steady struct {
	next      int   // next mark to look at
	run       int32 // run of the snapshot in prev (-1: none)
	tries     int
	prev, cur []int64
	skipped   int64 // iterations not checked one by one (for tests)
}

const relTag = int64(1) << 50

// snapshot appends the normalized state at trace index i (boundary j of lr) to buf.
func (tm *timer) snapshot(buf []int64, lr *loopRun, j int32, t, horizon int64) []int64 {
	shift := int64(j) * lr.stride
	enc := func(v int64) int64 {
		if v >= lr.b {
			return v - shift + relTag
		}
		return v
	}
	base := int64(lr.first) + int64(j)*int64(lr.perIter) // trace index of iteration j
	buf = buf[:0]
	for _, g := range lr.units {
		// the write before the visible one is seen only by a read before the visible one
		// landed; when that was before cycle T-1, no read to come can see it (and it is
		// never the visible one again), so its value is left out
		prev := enc(tm.prev[g])
		if tm.vis[g]-t <= -2 {
			prev = -3
		}
		buf = append(buf, enc(tm.cur[g]), prev, max(tm.vis[g]-t, -2))
	}
	// everything pending is due within the program's horizon (trace.horizon)
	for c := int64(0); c <= horizon; c++ {
		q := tm.ring[(t+c+tm.rot)&63]
		buf = append(buf, int64(len(q)))
		for _, w := range q {
			buf = append(buf, int64(w.s), int64(w.by), enc(w.seq))
		}
		d := tm.defers[(t+c+tm.rot)&63]
		buf = append(buf, int64(len(d)))
		for _, w := range d {
			k := int64(w.k)
			if k >= int64(lr.first) {
				k = k - base + relTag
			}
			buf = append(buf, k)
		}
	}
	return buf
}

// advance shifts the state at a boundary in cycle t by m iterations of lr.
func (tm *timer) advance(lr *loopRun, m int64, t int64) {
	ds, dt := m*lr.stride, m*int64(lr.l)
	sh := func(v int64) int64 {
		if v >= lr.b {
			return v + ds
		}
		return v
	}
	for _, g := range lr.units {
		tm.cur[g], tm.prev[g] = sh(tm.cur[g]), sh(tm.prev[g])
		if tm.vis[g] >= t-2 {
			tm.vis[g] += dt
		}
	}
	// Every pending entry is due in a cycle t+c, c < 64, kept in slot (t+c+rot)&63; m
	// iterations later it is due dt cycles later: the slots stay, rot moves by dt, and the
	// entries are shifted in place.
	tm.rot -= dt
	dk := int32(m) * lr.perIter
	for k := range tm.ring {
		for i := range tm.ring[k] {
			tm.ring[k][i].seq = sh(tm.ring[k][i].seq)
		}
		for i := range tm.defers[k] {
			if d := &tm.defers[k][i]; d.k >= lr.first {
				d.k += dk
			}
		}
	}
}

// boundary is called by pass 1 at trace index i (cycle t) before the cycle is processed; it
// returns the index to continue from and the cycle the state now stands at: i and t, or past
// the run's last iteration (the first entry after the loop, and the cycle its iterations'
// shift reaches; the cycles from there to that entry's are still to be processed), or, when
// an entry after the loop comes before that cycle, the first entry of its last iteration.
// Past the last iteration the state is the one the iterations would leave in all a later
// read can tell apart (the normalization above), not in what it cannot: the landing cycle of
// a write that landed before the boundary (clamped) and the write before it.
func (tm *timer) boundary(tr *trace, st *steady, i int, t int64) (int, int64) {
	for st.next < len(tr.marks) && int(tr.marks[st.next].idx) < i {
		st.next++
	}
	for st.next < len(tr.marks) && int(tr.marks[st.next].idx) == i {
		m := tr.marks[st.next]
		st.next++
		lr := &tr.runs[m.run]
		if lr.perIter == 0 || !steadySkip {
			continue
		}
		if m.j == 0 || st.run != m.run {
			st.run, st.tries, st.prev = m.run, 0, st.prev[:0]
		}
		if m.j == 0 || m.j > lr.n-2 || st.tries >= maxSteadyTries {
			continue
		}
		st.cur = tm.snapshot(st.cur, lr, m.j, t, tr.horizon)
		st.tries++
		if slices.Equal(st.prev, st.cur) {
			skip := int64(lr.n) - int64(m.j) // past the last iteration
			after := i + int(skip)*int(lr.perIter)
			if after < len(tr.issue) && int64(tr.issue[after].t) < t+skip*int64(lr.l) {
				skip-- // to the last iteration instead
			}
			tm.advance(lr, skip, t)
			st.run = -1
			st.skipped += skip
			return i + int(skip)*int(lr.perIter), t + skip*int64(lr.l)
		}
		st.prev, st.cur = st.cur, st.prev
	}
	return i, t
}

// steadySkip turns the skip on (tests turn it off to compare).
var steadySkip = true
