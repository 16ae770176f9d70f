package cyclesim

import (
	"github.com/sumacdev/sumac/target/aie1"
)

// Pass 3 (see trace.go): the data-memory accesses in issue order at the addresses pass 2
// computed.

// memGranule is the unit of the memory-order check: the smallest access (a 32-bit scalar).
const memGranule = 4

// memOrder remembers, per granule of the data memory, the largest sequence numbers of the
// loads and stores issued so far in this run (valid where stamp equals the run's epoch, so
// nothing is cleared between runs).
type memOrder struct {
	epoch     uint32
	stamp     [aie1.ReachBytes / memGranule]uint32
	load, sto [aie1.ReachBytes / memGranule]int64
}

// memoryPass adds bank-conflict stall cycles and checks that no access is issued out of
// program order with respect to a store to the same bytes.
func (s *sim) memoryPass(tr *trace) error {
	if !tr.hasMem {
		return nil
	}
	mo := s.mo
	if mo == nil {
		mo = new(memOrder)
		s.mo = mo
	}
	mo.epoch++
	if mo.epoch == 0 { // wrapped: forget everything once
		mo.stamp = [len(mo.stamp)]uint32{}
		mo.epoch = 1
	}
	ep := mo.epoch
	iss := tr.issue
	ordered := s.storesInOrder(tr)
	var banks [3]uint32
	nb, t := 0, int32(-1)
	for k := range iss {
		d := &iss[k]
		in := s.instrs[d.id]
		if in.Mem == nil {
			continue
		}
		if d.t != t {
			t, nb = d.t, 0
		}
		a := int(s.addrs[k])
		n := in.Mem.Bytes
		m := aie1.AccessBanks(a, n)
		for i := 0; i < nb; i++ {
			if banks[i]&m != 0 {
				s.res.Stalls += aie1.BankConflictStallCycles
				break
			}
		}
		if nb < len(banks) {
			banks[nb] = m
			nb++
		}
		if ordered {
			continue // no store changes places with any access: nothing can be out of order
		}
		store := in.Mem.Store
		for g := a / memGranule; g < (a+n+memGranule-1)/memGranule && g < len(mo.stamp); g++ {
			if mo.stamp[g] != ep {
				mo.stamp[g], mo.load[g], mo.sto[g] = ep, -1, -1
			}
			if mo.sto[g] > d.seq || store && mo.load[g] > d.seq {
				s.cycle = int64(d.t)
				what := "load"
				if store {
					what = "store"
				}
				return s.fail(in, "memory-order violation: %s of %d bytes at %#x issued after an access later in program order to the same bytes (a store or, for a store, a load)", what, n, a)
			}
			if store {
				mo.sto[g] = max(mo.sto[g], d.seq)
			} else {
				mo.load[g] = max(mo.load[g], d.seq)
			}
		}
	}
	return nil
}

// storesInOrder reports whether the memory accesses are issued in program order wherever a
// store is involved: every store after every access that precedes it in program order and
// before every access that follows it. Then no access can see memory out of program order
// and the per-byte check has nothing to find.
func (s *sim) storesInOrder(tr *trace) bool {
	maxAll, maxStore := int64(-1<<62), int64(-1<<62)
	for k := range tr.issue {
		d := &tr.issue[k]
		m := s.instrs[d.id].Mem
		if m == nil {
			continue
		}
		if m.Store {
			if d.seq < maxAll {
				return false
			}
			maxStore = max(maxStore, d.seq)
		} else if d.seq < maxStore {
			return false
		}
		maxAll = max(maxAll, d.seq)
	}
	return true
}
