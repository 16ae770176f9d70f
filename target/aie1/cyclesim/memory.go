package cyclesim

import (
	"github.com/sumacdev/sumac/target/aie1"
)

// Pass 3 (see trace.go): the data-memory accesses in issue order at the addresses pass 2
// computed.

// memGranule is the unit of the memory-order check: the smallest access (a 32-bit scalar).
const memGranule = 4

// memAcc is one data-memory access in issue order: its program-order sequence number and
// the granules [g0, g1) it touches.
type memAcc struct {
	seq    int64
	g0, g1 int32
	k      int32 // trace index
	store  bool
}

// cycleBanks collects the banks of one cycle's memory accesses (two loads and a store).
type cycleBanks struct {
	m [3]uint32
	n int
}

// add notes an access's banks and reports whether it collides with an earlier one of the
// cycle (a stall, aie1.BankConflictStallCycles).
func (c *cycleBanks) add(m uint32) (conflict bool) {
	for _, b := range c.m[:c.n] {
		conflict = conflict || b&m != 0
	}
	if c.n < len(c.m) {
		c.m[c.n] = m
		c.n++
	}
	return conflict
}

// memoryPass adds bank-conflict stall cycles and checks that no access is issued out of
// program order with respect to a store to the same bytes (among the accesses that change
// places with a store at all, markReordered).
func (s *sim) memoryPass(tr *trace) error {
	if !tr.hasMem {
		return nil
	}
	iss := tr.issue
	accs := s.memAccs[:0]
	var banks cycleBanks
	t := int32(-1)
	for _, h := range tr.hot {
		mm := &tr.mems[h]
		d := &iss[mm.k]
		a := int(s.addrs[mm.k])
		n := int(mm.bytes)
		if mm.shared {
			if d.t != t {
				t, banks = d.t, cycleBanks{}
			}
			if banks.add(aie1.AccessBanks(a, n)) {
				s.res.Stalls += aie1.BankConflictStallCycles
			}
		}
		if mm.check {
			accs = append(accs, memAcc{seq: d.seq, g0: int32(a / memGranule), g1: int32((a + n + memGranule - 1) / memGranule), k: mm.k, store: mm.store})
		}
	}
	s.memAccs = accs
	if len(accs) == 0 {
		return nil
	}
	if v := s.memOrder.first(accs); v >= 0 {
		d := &iss[accs[v].k]
		in := s.instrs[d.id]
		s.cycle = int64(d.t)
		what := "load"
		if in.Mem.Store {
			what = "store"
		}
		return s.fail(in, "memory-order violation: %s of %d bytes at %#x issued after an access later in program order to the same bytes (a store or, for a store, a load)", what, in.Mem.Bytes, s.addrs[accs[v].k])
	}
	return nil
}

// markHot marks the accesses that share their issue cycle with another (bank conflicts need
// two) and lists those and the ones the memory-order check needs (markReordered first).
func markHot(tr *trace) {
	ms := tr.mems
	tr.hot = tr.hot[:0]
	for i := range ms {
		t := tr.issue[ms[i].k].t
		ms[i].shared = i > 0 && tr.issue[ms[i-1].k].t == t || i+1 < len(ms) && tr.issue[ms[i+1].k].t == t
		if ms[i].shared || ms[i].check {
			tr.hot = append(tr.hot, int32(i))
		}
	}
}

// markReordered marks the accesses that change places with a store (check): an access and
// a store issued in the opposite order to their program order. Only such pairs can break the
// memory order, whatever the addresses, and both of a pair's accesses are marked; it depends
// on the trace alone (decided once per program).
func markReordered(tr *trace) {
	n := len(tr.mems)
	seq := func(i int) int64 { return tr.issue[tr.mems[i].k].seq }
	const none = int64(1) << 62
	// least seq of all accesses / stores issued after position i
	sufAll, sufSto := make([]int64, n+1), make([]int64, n+1)
	sufAll[n], sufSto[n] = none, none
	for i := n - 1; i >= 0; i-- {
		sufAll[i], sufSto[i] = min(sufAll[i+1], seq(i)), sufSto[i+1]
		if tr.mems[i].store {
			sufSto[i] = min(sufSto[i], seq(i))
		}
	}
	preAll, preSto := -none, -none // largest seq of all accesses / stores issued before
	for i := range tr.mems {
		m, sq := &tr.mems[i], seq(i)
		if m.store {
			m.check = sufAll[i+1] < sq || preAll > sq
			preSto = max(preSto, sq)
		} else {
			m.check = sufSto[i+1] < sq || preSto > sq
		}
		preAll = max(preAll, sq)
	}
}

// memOrder finds accesses issued out of program order with respect to a store to the same
// bytes: an access Y preceded in issue order by an access X later in program order
// (X.seq > Y.seq) where X or Y is a store and the two share a granule. Such an X must
// stay "open" only while an access of smaller seq may still come: after the issue position
// where every later access has a larger seq (suffix minima), it can no longer invert with
// anything, so the open lists stay as short as the schedule's reordering window.
type memOrder struct {
	sufAll, sufSto []int64 // least seq of all accesses / stores after each position
	stores, loads  []int32 // open accesses (indices into accs)
}

// first returns the index of the first access (in issue order) that is out of order, or -1.
func (mo *memOrder) first(accs []memAcc) int {
	n := len(accs)
	if cap(mo.sufAll) < n {
		mo.sufAll, mo.sufSto = make([]int64, n), make([]int64, n)
	}
	sufAll, sufSto := mo.sufAll[:n], mo.sufSto[:n]
	const none = int64(1) << 62
	ma, ms := none, none
	for i := n - 1; i >= 0; i-- {
		sufAll[i], sufSto[i] = ma, ms
		ma = min(ma, accs[i].seq)
		if accs[i].store {
			ms = min(ms, accs[i].seq)
		}
	}
	stores, loads := mo.stores[:0], mo.loads[:0]
	defer func() { mo.stores, mo.loads = stores[:0], loads[:0] }()
	for i := range accs {
		y := &accs[i]
		// open stores: any access may invert with them; open loads: a store may
		var hit bool
		if stores, hit = sweep(accs, stores, y, sufAll[i]); hit {
			return i
		}
		if y.store {
			if loads, hit = sweep(accs, loads, y, sufSto[i]); hit {
				return i
			}
		}
		if y.store && y.seq > sufAll[i] {
			stores = append(stores, int32(i))
		} else if !y.store && y.seq > sufSto[i] {
			loads = append(loads, int32(i))
		}
	}
	return -1
}

// sweep reports whether an open access (indices into accs) was issued before y but comes
// after it in program order and shares a granule with it, and keeps open only those that a
// later access can still invert with (seq above bound, the least seq still to come).
func sweep(accs []memAcc, open []int32, y *memAcc, bound int64) ([]int32, bool) {
	j := 0
	for _, xi := range open {
		x := &accs[xi]
		if x.seq > y.seq && x.g0 < y.g1 && y.g0 < x.g1 {
			return open, true
		}
		if x.seq > bound {
			open[j] = xi
			j++
		}
	}
	return open[:j], false
}
