package backend

import (
	"math/rand"
	"testing"

	"github.com/sumacdev/sumac/target/aie1"
)

// bruteMinII finds the least II for which some assignment of issue cycles in [0, horizon) and
// alternatives satisfies every edge and the modulo slot rule, by exhaustive search.
func bruteMinII(nodes []SNode, edges []Edge, maxII, horizon int) int {
	n := len(nodes)
	for ii := 1; ii <= maxII; ii++ {
		time := make([]int, n)
		alt := make([]int, n)
		var rec func(i int) bool
		rec = func(i int) bool {
			if i == n {
				return CheckModulo(nodes, edges, &Schedule{Time: time, Alt: alt, II: ii}) == nil
			}
			for t := 0; t < horizon; t++ {
				for a := range nodes[i].Alts {
					time[i], alt[i] = t, a
					// prune: edges among assigned nodes
					ok := true
					for _, e := range edges {
						if e.From <= i && e.To <= i && time[e.To] < time[e.From]+e.Lat-ii*e.Dist {
							ok = false
							break
						}
					}
					if ok && rec(i+1) {
						return true
					}
				}
			}
			return false
		}
		if rec(0) {
			return ii
		}
	}
	return maxII + 1
}

func TestModuloMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	slots := []uint16{SlotMask(aie1.SlotVEC), SlotMask(aie1.SlotST), SlotMask(aie1.SlotALU)}
	loadAlts := []uint16{SlotMask(aie1.SlotLDA), SlotMask(aie1.SlotLDB)}
	for trial := 0; trial < 150; trial++ {
		n := 2 + rng.Intn(3)
		nodes := make([]SNode, n)
		for i := range nodes {
			if rng.Intn(3) == 0 {
				nodes[i] = SNode{Alts: loadAlts}
			} else {
				nodes[i] = SNode{Alts: []uint16{slots[rng.Intn(len(slots))]}}
			}
		}
		var edges []Edge
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if rng.Intn(3) != 0 {
					continue
				}
				if i < j {
					edges = append(edges, Edge{i, j, rng.Intn(5) - 1, 0})
				} else {
					edges = append(edges, Edge{i, j, 1 + rng.Intn(4), 1})
				}
			}
		}
		want := bruteMinII(nodes, edges, 8, 14)
		got, err := ModuloSchedule(nodes, edges, 8, 0)
		if want > 8 {
			if err == nil {
				t.Fatalf("trial %d: scheduler found II %d where brute force found none", trial, got.II)
			}
			continue
		}
		if err != nil {
			t.Fatalf("trial %d: %v (brute force II %d); nodes %v edges %v", trial, err, want, nodes, edges)
		}
		if got.II != want {
			t.Fatalf("trial %d: II %d, brute force %d; nodes %v edges %v", trial, got.II, want, nodes, edges)
		}
	}
}

func TestModuloMACChain(t *testing.T) {
	// Four accumulator chains of two dependent MACs each plus loads feeding them: the
	// shape of seed 001's loop. II must be 8 (one VEC slot, 8 MACs).
	var nodes []SNode
	var edges []Edge
	ld := func() int {
		nodes = append(nodes, SNode{Alts: []uint16{SlotMask(aie1.SlotLDA), SlotMask(aie1.SlotLDB)}, Mem: true})
		return len(nodes) - 1
	}
	mac := func() int {
		nodes = append(nodes, SNode{Alts: []uint16{SlotMask(aie1.SlotVEC)}})
		return len(nodes) - 1
	}
	a0, a1, b := ld(), ld(), ld()
	var first, second [4]int
	for j := 0; j < 4; j++ {
		first[j] = mac()
		edges = append(edges, Edge{a0, first[j], 8, 0}, Edge{b, first[j], 9, 0})
	}
	for j := 0; j < 4; j++ {
		second[j] = mac()
		edges = append(edges, Edge{a1, second[j], 8, 0}, Edge{b, second[j], 9, 0}, Edge{first[j], second[j], 1, 0}, Edge{second[j], first[j], 1, 1})
	}
	s, err := ModuloSchedule(nodes, edges, 64, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.II != 8 {
		t.Fatalf("II = %d, want 8", s.II)
	}
}

func TestListScheduleLocks(t *testing.T) {
	// acquire, then a load: the load must wait out the lock's 5-cycle requirement.
	nodes := []SNode{
		{Alts: []uint16{SlotMask(aie1.SlotALU)}, Lock: true},
		{Alts: []uint16{SlotMask(aie1.SlotALU)}, Lock: true},
		{Alts: []uint16{SlotMask(aie1.SlotLDA)}, Mem: true},
	}
	var res Reservation
	s, err := ListSchedule(nodes, []Edge{{0, 1, 1, 0}, {1, 2, 1, 0}}, nil, &res)
	if err != nil {
		t.Fatal(err)
	}
	if s.Time[1] < s.Time[0]+aie1.LockBusyCycles || s.Time[2] < s.Time[1]+aie1.LockBusyCycles {
		t.Fatalf("lock spacing violated: %v", s.Time)
	}
}
