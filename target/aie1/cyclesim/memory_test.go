package cyclesim

import (
	"math/rand"
	"testing"
)

// firstByGranules is the memory-order check done the direct way (the engine's former form):
// per granule, the largest seq of the loads and of the stores issued so far.
func firstByGranules(accs []memAcc) int {
	load, sto := map[int32]int64{}, map[int32]int64{}
	get := func(m map[int32]int64, g int32) int64 {
		if v, ok := m[g]; ok {
			return v
		}
		return -1
	}
	for i, a := range accs {
		for g := a.g0; g < a.g1; g++ {
			if get(sto, g) > a.seq || a.store && get(load, g) > a.seq {
				return i
			}
		}
		for g := a.g0; g < a.g1; g++ {
			if a.store {
				sto[g] = max(get(sto, g), a.seq)
			} else {
				load[g] = max(get(load, g), a.seq)
			}
		}
	}
	return -1
}

// TestMemOrderMatchesGranules: the open-list check finds the same first violation as the
// per-granule one on random access streams, from program order to heavily reordered.
func TestMemOrderMatchesGranules(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var mo memOrder
	found := 0
	for trial := 0; trial < 20000; trial++ {
		n := 1 + rng.Intn(40)
		accs := make([]memAcc, n)
		window := rng.Intn(6) // how far an access may move from its program-order place
		seqs := make([]int64, n)
		for i := range seqs {
			seqs[i] = int64(10*i + rng.Intn(1+10*window))
		}
		for i := range accs {
			g0 := int32(rng.Intn(24))
			accs[i] = memAcc{seq: seqs[i], g0: g0, g1: g0 + int32(1+rng.Intn(8)), k: int32(i), store: rng.Intn(3) == 0}
		}
		// seqs must be distinct (one access per dynamic instruction)
		seen := map[int64]bool{}
		dup := false
		for _, a := range accs {
			dup = dup || seen[a.seq]
			seen[a.seq] = true
		}
		if dup {
			continue
		}
		want := firstByGranules(accs)
		if got := mo.first(accs); got != want {
			t.Fatalf("trial %d: first violation at %d, per-granule check says %d\n%+v", trial, got, want, accs)
		}
		// only the accesses that change places with a store need checking (markReordered)
		tr := &trace{}
		for i, a := range accs {
			tr.issue = append(tr.issue, dyn{seq: a.seq})
			tr.mems = append(tr.mems, traceMem{k: int32(i), store: a.store})
		}
		markReordered(tr)
		var some []memAcc
		for i, m := range tr.mems {
			if m.check {
				some = append(some, accs[i])
			}
		}
		got := -1
		if v := mo.first(some); v >= 0 {
			got = int(some[v].k)
		}
		if got != want {
			t.Fatalf("trial %d: the marked accesses' first violation is at %d, all accesses' at %d\n%+v", trial, got, want, accs)
		}
		if want >= 0 {
			found++
		}
	}
	if found < 1000 {
		t.Fatalf("only %d streams with a violation", found)
	}
}
